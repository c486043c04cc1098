"""A query × key heatmap: tokens on both axes, a colour bar, a hover read-out, masked-cell overlay.

Built on pyqtgraph's ImageItem (row-major, cells centred on integer coordinates, y downwards), as in
pyqtgraph's MatrixDisplayExample.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.figures.spec import FigureSpec, empty_figure, nice_ticks, tick_text
from attnviz.gui.figure_painter import argb_pixels, colour_map, qimage_of
from attnviz.gui.titled_plot import TitledPlot

COLOUR_BAR_TEXT_ROOM = 12  # px beside the widest colour-bar label (tick and offset)
MASK_COLOUR = (225, 225, 225, 235)  # masked cells: light grey, unlike any colour of the weight scale


class CellImage(pg.GraphicsObject):
    """A matrix of coloured cells, cell (i, j) centred on (j, i); draws premultiplied ARGB pixels.

    Leaner than pg.ImageItem for this one job: no levels, no LUT, no per-paint format conversion.
    """

    def __init__(self):
        super().__init__()
        self._pixels = np.zeros((0, 0), np.uint32)
        self._image = qimage_of(self._pixels)
        self.setTransform(QtGui.QTransform.fromTranslate(-0.5, -0.5))

    def set_pixels(self, pixels: np.ndarray) -> None:
        """pixels (Q, K) uint32 premultiplied ARGB words; kept (not copied) while shown."""
        if pixels.shape != self._pixels.shape:
            self.prepareGeometryChange()
        self._pixels = np.ascontiguousarray(pixels, dtype=np.uint32)
        self._image = qimage_of(self._pixels)
        self.update()

    def boundingRect(self) -> QtCore.QRectF:
        rows, cols = self._pixels.shape
        return QtCore.QRectF(0, 0, cols, rows)

    def paint(self, painter: QtGui.QPainter, *_args) -> None:
        if self._pixels.size:
            painter.drawImage(self.boundingRect(), self._image)


def _premultiplied(colour: tuple[int, int, int, int]) -> int:
    red, green, blue, alpha = colour
    return (alpha << 24) | ((red * alpha // 255) << 16) | ((green * alpha // 255) << 8) | (blue * alpha // 255)


class Heatmap(TitledPlot):
    """Shows one figure description (:class:`FigureSpec`). Emits ``hovered(row, col)`` when the pointer
    enters a cell, and again with the same cell when a new figure replaces the old under a still pointer
    (-1, -1 when it leaves or the cell is gone), and ``export_requested`` / ``copy_requested`` with the
    figure on show (from its context menu)."""

    hovered = QtCore.Signal(int, int)
    export_requested = QtCore.Signal(object)  # FigureSpec
    copy_requested = QtCore.Signal(object)  # FigureSpec

    def __init__(self, parent=None, colour_bar: bool = True):
        super().__init__(parent)
        self.spec: FigureSpec = empty_figure("")
        self.colormap = "viridis"
        self.plot.invertY(True)
        self.plot.setAspectLocked(False)
        self.plot.getViewBox().setMouseEnabled(x=False, y=False)
        for name in ("left", "bottom"):
            self.plot.getAxis(name).setStyle(tickLength=0)
        self.plot.getAxis("bottom").setStyle(tickTextOffset=4)
        self.image = CellImage()
        self.plot.addItem(self.image)
        self.mask_image = CellImage()
        self.mask_image.setZValue(5)
        self.plot.addItem(self.mask_image)
        pen = pg.mkPen((255, 80, 40), width=2)
        self.row_box = pg.QtWidgets.QGraphicsRectItem()
        self.row_box.setPen(pen)
        self.row_box.setZValue(10)
        self.row_box.hide()
        self.plot.addItem(self.row_box)
        cross_pen = pg.mkPen((255, 255, 255, 160), width=1, style=QtCore.Qt.PenStyle.DashLine)
        self.h_line = pg.InfiniteLine(angle=0, pen=cross_pen, movable=False)
        self.v_line = pg.InfiniteLine(angle=90, pen=cross_pen, movable=False)
        for line in (self.h_line, self.v_line):
            line.setZValue(11)
            line.hide()
            self.plot.addItem(line, ignoreBounds=True)
        # The colour bar is a legend only: cells arrive already coloured (see show_figure).
        self.colorbar = pg.ColorBarItem(values=(0, 1), colorMap=colour_map(self.colormap), interactive=False,
                                        width=14)
        self.has_colour_bar = colour_bar
        if colour_bar:
            self.plot.layout.addItem(self.colorbar, 2, 5)  # right of the right-hand axis, as insert_in does
            self.plot.layout.setColumnFixedWidth(4, 5)
            self._set_colour_bar_levels((0.0, 1.0))
        self.values = np.zeros((0, 0), dtype=np.float32)
        self.row_labels: tuple[str, ...] = ()
        self.col_labels: tuple[str, ...] = ()
        self._hover = (-1, -1)
        self._pointer: QtCore.QPointF | None = None
        self.plot.scene().sigMouseMoved.connect(self._on_scene_mouse_moved)

    # -- content ----------------------------------------------------------------------------
    def show_figure(self, spec: FigureSpec) -> None:
        """Draw ``spec``: only the parts that differ from the figure on show are touched."""
        if spec is self.spec:
            return
        values = np.asarray(spec.values, dtype=np.float32)
        shape_changed = values.shape != self.values.shape
        self.spec, self.values = spec, values
        if spec.colormap != self.colormap:
            self.colormap = spec.colormap
            self.colorbar.setColorMap(colour_map(spec.colormap))
        if self.has_colour_bar:
            self.colorbar.setVisible(spec.colour_bar and values.size > 0)
            if self.colorbar.levels() != tuple(spec.levels):  # an unchanged colour bar is not redrawn
                self._set_colour_bar_levels(spec.levels)
        for axis in ("left", "bottom"):  # no meaningless 0-1 axes around a message
            self.plot.showAxis(axis, values.size > 0)
        if values.size:
            # Coloured here with a 256-entry table; pg.ImageItem would make floats + LUT an indexed
            # QImage that Qt converts on every repaint (4x slower at 256 x 256).
            self.image.set_pixels(argb_pixels(values, spec.levels, spec.colormap))
            self.image.show()
        else:
            self.image.hide()
        self._set_mask_overlay(spec.masked)
        if shape_changed:
            rows, cols = values.shape if values.ndim == 2 else (0, 0)
            self.plot.setRange(xRange=(-0.5, max(cols, 1) - 0.5), yRange=(-0.5, max(rows, 1) - 0.5), padding=0)
            # Apply the new range now: pyqtgraph would do it inside the next paint, whose axis updates
            # then ask for a second paint of the whole plot.
            self.plot.getViewBox().prepareForPaint()
        self.row_labels, self.col_labels = spec.row_labels, spec.col_labels
        self.set_categories("left", spec.row_labels)
        self.set_categories("bottom", spec.col_labels)
        self.set_title(spec.title)
        self._refresh_hover()

    def _set_colour_bar_levels(self, levels: tuple[float, float]) -> None:
        """The colour bar's range and its ticks: the same round values an exported picture shows."""
        self.colorbar.setLevels(levels)
        axis = self.colorbar.axis
        texts = [(value, tick_text(value)) for value in nice_ticks(levels)]
        axis.setTicks([texts])
        metrics = QtGui.QFontMetricsF(axis.font())
        axis.setWidth(int(max(metrics.horizontalAdvance(text) for _, text in texts)) + COLOUR_BAR_TEXT_ROOM)

    def _set_mask_overlay(self, masked: np.ndarray | None) -> None:
        if masked is None or not np.any(masked):
            self.mask_image.hide()
            return
        self.mask_image.set_pixels(np.where(masked, np.uint32(_premultiplied(MASK_COLOUR)), np.uint32(0)))
        self.mask_image.show()

    def highlight_row(self, row: int | None) -> None:
        """Outline query row ``row`` (None hides the outline)."""
        if row is None or not (0 <= row < self.values.shape[0]):
            self.row_box.hide()
            return
        self.row_box.setRect(QtCore.QRectF(-0.5, row - 0.5, self.values.shape[1], 1.0))
        self.row_box.show()

    def cell_at(self, scene_pos: QtCore.QPointF) -> tuple[int, int]:
        if not self.plot.sceneBoundingRect().contains(scene_pos) or self.values.ndim != 2:
            return (-1, -1)
        point = self.plot.getViewBox().mapSceneToView(scene_pos)
        row, col = int(np.floor(point.y() + 0.5)), int(np.floor(point.x() + 0.5))
        if 0 <= row < self.values.shape[0] and 0 <= col < self.values.shape[1]:
            return (row, col)
        return (-1, -1)

    def _on_scene_mouse_moved(self, scene_pos: QtCore.QPointF) -> None:
        self._pointer = QtCore.QPointF(scene_pos)
        cell = self.cell_at(scene_pos)
        if cell == self._hover:
            return
        self._set_hover(cell)

    def _refresh_hover(self) -> None:
        """A new figure under a pointer that has not moved: report the cell again (its value changed)."""
        cell = self.cell_at(self._pointer) if self._pointer is not None else (-1, -1)
        if cell != (-1, -1) or self._hover != (-1, -1):
            self._set_hover(cell)

    def leaveEvent(self, event: QtCore.QEvent) -> None:
        self._pointer = None
        if self._hover != (-1, -1):
            self._set_hover((-1, -1))
        super().leaveEvent(event)

    def _set_hover(self, cell: tuple[int, int]) -> None:
        self._hover = cell
        visible = cell != (-1, -1)
        self.h_line.setVisible(visible)
        self.v_line.setVisible(visible)
        if visible:
            self.h_line.setPos(cell[0])
            self.v_line.setPos(cell[1])
        self.hovered.emit(*cell)

    def contextMenuEvent(self, event: QtGui.QContextMenuEvent) -> None:
        menu = QtWidgets.QMenu(self)
        has_data = self.spec.values.size > 0
        for text, signal in (("Export picture or numbers…", self.export_requested),
                             ("Copy picture", self.copy_requested)):
            action = menu.addAction(text)
            action.setEnabled(has_data)
            action.triggered.connect(lambda _checked=False, s=signal: s.emit(self.spec))
        menu.exec(event.globalPos())
