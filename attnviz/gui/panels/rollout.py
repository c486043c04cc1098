"""Rollout panel (Transformer): attention rollout through the encoder's layers, and the decoder's
source attribution at the step on show (see :data:`attnviz.figures.rollout.ROLLOUT_METHOD`)."""

from __future__ import annotations

from PySide6 import QtWidgets

from attnviz.figures.rollout import ROLLOUT_METHOD, encoder_rollout_figure, source_attribution_figure
from attnviz.gui.heatmap import Heatmap
from attnviz.session import Session, SessionState, changed


class RolloutPanel(QtWidgets.QWidget):
    """Two heatmaps: the encoder's rollout up to a chosen layer, and one decoder layer's attribution."""

    def __init__(self, session: Session | None = None, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.state = SessionState()
        self.encoder_layer = QtWidgets.QSpinBox()
        self.encoder_layer.setPrefix("encoder layers 1–")
        self.decoder_layer = QtWidgets.QSpinBox()
        self.decoder_layer.setPrefix("decoder layer ")
        for box in (self.encoder_layer, self.decoder_layer):
            box.setRange(1, 1)
        self.encoder = Heatmap()
        self.attribution = Heatmap()
        caption = QtWidgets.QLabel("Attention rollout (Abnar & Zuidema, 2020): heads averaged, 0.5·A + 0.5·I for "
                                   "the residual, rows renormalised, layers multiplied. Hover here for more.")
        caption.setWordWrap(True)
        for widget in (self, caption, self.encoder, self.attribution):
            widget.setToolTip(ROLLOUT_METHOD)
        layout = QtWidgets.QVBoxLayout(self)  # each picker above its heatmap: narrow enough to dock beside others
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(caption)
        layout.addWidget(self.encoder_layer)
        layout.addWidget(self.encoder, 1)
        layout.addWidget(self.decoder_layer)
        layout.addWidget(self.attribution, 1)
        self.encoder_layer.valueChanged.connect(self._draw_encoder)
        self.decoder_layer.valueChanged.connect(self._draw_attribution)

    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        self.state = new
        if changed(old, new, "shown_source"):
            source = new.shown_source
            layers = source.encoder_weights.shape[0] if source is not None and source.encoder_weights is not None else 1
            self._set_range(self.encoder_layer, layers, follow_last=True)
            self._draw_encoder()
        if changed(old, new, "shown_source", "step"):
            step = new.step
            self._set_range(self.decoder_layer, step.cross_weights.shape[0] if step is not None else 1,
                            follow_last=True)
            self._draw_attribution()

    @staticmethod
    def _set_range(box: QtWidgets.QSpinBox, count: int, follow_last: bool) -> None:
        count = max(1, count)
        if box.maximum() == count:
            return
        at_last = box.value() == box.maximum()
        box.blockSignals(True)
        box.setRange(1, count)
        if follow_last and at_last:
            box.setValue(count)
        box.blockSignals(False)

    def _draw_encoder(self, *_args) -> None:
        self.encoder.show_figure(encoder_rollout_figure(self.state.shown_source, self.encoder_layer.value() - 1))

    def _draw_attribution(self, *_args) -> None:
        self.attribution.show_figure(source_attribution_figure(self.state.shown_source, self.state.step,
                                                               self.decoder_layer.value() - 1))
