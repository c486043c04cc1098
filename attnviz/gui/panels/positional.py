"""Positional-encoding panel: the sinusoidal table, chosen dimensions over positions, PE·PEᵀ."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from attnviz.figures.panels import positional_similarity_figure, positional_table_figure
from attnviz.figures.spec import empty_figure
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.titled_plot import legend_below
from attnviz.session import Session, SessionState, changed

DEFAULT_DIMS = "6, 7, 8, 9"  # the book plots these
MAX_CURVES = 12


def parse_dims(text: str, width: int) -> tuple[list[int], list[str]]:
    """'6, 7, 8-9' -> ([6, 7, 8, 9], []): the dimensions in 0…width-1 to plot, and a short note per entry that
    is not one ('“abc” (not a number)': skipped and named; the valid entries still plot)."""
    dims: list[int] = []
    problems: list[str] = []
    for part in filter(None, (p.strip() for p in text.replace(";", ",").split(","))):
        lo_s, _, hi_s = part.partition("-")
        try:
            lo, hi = int(lo_s), int(hi_s or lo_s)
        except ValueError:
            problems.append(f"“{part}” (not a number)")
            continue
        if not (0 <= lo <= hi < width):
            problems.append(f"“{part}” (outside 0…{width - 1})")
            continue
        dims.extend(d for d in range(lo, hi + 1) if d not in dims)
    return dims, problems


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
        # On lines of its own, two lines tall, as wide as the panel lets it be: a message never moves the
        # field, the plot or the dock (a longer one is cut; its tooltip has it whole).
        self.message = QtWidgets.QLabel(" ")
        self.message.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.message.setStyleSheet("color: #a15c00;")
        self.message.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        self.message.setWordWrap(True)
        self.message.setAlignment(QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignTop)
        self.message.setFixedHeight(2 * self.message.fontMetrics().lineSpacing())
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("Dimensions:"))
        row.addWidget(self.dims_edit, 1)
        tabs = QtWidgets.QTabWidget()
        tabs.addTab(self.table_view, "Table")
        curves_page = QtWidgets.QWidget()
        curves_layout = QtWidgets.QVBoxLayout(curves_page)
        curves_layout.addLayout(row)
        curves_layout.addWidget(self.message)
        curves_layout.addWidget(self.curves, 1)
        tabs.addTab(curves_page, "Curves")
        tabs.addTab(self.similarity_view, "PE · PEᵀ")
        self.tabs = tabs
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(tabs)
        self.dims_edit.editingFinished.connect(self._on_dims_edit_finished)

    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        """The table follows the model; the outline follows the positions in use: the sentence's, or a
        decoder-only model's whole sequence so far (the English, <bos> and the answer)."""
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
        source, step = new.shown_source, new.step
        length = len(source.tokens) if source is not None else 0  # 0: no outline
        if source is not None and source.prompt and step is not None:  # decoder-only: the whole sequence so far
            length += len(step.query_tokens)
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
        dims, problems = parse_dims(self.dims_edit.text(), width)
        shown = dims[:MAX_CURVES]
        if len(dims) > MAX_CURVES:
            problems.append(f"dimensions after the first {MAX_CURVES} (of {len(dims)})")
        text = ("Skipped " + ", ".join(problems)) if problems else " "
        self.message.setText(text)
        self.message.setToolTip(text.strip())
        x = np.arange(self.table.shape[0])
        for i, dim in enumerate(shown):
            self.curves.plot(x, self.table[:, dim], pen=pg.mkPen(pg.intColor(i, max(len(shown), 1)), width=2),
                             name=f"dim {dim}")
