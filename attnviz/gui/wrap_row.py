"""A row of controls that wraps onto more lines when its place is too narrow for one.

With text at 150 % (presentation mode) a row of buttons is wider than a dock or the window's centre
has room for at 1024 px; the row then takes two lines (or more) instead of widening the window.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6 import QtCore, QtGui, QtWidgets


class WrapRow(QtWidgets.QWidget):
    """``widgets`` left to right on as few lines as the width allows, at most ``max_lines``;
    ``stretch``: the index of the widget that takes the spare width on its line (None: a gap at the end).
    Its minimum width is that of ``max_lines`` lines."""

    def __init__(self, widgets: Sequence[QtWidgets.QWidget], max_lines: int = 2, stretch: int | None = None,
                 parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self._widgets = list(widgets)
        self._max_lines = max(1, min(max_lines, len(self._widgets)))
        self._stretch = stretch
        self._grid = QtWidgets.QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._lines = 0
        self._gap: QtWidgets.QSpacerItem | None = None
        self._arrange(1)

    def lines(self) -> int:
        """How many lines the widgets take now."""
        return self._lines

    def _columns(self, lines: int) -> int:
        return math.ceil(len(self._widgets) / lines)

    def _width(self, lines: int) -> int:
        """The least width that shows the widgets on ``lines`` lines: the widest of each column, summed."""
        columns = self._columns(lines)
        widths = [0] * columns
        spanning = 0  # the last widget of a short last line spans the rest of it
        for index, widget in enumerate(self._widgets):
            if not widget.isHidden():
                width = widget.sizeHint().expandedTo(widget.minimumSizeHint()).width()
                if self._span(index, columns) > 1:
                    spanning = width
                else:
                    widths[index % columns] = max(widths[index % columns], width)
        spacing = max(self._grid.horizontalSpacing(), 0)
        return max(sum(widths) + spacing * (sum(1 for w in widths if w) - 1), spanning)

    def _span(self, index: int, columns: int) -> int:
        """Columns the widget at ``index`` takes: the rest of the line for the last widget."""
        return columns - index % columns if index == len(self._widgets) - 1 else 1

    def _arrange(self, lines: int) -> None:
        if lines == self._lines:
            return
        self._lines = lines
        for widget in self._widgets:
            self._grid.removeWidget(widget)
        if self._gap is not None:
            self._grid.removeItem(self._gap)
        columns = self._columns(lines)
        for column in range(self._grid.columnCount()):
            self._grid.setColumnStretch(column, 0)
        left = QtCore.Qt.AlignmentFlag.AlignLeft
        for index, widget in enumerate(self._widgets):
            span = self._span(index, columns)
            alignment = left if span > 1 and index != self._stretch else QtCore.Qt.AlignmentFlag(0)
            self._grid.addWidget(widget, index // columns, index % columns, 1, span, alignment)
        if self._stretch is not None:
            self._grid.setColumnStretch(self._stretch % columns, 1)
        else:  # a gap at the end of the first line takes the spare width
            self._gap = QtWidgets.QSpacerItem(0, 0, QtWidgets.QSizePolicy.Policy.Expanding)
            self._grid.addItem(self._gap, 0, columns)
            self._grid.setColumnStretch(columns, 1)
        self.updateGeometry()

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(self._width(self._max_lines), self._grid.minimumSize().height())

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(self._width(1), self._grid.sizeHint().height())

    def _fit(self, width: int) -> None:
        lines = next((n for n in range(1, self._max_lines + 1) if self._width(n) <= width), self._max_lines)
        self._arrange(lines)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit(event.size().width())

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.FontChange:  # wider texts: perhaps one more line
            self._fit(self.width())
            self.updateGeometry()
