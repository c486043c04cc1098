"""The Heads dock: the atlas of the open model over the session's sentences or a file, a head clicked shows in the
Attention dock, heads switched off from the grid decode the sentence again (the same tokens as the core's own masked
decoding), the pruning curve, and Cancel on the app's threads."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from PySide6 import QtCore

from attnviz.core.attention.kind import AttentionKind
from tests.helpers import WAIT_MS, raised, settle

SENTENCES = ("a b c", "d e f g", "b a")


def _decoded(window, qtbot, text: str) -> None:
    window.set_sentence(text, run=True)
    qtbot.waitUntil(lambda: window.session.state.finished, timeout=WAIT_MS)


def _cell(panel, name: str) -> tuple[int, int]:
    """(row, column) of head ``name`` (``cross:2.1``) in the grid."""
    for row, cells in enumerate(panel.cells):
        for col, (kind, layer, head) in enumerate(cells):
            if f"{kind.slug}:{layer + 1}.{head + 1}" == name:
                return row, col
    raise AssertionError(name)


def test_the_atlas_of_the_sessions_sentences_fills_the_grid_and_a_click_shows_the_head(window, qtbot, errors):
    for text in SENTENCES:
        _decoded(window, qtbot, text)
    panel = raised(window, "heads")
    panel.map_heads()
    qtbot.waitUntil(lambda: window.session.state.atlas is not None, timeout=WAIT_MS)
    atlas = window.session.state.atlas
    assert atlas.sentences == len(SENTENCES) and atlas.target == "model output"
    assert [panel.statistic_box.itemData(i) for i in range(panel.statistic_box.count())][:2] == ["entropy",
                                                                                                "confidence"]
    panel.statistic_box.setCurrentIndex(panel.statistic_box.findData("importance"))
    cross = next(k for k in atlas.kinds if k.kind is AttentionKind.CROSS)
    row, _ = _cell(panel, "cross:2.1")
    np.testing.assert_allclose(panel.grid.spec.values[row], cross.importance[1], rtol=1e-6)
    assert panel.grid.spec.row_labels[:2] == ("enc-self 1", "enc-self 2") and len(panel.grid.spec.col_labels) == 4
    settle(window)
    grid_size = panel.grid.size()
    panel._on_grid_hovered(row, 2)
    assert panel.readout.text().startswith("<b>cross:2.3</b>") and "confidence" in panel.readout.text()
    assert "position" not in panel.grid.cell_text(row, 2)  # (a cell is a head: no query and key positions)
    settle(window)
    assert panel.grid.size() == grid_size  # the read-out had its room already: the grid does not jump
    panel._on_grid_hovered(-1, -1)
    settle(window)
    assert panel.grid.size() == grid_size and "Point at a head" in panel.readout.text()
    panel.grid.clicked.emit(row, 2)
    view = window.session.state.view
    assert (view.kind, view.layer, view.head) == (AttentionKind.CROSS, 1, 2)
    centre = panel.grid.cell_rect(row, 2).center().toPoint()
    qtbot.mouseClick(panel.grid, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.ControlModifier, centre)
    qtbot.waitUntil(lambda: window.session.state.model.heads_off == "cross:2.3", timeout=WAIT_MS)  # Ctrl+click
    assert not errors, errors


def test_heads_switched_off_decode_the_sentence_again_as_the_core_does(window, qtbot, errors, tiny_models):
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.heads import HeadGates, HeadMask, decode_masked

    _decoded(window, qtbot, "a b c d")
    before = window.session.state.steps[-1].output_tokens
    panel = raised(window, "heads")
    panel.map_heads()
    qtbot.waitUntil(lambda: window.session.state.atlas is not None, timeout=WAIT_MS)
    off = ["cross:1.1", "cross:1.2", "cross:2.1", "cross:2.2", "cross:2.3"]
    panel.switch_off(off)
    qtbot.waitUntil(lambda: window.session.state.model.heads_off == ",".join(off) and window.session.state.finished,
                    timeout=WAIT_MS)
    loaded = load_checkpoint(tiny_models["transformer"][0])
    expected = decode_masked(loaded, "a b c d", HeadMask.parse(",".join(off), HeadGates(loaded.model).layout))
    state = window.session.state
    assert state.steps[-1].output_tokens == expected[-1].output_tokens
    np.testing.assert_allclose(state.steps[-1].cross_weights, expected[-1].cross_weights, atol=1e-6)
    assert panel.banner.isVisibleTo(panel) and "cross:2.3" in panel.banner.text()
    assert "heads off cross:1.1" in window.attention.heatmap.spec.title  # (every title and export says so)
    row, col = _cell(panel, "cross:2.3")
    assert panel.grid.spec.masked[row, col] and not panel.grid.spec.masked[row, 3]
    panel._on_toggle_requested(row, col)  # the grid's context menu: that head on again
    qtbot.waitUntil(lambda: "cross:2.3" not in window.session.state.model.heads_off, timeout=WAIT_MS)
    panel.all_on_button.click()
    qtbot.waitUntil(lambda: window.session.state.model.heads_off == "" and window.session.state.finished,
                    timeout=WAIT_MS)
    assert window.session.state.steps[-1].output_tokens == before and not panel.banner.isVisibleTo(panel)
    assert not errors, errors


def test_a_head_that_does_not_exist_is_refused_in_one_sentence(window, qtbot, errors):
    _decoded(window, qtbot, "a b")
    raised(window, "heads").switch_off(["cross:9.1"])
    qtbot.waitUntil(lambda: bool(errors), timeout=WAIT_MS)
    assert "9" in errors[-1] and window.session.state.model.heads_off == ""


def test_the_pruning_curve_of_a_file_with_references_is_drawn_with_the_heads_off_marked(window, qtbot, errors,
                                                                                       tmp_path):
    from tests.tiny import write_reversal_data

    data = write_reversal_data(tmp_path / "pairs.tsv", n=40, seed=3)
    _decoded(window, qtbot, "a b c")
    panel = raised(window, "heads")
    panel.map_heads(data)
    qtbot.waitUntil(lambda: window.session.state.atlas is not None, timeout=WAIT_MS)
    assert window.session.state.atlas.target == "references"
    window.session.compute_pruning(seeds=1)
    qtbot.waitUntil(lambda: window.session.state.pruning is not None, timeout=WAIT_MS)
    curve = window.session.state.pruning
    x, y = panel.importance_curve.getData()
    assert len(x) == 3 * 2 * 4 + 1 and y[0] == curve.importance_bleu[0] == curve.random_mean[0]
    assert panel.tabs.currentWidget() is panel.curve_view and panel.mark.value() == 0
    assert not errors, errors


@pytest.mark.usefixtures("tiny_models")
def test_cancel_on_the_app_threads_stops_the_atlas_and_shows_nothing(qtbot, tmp_path, tiny_models, errors,
                                                                     monkeypatch):
    import attnviz.core.heads as heads
    from attnviz.gui.main_window import MainWindow, Poster
    from attnviz.gui.settings import Settings
    from attnviz.session import ThreadRunner

    runner = ThreadRunner(Poster().post)
    window = MainWindow(Settings(tmp_path / "settings.ini"), runner)
    qtbot.addWidget(window)
    window.show()
    try:
        window.load(tiny_models["transformer"][0])
        qtbot.waitUntil(lambda: window.session.state.model is not None, timeout=WAIT_MS)
        window.set_sentence("a b c", run=True)
        qtbot.waitUntil(lambda: window.session.state.finished, timeout=WAIT_MS)
        go, real = threading.Event(), heads.compute_atlas

        def held(*args, **kwargs):
            go.wait()
            return real(*args, **kwargs)

        monkeypatch.setattr(heads, "compute_atlas", held)
        panel = raised(window, "heads")
        panel.map_heads()
        assert panel.progress.isVisibleTo(panel) and not panel.map_button.isEnabled()
        panel.cancel_button.click()
        go.set()
        qtbot.waitUntil(lambda: window.session.state.atlas_progress is None, timeout=WAIT_MS)
        assert window.session.state.atlas is None and not errors and panel.map_button.isEnabled()
    finally:
        runner.shutdown()


def test_a_saved_session_brings_its_heads_off_back(window, qtbot, tmp_path, errors):
    """Sessions save the heads switched off; opening one switches them off again before its steps are replayed,
    in a fresh window (the model loads first) and in the window that has the model open with other heads off."""
    import json

    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings
    from attnviz.session import InlineRunner

    _decoded(window, qtbot, "a b c d")
    window.panels.panels["heads"].switch_off(["cross:2.1", "enc-self:1.3"])
    qtbot.waitUntil(lambda: window.session.state.model.heads_off != "" and window.session.state.finished,
                    timeout=WAIT_MS)
    window.session.show(1)
    shown = window.session.state.steps
    path = window.save_session(tmp_path / "off.attnviz.json")
    assert json.loads(path.read_text(encoding="utf-8"))["heads_off"] == "enc-self:1.3,cross:2.1"
    other = MainWindow(Settings(tmp_path / "other.ini"), InlineRunner())
    qtbot.addWidget(other)
    assert other.open_session(path)
    state = other.session.state
    assert state.model.heads_off == "enc-self:1.3,cross:2.1" and state.position == 1
    assert [s.token for s in state.steps] == [s.token for s in shown]
    np.testing.assert_allclose(state.steps[-1].cross_weights, shown[-1].cross_weights, atol=1e-6)
    window.panels.panels["heads"].switch_off([])
    assert window.open_session(path) and window.session.state.model.heads_off == "enc-self:1.3,cross:2.1"
    assert [s.token for s in window.session.state.steps] == [s.token for s in shown]
    assert not errors, errors


def test_the_all_heads_grid_switches_the_head_under_the_pointer_off_and_on(window, qtbot, errors):
    from attnviz.figures.attention import AttentionView

    _decoded(window, qtbot, "a b c")
    window.attention.set_view(AttentionView(AttentionKind.CROSS, 0, 0, all_heads=True))
    grid = window.attention.grid
    assert grid.switchable(1, 0) is False
    grid.toggle_requested.emit(1, 0)  # its context menu's "Switch head 2.1 off"
    qtbot.waitUntil(lambda: window.session.state.model.heads_off == "cross:2.1", timeout=WAIT_MS)
    assert grid.switchable(1, 0) is True and grid.switchable(1, 1) is False
    grid.toggle_requested.emit(1, 0)
    qtbot.waitUntil(lambda: window.session.state.model.heads_off == "", timeout=WAIT_MS)
    assert not errors, errors


def test_a_hugging_face_folders_heads_are_mapped_and_switched_off_but_not_explained_here(window, qtbot, errors,
                                                                                          tmp_path):
    pytest.importorskip("transformers")
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.heads import HeadMask, decode_masked, head_layout
    from tests.hf_folders import make_folder

    folder = make_folder("marian", tmp_path / "marian")
    window.load(folder)
    qtbot.waitUntil(lambda: window.session.state.model is not None and window.session.state.model.kind != "transformer",
                    timeout=WAIT_MS)
    assert window.session.state.model.heads_switch and not window.session.state.model.explains
    for text in ("the house is big .", "he was there ."):
        _decoded(window, qtbot, text)
    heads = raised(window, "heads")
    assert heads.map_button.isEnabled()
    heads.map_heads()
    qtbot.waitUntil(lambda: window.session.state.atlas is not None, timeout=WAIT_MS)
    assert [k.kind.slug for k in window.session.state.atlas.kinds] == ["enc-self", "dec-self", "cross"]
    heads.switch_off(["cross:2.1", "enc:1.2"])
    qtbot.waitUntil(lambda: window.session.state.model.heads_off == "enc-self:1.2,cross:2.1"
                    and window.session.state.finished, timeout=WAIT_MS)
    loaded = load_checkpoint(folder)
    mask = HeadMask.parse("cross:2.1,enc:1.2", head_layout(loaded.model))
    expected = decode_masked(loaded, "he was there .", mask)
    np.testing.assert_allclose(window.session.state.steps[-1].cross_weights, expected[-1].cross_weights, atol=1e-6)
    assert window.attention.grid.switchable(0, 0) is not None  # ("Switch head off" in the All heads menu)
    explain = raised(window, "explain")
    assert "attnviz's own models" in explain.rows.spec.title and not errors, errors
