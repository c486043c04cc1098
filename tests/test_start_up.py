"""What the window opens at start-up: a refused checkpoint (remembered in the settings, named on the
command line or by a session) never leaves it without a model: the shipped Transformer opens instead."""

import json

import pytest

from attnviz.app import _gui_parser, open_at_start
from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.paths import DEFAULT_CHECKPOINT
from attnviz.session import InlineRunner


@pytest.fixture
def broken(tmp_path):
    path = tmp_path / "broken.safetensors"
    path.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json at all}")
    return path


def _start(qtbot, tmp_path, *argv, last_checkpoint=None):
    settings = Settings(tmp_path / "s.ini")
    if last_checkpoint is not None:
        settings.last_checkpoint = str(last_checkpoint)
    window = MainWindow(settings, InlineRunner(), defer_docks=True)
    qtbot.addWidget(window)
    window.show()
    open_at_start(window, _gui_parser().parse_args(list(argv)))
    return window


@pytest.mark.parametrize("where", ["settings", "command line"])
def test_a_refused_checkpoint_at_start_up_opens_the_shipped_transformer(qtbot, tmp_path, broken, errors, where):
    if where == "settings":
        window = _start(qtbot, tmp_path, "--text", "i'm home .", last_checkpoint=broken)
    else:
        window = _start(qtbot, tmp_path, "--checkpoint", str(broken), "--text", "i'm home .")
    state = window.session.state
    assert state.model is not None and state.model.path == DEFAULT_CHECKPOINT
    assert state.finished and state.translation()  # the sentence was translated by it
    assert len(errors) == 1 and "broken.safetensors" in errors[0]
    assert "Opening the shipped model transformer.safetensors instead" in errors[0]


def test_a_session_whose_checkpoint_is_refused_opens_the_shipped_transformer(qtbot, tmp_path, broken, errors):
    session = tmp_path / "lesson.attnviz.json"
    session.write_text(json.dumps({"format": "attnviz-session", "version": 1, "checkpoint": str(broken),
                                   "sentence": "i'm home ."}))
    window = _start(qtbot, tmp_path, "--session", str(session))
    state = window.session.state
    assert state.model is not None and state.model.path == DEFAULT_CHECKPOINT
    assert state.shown_source is not None and state.shown_source.text == "i'm home ."
    assert len(errors) == 1 and "broken.safetensors" in errors[0] and "instead" in errors[0]


def test_a_refused_checkpoint_later_keeps_the_model_on_show(qtbot, tmp_path, broken, tiny_models, errors):
    window = _start(qtbot, tmp_path, "--checkpoint", str(tiny_models["transformer"][0]))
    window.load(broken)
    assert window.session.state.model.path == tiny_models["transformer"][0]
    assert len(errors) == 1 and "instead" not in errors[0]
