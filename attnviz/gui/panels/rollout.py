"""Rollout panel (Transformer): attention rollout through the encoder's layers, and the decoder's
source attribution at the step on show (see :data:`attnviz.figures.rollout.ROLLOUT_METHOD`); a model read in one
pass, with no steps (an image model), has the rollout only.

The rollout multiplies (S, S) matrices, S source tokens: about 0.1 s for 1,024 tokens. Both figures are
computed on the session's worker (``Session.compute_view``); the panel shows "Computing…" until then.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtWidgets

from attnviz.core.layout import ENCODER_DECODER, Capability, not_at_length, on_demand
from attnviz.figures.rollout import ROLLOUT_METHOD, encoder_rollout_figure, source_attribution_figure
from attnviz.figures.spec import FigureSpec, empty_figure
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.numbered import set_numbered
from attnviz.i18n import N_, tr
from attnviz.session import Session, SessionState, changed

COMPUTING = N_("Computing the rollout…")


class RolloutPanel(QtWidgets.QWidget):
    """Two heatmaps: the encoder's rollout up to a chosen layer, and one decoder layer's attribution."""

    def __init__(self, session: Session | None = None, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.state = SessionState()
        self._wanted: dict[str, tuple] = {}  # heatmap name -> what its latest request was for
        self.encoder_layer = QtWidgets.QSpinBox()
        set_numbered(self.encoder_layer, tr("encoder layers 1–{n}"))
        self.decoder_layer = QtWidgets.QSpinBox()
        set_numbered(self.decoder_layer, tr("decoder layer {n}"))
        for box in (self.encoder_layer, self.decoder_layer):
            box.setRange(1, 1)
        self.encoder = Heatmap()
        self.attribution = Heatmap()
        caption = QtWidgets.QLabel(tr("Attention rollout (Abnar & Zuidema, 2020): heads averaged, 0.5·A + 0.5·I "
                                      "for the residual, rows renormalised, layers multiplied. Hover here for more."))
        caption.setWordWrap(True)
        for widget in (self, caption, self.encoder, self.attribution):
            widget.setToolTip(tr(ROLLOUT_METHOD))
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
        if changed(old, new, "model"):  # a model with no steps (an image model): no decoder to trace, rollout only
            stepped = new.model is None or new.model.offers(Capability.STEPS)
            self.decoder_layer.setVisible(stepped)
            self.attribution.setVisible(stepped)
        if changed(old, new, "shown_source"):
            source = new.shown_source
            words = (source.layout if source is not None else ENCODER_DECODER).words
            set_numbered(self.encoder_layer, tr(words.source_layers))
            set_numbered(self.decoder_layer, tr(words.traced_layers))
            layers = source.encoder_weights.shape[0] if source is not None and source.encoder_weights is not None else 1
            self._set_range(self.encoder_layer, layers, follow_last=True)
            if source is not None and on_demand(source) is not None:  # a long prompt: every map would be needed
                self._wanted.clear()
                for heatmap in (self.encoder, self.attribution):
                    heatmap.show_figure(empty_figure(not_at_length(source)))
                return
            for heatmap in (self.encoder, self.attribution):  # a new sentence: its rollout is not known yet
                if source is not None:
                    heatmap.show_figure(empty_figure(tr(COMPUTING)))
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
        source, layer = self.state.shown_source, self.encoder_layer.value() - 1
        self._compute("encoder", (source, layer), lambda: encoder_rollout_figure(source, layer))

    def _draw_attribution(self, *_args) -> None:
        source, step, layer = self.state.shown_source, self.state.step, self.decoder_layer.value() - 1
        self._compute("attribution", (source, step, layer), lambda: source_attribution_figure(source, step, layer))

    def _compute(self, name: str, wanted: tuple, job: Callable[[], FigureSpec]) -> None:
        """Make the figure of heatmap ``name`` on the worker; show it if it is still the one wanted then."""
        heatmap = self.encoder if name == "encoder" else self.attribution
        self._wanted[name] = wanted

        def done(figure: FigureSpec) -> None:
            if self._wanted.get(name) is wanted:
                heatmap.show_figure(figure)

        if self.session is None:
            done(job())
        else:
            self.session.compute_view(f"rollout-{name}", tr(COMPUTING), job, done)
