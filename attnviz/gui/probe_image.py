"""An image task's probe drawn with attention over it: the grey image, each patch tinted by the share of attention
it gets (one colour, its opacity the share over the largest share shown), the patch grid, and the right patches
outlined. The Train dock shows it in place of the map for a run on an image task; it is given numpy arrays only."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.i18n import tr

TINT = QtGui.QColor(255, 127, 14)  # the attention's colour (the agreement curve's)
RIGHT = QtGui.QColor(44, 160, 44)  # the right patches' outline
GRID = QtGui.QColor(255, 255, 255, 60)


class ProbeImageView(QtWidgets.QWidget):
    """Paints :meth:`show_probe`'s image, shares and right patches, a title above, as large as fits."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.title = ""
        self.pixels: np.ndarray | None = None  # (S, S) grey in [0, 1]
        self.shares: np.ndarray | None = None  # (G, G) attention per patch
        self.patches: np.ndarray | None = None  # (G, G) bool: the right ones
        self.top = 1.0
        self._image: QtGui.QImage | None = None
        self.setMinimumSize(120, 140)
        self.setToolTip(tr("The probe image: each patch tinted by the share of [CLS]'s attention on it (its rollout "
                           "over every layer); the shape's patches, the right attention, outlined in green"))

    def show_probe(self, title: str, pixels: np.ndarray, shares: np.ndarray, patches: np.ndarray,
                   top: float) -> None:
        """Draw ``pixels`` (S, S) with ``shares`` (G, G) over its patches (opacity share / ``top``) and ``patches``
        (G, G) outlined, under ``title``."""
        self.title, self.shares, self.patches, self.top = title, shares, patches, top if top > 0 else 1.0
        if self.pixels is None or not np.array_equal(self.pixels, pixels):
            self.pixels = pixels
            grey = np.ascontiguousarray(np.clip(pixels * 255, 0, 255).astype(np.uint8))
            side = grey.shape[0]
            self._image = QtGui.QImage(grey.data, side, side, side, QtGui.QImage.Format.Format_Grayscale8).copy()
        self.update()

    def clear(self) -> None:
        self.title, self.pixels, self.shares, self.patches, self._image = "", None, None, None, None
        self.update()

    def title_rect(self) -> QtCore.QRectF:
        """Where the title is painted: the widget's width, as many lines as the title wraps to (at least two, at
        most half the height: a long Chinese title was cut at its top and bottom in two fixed lines)."""
        flags = int(QtCore.Qt.AlignmentFlag.AlignCenter | QtCore.Qt.TextFlag.TextWordWrap)
        needed = self.fontMetrics().boundingRect(QtCore.QRect(0, 0, max(self.width() - 8, 1), 10_000), flags,
                                                 self.title).height()
        height = min(max(needed, 2 * self.fontMetrics().height()), self.height() // 2) + 4
        return QtCore.QRectF(4, 0, max(self.width() - 8, 1), height)

    def image_rect(self) -> QtCore.QRectF:
        """Where the image is painted: the largest square under the title."""
        title_h = self.title_rect().bottom() + 2
        side = max(min(self.width() - 8, self.height() - title_h - 4), 1)
        return QtCore.QRectF((self.width() - side) / 2, title_h, side, side)

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        painter = QtGui.QPainter(self)
        try:
            painter.setPen(self.palette().color(QtGui.QPalette.ColorRole.WindowText))
            painter.drawText(self.title_rect(),
                             int(QtCore.Qt.AlignmentFlag.AlignCenter | QtCore.Qt.TextFlag.TextWordWrap), self.title)
            if self._image is None or self.shares is None or self.patches is None:
                return
            rect = self.image_rect()
            painter.drawImage(rect, self._image)
            grid = self.shares.shape[0]
            cell = rect.width() / grid
            for row in range(grid):
                for col in range(grid):
                    box = QtCore.QRectF(rect.left() + col * cell, rect.top() + row * cell, cell, cell)
                    tint = QtGui.QColor(TINT)
                    tint.setAlphaF(float(np.clip(0.75 * self.shares[row, col] / self.top, 0, 0.75)))
                    painter.fillRect(box, tint)
                    painter.setPen(QtGui.QPen(GRID, 1))
                    painter.drawRect(box)
            painter.setPen(QtGui.QPen(RIGHT, max(2.0, cell / 12)))
            for row, col in zip(*np.nonzero(self.patches), strict=True):
                painter.drawRect(QtCore.QRectF(rect.left() + col * cell, rect.top() + row * cell, cell, cell))
        finally:
            painter.end()
