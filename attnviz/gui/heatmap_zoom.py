"""Zoom and the overview of long maps (issue 49): where the token labels are thinned, the mouse wheel zooms around
the pointer, a drag pans, a double-click, Esc or the context menu go back to the whole map. A large map (over
LARGE_CELLS cells) is never coloured whole: the region on show is max-pooled down to the widget's pixels and coloured,
drawn at full resolution once its cells are larger than a pixel; the labels and axis names follow the region.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.gui.heatmap_layout import HeatmapLayout
from attnviz.gui.heatmap_readout import HeatmapReadout
from attnviz.i18n import tr
from attnviz.render.figure_painter import (
    LABEL_GAP,
    MASK_FILL,
    MASK_HATCH,
    NUMERIC_SPACING,
    argb_pixels,
    masked_runs,
    numeric_label_width,
    numeric_ticks,
    qimage_of,
)

LARGE_CELLS = 1 << 20  # a map with more cells is coloured only as seen (pooled to the widget's pixels)
MIN_VIEW_CELLS = 4  # zoomed in as far as this many cells across
ZOOM_STEP = 1.25  # the view shrinks by this per wheel notch


def max_pooled(values: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """values (Q, K) reduced to the max over blocks of ``rows`` × ``cols`` cells (the last ones cut short), as float32
    (ceil(Q / rows), ceil(K / cols)). NaN cells (masked scores) are left out of a block's max; a block of only NaN stays
    NaN. Max rather than mean: one strong weight among near-zero ones keeps its colour in the overview.

    Made with one whole-array ``fmax`` per cell of a block's side (``values[:, k::cols]``), never a padded copy nor a
    reduction over a short inner axis: the overview of a 2,720-token prompt's map is painted on the GUI thread, and
    those took it most of a second."""
    values = np.asarray(values, np.float32)
    if rows == 1 and cols == 1:
        return values
    return _block_reduce(_block_reduce(values, cols, 1, np.fmax), rows, 0, np.fmax)


def _block_reduce(values: np.ndarray, size: int, axis: int, combine: np.ufunc) -> np.ndarray:
    """``values`` reduced by ``combine`` (fmax, logical_and …) over blocks of ``size`` along ``axis`` (the last block
    cut short): ceil(n / size) along that axis."""
    if size == 1:
        return values
    every = [slice(None)] * values.ndim
    every[axis] = slice(0, None, size)
    reduced = values[tuple(every)].copy()
    for offset in range(1, min(size, values.shape[axis])):
        every[axis] = slice(offset, None, size)
        part = values[tuple(every)]  # (one block fewer where the last block is cut short before ``offset``)
        head = [slice(None)] * values.ndim
        head[axis] = slice(0, part.shape[axis])
        target = reduced[tuple(head)]
        combine(target, part, out=target)
    return reduced


def all_pooled(masked: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """masked (Q, K) bool reduced to blocks of ``rows`` × ``cols`` cells: True where every cell of the block is."""
    masked = np.asarray(masked, bool)
    if rows == 1 and cols == 1:
        return masked
    return _block_reduce(_block_reduce(masked, cols, 1, np.logical_and), rows, 0, np.logical_and)


def visible_ticks(labels: Sequence[str], first: int, last: int, cell: float, room: float) -> list[tuple[int, str]]:
    """The labels of cells ``first`` .. ``last`` - 1 that fit ``cell`` px apart, each needing ``room`` px: every
    n-th one as :func:`thinned` picks them (n of 1, 2, 5, 10 …), at multiples of n so that panning keeps them put."""
    needed = max(1, math.ceil(room / max(cell, 1e-6)))
    every = next(m * 10 ** e for e in range(12) for m in (1, 2, 5) if m * 10 ** e >= needed)
    return [(i, labels[i]) for i in range(-(-first // every) * every, min(last, len(labels)), every)]

def shown_range(axis: str, first: float, count: float, total: int) -> str:
    """An axis name with the positions of the cells on show, counted from 1: "keys 1,201–1,260 of 4,096" (a cell
    counts once at least half of it is on show)."""
    low = min(max(math.floor(first + 0.5), 0), total - 1)
    high = min(max(math.ceil(first + count - 0.5), low + 1), total)
    return tr("{axis} {first:,}–{last:,} of {count:,}").format(axis=axis, first=low + 1, last=high, count=total)


class ZoomableHeatmap(HeatmapReadout):
    """Zooms and pans the map; emits ``clicked(row, col)`` for a cell clicked with the left button (zoomed: released
    without a drag)."""

    clicked = QtCore.Signal(int, int)  # a cell clicked with the left button: (row, column)

    _figure_count: int
    _view_shape: tuple[int, ...]
    _region: tuple[tuple, np.ndarray, QtGui.QImage, QtCore.QRectF, list[tuple[int, int, int]]] | None
    _pooled_mask: tuple[np.ndarray, tuple[int, int], np.ndarray] | None
    _press: tuple[QtCore.QPointF, tuple[float, float, float, float]] | None
    _dragged: bool

    def is_large(self) -> bool:
        """More cells than are coloured whole: only what is on show is (pooled to the widget's pixels)."""
        return self.values.ndim == 2 and self.values.size > LARGE_CELLS

    def view_region(self) -> tuple[float, float, float, float]:
        """The cells on show: (first column, first row, columns, rows), fractional (the whole map unless zoomed)."""
        rows, cols = self.values.shape if self.values.ndim == 2 else (0, 0)
        return self._view if self._view is not None else (0.0, 0.0, float(cols), float(rows))

    def is_zoomed(self) -> bool:
        return self._view is not None

    def zoomable(self) -> bool:
        """Zoom is offered where there is more to see: the token labels thinned (or a large map), or zoomed already."""
        if self.values.ndim != 2 or max(self.values.shape, default=0) <= MIN_VIEW_CELLS:
            return False
        return self._view is not None or self.is_large() or not self._whole(self.figure_layout())

    def zoom_at(self, pos: QtCore.QPointF, factor: float) -> None:
        """Zoom by ``factor`` (> 1: in) keeping the point of the map under widget position ``pos`` where it is."""
        grid = self.figure_layout().grid
        if grid.isEmpty() or self.values.ndim != 2 or not self.values.size:
            return
        rows, cols = self.values.shape
        x, y, width, height = self.view_region()
        across = (pos.x() - grid.left()) / grid.width()
        down = (pos.y() - grid.top()) / grid.height()
        new_width = min(max(width / factor, min(cols, MIN_VIEW_CELLS)), cols)
        new_height = min(max(height / factor, min(rows, MIN_VIEW_CELLS)), rows)
        new_x = min(max(x + across * width - across * new_width, 0.0), cols - new_width)
        new_y = min(max(y + down * height - down * new_height, 0.0), rows - new_height)
        self._set_view((new_x, new_y, new_width, new_height))

    def pan_by(self, dx: float, dy: float) -> None:
        """Move the region on show by (dx, dy) widget pixels (the map follows the pointer)."""
        grid = self.figure_layout().grid
        if self._view is None or grid.isEmpty():
            return
        rows, cols = self.values.shape
        x, y, width, height = self._view
        x = min(max(x - dx / grid.width() * width, 0.0), cols - width)
        y = min(max(y - dy / grid.height() * height, 0.0), rows - height)
        self._set_view((x, y, width, height))

    def reset_zoom(self) -> None:
        """Back to the whole map."""
        self._set_view(None)

    def _set_view(self, view: tuple[float, float, float, float] | None) -> None:
        if view is not None and self.values.ndim == 2 and view[2] >= self.values.shape[1] \
                and view[3] >= self.values.shape[0]:
            view = None  # (zoomed all the way out: the whole map, drawn as unzoomed)
        if view == self._view:
            return
        self._view = view
        # Focus only while zoomed (Esc goes back); unzoomed, the heatmap takes no focus, as before zoom was added
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus if view is None else QtCore.Qt.FocusPolicy.ClickFocus)
        self._region = None
        if self._pointer is not None:
            cell = self.cell_at(self._pointer)
            if cell != self._hover:
                self._set_hover(cell)
        self.update()

    def axis_names(self) -> tuple[str, str]:
        """The row and column axis names as drawn: zoomed in, each says which positions are on show ("keys 1,201–
        1,260 of 4,096"), so a zoomed long map tells where it is."""
        if self._view is None or self.values.ndim != 2:
            return self.spec.row_axis, self.spec.col_axis
        x, y, width, height = self._view
        rows, cols = self.values.shape
        return (shown_range(self.spec.row_axis, y, height, rows), shown_range(self.spec.col_axis, x, width, cols))

    def _ticks(self, layout: HeatmapLayout) -> tuple[list[tuple[float, str]], list[tuple[float, str]]]:
        """The row and column labels to draw: the layout's for the whole map; zoomed, those of the rows and columns
        on show, thinned by the same rule for cells that size (so every label appears once a cell is a text line)."""
        if self._view is None:
            return layout.row_ticks, layout.col_ticks
        x, y, width, height = self._view
        grid, line = layout.grid, self._metrics.height()
        cell_width, cell_height = grid.width() / width, grid.height() / height

        def on_show(ticks: Sequence[tuple[float, str]], first: float, count: float) -> list[tuple[float, str]]:
            return [(i, text) for i, text in ticks if first <= i + 0.5 <= first + count]

        row_ticks: list[tuple[float, str]]
        if self.spec.row_values is not None:
            row_ticks = on_show(numeric_ticks(self.spec.row_values, cell_height * self.values.shape[0],
                                              NUMERIC_SPACING * line), y, height)
        else:
            row_ticks = on_show(visible_ticks(self._shown_labels[0], int(y), math.ceil(y + height), cell_height,
                                              line), y, height)
        col_ticks: list[tuple[float, str]]
        if self.spec.col_values is not None:
            room = numeric_label_width(self.spec.col_values, self._width) + LABEL_GAP
            col_ticks = on_show(numeric_ticks(self.spec.col_values, cell_width * self.values.shape[1], room), x, width)
        else:
            labels, first, last = self._shown_labels[1], int(x), math.ceil(x + width)
            room = line if layout.rotated else max((self._width(t) for t in labels[first:last]), default=0) + LABEL_GAP
            col_ticks = on_show(visible_ticks(labels, first, last, cell_width, room), x, width)
            if layout.rotated:  # (cut with "…" to the room under the cells, as the whole map's)
                elide = QtCore.Qt.TextElideMode.ElideRight
                col_ticks = [(i, t if self._width(t) <= layout.col_label_height else
                              self._metrics.elidedText(t, elide, layout.col_label_height)) for i, t in col_ticks]
        return row_ticks, col_ticks

    def _region_picture(self, grid: QtCore.QRectF) -> tuple[QtGui.QImage, QtCore.QRectF, list[tuple[int, int, int]]]:
        """The cells on show coloured for ``grid``: the image, the part of it to draw into the grid and its masked
        runs (image rows and columns). The cells of the region are coloured as they are once there are no more of
        them than pixels (each drawn as a sharp block), else max-pooled down to the pixels first; kept until the
        figure, the region or the size changes."""
        rows, cols = self.values.shape
        x, y, width, height = self.view_region()
        first_col, first_row = math.floor(x), math.floor(y)
        last_col, last_row = min(cols, math.ceil(x + width)), min(rows, math.ceil(y + height))
        ratio = self.devicePixelRatioF()
        pixels_across, pixels_down = max(1, round(grid.width() * ratio)), max(1, round(grid.height() * ratio))
        across = max(1, math.ceil(width / pixels_across))  # cells per pooled block (1: every cell as it is)
        down = max(1, math.ceil(height / pixels_down))
        key = (self._figure_count, first_col, first_row, last_col, last_row, across, down)
        if self._region is None or self._region[0] != key:
            values = self.values[first_row:last_row, first_col:last_col]
            colours = np.ascontiguousarray(argb_pixels(max_pooled(values, down, across), self.spec.levels,
                                                       self.spec.colormap))
            runs: list[tuple[int, int, int]] = []
            if self.spec.masked is not None:
                masked = np.asarray(self.spec.masked)
                whole = (first_row, first_col, last_row, last_col) == (0, 0, rows, cols)
                if whole and (across, down) != (1, 1):  # the overview's mask, kept while the next map has the same
                    kept = self._pooled_mask
                    if kept is None or kept[1] != (down, across) or not (
                            kept[0] is masked or np.array_equal(kept[0], masked)):
                        kept = self._pooled_mask = (masked, (down, across), all_pooled(masked, down, across))
                    pooled_mask = kept[2]
                else:
                    pooled_mask = all_pooled(masked[first_row:last_row, first_col:last_col], down, across)
                runs = masked_runs(pooled_mask)
            source = QtCore.QRectF((x - first_col) / across, (y - first_row) / down, width / across, height / down)
            self._region = (key, colours, qimage_of(colours), source, runs)
        return self._region[2], self._region[3], self._region[4]

    def _paint_region(self, painter: QtGui.QPainter, grid: QtCore.QRectF) -> None:
        """The cells on show (zoomed, or a large map's overview) and their masked cells' hatching."""
        image, source, runs = self._region_picture(grid)
        painter.drawImage(grid, image, source)  # (nearest neighbour: a cell larger than a pixel is a sharp block)
        if not runs:
            return
        width, height = grid.width() / source.width(), grid.height() / source.height()
        left, top = grid.left() - source.left() * width, grid.top() - source.top() * height
        cells = [QtCore.QRectF(left + first * width, top + row * height, count * width, height)
                 for row, first, count in runs]
        painter.save()
        painter.setClipRect(grid)
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        for brush in (QtGui.QBrush(MASK_FILL), QtGui.QBrush(MASK_HATCH, QtCore.Qt.BrushStyle.BDiagPattern)):
            painter.setBrush(brush)
            painter.drawRects(cells)
        painter.restore()

    # -- pointer ----------------------------------------------------------------------------
    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:
        """A drag pans the zoomed map; the read-out then follows the pointer."""
        self._pointer = event.position()
        if self._press is not None and self._view is not None \
                and event.buttons() & QtCore.Qt.MouseButton.LeftButton:  # a drag pans the zoomed map
            start, view = self._press
            moved = self._pointer - start
            if self._dragged or moved.manhattanLength() >= QtWidgets.QApplication.startDragDistance():
                if not self._dragged:
                    self._dragged = True
                    self.setCursor(QtCore.Qt.CursorShape.ClosedHandCursor)
                self._view = view  # (panned from where the drag began)
                self.pan_by(moved.x(), moved.y())
        cell = self.cell_at(self._pointer)
        if cell != self._hover:
            self._set_hover(cell)
        super().mouseMoveEvent(event)
        super().mouseMoveEvent(event)

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        if event.button() == QtCore.Qt.MouseButton.LeftButton:
            cell = self.cell_at(event.position())
            if self._view is not None:  # zoomed: a click inspects on release, a drag pans
                self._press, self._dragged = (event.position(), self._view), False
            elif cell != (-1, -1):
                self.clicked.emit(*cell)
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:
        if event.button() == QtCore.Qt.MouseButton.LeftButton and self._press is not None:
            if not self._dragged:
                cell = self.cell_at(event.position())
                if cell != (-1, -1):
                    self.clicked.emit(*cell)
            else:
                self.unsetCursor()
            self._press, self._dragged = None, False
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QtGui.QMouseEvent) -> None:
        if self._view is not None and event.button() == QtCore.Qt.MouseButton.LeftButton:
            self.reset_zoom()
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:
        """Zoom around the pointer where the map is zoomable; elsewhere the wheel goes on (a scrolled dock scrolls)."""
        notches = event.angleDelta().y() / 120
        if not notches or not self.figure_layout().grid.contains(event.position()) or not self.zoomable():
            event.ignore()
            return
        self.zoom_at(event.position(), ZOOM_STEP ** notches)
        event.accept()

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:
        if event.key() == QtCore.Qt.Key.Key_Escape and self._view is not None:
            self.reset_zoom()
            event.accept()
            return
        super().keyPressEvent(event)
