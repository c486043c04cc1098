"""gpt-oss's learned sink in the Attention dock's All heads grid, as the single map shows it: every panel ends in a
``⟨sink⟩`` column, in the same colours, named on hover, so a row of a panel visibly sums to 1 — and Ctrl+E writes
the grid with that column (a tiny random gpt_oss folder from tests/hf_modern_folders.py, its sinks drawn from
N(0, 1))."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

transformers = pytest.importorskip("transformers")

from attnviz.core.attention.kind import AttentionKind  # noqa: E402
from attnviz.figures.attention import SINK_COLUMN, select  # noqa: E402
from attnviz.gui import file_dialogs  # noqa: E402
from attnviz.gui.grid_pixels import grid_picture  # noqa: E402
from attnviz.gui.head_grid import HeadGrid  # noqa: E402
from attnviz.render.figure_painter import argb_pixels  # noqa: E402
from tests.helpers import WAIT_MS, pixels  # noqa: E402
from tests.hf_modern_folders import make_modern_folder  # noqa: E402

TEXT = "the house is big and the houses are big ."


@pytest.fixture(scope="module")
def gpt_oss_folder(tmp_path_factory) -> Path:
    return make_modern_folder("gpt_oss", tmp_path_factory.mktemp("grid") / "gpt_oss", seed=2, new_tokens=3)


def _grid(window, qtbot, folder: Path, kind: AttentionKind):
    """The window with ``folder`` decoded and the All heads grid of ``kind`` on show, 1024 × 768."""
    window.resize(1024, 768)
    window.load(folder)
    window.set_sentence(TEXT, run=True)
    panel = window.attention
    panel.select_view(kind, 0, 0)
    panel.all_heads.setChecked(True)
    qtbot.waitUntil(lambda: panel.grid.spec is not None and bool(panel.grid.figure_layout().panels), timeout=WAIT_MS)
    return panel, window.session.state


def _rgb(word: int) -> tuple[int, int, int]:
    return (word >> 16) & 255, (word >> 8) & 255, word & 255


def test_every_panel_of_the_grid_ends_in_the_sink_column_the_single_map_has(window, qtbot, errors, gpt_oss_folder):
    panel, state = _grid(window, qtbot, gpt_oss_folder, AttentionKind.ENCODER_SELF)
    for kind in (AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS):
        panel.select_view(kind, 0, 0)
        title = f"gpt_oss · {state.shown_source.layout.kind_label(kind)} · all heads"
        qtbot.waitUntil(lambda title=title: panel.grid.spec is not None and panel.grid.spec.title.startswith(title),
                        timeout=WAIT_MS)
        spec = panel.grid.spec
        layers, heads = panel.grid.shape
        assert (layers, heads) == (4, 4)
        for layer in range(layers):
            for head in range(heads):
                shown = spec.panels[layer * heads + head]
                single = select(kind, layer, head, state.shown_source, state.step)
                assert shown.col_labels[-1] == SINK_COLUMN and shown.col_labels == single.cols
                np.testing.assert_array_equal(shown.values, single.values)  # (the single map's numbers, sink and all)
                assert np.all(shown.values[:, -1] > 1e-4)  # (a sink drawn from N(0, 1) takes a share of every row)
                if kind is not AttentionKind.CROSS:  # (whole rows; the source view's rows are the prompt's share)
                    np.testing.assert_allclose(shown.values.sum(-1), 1.0, atol=1e-5)
                    assert np.all(shown.values[:, :-1].sum(-1) < 1 - 1e-4)  # without the sink a row falls short
    assert not errors, errors


def test_the_sink_cell_is_drawn_in_its_weights_colour_and_named_on_hover(window, qtbot, errors, gpt_oss_folder):
    panel, _state = _grid(window, qtbot, gpt_oss_folder, AttentionKind.DECODER_SELF)
    grid, spec = panel.grid, panel.grid.spec
    cols = spec.panels[0].values.shape[1]
    narrow = grid.figure_layout()  # (in the docked panel the key labels are thinned: the sink's stays)
    assert narrow.col_ticks[-1] == (cols - 1, SINK_COLUMN) and len(narrow.col_ticks) < cols
    at = grid.cell_rect(1, 2, 5, cols - 1).center()  # (the pointer over the sink's cell of layer 2, head 3, row 6)
    assert grid.cell_at(at) == (1, 2, 5, cols - 1)
    QtWidgets.QApplication.sendEvent(grid, QtGui.QMouseEvent(
        QtCore.QEvent.Type.MouseMove, at, grid.mapToGlobal(at), QtCore.Qt.MouseButton.NoButton,
        QtCore.Qt.MouseButton.NoButton, QtCore.Qt.KeyboardModifier.NoModifier))
    sink = spec.panels[1 * grid.shape[1] + 2].values[5, -1]
    assert f"key {SINK_COLUMN}: weight {sink:.4f}" in panel.readout.text()
    assert panel.readout.text().startswith("layer 2 · head 3 · query ")
    large = HeadGrid()  # (the same grid at the screen's size, cells of several pixels, read back pixel by pixel)
    qtbot.addWidget(large)
    large.resize(1024, 768)
    large.show_grid(spec, grid_picture(spec).pixels)
    assert large.cell_rect(0, 0, 0, 0).width() > 6 and large.cell_rect(0, 0, 0, 0).height() > 6
    assert large.figure_layout().col_ticks[-1] == (cols - 1, SINK_COLUMN)
    picture = pixels(large)  # (rows, bytes per line): B, G, R, A per pixel
    for layer, head, row in ((0, 0, 0), (1, 2, 5), (3, 3, spec.panels[0].values.shape[0] - 1)):
        values = spec.panels[layer * grid.shape[1] + head].values
        for col in (cols - 1, 0):  # the sink's cell, and the first key's beside the same row
            centre = large.cell_rect(layer, head, row, col).center()
            x, y = int(centre.x()), int(centre.y())
            b, g, r = picture[y, 4 * x: 4 * x + 3]
            expected = _rgb(int(argb_pixels(values[row: row + 1, col: col + 1], spec.levels, spec.colormap)[0, 0]))
            assert (int(r), int(g), int(b)) == expected, (layer, head, row, col)
    assert not errors, errors


def test_the_single_maps_sink_column_reads_out_its_weight_on_hover(window, qtbot, errors, gpt_oss_folder):
    """The single map's read-out of the sink's cell: its weight (it has no pre-softmax score of a key)."""
    panel, _state = _grid(window, qtbot, gpt_oss_folder, AttentionKind.DECODER_SELF)
    panel.all_heads.setChecked(False)
    qtbot.waitUntil(lambda: panel.current is not None, timeout=WAIT_MS)
    view = panel.current
    assert view.cols[-1] == SINK_COLUMN
    row = view.values.shape[0] - 1
    panel.heatmap.hovered.emit(row, view.values.shape[1] - 1)
    assert f"key <b>{SINK_COLUMN}</b>: weight {view.values[row, -1]:.4f}" in panel.readout.text()
    panel.heatmap.hovered.emit(row, view.values.shape[1] - 2)  # (the last key, the query itself: weight and score)
    assert "score" in panel.readout.text()
    assert not errors, errors


def test_ctrl_e_writes_the_grid_with_the_sink_column(window, qtbot, errors, gpt_oss_folder, tmp_path, monkeypatch):
    _panel, state = _grid(window, qtbot, gpt_oss_folder, AttentionKind.ENCODER_SELF)
    chosen = iter(["grid.csv", "grid.svg", "grid.npy"])
    monkeypatch.setattr(file_dialogs, "save_file_name", lambda *_args: (str(tmp_path / next(chosen)), ""))
    for _ in range(3):
        window.exports.export_action.trigger()
    tokens = state.shown_source.tokens
    lines = (tmp_path / "grid.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == ",".join(["layer", "head", "queries \\ keys", *tokens, SINK_COLUMN])
    assert len(lines) == 1 + 4 * 4 * len(tokens)
    sums = [sum(float(cell) for cell in line.split(",")[3:]) for line in lines[1:]]
    np.testing.assert_allclose(sums, 1.0, atol=1e-5)  # (every row of every head, its sink included)
    grid = np.load(tmp_path / "grid.npy")
    assert grid.shape == (4, 4, len(tokens), len(tokens) + 1)
    np.testing.assert_allclose(grid[..., :-1], state.shown_source.encoder_weights, atol=0)
    svg = (tmp_path / "grid.svg").read_text(encoding="utf-8")
    assert SINK_COLUMN in svg and "all heads" in svg
    assert not errors, errors


@pytest.fixture(scope="module")
def gemma2_folder(tmp_path_factory) -> Path:
    return make_modern_folder("gemma2", tmp_path_factory.mktemp("grid") / "gemma2", seed=2, new_tokens=3)


def test_each_panel_of_the_grid_marks_its_own_layers_mask_as_the_single_map_does(window, qtbot, errors,
                                                                                 gemma2_folder):
    """Gemma 2 alternates sliding-window (3 keys) and global layers: a sliding layer's panel hatches the cells its
    window hid, a global layer's panel does not, each exactly as that layer's single map marks them."""
    panel, state = _grid(window, qtbot, gemma2_folder, AttentionKind.ENCODER_SELF)
    spec, grid = panel.grid.spec, panel.grid
    layers, heads = grid.shape
    masked_cells = []
    for layer in range(layers):
        for head in range(heads):
            shown = spec.panels[layer * heads + head]
            single = select(AttentionKind.ENCODER_SELF, layer, head, state.shown_source, state.step)
            np.testing.assert_array_equal(shown.masked, single.masked)
        masked_cells.append(int(spec.panels[layer * heads].masked.sum()))
    sliding, full = masked_cells[0], masked_cells[1]  # (layer 1 slides, layer 2 reads every earlier key)
    assert sliding > full  # (the window hides keys the causal mask alone would let it read)
    assert grid._runs[0] != grid._runs[heads]  # (the widget hatches each panel's own cells)
    assert not errors, errors
