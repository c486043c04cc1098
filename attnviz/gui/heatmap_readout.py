"""The heatmap's read-out: which cell is under the pointer (the ``hovered`` signal, the crosshair, the tooltip that
names the cell whole and its value), the outlines and the crosshair a linked view asks for.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.gui.heatmap_layout import HeatmapGeometry
from attnviz.i18n import tr


def position_text(row: int, col: int) -> str:
    """Cell (row, col) as the positions a reader counts, from 1: "position 1,501 → 701"."""
    return tr("position {row:,} → {col:,}").format(row=row + 1, col=col + 1)


class HeatmapReadout(HeatmapGeometry):
    """Reports the cell under the pointer: ``hovered(row, col)`` when it enters a cell, and again with the same cell
    when a new figure replaces the old under a still pointer ((-1, -1) when it leaves or the cell is gone)."""

    hovered = QtCore.Signal(int, int)

    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    highlighted_rows: tuple[int, int] | None
    highlighted_column: int | None
    linked_cell: tuple[int, int] | None
    _hover: tuple[int, int]
    cells_are_positions: bool
    _pointer: QtCore.QPointF | None

    def cell_text(self, row: int, col: int) -> str:
        """The hover read-out of cell (row, col): its query and key (whole, never cut) and its value."""
        rows, cols = self.values.shape if self.values.ndim == 2 else (0, 0)
        if not (0 <= row < rows and 0 <= col < cols):
            return ""
        query = self.row_labels[row] if row < len(self.row_labels) else str(row)
        key = self.col_labels[col] if col < len(self.col_labels) else str(col)
        masked = self.spec.masked is not None and bool(self.spec.masked[row, col])
        value = tr("masked") if masked else f"{float(self.values[row, col]):.4g}"
        cell = tr("{row_axis} {query} → {col_axis} {key}: {value}").format(
            row_axis=self.spec.row_axis, query=query, col_axis=self.spec.col_axis, key=key, value=value)
        if not self.cells_are_positions:
            return cell
        return f"{cell} · {position_text(row, col)}"  # (where it is: in a long map the tokens repeat)

    def highlight_row(self, row: int | None) -> None:
        """Outline query row ``row`` (None hides the outline)."""
        self.highlight_rows(row, 1)

    def highlight_rows(self, first: int | None, count: int) -> None:
        """Outline ``count`` rows from ``first`` (None or rows outside the matrix: no outline)."""
        rows = self.values.shape[0] if self.values.ndim == 2 else 0
        wanted = (first, count) if first is not None and count > 0 and first >= 0 and first + count <= rows \
            else None
        if wanted != self.highlighted_rows:
            self.highlighted_rows = wanted
            self.update()
    def highlight_column(self, column: int | None) -> None:
        """Outline column ``column`` (None, or a column outside the matrix: no outline)."""
        columns = self.values.shape[1] if self.values.ndim == 2 else 0
        wanted = column if column is not None and 0 <= column < columns else None
        if wanted != self.highlighted_column:
            self.highlighted_column = wanted
            self.update()

    def show_linked_cell(self, row: int, col: int) -> None:
        """Draw the crosshair at (row, col) for a pointer over a linked heatmap ((-1, -1): none)."""
        rows, cols = self.values.shape if self.values.ndim == 2 else (0, 0)
        wanted = (row, col) if 0 <= row < rows and 0 <= col < cols else None
        if wanted != self.linked_cell:
            self.linked_cell = wanted
            self.update()
    # -- pointer ----------------------------------------------------------------------------
    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:
        self._pointer = event.position()
        cell = self.cell_at(self._pointer)
        if cell != self._hover:
            self._set_hover(cell)
        super().mouseMoveEvent(event)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        self._layout = None
        super().resizeEvent(event)
        if self._pointer is not None:  # (the dock laid out again under a still pointer: the read-out names the cell
            cell = self.cell_at(self._pointer)  # now under it, as the tooltip does)
            if cell != self._hover:
                self._set_hover(cell)

    def leaveEvent(self, event: QtCore.QEvent) -> None:
        self._pointer = None
        if self._hover != (-1, -1):
            self._set_hover((-1, -1))
        super().leaveEvent(event)

    def _refresh_hover(self) -> None:
        """A new figure under a pointer that has not moved: report the cell again (its value changed)."""
        self._layout = None
        cell = self.cell_at(self._pointer) if self._pointer is not None else (-1, -1)
        if cell != (-1, -1) or self._hover != (-1, -1):
            self._set_hover(cell)

    def _set_hover(self, cell: tuple[int, int]) -> None:
        self._hover = cell
        self.update()
        self.hovered.emit(*cell)

    def event(self, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.ToolTip:  # the whole title, when it is shown cut
            layout = self.figure_layout()
            assert isinstance(event, QtGui.QHelpEvent)
            at = QtCore.QPointF(event.pos())
            cell = self.cell_at(at)
            if layout.title.contains(at) and layout.title_text != self.spec.title:
                QtWidgets.QToolTip.showText(event.globalPos(), self.spec.title, self)
            elif cell != (-1, -1):  # every cell reads out, its labels shown or thinned away
                note = f"\n{self.toolTip()}" if self.toolTip() else ""  # (the widget's own explanation under it)
                QtWidgets.QToolTip.showText(event.globalPos(), self.cell_text(*cell) + note, self)
            elif self.toolTip():
                QtWidgets.QToolTip.showText(event.globalPos(), self.toolTip(), self)
            else:
                QtWidgets.QToolTip.hideText()
            return True
        return super().event(event)
