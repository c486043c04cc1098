"""Attention panel: one query × key heatmap with kind/layer/head selectors, or all heads as a grid.

Its options are the session's ``state.view``: the panel draws them and sends the user's changes back through
:meth:`Session.set_view`, so a saved session, Show live and the exports all read the one published copy."""

from __future__ import annotations

import html
from dataclasses import replace

from PySide6 import QtCore, QtWidgets

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.layout import ENCODER_DECODER, NOT_COMPUTED, SequenceLayout, not_at_length, on_demand
from attnviz.core.results import EncodedSource
from attnviz.figures.attention import (
    AttentionView,
    MatrixView,
    attention_figure,
    available_kinds,
    fit_view,
    select,
    stack_extent,
)
from attnviz.figures.spec import FigureSpec, GridSpec, NamedFigure, empty_figure
from attnviz.gui.decoding_area import FIRST_STEP_HINT
from attnviz.gui.grid_pixels import GridPicture, grid_picture
from attnviz.gui.head_grid import HeadGrid
from attnviz.gui.heatmap import Heatmap, position_text
from attnviz.gui.numbered import set_numbered
from attnviz.gui.wrap_row import WrapRow
from attnviz.i18n import N_, tr
from attnviz.session import Session, SessionState, changed

COMPUTING_GRID = N_("Computing all heads…")


class ReadoutLabel(QtWidgets.QLabel):
    """The hover read-out: two lines of the widget's font, wrapped, whatever the text. Its size never follows what
    it says, so a longer read-out cannot make the dock lay itself out again under the pointer (the heatmap moved,
    and the tooltip and the read-out named different cells)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(" ", parent)
        self.setWordWrap(True)
        self.setAlignment(QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignTop)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QtCore.QSize:
        margins = self.contentsMargins()
        return QtCore.QSize(0, 2 * self.fontMetrics().lineSpacing() + margins.top() + margins.bottom() + 2)

    def minimumSizeHint(self) -> QtCore.QSize:
        return self.sizeHint()

    def hasHeightForWidth(self) -> bool:
        return False


class AttentionPanel(QtWidgets.QWidget):
    """Shows the attention matrix the state's view options select, for the session state it was last given."""

    def __init__(self, session: Session | None = None, parent=None):
        super().__init__(parent)
        self.session = session
        self.state = SessionState()
        self.current: MatrixView | None = None  # the matrix on show (None: the grid, or nothing)
        self._grid_wanted: tuple | None = None  # what the latest All heads request was for

        self.kind_box = QtWidgets.QComboBox()
        self.layer_box = QtWidgets.QSpinBox()
        self.head_box = QtWidgets.QSpinBox()
        for box, prefix in ((self.layer_box, tr("layer {n}")), (self.head_box, tr("head {n}"))):
            set_numbered(box, prefix)
            box.setRange(1, 1)
        self.all_heads = QtWidgets.QCheckBox(tr("All heads"))
        self.scores = QtWidgets.QCheckBox(tr("Pre-softmax scores"))
        self.show_masked = QtWidgets.QCheckBox(tr("Show masked cells"))
        self.show_masked.setChecked(True)
        # short rows that wrap where the dock is narrow: it stays narrow enough for a laptop, large text too
        selectors = WrapRow((self.kind_box, self.layer_box, self.head_box), max_lines=3)
        toggles = WrapRow((self.all_heads, self.scores, self.show_masked), max_lines=3)
        controls = QtWidgets.QVBoxLayout()
        controls.setSpacing(2)
        controls.addWidget(selectors)
        controls.addWidget(toggles)

        self.heatmap = Heatmap()
        self.grid = HeadGrid()
        self.stack = QtWidgets.QStackedWidget()
        self.stack.addWidget(self.heatmap)
        self.stack.addWidget(self.grid)
        self.readout = ReadoutLabel()
        self.readout.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note = QtWidgets.QLabel()  # what the layout says of the kind on show (a decoder-only model's source view)
        self.note.setWordWrap(True)
        self.note.hide()
        self.controls = QtWidgets.QWidget()  # (hidden in the lecture view: keys change layer and head there)
        self.controls.setLayout(controls)
        controls.setContentsMargins(0, 0, 0, 0)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.controls)
        layout.addWidget(self.note)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.readout)
        self._set_kinds(list(AttentionKind), ENCODER_DECODER)

        self.kind_box.currentIndexChanged.connect(self._on_selector_changed)
        self.layer_box.valueChanged.connect(self._on_selector_changed)
        self.head_box.valueChanged.connect(self._on_selector_changed)
        for check in (self.all_heads, self.scores, self.show_masked):
            check.toggled.connect(self._on_selector_changed)
        self.heatmap.hovered.connect(self._on_heatmap_hovered)
        self.grid.hovered.connect(self._on_grid_hovered)
        self.grid.picked.connect(self._on_grid_picked)
        self.grid.toggle_requested.connect(self._on_grid_toggle_requested)
        self.grid.switchable = self._head_is_off

    # -- the panel protocol ---------------------------------------------------------------------
    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        """Redraw when what this panel shows changed (the model, the sentence, the step or the view options)."""
        self.state = new
        if changed(old, new, "model", "shown_source", "step", "view") or (
                new.shown_source is None and changed(old, new, "busy", "loading", "text")):  # the empty message
            self.refresh()

    def set_lecture(self, label_pixels: tuple[int, int] | None) -> None:
        """The lecture view (``label_pixels``: the range of label sizes, largest first) shows the map alone, its
        title on up to three lines and every token label as large as fits; None: the panel as it was."""
        lecture = label_pixels is not None
        self.controls.setVisible(not lecture)
        self.readout.setVisible(not lecture)
        if lecture:
            self.note.hide()
        self.heatmap.title_lines = 3 if lecture else 2
        self.heatmap.set_label_pixels(label_pixels)
        self.refresh()

    # -- what it shows ----------------------------------------------------------------------
    @property
    def kind(self) -> AttentionKind:
        return self.view().kind

    def view(self) -> AttentionView:
        """The view options (0-based layer and head): the session's, as published."""
        return self.session.state.view if self.session is not None else self.state.view

    def select_view(self, kind: AttentionKind, layer: int, head: int) -> None:
        """Programmatic selection (0-based layer and head)."""
        self.set_view(replace(self.view(), kind=kind, layer=layer, head=head))

    def set_view(self, view: AttentionView) -> None:
        """Ask for ``view`` (a book figure's, a test's): the session publishes it, within what the model has,
        and the panel draws it."""
        if self.session is not None:
            self.session.set_view(view)
            return
        source = self.state.shown_source
        fitted = fit_view(view, source, self.state.step) if source is not None else view
        self.show_state(self.state, replace(self.state, view=fitted))

    def figure(self) -> NamedFigure | None:
        """The figure on show, named as its export file (what Export and Copy write)."""
        source = self.state.shown_source
        if source is None:
            return None
        return attention_figure(source, self.state.step, self.state.view, self._model_name())[0]

    def refresh(self) -> None:
        state, source, view = self.state, self.state.shown_source, self.state.view
        self._show_options(view, source)
        if source is None:
            self.note.hide()
            self.current = self._grid_wanted = None
            self.stack.setCurrentWidget(self.heatmap)
            self.heatmap.set_hint("")
            self.heatmap.show_figure(empty_figure(self._empty_message(state)))
            self.heatmap.highlight_row(None)
            return
        note = source.layout.kind_note(view.kind)
        if note != self.note.text():  # (an unchanged label is not laid out again)
            self.note.setText(note)
        self.note.setVisible(bool(note) and self.controls.isVisibleTo(self))
        hint = tr(FIRST_STEP_HINT) if state.step is None and view.kind is not AttentionKind.ENCODER_SELF else ""
        self.heatmap.set_hint(hint)
        self.grid.hint = hint
        maps = on_demand(source)
        if view.all_heads:
            self.grid.value_name = "score" if view.scores else "weight"
            if maps is not None:  # (a long prompt: every head's map is never put together)
                self.current = self._grid_wanted = None
                self.stack.setCurrentWidget(self.grid)
                self.grid.show_message(not_at_length(source))
                return
            self._show_grid()
            return
        self._grid_wanted = None
        if maps is not None and not maps.shows(view.layer, view.head, view.scores):
            self.current = None  # (the session computes it on the worker: it arrives in a new source)
            self.stack.setCurrentWidget(self.heatmap)
            self.heatmap.show_figure(empty_figure(tr(NOT_COMPUTED).format(
                layer=view.layer + 1, head=view.head + 1, tokens=f"{len(source.tokens):,}")))
            self.heatmap.highlight_row(None)
            return
        named, matrix = attention_figure(source, state.step, view, self._model_name())
        self.current = matrix
        self.stack.setCurrentWidget(self.heatmap)
        assert isinstance(named.spec, FigureSpec) and matrix is not None
        self.heatmap.show_figure(named.spec)
        self.heatmap.highlight_row(source.layout.current_row(matrix.kind, len(matrix.rows), state.step))

    def _show_grid(self) -> None:
        """All heads: the grid figure and every head's colours are made on the worker (16 M cells for 8 × 2
        heads of 1,024 tokens); until then the grid says so, or keeps the previous step's picture of the same
        sentence and view."""
        source, step, view, model = self.state.shown_source, self.state.step, self.state.view, self._model_name()
        assert source is not None
        self.current = None
        self.stack.setCurrentWidget(self.grid)
        self.readout.setText(" ")
        wanted = (source, step, view, model)
        previous, self._grid_wanted = self._grid_wanted, wanted
        if previous is None or previous[0] is not source or previous[2] != view:
            self.grid.show_message(tr(COMPUTING_GRID))

        def job() -> GridPicture:
            named = attention_figure(source, step, view, model)[0]
            assert isinstance(named.spec, GridSpec)
            return grid_picture(named.spec)

        def done(picture: GridPicture) -> None:
            if self._grid_wanted is wanted:
                self.grid.show_grid(picture.spec, picture.pixels)

        if self.session is None:
            done(job())
        else:
            self.session.compute_view("all-heads", tr(COMPUTING_GRID), job, done)

    def _show_options(self, view: AttentionView, source: EncodedSource | None) -> None:
        """Put the controls to ``view`` (without their signals: nothing is asked of the session). The kinds
        offered and the layer and head ranges follow the source (encoder and decoder depths may differ)."""
        controls = (self.kind_box, self.layer_box, self.head_box, self.all_heads, self.scores, self.show_masked)
        blocked = [control.blockSignals(True) for control in controls]
        if source is not None:
            self._set_kinds(available_kinds(source), source.layout)
        index = self.kind_box.findData(view.kind.value)
        if index >= 0 and index != self.kind_box.currentIndex():
            self.kind_box.setCurrentIndex(index)
        if source is not None:
            layers, heads = stack_extent(view.kind, source, self.state.step)
            self._set_range(self.layer_box, layers)
            self._set_range(self.head_box, heads)
        for box, value in ((self.layer_box, view.layer + 1), (self.head_box, view.head + 1)):
            if box.value() != value:
                box.setValue(value)
        for check, on in ((self.all_heads, view.all_heads), (self.scores, view.scores),
                          (self.show_masked, view.show_masked)):
            check.setChecked(on)
        for control, was in zip(controls, blocked, strict=True):
            control.blockSignals(was)

    def _model_name(self) -> str:
        return self.state.model.name if self.state.model is not None else ""

    @staticmethod
    def _empty_message(state: SessionState) -> str:
        if state.loading or (state.model is None and state.busy):
            return tr("Loading…")
        if state.model is None:
            return tr("Open a checkpoint to see attention")
        if state.text.strip():
            return tr("Encoding…")
        return tr("Type a sentence to see attention")

    @staticmethod
    def _set_range(box: QtWidgets.QSpinBox, count: int) -> None:
        if (box.minimum(), box.maximum()) == (1, max(count, 1)):
            return  # (setting the same range still re-lays out and repaints the box)
        was = box.blockSignals(True)
        box.setRange(1, max(count, 1))
        box.blockSignals(was)

    # -- handlers ---------------------------------------------------------------------------
    def _set_kinds(self, kinds: list[AttentionKind], layout: SequenceLayout) -> None:
        """Offer ``kinds``, named as the model's layout calls them."""
        labels = [layout.kind_label(kind) for kind in kinds]  # (kind_label() translates)
        if [self.kind_box.itemText(i).lower() for i in range(self.kind_box.count())] == labels \
                and [self.kind_box.itemData(i) for i in range(self.kind_box.count())] == [k.value for k in kinds]:
            return
        current = self.kind_box.currentData()
        was = self.kind_box.blockSignals(True)
        self.kind_box.clear()
        for kind, label in zip(kinds, labels, strict=True):
            self.kind_box.addItem(label[0].upper() + label[1:], kind.value)
        index = self.kind_box.findData(current)
        self.kind_box.setCurrentIndex(index if index >= 0 else self.kind_box.count() - 1)
        self.kind_box.blockSignals(was)

    def _on_selector_changed(self, *_args) -> None:
        """The user changed an option: ask the session for the view the controls now say."""
        self.set_view(AttentionView(AttentionKind(self.kind_box.currentData()), self.layer_box.value() - 1,
                                    self.head_box.value() - 1, self.scores.isChecked(), self.show_masked.isChecked(),
                                    self.all_heads.isChecked()))

    def _on_grid_picked(self, layer: int, head: int) -> None:
        self.set_view(replace(self.view(), all_heads=False, layer=layer, head=head))

    def _grid_head_name(self, layer: int, head: int) -> str:
        """``cross:2.1``: the All heads cell's head as ``--mask-heads`` and the Heads dock name it."""
        source = self.state.shown_source
        kind = self.view().kind if source is None else source.layout.computed_kind(self.view().kind)
        return f"{kind.slug}:{layer + 1}.{head + 1}"

    def _heads_off(self) -> list[str]:
        model = self.state.model
        return [h for h in model.heads_off.split(",") if h] if model is not None else []

    def _head_is_off(self, layer: int, head: int) -> bool | None:
        """Whether that head of the All heads grid is off; None: this model's heads are not switched off here."""
        if self.state.model is None or not self.state.model.heads_switch:
            return None
        return self._grid_head_name(layer, head) in self._heads_off()

    def _on_grid_toggle_requested(self, layer: int, head: int) -> None:
        """The All heads grid's context menu: switch that head off (or on again); the sentence decodes again."""
        name, off = self._grid_head_name(layer, head), self._heads_off()
        if self.session is not None:
            self.session.switch_heads_off(",".join([h for h in off if h != name] if name in off else [*off, name]))

    def _on_grid_hovered(self, layer: int, head: int, row: int, col: int) -> None:
        """The read-out of the all-heads cell under the pointer: layer, head, query, key and value."""
        text = self.grid.read_out(layer, head, row, col)
        self.readout.setText(html.escape(text) if text else " ")

    def _on_heatmap_hovered(self, row: int, col: int) -> None:
        """The read-out of the cell under the pointer, always from the matrix on show."""
        view, source = self.current, self.state.shown_source
        if view is None or source is None or not (0 <= row < view.values.shape[0] and 0 <= col < view.values.shape[1]):
            self.readout.setText(" ")
            return
        query, key = html.escape(view.rows[row]), html.escape(view.cols[col])
        where = html.escape(position_text(row, col)) + " · "  # (a long map's tokens repeat: where the cell is)
        if on_demand(source) is not None:  # (a long prompt: only the map on show is computed, weights or scores)
            value = view.values[row, col]
            self.readout.setText(where + tr("query <b>{query}</b> → key <b>{key}</b>: {name} {value:.4f}{masked}")
                                 .format(query=query, key=key, name=tr("score") if view.scores else tr("weight"),
                                         value=value, masked=tr(" (masked)") if view.masked[row, col] else ""))
            return
        other = select(view.kind, view.layer, view.head, source, self.state.step, scores=not view.scores)
        weights, scores = (other, view) if view.scores else (view, other)
        weight = weights.values[row, col]
        if col >= scores.values.shape[1]:  # (a learned sink's column, after the keys: a weight, no key's score)
            self.readout.setText(where + tr("query <b>{query}</b> → key <b>{key}</b>: {name} {value:.4f}{masked}")
                                 .format(query=query, key=key, name=tr("weight"), value=weight, masked=""))
            return
        if view.masked[row, col]:
            text = tr("query <b>{query}</b> → key <b>{key}</b>: weight {weight:.4f} (masked)").format(
                query=query, key=key, weight=weight)
        else:
            text = tr("query <b>{query}</b> → key <b>{key}</b>: weight {weight:.4f}, score {score:.3f}").format(
                query=query, key=key, weight=weight, score=scores.values[row, col])
        self.readout.setText(where + text)
