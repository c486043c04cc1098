"""Figures of attention rollout (numpy only): the encoder's rollout and the decoder's source attribution.

Shapes: L layers, H heads, S source tokens, T decoder queries. See :mod:`attnviz.core.attention.rollout`.
"""

from __future__ import annotations

import numpy as np

from attnviz.core.attention.rollout import rollout
from attnviz.core.layout import clamp, span
from attnviz.core.results import DecodeStep, EncodedSource
from attnviz.figures.spec import FigureSpec, empty_figure
from attnviz.i18n import N_, tr

ROLLOUT_METHOD = N_(
    "Attention rollout (Abnar & Zuidema, 2020) follows attention down through all the encoder's layers "
    "to the input tokens. Each layer's heads are averaged, the residual connection is modelled by mixing in "
    "the identity (0.5·attention + 0.5·I, rows renormalised), and the layers' matrices are multiplied, "
    "first layer first. Source attribution carries the decoder's head-averaged cross-attention through "
    "the encoder's rollout, so each output step is traced back to source words rather than encoder states. "
    "A decoder-only model has one causal self-attention: its rollout runs over the whole sequence, and each "
    "answer position's rollout row is cut to the prompt's columns: the share of it that flows from each "
    "prompt token (the rest flows from the answer so far)."
)
NEEDS_TRANSFORMER = N_("Rollout needs a Transformer: this RNN model has no encoder self-attention")
NO_LAYERS = N_("Rollout needs encoder layers: this model has none")
LEAST_HIGH = 1e-6  # the top of the colour range when every value is 0


_kept: tuple[np.ndarray, np.ndarray] | None = None  # the last encoder weights and their rollout


def _encoder_flows(weights: np.ndarray) -> np.ndarray:
    """rollout(weights), kept for the last sentence: every decoding step of it reuses the encoder's."""
    global _kept
    if _kept is None or _kept[0] is not weights:
        _kept = (weights, rollout(weights))
    return _kept[1]


def _levels(values: np.ndarray, masked: np.ndarray) -> tuple[float, float]:
    """0 to the largest value shown. Rollout mixes every layer, so its values spread out (rows flatten
    towards uniform, the + I keeps a bright diagonal) and rarely come near 1: on the softmax's fixed
    [0, 1] most cells would look alike. 0 stays "no flow at all", the top is the strongest flow."""
    shown = values[~masked]
    return (0.0, max(float(shown.max()) if shown.size else 0.0, LEAST_HIGH))


def encoder_rollout_figure(source: EncodedSource | None, layer: int | None = None) -> FigureSpec:
    """The encoder's rollout after ``layer`` (0-based; None: the last, the full rollout), (S, S).

    Padding keys are marked masked (they were masked out of every softmax)."""
    if source is None:
        return empty_figure(tr("Attention rollout"))
    if source.encoder_weights is None:
        return empty_figure(tr(NEEDS_TRANSFORMER))
    flows = _encoder_flows(source.encoder_weights)  # (L, S, S)
    if not flows.shape[0]:
        return empty_figure(tr(NO_LAYERS))
    layer = clamp(flows.shape[0], layer)
    masked = source.layout.source_masked(source)
    values = flows[layer].astype(np.float32)
    words = source.layout.words
    return FigureSpec(values, source.tokens, source.tokens, tr(words.source_rollout).format(layers=span(layer)),
                      levels=_levels(values, masked), masked=masked, row_axis=tr(words.source_queries),
                      col_axis=tr(words.source_keys))


def source_attribution_figure(source: EncodedSource | None, step: DecodeStep | None,
                              layer: int | None = None) -> FigureSpec:
    """Decoder ``layer``'s (0-based; None: the last) cross-attention carried through the encoder's full
    rollout: (T, S), rows the decoder queries so far, columns the source tokens. RNN models get an empty
    figure: their encoder mixes tokens through a recurrent state that rollout cannot trace."""
    if source is None or step is None:
        return empty_figure(tr("Source attribution: step the decoder to trace its output to source words"))
    if source.encoder_weights is None:
        return empty_figure(tr(NEEDS_TRANSFORMER))
    flows = _encoder_flows(source.encoder_weights)
    if not flows.shape[0] or not step.cross_weights.shape[0]:
        return empty_figure(tr(NO_LAYERS))
    traced = source.layout.traced(source, step, flows, layer)
    return FigureSpec(traced.values, traced.rows, traced.cols, traced.title,
                      levels=_levels(traced.values, traced.masked), masked=traced.masked,
                      row_axis=traced.row_axis, col_axis=traced.col_axis)
