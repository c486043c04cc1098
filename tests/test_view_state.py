"""The Attention panel's options are part of the published state (``state.view``): the panel draws them and
writes the user's changes back through the session; saving and opening a session read and write that one
copy, so a restored session shows its view without the window holding one of its own."""

import shutil
from pathlib import Path

import numpy as np
import pytest

from attnviz.core.attention.kind import AttentionKind
from attnviz.figures.attention import AttentionView, available_kinds, fit_view, stack_extent, stack_for
from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.session import InlineRunner, Session
from attnviz.session_file import read_session
from tests.test_session import Recorder

ENC, DEC, CROSS = AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS


def _controls(panel) -> tuple:
    """What the Attention panel's controls show: kind, 1-based layer and head, scores, all heads."""
    return (AttentionKind(panel.kind_box.currentData()), panel.layer_box.value(), panel.head_box.value(),
            panel.scores.isChecked(), panel.all_heads.isChecked())


def test_changing_the_panels_kind_and_options_updates_the_published_view(window):
    window.set_sentence("a b c d", run=True)
    panel = window.attention
    panel.kind_box.setCurrentIndex(panel.kind_box.findData(ENC.value))  # as the user picks it
    assert window.session.state.view.kind is ENC
    assert panel.current.kind is ENC and panel.current.rows == window.session.state.source.tokens
    panel.layer_box.setValue(2)
    panel.head_box.setValue(3)
    panel.scores.setChecked(True)
    assert window.session.state.view == AttentionView(ENC, 1, 2, scores=True)
    assert panel.current.scores and (panel.current.layer, panel.current.head) == (1, 2)


def test_the_view_follows_a_model_with_fewer_layers_and_kinds(window, tiny_models):
    window.set_sentence("a b c d", run=True)
    window.attention.select_view(DEC, 1, 3)
    assert window.session.state.view == AttentionView(DEC, 1, 3)
    window.load(tiny_models["rnn-dot"][0])  # cross-attention only, one layer, one head
    assert window.session.state.view == AttentionView(CROSS, 0, 0)
    assert _controls(window.attention) == (CROSS, 1, 1, False, False)


def test_opening_a_saved_session_shows_its_view_from_the_published_state(window, qtbot, tmp_path, tiny_models):
    folder = tmp_path / "models"
    folder.mkdir()
    checkpoint = Path(shutil.copy(tiny_models["transformer"][0], folder / "mine.safetensors"))
    window.load(checkpoint)
    window.set_sentence("a b c d", run=True)
    window.session.show(1)
    window.attention.select_view(DEC, 1, 3)
    window.attention.scores.setChecked(True)
    shown = window.attention.heatmap.values.copy()
    path = window.save_session(tmp_path / "view.attnviz.json")
    assert read_session(path).view == AttentionView(DEC, 1, 3, scores=True)

    other = MainWindow(Settings(tmp_path / "other.ini"), InlineRunner())  # its own model and view first
    qtbot.addWidget(other)
    other.show()
    other.load(tiny_models["rnn-dot"][0])
    other.set_sentence("d c", run=True)
    assert other.open_session(path)
    assert other.session.state.view == AttentionView(DEC, 1, 3, scores=True)
    assert _controls(other.attention) == (DEC, 2, 4, True, False)
    np.testing.assert_array_equal(other.attention.heatmap.values, shown)
    other.attention.kind_box.setCurrentIndex(other.attention.kind_box.findData(CROSS.value))
    assert other.session.state.view == AttentionView(CROSS, 1, 3, scores=True)


def test_a_session_restored_without_a_window_publishes_the_saved_view(window, tmp_path, tiny_models):
    window.set_sentence("a b c", run=True)
    window.attention.select_view(ENC, 1, 2)
    path = window.save_session(tmp_path / "s.attnviz.json")
    session = Session(Recorder(), InlineRunner())
    session.restore(read_session(path), tiny_models["transformer"][0])
    assert session.state.translation() == window.session.state.translation()
    assert session.state.view == AttentionView(ENC, 1, 2)
    assert session.saved().view == AttentionView(ENC, 1, 2)


@pytest.mark.parametrize("kind", ["transformer", "rnn-additive", "decoder-only"])
def test_the_view_is_fitted_to_the_stack_each_kind_has(tiny_models, kind):
    session = Session(Recorder(), InlineRunner())
    session.load(tiny_models[kind][0])
    session.encode("a b c", run=True)
    source = session.state.source
    for step in (None, *session.state.steps[:2]):
        for attention in available_kinds(source):
            values = stack_for(attention, source, step)[0]
            assert stack_extent(attention, source, step) == values.shape[:2]
            far = fit_view(AttentionView(attention, 99, 99), source, step)
            assert (far.kind, far.layer, far.head) == (attention, values.shape[0] - 1, values.shape[1] - 1)
    if kind.startswith("rnn"):
        assert fit_view(AttentionView(DEC, 1, 1), source, None) == AttentionView(CROSS, 0, 0)
