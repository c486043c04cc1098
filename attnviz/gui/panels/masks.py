"""Masks panel: the padding (valid-length) mask and the causal mask applied at the current step."""

from __future__ import annotations

from PySide6 import QtWidgets

from attnviz.core.layout import not_at_length, on_demand
from attnviz.figures.panels import batch_padding_figure, causal_mask_figure, padding_mask_figure
from attnviz.figures.spec import empty_figure
from attnviz.gui.heatmap import Heatmap
from attnviz.i18n import tr
from attnviz.session import Session, SessionState, changed


class MasksPanel(QtWidgets.QWidget):
    """Two boolean matrices drawn as blue (may attend) and light grey (masked) cells."""

    def __init__(self, session: Session | None = None, parent=None):
        super().__init__(parent)
        self.padding = Heatmap(colour_bar=False)
        self.causal = Heatmap(colour_bar=False)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        caption = QtWidgets.QLabel(tr("Blue: the query may attend to the key. Grey: masked (weight exactly 0). "
                                      "The Attention panel can overlay the same grey on masked cells."))
        caption.setWordWrap(True)
        layout.addWidget(caption)
        layout.addWidget(self.padding, 1)  # (one row for a sentence, one per sentence for a batch)
        layout.addWidget(self.causal, 2)

    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        if not changed(old, new, "shown_source", "step", "loading", "model", "batch") and not (
                new.shown_source is not None and new.shown_source.layer_notes and changed(old, new, "view")):
            return
        if new.model is None and new.loading:
            self.padding.show_figure(empty_figure(tr("Loading…")))
            self.causal.show_figure(empty_figure(tr("Loading…")))
            return
        if (source := new.shown_source) is not None and on_demand(source) is not None:  # a long prompt: S² cells
            for heatmap in (self.padding, self.causal):
                heatmap.set_hint("")
                heatmap.show_figure(empty_figure(not_at_length(source)))
            return
        if old is None or changed(old, new, "shown_source", "loading", "model", "batch"):  # not per step
            # one sentence alone is never padded: when the sentence on show is one of the batch decoded in
            # the Batch panel (or none is on show), the Masks panel shows that batch's real padding
            in_batch = new.batch is not None and (new.shown_source is None or new.shown_source.text in
                                                  {source.text for source in new.batch.sources})
            self.padding.show_figure(batch_padding_figure(new.batch) if in_batch and new.batch is not None
                                     else padding_mask_figure(new.shown_source))
        source = new.shown_source
        self.causal.set_hint(tr(source.layout.words.first_step) if source is not None and new.step is None else "")
        self.causal.show_figure(causal_mask_figure(new.shown_source, new.step, new.view.layer))
