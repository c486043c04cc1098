"""The heatmap painted: the cells (as they are, averaged down where there are more than pixels, or the zoom's
region), the masked cells' hatching, the dividers, outlines and crosshair, the token labels and axis names, and the
colour bar (a pixmap kept per range, colour map and height). Painting one figure takes about a millisecond.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6 import QtCore, QtGui

from attnviz.gui.heatmap_layout import BAR_GAP, BAR_WIDTH, MARGIN, HeatmapLayout
from attnviz.gui.heatmap_zoom import ZoomableHeatmap
from attnviz.render.figure_painter import DIVIDER_PEN, MASK_FILL, MASK_HATCH, divider_lines, paint_colour_bar

ROW_BOX_PEN = QtGui.QPen(QtGui.QColor(255, 80, 40), 2)
CROSS_PEN = QtGui.QPen(QtGui.QColor(255, 255, 255, 170), 1, QtCore.Qt.PenStyle.DashLine)
FRAME_PEN = QtGui.QPen(QtGui.QColor(60, 60, 60), 0.8)
AXIS_NAME_COLOUR = QtGui.QColor(90, 90, 90)
WHITE = QtGui.QColor("white")


class PaintedHeatmap(ZoomableHeatmap):
    """Paints the figure into the layout (gui/heatmap_layout.py)."""

    hint: str
    _pixels: np.ndarray  # (Q, K) uint32 ARGB: the cells coloured (empty for a large map)
    _image: QtGui.QImage
    _runs: list[tuple[int, int, int]]
    _smoothed: tuple[tuple, QtGui.QImage] | None
    _bar_picture: tuple[tuple, QtGui.QPixmap] | None

    def paintEvent(self, _event: QtGui.QPaintEvent) -> None:
        layout = self.figure_layout()
        painter = QtGui.QPainter(self)
        self._fill_around(painter, layout.grid)
        painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing, True)
        painter.setPen(QtGui.QColor("black"))
        painter.setFont(self.title_font)
        painter.drawText(layout.title, QtCore.Qt.AlignmentFlag.AlignHCenter | QtCore.Qt.AlignmentFlag.AlignVCenter,
                         layout.title_text)
        if layout.grid.isEmpty():
            if self.hint:  # what to do to fill the empty figure, in the middle of the widget
                painter.setPen(AXIS_NAME_COLOUR)
                painter.setFont(self.label_font)
                room = QtCore.QRectF(self.rect()).adjusted(MARGIN, layout.title.bottom(), -MARGIN, -MARGIN)
                painter.drawText(room, QtCore.Qt.AlignmentFlag.AlignCenter | QtCore.Qt.TextFlag.TextWordWrap, self.hint)
            painter.end()
            return
        grid = layout.grid
        matrix = self._matrix_rect()
        if self._view is None and not self.is_large():
            painter.drawImage(grid, self._shown_image(grid))
            self._paint_masked(painter, grid)
        else:
            self._paint_region(painter, grid)
        if self._view is not None:
            painter.setClipRect(grid.adjusted(-2, -2, 2, 2))  # (outlines and crosshair of cells on show only)
        if self.spec.divider:
            painter.setPen(DIVIDER_PEN)
            rows, cols = self.values.shape
            painter.drawLines(divider_lines(matrix, rows, cols, self.spec.divider))
        painter.setPen(FRAME_PEN)
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        painter.drawRect(grid)
        if self.highlighted_rows is not None:
            first, count = self.highlighted_rows
            box = self.cell_rect(first, 0).united(self.cell_rect(first + count - 1, self.values.shape[1] - 1))
            painter.setPen(ROW_BOX_PEN)
            painter.drawRect(box)
        column = self.highlighted_column
        if column is not None and column < self.values.shape[1]:
            painter.setPen(ROW_BOX_PEN)
            painter.drawRect(self.cell_rect(0, column).united(self.cell_rect(self.values.shape[0] - 1, column)))
        cross = self._hover if self._hover != (-1, -1) else self.linked_cell
        if cross is not None and cross[0] < self.values.shape[0] and cross[1] < self.values.shape[1]:
            centre = self.cell_rect(*cross).center()
            painter.setPen(CROSS_PEN)
            painter.drawLine(QtCore.QPointF(grid.left(), centre.y()), QtCore.QPointF(grid.right(), centre.y()))
            painter.drawLine(QtCore.QPointF(centre.x(), grid.top()), QtCore.QPointF(centre.x(), grid.bottom()))
        painter.setClipping(False)
        painter.setFont(self.label_font)
        self._paint_labels(painter, layout)
        if not layout.bar.isEmpty():
            self._paint_bar(painter, layout.bar)
        painter.end()

    def _fill_around(self, painter: QtGui.QPainter, grid: QtCore.QRectF) -> None:
        """White everywhere but the cell grid, which the cells' image covers (filling it too costs a
        tenth of a millisecond per paint of a large heatmap)."""
        whole = self.rect()
        if grid.isEmpty():
            painter.fillRect(whole, WHITE)
            return
        cells = grid.toAlignedRect().adjusted(1, 1, -1, -1)  # (its edge pixels are filled, then framed)
        for band in (QtCore.QRect(whole.left(), whole.top(), whole.width(), cells.top() - whole.top()),
                     QtCore.QRect(whole.left(), cells.bottom() + 1, whole.width(), whole.bottom() - cells.bottom()),
                     QtCore.QRect(whole.left(), cells.top(), cells.left() - whole.left(), cells.height()),
                     QtCore.QRect(cells.right() + 1, cells.top(), whole.right() - cells.right(), cells.height())):
            if band.isValid():
                painter.fillRect(band, WHITE)

    def _shown_image(self, grid: QtCore.QRectF) -> QtGui.QImage:
        """The cells to draw into ``grid``: as they are (drawn nearest-neighbour, so every cell is a sharp
        block) unless there are more cells than pixels; then averaged down once per size, because
        sampling every n-th column would show stripes that are not in the data."""
        rows, cols = self._pixels.shape
        ratio = self.devicePixelRatioF()
        width, height = max(1, round(grid.width() * ratio)), max(1, round(grid.height() * ratio))
        if cols <= width and rows <= height:
            return self._image
        key = (self._figure_count, width, height)
        if self._smoothed is None or self._smoothed[0] != key:
            smooth = self._image.scaled(width, height, QtCore.Qt.AspectRatioMode.IgnoreAspectRatio,
                                        QtCore.Qt.TransformationMode.SmoothTransformation)
            self._smoothed = (key, smooth)
        return self._smoothed[1]

    def _paint_masked(self, painter: QtGui.QPainter, grid: QtCore.QRectF) -> None:
        if not self._runs:
            return
        rows, cols = self.values.shape
        width, height = grid.width() / cols, grid.height() / rows
        cells = [QtCore.QRectF(grid.left() + first * width, grid.top() + row * height, count * width, height)
                 for row, first, count in self._runs]
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        for brush in (QtGui.QBrush(MASK_FILL), QtGui.QBrush(MASK_HATCH, QtCore.Qt.BrushStyle.BDiagPattern)):
            painter.setBrush(brush)
            painter.drawRects(cells)

    def _paint_labels(self, painter: QtGui.QPainter, layout: HeatmapLayout) -> None:
        grid, line = layout.grid, self._metrics.height()
        rows, cols = self.values.shape
        painter.setPen(QtGui.QColor("black"))
        matrix = self._matrix_rect()
        cell_height, cell_width = matrix.height() / rows, matrix.width() / cols
        row_ticks, col_ticks = self._ticks(layout)
        for i, text in row_ticks:  # right-aligned against the cells, centred on the row
            y = matrix.top() + (i + 0.5) * cell_height - line / 2
            painter.drawStaticText(QtCore.QPointF(grid.left() - 4 - self._width(text), y), self._static(text))
        for i, text in col_ticks:  # centred under the column; rotated: reading upwards to the cells
            x = matrix.left() + (i + 0.5) * cell_width
            if layout.rotated:
                painter.save()
                painter.translate(x - line / 2, grid.bottom() + 2 + self._width(text))
                painter.rotate(-90)
                painter.drawStaticText(QtCore.QPointF(0, 0), self._static(text))
                painter.restore()
            else:
                painter.drawStaticText(QtCore.QPointF(x - self._width(text) / 2, grid.bottom() + 2), self._static(text))
        painter.setPen(AXIS_NAME_COLOUR)
        row_name, col_name = self.axis_names()
        name_width = self._width(col_name) + 4  # centred under the cells, never cut by them
        name_top = grid.bottom() + 2 + max(layout.col_label_height, line)
        painter.drawText(QtCore.QRectF(grid.center().x() - name_width / 2, name_top, name_width, line),
                         QtCore.Qt.AlignmentFlag.AlignHCenter, col_name)
        painter.save()
        painter.translate(MARGIN, grid.center().y())
        painter.rotate(-90)
        painter.drawText(QtCore.QRectF(-grid.height() / 2, 0, grid.height(), line),
                         QtCore.Qt.AlignmentFlag.AlignHCenter, row_name)
        painter.restore()

    def _paint_bar(self, painter: QtGui.QPainter, bar: QtCore.QRectF) -> None:
        """The colour bar and its ticks, drawn once per range, colour map and height (a kept pixmap)."""
        ratio = self.devicePixelRatioF()
        key = (self.spec.levels, self.spec.colormap, bar.height(), ratio)
        if self._bar_picture is None or self._bar_picture[0] != key:
            room = self._bar_room() - BAR_GAP + 2
            height = bar.height() + 2 * self._metrics.height()  # a line above and below: the end ticks' text
            pixmap = QtGui.QPixmap(math.ceil(room * ratio), math.ceil(height * ratio))
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(QtCore.Qt.GlobalColor.transparent)  # it reaches into the title's row: see through
            bar_painter = QtGui.QPainter(pixmap)
            bar_painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing, True)
            bar_painter.setFont(self.label_font)
            paint_colour_bar(bar_painter, QtCore.QRectF(1, self._metrics.height(), BAR_WIDTH, bar.height()),
                             self.spec.levels, self.spec.colormap, self._metrics)
            bar_painter.end()
            self._bar_picture = (key, pixmap)
        painter.drawPixmap(QtCore.QPointF(bar.left() - 1, bar.top() - self._metrics.height()), self._bar_picture[1])
