"""Computation panel: where one attention weight comes from, with the model's real numbers.

Pick an attention kind, layer, head and query (or click a row of the Attention heatmap): the session
recomputes that query stage by stage (``Session.inspect_query``) and the panel draws the chain as
strips titled with their formulas: a → q, k_j, v_j → scores → mask → weights α → output b. Every
strip with one column per key is linked: hovering a key outlines its column in all of them. The
summary line says how far the recomputed weights are from the ones the model produced while decoding.
"""

from __future__ import annotations

import html

from PySide6 import QtCore, QtWidgets

from attnviz.core.attention.computation import QueryComputation
from attnviz.core.attention.kind import AttentionKind
from attnviz.core.layout import ENCODER_DECODER
from attnviz.figures.computation import SIGNED_MAP, Stage, computation_stages, computation_title
from attnviz.figures.panels import MASK_MAP
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.numbered import set_numbered
from attnviz.i18n import tr
from attnviz.render.figure_painter import argb_table
from attnviz.session import Session, SessionState, changed

FOLLOW_DELAY_MS = 150  # following the step waits for stepping to pause: a recomputation re-runs the decoding


class ComputationPanel(QtWidgets.QWidget):
    """Asks the session for one query's computation and draws the chain it publishes."""

    def __init__(self, session: Session | None = None, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.state = SessionState()
        self.computation: QueryComputation | None = None
        self.kind_box = QtWidgets.QComboBox()
        self.layer_box, self.head_box, self.query_box = (QtWidgets.QSpinBox() for _ in range(3))
        for box, prefix in ((self.layer_box, tr("layer {n}")), (self.head_box, tr("head {n}")),
                            (self.query_box, tr("query {n}"))):
            set_numbered(box, prefix)
            box.setRange(1, 1)
        self.follow = QtWidgets.QCheckBox(tr("Follow"))
        self.follow.setChecked(True)
        self.follow.setToolTip(tr("Show the newest query of the step on show (the row the decoder just computed)"))
        self.summary = QtWidgets.QLabel(tr("Click a row of the Attention heatmap, or pick a query here."))
        self.summary.setWordWrap(True)
        self.readout = QtWidgets.QLabel(" ")
        self.readout.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.stages_box = QtWidgets.QWidget()
        self.stages_layout = QtWidgets.QVBoxLayout(self.stages_box)
        self.stages_layout.setContentsMargins(0, 0, 0, 0)
        self.stages_layout.addStretch(1)
        self.heatmaps: dict[str, Heatmap] = {}
        self._label_widths: dict[str, float] = {}  # shared by the strips (one font): see _heatmap
        self._colours_ready = False  # the strips' colour tables were made on the worker
        self.per_key: set[str] = set()
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.stages_box)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        pickers = QtWidgets.QGridLayout()  # two columns: narrow enough to dock beside the others
        pickers.addWidget(self.kind_box, 0, 0, 1, 2)
        pickers.addWidget(self.layer_box, 1, 0)
        pickers.addWidget(self.head_box, 1, 1)
        pickers.addWidget(self.query_box, 2, 0)
        pickers.addWidget(self.follow, 2, 1)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(pickers)
        layout.addWidget(self.summary)
        layout.addWidget(self.readout)
        layout.addWidget(scroll, 1)

        self.follow_timer = QtCore.QTimer(self, singleShot=True, interval=FOLLOW_DELAY_MS)
        self.follow_timer.timeout.connect(self._request)
        self.kind_box.currentIndexChanged.connect(self._on_picker_changed)
        for box in (self.layer_box, self.head_box):
            box.valueChanged.connect(self._on_picker_changed)
        self.query_box.valueChanged.connect(self._on_query_box_changed)
        self.follow.toggled.connect(self._on_picker_changed)

    # -- the panel protocol -----------------------------------------------------------------
    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        self.state = new
        if changed(old, new, "model", "shown_source", "step"):
            self._fit_pickers()
            if new.shown_source is None:
                self._clear(tr("Type a sentence to see the computation of a query."))
            else:  # the newest query, or the one chosen, of the step now on show
                self.follow_timer.start()
        if new.computation is not None and changed(old, new, "computation"):
            self.show_computation(new.computation)

    def inspect(self, kind: AttentionKind, layer: int, head: int, query: int) -> None:
        """Show query ``query`` (0-based row) of ``layer``/``head`` of ``kind`` (a clicked heatmap row)."""
        self.follow.blockSignals(True)
        self.follow.setChecked(False)  # the user chose a row: keep it
        self.follow.blockSignals(False)
        self._fit_pickers(kind)
        for box, value in ((self.layer_box, layer), (self.head_box, head), (self.query_box, query)):
            box.blockSignals(True)
            box.setValue(value + 1)
            box.blockSignals(False)
        self._request()

    # -- drawing ----------------------------------------------------------------------------
    def show_computation(self, comp: QueryComputation) -> None:
        self.computation = comp
        stages = computation_stages(comp)
        for index, stage in enumerate(stages):
            self._heatmap(stage, index).show_figure(stage.figure)
        shown = {stage.name for stage in stages}
        for name, heatmap in self.heatmaps.items():  # (a strip made while the panel is on screen starts hidden)
            heatmap.setVisible(name in shown)
        difference = comp.difference_from_model()
        self.summary.setText(tr("{title}: weights recomputed from q, k and the mask; largest difference from the "
                                "model's own weights {difference:.1e}.").format(title=computation_title(comp),
                                                                               difference=difference))
        self.readout.setText(" ")

    def _heatmap(self, stage: Stage, index: int) -> Heatmap:
        heatmap = self.heatmaps.get(stage.name)
        if heatmap is None:
            heatmap = self.heatmaps[stage.name] = Heatmap()
            heatmap.setMinimumHeight(110 if stage.figure.values.shape[0] == 1 else 160)
            heatmap.hovered.connect(lambda row, col, name=stage.name: self._on_stage_hovered(name, row, col))
            self.stages_layout.insertWidget(index, heatmap)
            # The strips label the same keys in the same font: each label is measured once for all of them
            # (eight new strips of 1,024 keys measured 8,192 labels, 50 ms of the GUI thread). A font change
            # gives each strip its own cache again (Heatmap._fonts).
            heatmap._widths = self._label_widths
        if stage.per_key:
            self.per_key.add(stage.name)
        return heatmap

    def _clear(self, message: str) -> None:
        self.computation = None
        for heatmap in self.heatmaps.values():
            heatmap.hide()
        self.summary.setText(message)
        self.readout.setText(" ")

    # -- pickers ----------------------------------------------------------------------------
    def _kind(self) -> AttentionKind | None:
        data = self.kind_box.currentData()
        return AttentionKind(data) if data else None

    def _fit_pickers(self, kind: AttentionKind | None = None) -> None:
        """Offer the model's attention kinds, and the layers, heads and queries the kind on show has."""
        model, source, step = self.state.model, self.state.shown_source, self.state.step
        kinds = [k for k in (model.attention if model is not None else ()) if k is not AttentionKind.ENCODER_SELF
                 or (source is not None and source.encoder_weights is not None)]
        controls = (self.kind_box, self.layer_box, self.head_box, self.query_box)
        for control in controls:
            control.blockSignals(True)
        layout = source.layout if source is not None else ENCODER_DECODER  # (each layout names its kinds)
        labels = [layout.kind_label(k) for k in kinds]
        if [self.kind_box.itemData(i) for i in range(self.kind_box.count())] != [k.value for k in kinds] \
                or [self.kind_box.itemText(i).lower() for i in range(self.kind_box.count())] != labels:
            current = kind.value if kind is not None else (self.kind_box.currentData() or AttentionKind.CROSS.value)
            self.kind_box.clear()
            for k, label in zip(kinds, labels, strict=True):
                self.kind_box.addItem(label[0].upper() + label[1:], k.value)
            self.kind_box.setCurrentIndex(max(0, self.kind_box.findData(current)))
        elif kind is not None:
            self.kind_box.setCurrentIndex(max(0, self.kind_box.findData(kind.value)))
        chosen = self._kind()
        stack = None
        if source is not None and chosen is AttentionKind.ENCODER_SELF:
            stack = layout.stack(chosen, source, step).values  # (an encoder-only model's: the step's sentence)
        elif step is not None:
            stack = step.self_weights if chosen is AttentionKind.DECODER_SELF else step.cross_weights
        layers, heads, queries = stack.shape[:3] if stack is not None else (1, 1, 1)
        for box, count in ((self.layer_box, layers), (self.head_box, heads), (self.query_box, queries)):
            if box.maximum() != max(1, count):  # (setting the same range still re-lays out the box)
                box.setRange(1, max(1, count))
        followed = None if chosen is None else layout.current_row(chosen, queries, step)
        if self.follow.isChecked() and followed is not None:  # (the newest query; a mask's row)
            self.query_box.setValue(followed + 1)
        for control in controls:
            control.blockSignals(False)

    def _request(self) -> None:
        kind = self._kind()
        if self.session is None or kind is None or self.state.shown_source is None:
            return
        if kind is not AttentionKind.ENCODER_SELF and self.state.step is None:
            self._clear(tr("Step the decoder: its queries appear one per step."))
            return
        if not self._colours_ready:  # (read from pyqtgraph's files: on the worker, before the first query's job)
            self._colours_ready = True
            self.session.compute_view("computation-colours", tr("Computing the query…"),
                                      lambda: [argb_table(name) for name in (SIGNED_MAP, MASK_MAP, "viridis")],
                                      lambda _tables: None)
        self.session.inspect_query(kind, self.layer_box.value() - 1, self.head_box.value() - 1,
                                   self.query_box.value() - 1)

    # -- handlers ---------------------------------------------------------------------------
    def _on_picker_changed(self, *_args) -> None:
        self._fit_pickers()
        self._request()

    def _on_query_box_changed(self, _value: int) -> None:
        self.follow.blockSignals(True)
        self.follow.setChecked(False)  # a query chosen by hand is kept while stepping
        self.follow.blockSignals(False)
        self._request()

    def _on_stage_hovered(self, name: str, _row: int, col: int) -> None:
        """A key hovered in one strip: outline its column in every strip with one column per key."""
        comp = self.computation
        column = col if name in self.per_key and comp is not None and 0 <= col < comp.num_keys else None
        for key_name in self.per_key:
            self.heatmaps[key_name].highlight_column(column)
        if column is None or comp is None:
            self.readout.setText(" ")
            return
        token = html.escape(comp.key_tokens[column])
        number, score, weight = column + 1, comp.scores[column], comp.weights[column]
        if comp.visible[column]:
            text = tr("key {number} <b>{token}</b>: score {score:.3f}, weight {weight:.4f}")
        else:
            text = tr("key {number} <b>{token}</b>: score {score:.3f}, weight {weight:.4f} (masked)")
        self.readout.setText(text.format(number=number, token=token, score=score, weight=weight))
