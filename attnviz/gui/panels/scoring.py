"""Scoring panel: this step's cross-attention scores before and after the masked softmax.

A valid-length slider replays the masking on the step's real scores: keys at or beyond the valid
length get weight exactly 0 and the remaining weights renormalize (d2l's ``masked_softmax``).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from attnviz.core.results import DecodeStep, EncodedSource, masked_softmax_row
from attnviz.figures.attention import shown_index
from attnviz.gui.numbered import set_numbered
from attnviz.gui.titled_plot import TitledPlot
from attnviz.i18n import tr
from attnviz.session import Session, SessionState, changed

SCORE_BRUSH = (90, 110, 200)
WEIGHT_BRUSH = (60, 160, 90)
MASKED_BRUSH = pg.mkBrush(200, 200, 200)


def _bar_plot(title: str, left: str) -> tuple[TitledPlot, pg.BarGraphItem]:
    widget = TitledPlot(title=title)
    widget.plot.setLabel("left", left)
    widget.plot.setMouseEnabled(x=False, y=False)
    bars = pg.BarGraphItem(x=[], height=[], width=0.7)
    widget.plot.addItem(bars)
    return widget, bars


class ScoringPanel(QtWidgets.QWidget):
    """Draws the current query's scores and weights; the layer/head boxes matter for the Transformer."""

    def __init__(self, session: Session | None = None, parent=None):
        super().__init__(parent)
        self.source: EncodedSource | None = None
        self.step: DecodeStep | None = None
        self.keys: tuple[str, ...] = ()  # the keys of the scores on show
        self.scores = np.zeros(0, np.float32)
        self.formula = QtWidgets.QLabel(" ")
        self.layer_box = QtWidgets.QSpinBox()
        self.head_box = QtWidgets.QSpinBox()
        for box, prefix in ((self.layer_box, tr("layer {n}")), (self.head_box, tr("head {n}"))):
            set_numbered(box, prefix)
            box.setRange(1, 1)
        self.valid_len = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.valid_len.setRange(0, 0)
        self.valid_len.setTickPosition(QtWidgets.QSlider.TickPosition.TicksBelow)
        self.valid_label = QtWidgets.QLabel(tr("valid length {length}").format(length=0))
        self.formula.setWordWrap(True)
        heads = QtWidgets.QHBoxLayout()
        heads.addWidget(self.layer_box)
        heads.addWidget(self.head_box)
        heads.addStretch(1)
        masking = QtWidgets.QHBoxLayout()
        masking.addWidget(QtWidgets.QLabel(tr("Masking:")))
        masking.addWidget(self.valid_label)
        masking.addStretch(1)
        controls = QtWidgets.QVBoxLayout()  # the slider on a row of its own: usable in a narrow dock
        controls.addLayout(heads)
        controls.addLayout(masking)
        controls.addWidget(self.valid_len)
        self.score_plot, self.score_bars = _bar_plot(tr("Scores before softmax"), tr("score"))
        self.weight_plot, self.weight_bars = _bar_plot(tr("Weights after masked softmax"), tr("weight"))
        self.weight_plot.plot.setYRange(0, 1, padding=0.02)
        self.weight_plot.plot.setXLink(self.score_plot.plot)
        self.caption = QtWidgets.QLabel(" ")
        self.caption.setWordWrap(True)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.formula)
        layout.addLayout(controls)
        layout.addWidget(self.score_plot, 1)
        layout.addWidget(self.weight_plot, 1)
        layout.addWidget(self.caption)
        self.valid_len.valueChanged.connect(self._on_valid_len_value_changed)
        self.layer_box.valueChanged.connect(self._on_head_changed)
        self.head_box.valueChanged.connect(self._on_head_changed)

    # -- input ------------------------------------------------------------------------------
    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        if changed(old, new, "model"):
            model = new.model
            layers, heads = (model.decoder_layers, model.heads) if model is not None else (1, 1)
            self.formula.setText(tr(model.scoring_formula) if model is not None else "")
            self.layer_box.setRange(1, max(1, layers))
            self.head_box.setRange(1, max(1, heads))
            for box in (self.layer_box, self.head_box):
                box.setVisible(layers * heads > 1)
        if changed(old, new, "shown_source", "step"):
            self.set_data(new.shown_source, new.step)

    def set_data(self, source: EncodedSource | None, step: DecodeStep | None) -> None:
        keys = self._keys(source, step)
        length_changed = keys != self.keys
        self.source, self.step, self.keys = source, step, keys
        if length_changed or self.valid_len.maximum() != len(keys):
            self.valid_len.blockSignals(True)
            self.valid_len.setRange(0, len(keys))
            self.valid_len.setValue(len(keys))
            self.valid_len.blockSignals(False)
            for plot in (self.score_plot, self.weight_plot):  # new tokens only: ticks re-lay out the axes
                plot.set_categories("bottom", keys)
            self.score_plot.plot.setXRange(-0.5, max(len(keys), 1) - 0.5, padding=0.02)  # follows the sentence
        self.refresh()

    @staticmethod
    def _keys(source: EncodedSource | None, step: DecodeStep | None) -> tuple[str, ...]:
        """The keys the newest query scores: the source words; for a decoder-only model its one sequence so
        far, the English and then the answer (its scores are one self-attention row)."""
        if source is None:
            return ()
        return source.layout.scoring_keys(source, step)

    def refresh(self) -> None:
        step, source = self.step, self.source
        if step is None or source is None:
            self.scores = np.zeros(0, np.float32)
            self.caption.setText(tr("Step the decoder to see the scores of its current query."))
        else:
            rows = source.layout.scoring_rows(step)
            layer = min(self.layer_box.value() - 1, rows.shape[0] - 1)
            head = min(self.head_box.value() - 1, rows.shape[1] - 1)
            self.scores = rows[layer, head, -1]  # the newest query row (S,), or (S + T,) for decoder-only
        self._draw()

    def weights(self) -> np.ndarray:
        """The weights drawn now: the masked softmax of the scores at the slider's valid length."""
        return masked_softmax_row(self.scores, self.valid_len.value())

    # -- drawing ----------------------------------------------------------------------------
    def _draw(self) -> None:
        x = np.arange(self.scores.shape[0])
        valid = self.valid_len.value()
        masked = x >= valid
        self.score_bars.setOpts(x=x, height=self.scores, brushes=[
            MASKED_BRUSH if m else pg.mkBrush(*SCORE_BRUSH) for m in masked])
        weights = self.weights()
        self.weight_bars.setOpts(x=x, height=weights, brushes=[
            MASKED_BRUSH if m else pg.mkBrush(*WEIGHT_BRUSH) for m in masked])
        self.valid_label.setText(tr("valid length {length}").format(length=valid))
        if self.step is not None and self.source is not None and self.scores.size:
            query = self.step.query_tokens[-1]
            if valid == 0:
                note = tr("Every key is masked: the row is all zeros (attnviz never divides by zero).")
            elif valid < len(x):
                note = tr("Keys from position {position} on are masked: their weight is exactly 0 and the other "
                          "weights renormalize.").format(position=valid + 1)
            else:
                note = tr("No key is masked (the real valid length).")
            caption = tr(self.source.layout.words.scoring_caption)
            self.caption.setText(caption.format(query=query, step=(shown_index(self.step) or 0) + 1, note=note))

    def _on_valid_len_value_changed(self, _value: int) -> None:
        self._draw()

    def _on_head_changed(self, _value: int) -> None:
        self.refresh()
