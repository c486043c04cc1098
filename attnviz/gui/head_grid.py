"""The Attention panel's All heads view: layers × heads small multiples painted with QPainter.

The colours are worked out off the GUI thread (:func:`grid_picture`, numpy only, on the session's worker):
8 heads × 2 layers of a 1,024-token sentence are 16 M cells. Each matrix is averaged down to at most
MAX_CELLS per side first (a small multiple is a couple of hundred pixels wide), so the widget only
draws 16 small images. Shapes: L layers, H heads, Q queries, K keys.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.figures.spec import GridSpec
from attnviz.gui.figure_painter import argb_pixels, qimage_of

MAX_CELLS = 256  # per side of one small multiple's image: more than its pixels on screen
GAP = 6  # px between two small multiples
LABEL_PX = 16  # px of the head names above and the layer names left of the grid
FRAME_PEN = QtGui.QPen(QtGui.QColor(60, 60, 60), 0.8)


def pooled(values: np.ndarray, most: int = MAX_CELLS) -> np.ndarray:
    """values (Q, K) averaged over blocks of cells so that neither side exceeds ``most``; NaN cells (masked
    scores) are left out of the averages, and a block of only NaN stays NaN."""
    rows, cols = values.shape
    fr, fc = -(-rows // most) if rows else 1, -(-cols // most) if cols else 1
    if fr == 1 and fc == 1:
        return values
    padded = np.full((-(-rows // fr) * fr, -(-cols // fc) * fc), np.nan, np.float32)
    padded[:rows, :cols] = values
    blocks = padded.reshape(padded.shape[0] // fr, fr, padded.shape[1] // fc, fc)
    valid = ~np.isnan(blocks)
    sums = np.where(valid, blocks, 0.0).sum(axis=(1, 3))
    counts = valid.sum(axis=(1, 3))
    return np.divide(sums, counts, out=np.full(sums.shape, np.nan, np.float32), where=counts > 0)


@dataclass(frozen=True)
class GridPicture:
    """A grid figure ready to paint: ``spec`` (what Export writes) and ``pixels`` (L, H) of uint32 ARGB
    arrays (q, k) with q ≤ min(Q, MAX_CELLS), k ≤ min(K, MAX_CELLS)."""

    spec: GridSpec
    pixels: tuple[tuple[np.ndarray, ...], ...]

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.spec.row_names), self.spec.columns

    @property
    def cells(self) -> tuple[int, ...]:
        """(Q, K) of the matrices shown (before averaging down)."""
        return tuple(self.spec.panels[0].values.shape) if self.spec.panels else (0, 0)


def grid_picture(spec: GridSpec) -> GridPicture:
    """Colour every panel of ``spec`` (numpy only: runs on the worker)."""
    layers, heads = len(spec.row_names), spec.columns
    pixels = tuple(tuple(argb_pixels(pooled(np.asarray(spec.panels[layer * heads + head].values, np.float32)),
                                     spec.levels, spec.colormap)
                         for head in range(heads)) for layer in range(layers))
    return GridPicture(spec, pixels)


class HeadGrid(QtWidgets.QWidget):
    """Layers × heads small multiples of one attention kind (labelled rows and columns); clicking one
    emits ``picked(layer, head)``; its context menu emits ``export_requested`` / ``copy_requested``.
    ``message`` is drawn instead while there is no picture (e.g. while it is being computed)."""

    picked = QtCore.Signal(int, int)
    export_requested = QtCore.Signal()
    copy_requested = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.picture: GridPicture | None = None
        self.message = ""
        self._images: list[list[QtGui.QImage]] = []

    @property
    def shape(self) -> tuple[int, int]:
        """(layers, heads) on show; (0, 0) without a picture."""
        return self.picture.shape if self.picture is not None else (0, 0)

    @property
    def cells(self) -> tuple[int, ...]:
        return self.picture.cells if self.picture is not None else (-1, -1)

    def show_picture(self, picture: GridPicture) -> None:
        self.picture, self.message = picture, ""
        self._images = [[qimage_of(p) for p in row] for row in picture.pixels]  # (views of the kept arrays)
        self.update()

    def show_message(self, message: str) -> None:
        """Draw ``message`` instead of the grid (the picture is dropped)."""
        self.picture, self.message, self._images = None, message, []
        self.update()

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
        if self.picture is None:
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
        for layer in range(layers):
            for head in range(heads):
                box, image = self.panel_rect(layer, head), self._images[layer][head]
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
