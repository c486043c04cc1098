"""Positional-encoding panel: the table added per position (sinusoidal or learned; RoPE's angles), chosen
dimensions over positions, PE·PEᵀ, and for a rotary model its frequencies and how q·k falls off with distance."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from attnviz.core.results import PositionalDescription
from attnviz.figures.panels import positional_similarity_figure, positional_table_figure
from attnviz.figures.spec import AnyFigure, empty_figure
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.panels.family_views import views_of
from attnviz.gui.titled_plot import legend_below
from attnviz.i18n import tr
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
            problems.append(tr("“{part}” (not a number)").format(part=part))
            continue
        if not (0 <= lo <= hi < width):
            problems.append(tr("“{part}” (outside 0…{last})").format(part=part, last=width - 1))
            continue
        dims.extend(d for d in range(lo, hi + 1) if d not in dims)
    return dims, problems


class PositionalPanel(QtWidgets.QWidget):
    """The loaded model's positional-encoding table (the sentence's positions outlined), chosen
    dimensions as curves, and PE·PEᵀ."""

    def __init__(self, session: Session | None = None, parent=None):
        super().__init__(parent)
        self.table = np.zeros((0, 0), np.float32)
        self.described: PositionalDescription | None = None
        self.sentence_length = 0
        self.table_view = Heatmap()
        self.similarity_view = Heatmap()
        self.curves = pg.PlotWidget(background="w", enableMenu=False)
        legend_below(self.curves.getPlotItem(), columns=2)
        self.curves.setLabel("bottom", tr("position"))
        self.dims_edit = QtWidgets.QLineEdit(DEFAULT_DIMS)
        self.dims_edit.setToolTip(tr("Dimensions to plot over positions, e.g. 6, 7, 8-9"))
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
        row.addWidget(QtWidgets.QLabel(tr("Dimensions:")))
        row.addWidget(self.dims_edit, 1)
        tabs = QtWidgets.QTabWidget()
        tabs.addTab(self.table_view, tr("Table"))
        curves_page = QtWidgets.QWidget()
        curves_layout = QtWidgets.QVBoxLayout(curves_page)
        curves_layout.addLayout(row)
        curves_layout.addWidget(self.message)
        curves_layout.addWidget(self.curves, 1)
        tabs.addTab(curves_page, tr("Curves"))
        tabs.addTab(self.similarity_view, "PE · PEᵀ")
        from attnviz.gui.panels.image import FigureCanvas  # (an image model's: each patch against the others)

        self.patches_view = FigureCanvas()
        self.patches_view.setCursor(QtCore.Qt.CursorShape.ArrowCursor)
        self.rope_frequencies = pg.PlotWidget(background="w", enableMenu=False,
                                              title=tr("θ_i: the angle pair i turns per position"))
        self.rope_frequencies.setLabel("bottom", tr("pair i"))
        self.rope_frequencies.setLabel("left", tr("θ_i (radians)"))
        self.rope_frequencies.setLogMode(y=True)
        self.rope_decay = pg.PlotWidget(background="w", enableMenu=False,
                                      title=tr("q·k of two all-ones vectors m apart (1 at m = 0)"))
        self.rope_decay.setLabel("bottom", tr("distance m (positions)"))
        rope_page = QtWidgets.QWidget()
        rope_layout = QtWidgets.QVBoxLayout(rope_page)
        rope_layout.addWidget(self.rope_frequencies, 1)
        rope_layout.addWidget(self.rope_decay, 1)
        self.rope_page = rope_page
        self.tabs = tabs
        # What the model does with positions, in one sentence (Hugging Face models; empty for attnviz's own)
        self.note = QtWidgets.QLabel()
        self.note.setWordWrap(True)
        self.note.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.note.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.note.hide()
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.note)
        layout.addWidget(tabs)
        self.dims_edit.editingFinished.connect(self._on_dims_edit_finished)

    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        """The table follows the model; the outline follows the positions in use: the sentence's, or a
        decoder-only model's whole sequence so far (the English, <bos> and the answer)."""
        if changed(old, new, "model", "loading"):
            table = new.model.positional_table if new.model is not None else None
            self.table = np.zeros((0, 0), np.float32) if table is None else table
            if new.model is None:  # nothing known yet: not "this model has none"
                waiting = empty_figure(tr("Loading…") if new.loading else tr("Open a checkpoint"))
                self.table_view.show_figure(waiting)
                self.similarity_view.show_figure(waiting)
            else:
                described = new.model.positional
                levels = described.levels if described is not None else (-1.0, 1.0)
                self.table_view.show_figure(positional_table_figure(table, levels, described))
                self.similarity_view.show_figure(positional_similarity_figure(table, described))
            self._show_description(new.model.positional if new.model is not None else None)
            self._on_dims_edit_finished()
            self.sentence_length = -1  # re-outline on the new table
        source, step = new.shown_source, new.step
        if changed(old, new, "model", "shown_source"):
            self._show_patches(views_of(new.model.layout if new.model is not None else None).positions_figure(
                self.table, new))
        length = source.layout.positions(source, step) if source is not None else 0  # 0: no outline
        if length != self.sentence_length:
            self.sentence_length = length
            self._mark_sentence()

    def _show_description(self, described: PositionalDescription | None) -> None:
        """The note line and, for a rotary model, the RoPE tab (its frequencies and the decay with distance)."""
        self.described = described
        self.note.setText(tr(described.note) if described is not None else "")
        self.note.setVisible(described is not None)
        index = self.tabs.indexOf(self.rope_page)
        rope = described is not None and described.rope_frequencies is not None and described.rope_decay is not None
        if not rope:
            if index >= 0:
                self.tabs.removeTab(index)
            return
        assert described is not None and described.rope_frequencies is not None and described.rope_decay is not None
        if index < 0:
            self.tabs.addTab(self.rope_page, "RoPE")
        self.rope_frequencies.clear()
        self.rope_frequencies.plot(np.arange(len(described.rope_frequencies)), described.rope_frequencies,
                                   pen=pg.mkPen("#1f77b4", width=2), symbol="o", symbolSize=5)
        self.rope_decay.clear()
        self.rope_decay.plot(np.arange(len(described.rope_decay)), described.rope_decay, pen=pg.mkPen("#d62728",
                                                                                                    width=2))

    def _show_patches(self, figure: AnyFigure | None) -> None:
        """A family's own figure of the table over its input's places (an image model's learned positions on its
        patch grid: ``FamilyViews.positions_figure``), in a tab of its own; none for a sentence."""
        index = self.tabs.indexOf(self.patches_view)
        if figure is None:
            if index >= 0:
                self.tabs.removeTab(index)
            return
        if index < 0:
            self.tabs.addTab(self.patches_view, tr("Patches (2-D)"))
        self.patches_view.show_figure(figure)

    def patches_figure(self) -> AnyFigure | None:
        """The patches' similarity grid on show (an image model's), or None."""
        return self.patches_view.figure if self.tabs.indexOf(self.patches_view) >= 0 else None

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
            problems.append(tr("dimensions after the first {count} (of {total})").format(count=MAX_CURVES,
                                                                                          total=len(dims)))
        text = tr("Skipped {problems}").format(problems=tr(", ", "list separator").join(problems)) if problems else " "
        self.message.setText(text)
        self.message.setToolTip(text.strip())
        described = self.described
        x = described.row_values if described is not None and described.row_values is not None \
            else np.arange(self.table.shape[0])
        self.curves.setLabel("bottom", tr(described.row_axis) if described is not None else tr("position"))
        for i, dim in enumerate(shown):
            name = tr("head {number}").format(number=dim + 1) if described is not None and not described.vectors \
                else tr("dim {number}").format(number=dim)
            self.curves.plot(x, self.table[:, dim], pen=pg.mkPen(pg.intColor(i, max(len(shown), 1)), width=2),
                             name=name)
