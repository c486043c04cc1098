"""Masks panel: the padding (valid-length) mask and the causal mask applied at the current step."""

from __future__ import annotations

import numpy as np
from PySide6 import QtWidgets

from attnviz.core.results import DecodeStep, EncodedSource
from attnviz.gui.heatmap import Heatmap


class MasksPanel(QtWidgets.QWidget):
    """Two boolean matrices drawn as blue (may attend) and light grey (masked) cells."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.padding = Heatmap(colormap="mask", colour_bar=False)
        self.causal = Heatmap(colormap="mask", colour_bar=False)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        caption = QtWidgets.QLabel("Blue: the query may attend to the key. Grey: masked (weight exactly 0). "
                                    "The Attention panel can overlay the same grey on masked cells.")
        caption.setWordWrap(True)
        layout.addWidget(caption)
        layout.addWidget(self.padding, 1)
        layout.addWidget(self.causal, 1)

    def set_data(self, source: EncodedSource | None, step: DecodeStep | None) -> None:
        if source is None:
            self.padding.set_matrix(np.zeros((0, 0)), (), (), title="Padding mask")
            self.causal.set_matrix(np.zeros((0, 0)), (), (), title="Causal mask")
            return
        queries = step.query_tokens if step is not None else ()
        rows = len(queries) or 1
        padding = np.broadcast_to(source.padding_mask[None, :], (rows, len(source.tokens))).astype(np.float32)
        self.padding.set_matrix(padding, queries or ("(all queries)",), source.tokens,
                                title=f"Padding mask: valid length {int(source.padding_mask.sum())}")
        if step is None:
            self.causal.set_matrix(np.zeros((0, 0)), (), (), title="Causal mask (decoder self-attention)")
        elif step.self_weights is None:
            self.causal.set_matrix(np.zeros((0, 0)), (), (),
                                   title="No causal mask: this RNN decoder reads its prefix through its state")
        else:
            self.causal.set_matrix(step.causal_mask.astype(np.float32), queries, queries,
                                   title=f"Causal mask at step {step.index + 1}")
