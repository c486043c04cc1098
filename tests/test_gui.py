"""Drive the real main window the way a user does (offscreen Qt, synchronous session)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from attnviz.gui.main_window import MainWindow
from attnviz.gui.selection import AttentionKind
from attnviz.gui.settings import Settings
from attnviz.session import InlineRunner

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def errors(monkeypatch):
    shown: list[str] = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning", lambda _parent, _title, text: shown.append(text))
    return shown


@pytest.fixture
def window(qtbot, tmp_path, tiny_models, errors):
    win = MainWindow(Settings(tmp_path / "settings.ini"), InlineRunner())
    qtbot.addWidget(win)
    win.show()
    win.load(tiny_models["transformer"][0])
    return win


def image_of(widget) -> np.ndarray:
    image = widget.grab().toImage().convertToFormat(widget.grab().toImage().Format.Format_RGB32)
    ptr = image.constBits()
    return np.frombuffer(ptr, np.uint8).reshape(image.height(), image.bytesPerLine())[:, : image.width() * 4].copy()


def test_run_shows_cross_attention_with_token_axes(window):
    window.set_sentence("a b c d", run=True)
    step = window.session.steps[-1]
    assert step.finished and " ".join(step.output_tokens) == "dx cx bx ax"
    assert window.attention.kind is AttentionKind.CROSS
    heatmap = window.attention.heatmap
    assert heatmap.values.shape == (len(step.query_tokens), 4)  # decoded tokens × source tokens
    assert heatmap.col_labels == ("a", "b", "c", "d")
    assert heatmap.row_labels == step.query_tokens
    np.testing.assert_allclose(heatmap.values.sum(axis=1), 1, rtol=1e-5)
    assert "dx cx bx ax" in window.output.text()
    assert window.topk.rowCount() == 5


def test_typing_step_back_and_scrub(window, qtbot):
    window.sentence.clear()
    qtbot.keyClicks(window.sentence, "b c e")
    qtbot.waitUntil(lambda: window.source is not None and window.source.tokens == ("b", "c", "e"), timeout=3000)
    rows = []
    for _ in range(3):
        qtbot.mouseClick(window.step_button, QtCore.Qt.MouseButton.LeftButton)
        rows.append(window.attention.heatmap.values.shape[0])
    assert rows == [1, 2, 3]  # the cross-attention matrix grows one row per step
    window.back_action.trigger()
    assert window.attention.heatmap.values.shape[0] == 2
    window.timeline.setValue(1)
    assert window.session.position == 0 and window.attention.heatmap.values.shape[0] == 1
    window.step_action.trigger()  # re-shows the recorded step 2, no new decoding
    assert len(window.session.steps) == 3 and window.attention.heatmap.values.shape[0] == 2


def test_switching_kind_layer_and_head_changes_the_picture(window):
    window.set_sentence("a b c d e", run=True)
    panel = window.attention
    panel.select_view(AttentionKind.ENCODER_SELF, 0, 0)
    assert panel.heatmap.values.shape == (5, 5)
    first = image_of(panel.heatmap)
    panel.select_view(AttentionKind.ENCODER_SELF, 0, 1)
    assert panel.current.head == 1
    assert not np.array_equal(first, image_of(panel.heatmap))
    panel.select_view(AttentionKind.DECODER_SELF, 1, 3)
    steps = len(window.session.steps)
    assert panel.heatmap.values.shape == (steps, steps)
    assert np.all(panel.heatmap.values[np.triu_indices(steps, 1)] == 0)  # nothing on future positions
    panel.scores.setChecked(True)
    assert panel.heatmap.values.shape == (steps, steps)
    assert panel.heatmap.values.min() < 0 or panel.heatmap.values.max() > 1  # raw scores, not weights
    panel.all_heads.setChecked(True)
    assert panel.grid.shape == (2, 4)


def test_bad_checkpoint_shows_error_and_keeps_model(window, tmp_path, errors):
    bad = tmp_path / "broken.safetensors"
    bad.write_bytes(b"not a model")
    window.load(bad)
    assert errors and "broken.safetensors: not a readable safetensors file" in errors[-1]
    assert window.info.kind == "transformer"
    window.set_sentence("a b", run=True)
    assert window.session.translation() == "bx ax"


def test_overlong_input_is_truncated_with_a_notice(window):
    window.set_sentence(" ".join(["a"] * 1000))
    assert len(window.source.tokens) == 10
    assert "truncated from 1000 to 10 tokens" in window.notice.text()


def test_rnn_model_offers_cross_attention_only(window, tiny_models):
    window.load(tiny_models["rnn-additive"][0])
    window.set_sentence("a b c", run=True)
    kinds = [window.attention.kind_box.itemData(i) for i in range(window.attention.kind_box.count())]
    assert kinds == [AttentionKind.CROSS.value]
    assert window.attention.heatmap.values.shape[1] == 3


def test_dock_layout_is_restored(qtbot, tmp_path, tiny_models, errors):
    settings_path = tmp_path / "layout.ini"
    first = MainWindow(Settings(settings_path), InlineRunner())
    qtbot.addWidget(first)
    first.show()
    first.docks["positional"].close()
    first.close()
    second = MainWindow(Settings(settings_path), InlineRunner())
    qtbot.addWidget(second)
    second.show()
    assert not second.docks["positional"].isVisible()
    assert second.docks["attention"].isVisible()
    assert all(dock.objectName() for dock in second.docks.values())


def test_main_py_launches_and_quits_cleanly(tmp_path, tiny_models):
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--checkpoint", str(tiny_models["transformer"][0]), "--text",
         "a b c", "--settings", str(tmp_path / "s.ini"), "--quit-after", "1500"],
        capture_output=True, text=True, timeout=120, env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Fatal" not in done.stderr
    assert "last_checkpoint" in (tmp_path / "s.ini").read_text()
