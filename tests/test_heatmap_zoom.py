"""A large map on screen (issue 49 §1): a pooled overview sized to the widget's pixels, zoomed with the wheel around
the pointer to the cells at full resolution with their token labels, the read-out and clicks on the right cell."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.figures.spec import FigureSpec
from attnviz.gui.heatmap import Heatmap, max_pooled
from attnviz.render.figure_painter import argb_pixels

S = 2048
ROW, COL = 1500, 700  # the cell zoomed into: one strong weight among faint ones


def _large_figure() -> FigureSpec:
    values = np.full((S, S), 0.001, np.float32)
    values[ROW, COL] = 1.0
    masked = np.triu(np.ones((S, S), bool), 1)
    values[masked] = 0.0
    labels = tuple(f"t{i}" for i in range(S))
    return FigureSpec(values, labels, labels, "layer 1 · head 1", masked=masked)


def _heatmap(qtbot, spec: FigureSpec) -> Heatmap:
    heatmap = Heatmap()
    qtbot.addWidget(heatmap)
    heatmap.resize(640, 600)
    heatmap.show()
    heatmap.show_figure(spec)
    return heatmap


def _wheel(heatmap: Heatmap, at: QtCore.QPointF, notches: int) -> None:
    event = QtGui.QWheelEvent(at, heatmap.mapToGlobal(at), QtCore.QPoint(), QtCore.QPoint(0, 120 * notches),
                              QtCore.Qt.MouseButton.NoButton, QtCore.Qt.KeyboardModifier.NoModifier,
                              QtCore.Qt.ScrollPhase.NoScrollPhase, False)
    QtWidgets.QApplication.sendEvent(heatmap, event)


def _colour_at(heatmap: Heatmap, point: QtCore.QPointF) -> int:
    return heatmap.grab().toImage().pixel(point.toPoint()) & 0xFFFFFF


def test_a_large_map_paints_a_pooled_overview_not_every_cell(qtbot):
    heatmap = _heatmap(qtbot, _large_figure())
    grid = heatmap.figure_layout().grid
    image = heatmap.grab().toImage()
    assert heatmap.is_large() and heatmap._pixels.size == 0  # never coloured whole
    kept = heatmap._region[2]
    assert kept.width() <= grid.width() * heatmap.devicePixelRatioF() and kept.height() < S  # the widget's pixels
    # max pooling: the one strong weight among 4 M faint ones still shows (mean pooling would drown it)
    strong = argb_pixels(np.ones((1, 1), np.float32), (0.0, 1.0), "viridis")[0, 0] & 0xFFFFFF
    cell = heatmap.cell_rect(ROW, COL).center()
    near = [image.pixel(int(cell.x()) + dx, int(cell.y()) + dy) & 0xFFFFFF for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
    assert strong in near
    assert not heatmap.zoomable() or heatmap.view_region() == (0.0, 0.0, S, S)


def test_wheel_zoom_shows_the_cell_under_the_pointer_at_full_resolution_with_its_labels(qtbot):
    heatmap = _heatmap(qtbot, _large_figure())
    assert heatmap.zoomable()
    for _ in range(40):  # notch by notch around the strong cell until a cell is wider than a text line
        _wheel(heatmap, heatmap.cell_rect(ROW, COL).center(), 1)
        if heatmap.cell_rect(ROW, COL).width() > 2 * heatmap._metrics.height():
            break
    grid = heatmap.figure_layout().grid
    rect = heatmap.cell_rect(ROW, COL)
    assert heatmap.is_zoomed() and grid.contains(rect.center()) and rect.width() > heatmap._metrics.height()
    heatmap.grab()
    x, y, width, height = heatmap.view_region()
    assert x <= COL < x + width and y <= ROW < y + height
    assert heatmap._region[1].shape[1] <= width + 1  # the region's cells coloured as they are, no pooling
    strong = argb_pixels(np.ones((1, 1), np.float32), (0.0, 1.0), "viridis")[0, 0] & 0xFFFFFF
    assert _colour_at(heatmap, rect.center()) == strong  # the cell itself, a block of its own colour
    assert _colour_at(heatmap, heatmap.cell_rect(ROW, COL - 1).center()) != strong  # its neighbour is not
    rows, cols = heatmap._ticks(heatmap.figure_layout())
    assert (ROW, f"t{ROW}") in rows and (COL, f"t{COL}") in cols  # its token labels appear
    assert all(y <= i + 0.5 <= y + height for i, _ in rows)  # (only of the rows on show)
    # the hover read-out and a click name the cell under the pointer
    hovered, clicked = [], []
    heatmap.hovered.connect(lambda r, c: hovered.append((r, c)))
    heatmap.clicked.connect(lambda r, c: clicked.append((r, c)))
    qtbot.mouseMove(heatmap, rect.center().toPoint())
    assert hovered[-1] == (ROW, COL) and "t1500 → keys t700: 1" in heatmap.cell_text(*hovered[-1])
    qtbot.mouseClick(heatmap, QtCore.Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    assert clicked == [(ROW, COL)]


def test_a_drag_pans_and_esc_or_a_double_click_returns_to_the_whole_map(qtbot):
    heatmap = _heatmap(qtbot, _large_figure())
    centre = heatmap.figure_layout().grid.center()
    _wheel(heatmap, centre, 12)
    x, y, width, _ = heatmap.view_region()
    assert width < S / 10
    clicked = []
    heatmap.clicked.connect(lambda r, c: clicked.append((r, c)))
    start = centre.toPoint()
    qtbot.mousePress(heatmap, QtCore.Qt.MouseButton.LeftButton, pos=start)
    for step in range(1, 6):
        at = QtCore.QPointF(start + QtCore.QPoint(20 * step, 0))
        move = QtGui.QMouseEvent(QtCore.QEvent.Type.MouseMove, at, heatmap.mapToGlobal(at),
                                 QtCore.Qt.MouseButton.NoButton, QtCore.Qt.MouseButton.LeftButton,
                                 QtCore.Qt.KeyboardModifier.NoModifier)
        QtWidgets.QApplication.sendEvent(heatmap, move)
    qtbot.mouseRelease(heatmap, QtCore.Qt.MouseButton.LeftButton, pos=start + QtCore.QPoint(100, 0))
    assert heatmap.view_region()[0] < x and heatmap.view_region()[1] == y and not clicked  # dragged right: left part
    heatmap.setFocus()
    qtbot.keyClick(heatmap, QtCore.Qt.Key.Key_Escape)
    assert not heatmap.is_zoomed() and heatmap.view_region() == (0.0, 0.0, S, S)
    heatmap.grab()
    assert heatmap._region[2].width() < S  # the overview again
    _wheel(heatmap, centre, 3)
    assert heatmap.is_zoomed()
    qtbot.mouseDClick(heatmap, QtCore.Qt.MouseButton.LeftButton, pos=start)
    assert not heatmap.is_zoomed()
    _wheel(heatmap, centre, 3)
    _wheel(heatmap, centre, -6)  # zoomed all the way out: the whole map
    assert not heatmap.is_zoomed()


def test_a_small_map_whose_labels_all_show_does_not_take_the_wheel(qtbot):
    words = ("i", "think", "we", "should", "go")
    spec = FigureSpec(np.random.default_rng(0).random((5, 5)).astype(np.float32), words, words, "small")
    heatmap = _heatmap(qtbot, spec)
    before = heatmap.grab().toImage()
    assert not heatmap.zoomable()
    _wheel(heatmap, heatmap.figure_layout().grid.center(), 3)
    assert not heatmap.is_zoomed() and heatmap.grab().toImage() == before


def test_a_zoomed_small_map_shows_its_cells_as_blocks(qtbot):
    values = np.random.default_rng(1).random((300, 300)).astype(np.float32)
    labels = tuple(f"w{i}" for i in range(300))
    heatmap = _heatmap(qtbot, FigureSpec(values, labels, labels, "300"))
    assert not heatmap.is_large() and heatmap.zoomable()  # (labels thinned)
    for _ in range(30):
        _wheel(heatmap, heatmap.cell_rect(150, 150).center(), 1)
    rect = heatmap.cell_rect(150, 150)
    colour = argb_pixels(values[150:151, 150:151], (0.0, 1.0), "viridis")[0, 0] & 0xFFFFFF
    assert _colour_at(heatmap, rect.center()) == colour
    rows = heatmap._ticks(heatmap.figure_layout())[0]
    assert (150, "w150") in rows and [i for i, _ in rows] == list(range(rows[0][0], rows[0][0] + len(rows)))


def test_max_pooling_keeps_a_lone_weight_and_leaves_nan_out():
    values = np.zeros((10, 10), np.float32)
    values[7, 3] = 0.9
    values[:5, 5:] = np.nan
    values[0, 9] = np.nan
    pooled = max_pooled(values, 4, 4)
    assert pooled.shape == (3, 3) and pooled[1, 0] == np.float32(0.9)
    assert np.isnan(pooled[0, 2]) and pooled[0, 1] == 0.0  # (a block of only NaN stays NaN; a mixed one is its max)


def test_the_region_on_show_stays_for_another_map_of_the_same_length(qtbot):
    from attnviz.figures.spec import empty_figure

    heatmap = _heatmap(qtbot, _large_figure())
    _wheel(heatmap, heatmap.cell_rect(ROW, COL).center(), 10)
    region = heatmap.view_region()
    heatmap.show_figure(empty_figure("Computing layer 2, head 1…"))  # (a long prompt's map on its way)
    heatmap.grab()
    heatmap.show_figure(_large_figure())
    assert heatmap.view_region() == region
    words = ("a", "b", "c", "d", "e", "f")
    heatmap.show_figure(FigureSpec(np.ones((6, 6), np.float32), words, words, "another text"))
    assert not heatmap.is_zoomed()


def _zoom_onto(heatmap: Heatmap, row: int, col: int) -> None:
    """Wheel notches at cell (row, col) until its cells are wider than a text line."""
    for _ in range(40):
        _wheel(heatmap, heatmap.cell_rect(row, col).center(), 1)
        if heatmap.cell_rect(row, col).width() > 2 * heatmap._metrics.height():
            break


def test_zoomed_in_the_axes_the_tooltip_and_the_cell_text_say_which_positions_are_on_show(qtbot):
    heatmap = _heatmap(qtbot, _large_figure())
    assert heatmap.axis_names() == ("queries", "keys")  # the whole map: the axes' own names
    _zoom_onto(heatmap, ROW, COL)
    _x, _y, width, height = heatmap.view_region()
    rows_name, cols_name = heatmap.axis_names()
    first_row, last_row = (int(n.replace(",", "")) for n in rows_name.split(" ")[1].split("–"))
    first_col, last_col = (int(n.replace(",", "")) for n in cols_name.split(" ")[1].split("–"))
    assert rows_name.startswith("queries ") and rows_name.endswith(" of 2,048")
    assert cols_name.startswith("keys ") and cols_name.endswith(" of 2,048")
    assert first_row <= ROW + 1 <= last_row and first_col <= COL + 1 <= last_col  # counted from 1
    assert abs((last_row - first_row + 1) - height) <= 1 and abs((last_col - first_col + 1) - width) <= 1
    # the cell under the pointer names its position, whatever its token
    assert heatmap.cell_text(ROW, COL).endswith(f"position {ROW + 1:,} → {COL + 1:,}")
    # the name under the cells is painted: its pixels differ from the whole map's, where it said only "keys"
    image = heatmap.grab().toImage()
    grid = heatmap.figure_layout().grid
    band = QtCore.QRect(int(grid.left()), int(grid.bottom()) + 2, int(grid.width()),
                        int(heatmap.height() - grid.bottom() - 2))
    zoomed = image.copy(band)
    heatmap.reset_zoom()
    whole = heatmap.grab().toImage().copy(band)
    assert zoomed != whole


def test_the_cell_read_out_follows_a_new_layout_under_a_still_pointer(qtbot):
    values = np.random.default_rng(0).random((40, 40)).astype(np.float32)
    labels = tuple(f"w{i}" for i in range(40))
    heatmap = _heatmap(qtbot, FigureSpec(values, labels, labels, "a map"))
    hovered: list[tuple[int, int]] = []
    heatmap.hovered.connect(lambda row, col: hovered.append((row, col)))
    at = heatmap.cell_rect(30, 30).center().toPoint()
    qtbot.mouseMove(heatmap, at)
    assert hovered[-1] == (30, 30)
    heatmap.resize(400, 380)  # the dock lays itself out again; the pointer has not moved
    assert hovered[-1] == heatmap.cell_at(QtCore.QPointF(at)) != (30, 30)  # the cell now under it, as the tooltip
