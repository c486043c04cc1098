"""Positional-encoding panel: the sinusoidal table, chosen dimensions over positions, PE·PEᵀ."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from attnviz.figures.panels import positional_similarity_figure, positional_table_figure
from attnviz.figures.spec import empty_figure
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.titled_plot import legend_below
from attnviz.session import Session, SessionState, changed

DEFAULT_DIMS = "6, 7, 8, 9"  # the book plots these


def parse_dims(text: str, width: int) -> list[int]:
    """'6, 7, 8-9' -> [6, 7, 8, 9]; raises ValueError with a readable message."""
    dims: list[int] = []
    for part in filter(None, (p.strip() for p in text.replace(";", ",").split(","))):
        lo_s, _, hi_s = part.partition("-")
        try:
            lo, hi = int(lo_s), int(hi_s or lo_s)
        except ValueError:
            raise ValueError(f"'{part}' is not a dimension number or range") from None
        if not (0 <= lo <= hi < width):
            raise ValueError(f"dimensions must lie in 0…{width - 1}")
        dims.extend(range(lo, hi + 1))
    return dims


class PositionalPanel(QtWidgets.QWidget):
    """The loaded model's positional-encoding table (the sentence's positions outlined), chosen
    dimensions as curves, and PE·PEᵀ."""

    def __init__(self, session: Session | None = None, parent=None):
        super().__init__(parent)
        self.table = np.zeros((0, 0), np.float32)
        self.sentence_length = 0
        self.table_view = Heatmap()
        self.similarity_view = Heatmap()
        self.curves = pg.PlotWidget(background="w")
        legend_below(self.curves.getPlotItem(), columns=2)
        self.curves.setLabel("bottom", "position")
        self.dims_edit = QtWidgets.QLineEdit(DEFAULT_DIMS)
        self.dims_edit.setToolTip("Dimensions to plot over positions, e.g. 6, 7, 8-9")
        self.message = QtWidgets.QLabel(" ")
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("Dimensions:"))
        row.addWidget(self.dims_edit, 1)
        row.addWidget(self.message)
        tabs = QtWidgets.QTabWidget()
        tabs.addTab(self.table_view, "Table")
        curves_page = QtWidgets.QWidget()
        curves_layout = QtWidgets.QVBoxLayout(curves_page)
        curves_layout.addLayout(row)
        curves_layout.addWidget(self.curves, 1)
        tabs.addTab(curves_page, "Curves")
        tabs.addTab(self.similarity_view, "PE · PEᵀ")
        self.tabs = tabs
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(tabs)
        self.dims_edit.editingFinished.connect(self._on_dims_edit_finished)

    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        """The table follows the model; the outline follows the sentence's length."""
        if changed(old, new, "model", "loading"):
            table = new.model.positional_table if new.model is not None else None
            self.table = np.zeros((0, 0), np.float32) if table is None else table
            if new.model is None:  # nothing known yet: not "this model has none"
                waiting = empty_figure("Loading…" if new.loading else "Open a checkpoint")
                self.table_view.show_figure(waiting)
                self.similarity_view.show_figure(waiting)
            else:
                self.table_view.show_figure(positional_table_figure(table))
                self.similarity_view.show_figure(positional_similarity_figure(table))
            self._on_dims_edit_finished()
            self.sentence_length = -1  # re-outline on the new table
        source = new.shown_source
        length = len(source.tokens) if source is not None else 0  # 0: no outline
        if length != self.sentence_length:
            self.sentence_length = length
            self._mark_sentence()

    def _mark_sentence(self) -> None:
        self.table_view.highlight_rows(0, self.sentence_length)  # (longer than the table: no outline)

    def _on_dims_edit_finished(self) -> None:
        self.curves.clear()
        width = self.table.shape[1]
        if not width:
            return
        try:
            dims = parse_dims(self.dims_edit.text(), width)
        except ValueError as error:
            self.message.setText(str(error))
            return
        self.message.setText(" ")
        x = np.arange(self.table.shape[0])
        for i, dim in enumerate(dims[:12]):
            self.curves.plot(x, self.table[:, dim], pen=pg.mkPen(pg.intColor(i, max(len(dims), 1)), width=2),
                             name=f"dim {dim}")
