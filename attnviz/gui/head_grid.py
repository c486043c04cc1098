"""The Attention panel's All heads view: layers × heads small multiples painted with QPainter, from a
:class:`GridSpec` whose colours were worked out on the worker (:func:`attnviz.gui.grid_pixels.grid_picture`)."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.figures.spec import GridSpec
from attnviz.gui.figure_painter import qimage_of
from attnviz.gui.grid_pixels import grid_picture

GAP = 6  # px between two small multiples
LABEL_PX = 16  # px of the head names above and the layer names left of the grid
FRAME_PEN = QtGui.QPen(QtGui.QColor(60, 60, 60), 0.8)


class HeadGrid(QtWidgets.QWidget):
    """Layers × heads small multiples of one attention kind (labelled rows and columns); clicking one
    emits ``picked(layer, head)``; its context menu emits ``export_requested`` / ``copy_requested``.
    ``message`` is drawn instead while there is no grid (e.g. while it is being computed)."""

    picked = QtCore.Signal(int, int)
    export_requested = QtCore.Signal()
    copy_requested = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.spec: GridSpec | None = None
        self.shape = (0, 0)  # layers, heads
        self.message = ""
        self._images: list[tuple[np.ndarray, QtGui.QImage]] = []  # per panel: its pixels and an image over them

    def show_grid(self, spec: GridSpec, coloured: tuple[np.ndarray, ...] | None = None) -> None:
        """Draw a layers × heads grid figure. coloured: each panel's pixels, made on the worker
        (:func:`attnviz.gui.grid_pixels.grid_picture`), else they are made here."""
        pixels = coloured if coloured is not None else grid_picture(spec).pixels
        self.spec, self.message = spec, ""
        self.shape = (len(spec.row_names), spec.columns)
        self._images = [(p, qimage_of(p)) for p in pixels]  # (the images are views of the kept arrays)
        self.update()

    def show_message(self, message: str) -> None:
        """Draw ``message`` instead of the grid (the grid is dropped)."""
        self.spec, self.shape, self.message, self._images = None, (0, 0), message, []
        self.update()

    def _cells(self) -> tuple[int, int]:
        """(Q, K) of the matrices shown (before averaging down)."""
        first = self.spec.panels[0] if self.spec is not None and self.spec.panels else None
        return first.values.shape if first is not None and first.values.ndim == 2 else (0, 0)

    def panel_rect(self, layer: int, head: int) -> QtCore.QRectF:
        """Where small multiple (layer, head) lies, in widget pixels."""
        layers, heads = self.shape
        width = (self.width() - LABEL_PX - GAP * heads) / max(heads, 1)
        height = (self.height() - LABEL_PX - GAP * layers) / max(layers, 1)
        return QtCore.QRectF(LABEL_PX + GAP / 2 + head * (width + GAP), LABEL_PX + GAP / 2 + layer * (height + GAP),
                             max(width, 1.0), max(height, 1.0))

    def paintEvent(self, _event: QtGui.QPaintEvent) -> None:
        painter = QtGui.QPainter(self)
        painter.fillRect(self.rect(), QtGui.QColor("white"))
        painter.setPen(QtGui.QColor("black"))
        if self.spec is None:
            painter.drawText(QtCore.QRectF(self.rect()), QtCore.Qt.AlignmentFlag.AlignCenter, self.message)
            painter.end()
            return
        layers, heads = self.shape
        centre = QtCore.Qt.AlignmentFlag.AlignCenter
        for head in range(heads):
            box = self.panel_rect(0, head)
            painter.drawText(QtCore.QRectF(box.left(), 0, box.width(), LABEL_PX), centre, f"head {head + 1}")
        for layer in range(layers):
            box = self.panel_rect(layer, 0)
            painter.save()
            painter.translate(0, box.center().y())
            painter.rotate(-90)
            painter.drawText(QtCore.QRectF(-box.height() / 2, 0, box.height(), LABEL_PX), centre, f"layer {layer + 1}")
            painter.restore()
        painter.setPen(FRAME_PEN)
        for index, (_pixels, image) in enumerate(self._images):
            box = self.panel_rect(index // heads, index % heads)
            # Cells bigger than pixels stay sharp blocks; more cells than pixels are smoothed, not sampled.
            painter.setRenderHint(QtGui.QPainter.RenderHint.SmoothPixmapTransform,
                                  image.width() > box.width() or image.height() > box.height())
            if not image.isNull():
                painter.drawImage(box, image)
            painter.drawRect(box)
        painter.end()

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        if event.button() == QtCore.Qt.MouseButton.LeftButton:
            layers, heads = self.shape
            for layer in range(layers):
                for head in range(heads):
                    if self.panel_rect(layer, head).contains(event.position()):
                        self.picked.emit(layer, head)
                        return
        super().mousePressEvent(event)

    def contextMenuEvent(self, event: QtGui.QContextMenuEvent) -> None:
        menu = QtWidgets.QMenu(self)
        for text, signal in (("Export all heads as one picture or table…", self.export_requested),
                             ("Copy picture", self.copy_requested)):
            action = menu.addAction(text)
            action.setEnabled(self.shape[0] * self.shape[1] > 0)
            action.triggered.connect(lambda _checked=False, s=signal: s.emit())
        menu.exec(event.globalPos())
