"""A pyqtgraph plot that never clips: its title elides to the widget's width (the full text is the
title's tooltip), category labels on an axis thin out to every 1st, 2nd, 5th, 10th … one rather than
overlap, and the widget's minimum size is what shows the whole plot, so a narrow dock cannot cut off
the last column or the colour bar (pyqtgraph lays out at its minimum size and clips the overflow).
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.gui.figure_painter import LABEL_GAP, cut_label, thinned

TITLE_MARGIN = 8  # px kept free on each side of an elided title


class TitledPlot(pg.GraphicsLayoutWidget):
    """One :class:`pg.PlotItem` (``plot``) under an elided title (``set_title``)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None, title: str = ""):
        super().__init__(parent)
        self.setBackground("w")
        self.title = pg.LabelItem(" ")
        self.addItem(self.title, row=0, col=0)
        self.plot: pg.PlotItem = self.addPlot(row=1, col=0)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self._title_text = ""
        self._title_shown = ""
        self._least = QtCore.QSize()
        self._categories: dict[str, tuple[str, ...]] = {}
        self._ticks: dict[str, list[tuple[int, str]]] = {}
        self.plot.getViewBox().sigResized.connect(self._update_category_ticks)
        self.set_title(title)

    # -- title ------------------------------------------------------------------------------
    def set_title(self, text: str) -> None:
        if text == self._title_text:
            return
        self._title_text = text
        self.title.setToolTip(text)
        self._fit_title()

    def title_text(self) -> str:
        return self._title_text

    def _fit_title(self) -> None:
        """Show the title elided to the widget's width (only a changed text re-lays out the plot)."""
        metrics = QtGui.QFontMetricsF(self.title.item.font())
        room = max(self.viewport().width() - 2 * TITLE_MARGIN, 10)
        text = metrics.elidedText(self._title_text, QtCore.Qt.TextElideMode.ElideRight, room)
        if text != self._title_shown:
            self._title_shown = text
            self.title.setText(html.escape(text) or " ")

    def fonts_changed(self) -> None:
        """The application font changed (presentation mode): elide the title again in the new font."""
        self._title_shown = ""
        self._fit_title()

    # -- category axes ----------------------------------------------------------------------
    def set_categories(self, axis: str, labels: tuple[str, ...]) -> None:
        """Label positions 0, 1, 2 … of ``axis`` ("left" or "bottom") with ``labels``, thinned to fit and
        each cut to MAX_LABEL_CHARS (a 300-letter word would otherwise squeeze the matrix to nothing)."""
        labels = tuple(map(cut_label, labels))
        if self._categories.get(axis) == labels:
            return
        self._categories[axis] = labels
        self._update_category_ticks()  # (a wider axis is noticed after the paint: see paintEvent)

    def _update_category_ticks(self, *_args) -> None:
        box = self.plot.getViewBox().sceneBoundingRect()
        for axis, labels in self._categories.items():
            item = self.plot.getAxis(axis)
            metrics = QtGui.QFontMetricsF(item.font())
            if axis == "left":
                ticks = thinned(labels, box.height() / max(len(labels), 1), metrics.height())
            else:
                widest = max((metrics.horizontalAdvance(t) for t in labels), default=0.0) + LABEL_GAP
                ticks = thinned(labels, box.width() / max(len(labels), 1), widest)
            if ticks != self._ticks.get(axis):
                self._ticks[axis] = ticks
                item.setTicks([ticks])

    # -- size -------------------------------------------------------------------------------
    def minimumSizeHint(self) -> QtCore.QSize:
        """The smallest size that shows the whole plot: axes, data area and colour bar (the title elides)."""
        least = self.plot.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize)
        title = self.title.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize).height()
        left, top, right, bottom = self.ci.layout.getContentsMargins()
        return QtCore.QSize(int(np.ceil(least.width() + left + right)) + 2,
                            int(np.ceil(least.height() + title + top + bottom)) + 2)

    def resizeEvent(self, event: QtGui.QResizeEvent | None) -> None:
        if hasattr(self, "title"):  # pyqtgraph resizes once inside its own __init__
            self._fit_title()
        super().resizeEvent(event)

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        super().paintEvent(event)
        # pyqtgraph widens an axis for its labels while painting: ask the layout for room when it does.
        least = self.minimumSizeHint()
        if least != self._least:
            self._least = least
            self.updateGeometry()
