"""Which matrix a view shows: pure numpy selection from decoding results (no Qt), shared by the
panels and by export."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from attnviz.core.results import DecodeStep, EncodedSource


class AttentionKind(Enum):
    ENCODER_SELF = "encoder self-attention"
    DECODER_SELF = "decoder self-attention"
    CROSS = "cross-attention"

    @property
    def slug(self) -> str:
        return {"ENCODER_SELF": "enc-self", "DECODER_SELF": "dec-self", "CROSS": "cross"}[self.name]


@dataclass(frozen=True)
class MatrixView:
    """One heatmap: values (Q, K), weights or scores; masked (Q, K) True where attention was not allowed."""

    values: np.ndarray
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    masked: np.ndarray
    kind: AttentionKind
    layer: int
    head: int
    scores: bool

    def stem(self, step: int | None = None) -> str:
        """File name stem, e.g. ``cross_layer1_head2_step03`` (1-based; encoder maps have no step)."""
        return figure_stem(self.kind, f"layer{self.layer + 1}_head{self.head + 1}", step, self.scores)

    def title(self, model: str = "", step: int | None = None) -> str:
        return figure_title(model, self.kind, f"layer {self.layer + 1} · head {self.head + 1}", step, self.scores)


def figure_stem(kind: AttentionKind, what: str, step: int | None, scores: bool) -> str:
    """``{kind}_{what}[_stepNN][_scores]``; step is 0-based and left out for the encoder (it runs once)."""
    stem = f"{kind.slug}_{what}"
    if step is not None and kind is not AttentionKind.ENCODER_SELF:
        stem += f"_step{step + 1:02d}"
    return stem + ("_scores" if scores else "")


def figure_title(model: str, kind: AttentionKind, what: str, step: int | None, scores: bool) -> str:
    """'model · kind · what · step N · pre-softmax scores' with the empty or meaningless parts left out."""
    parts = [model, kind.value, what]
    if step is not None and kind is not AttentionKind.ENCODER_SELF:
        parts.append(f"step {step + 1}")
    if scores:
        parts.append("pre-softmax scores")
    return " · ".join(p for p in parts if p)


def available_kinds(source: EncodedSource | None) -> list[AttentionKind]:
    """Encoder self-attention exists only for the Transformer; the RNN models have cross only."""
    if source is not None and source.encoder_weights is None:
        return [AttentionKind.CROSS]
    return [AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS]


def stack_for(kind: AttentionKind, source: EncodedSource, step: DecodeStep | None,
              scores: bool = False) -> tuple[np.ndarray, tuple[str, ...], tuple[str, ...], np.ndarray]:
    """All layers and heads of one kind: values (L, H, Q, K), row and column tokens, masked (Q, K)."""
    src = source.tokens
    pad_masked = ~source.padding_mask[None, :]
    if kind is AttentionKind.ENCODER_SELF:
        if source.encoder_weights is None or source.encoder_scores is None:
            raise ValueError("this model has no encoder self-attention")
        values = source.encoder_scores if scores else source.encoder_weights
        return values, src, src, np.broadcast_to(pad_masked, (len(src), len(src)))
    if step is None:
        width = len(src) if kind is AttentionKind.CROSS else 0
        layers = source.encoder_weights.shape[0] if source.encoder_weights is not None else 1
        heads = source.encoder_weights.shape[1] if source.encoder_weights is not None else 1
        return np.zeros((layers, heads, 0, width), np.float32), (), src if width else (), np.zeros((0, width), bool)
    queries = step.query_tokens
    if kind is AttentionKind.CROSS:
        values = step.cross_scores if scores else step.cross_weights
        return values, queries, src, np.broadcast_to(pad_masked, (len(queries), len(src)))
    if step.self_weights is None or step.self_scores is None:
        raise ValueError("this model has no decoder self-attention")
    values = step.self_scores if scores else step.self_weights
    return values, queries, queries, ~step.causal_mask


def select(kind: AttentionKind, layer: int, head: int, source: EncodedSource, step: DecodeStep | None,
           scores: bool = False) -> MatrixView:
    """One layer and head of one kind (indices clamped to what exists)."""
    values, rows, cols, masked = stack_for(kind, source, step, scores)
    layer = min(max(layer, 0), values.shape[0] - 1)
    head = min(max(head, 0), values.shape[1] - 1)
    return MatrixView(values[layer, head], rows, cols, np.asarray(masked), kind, layer, head, scores)


def all_views(source: EncodedSource, step: DecodeStep | None, scores: bool = False) -> list[MatrixView]:
    """Every kind × layer × head available for this source and step (decoder kinds need a step)."""
    views = []
    for kind in available_kinds(source):
        if step is None and kind is not AttentionKind.ENCODER_SELF:
            continue
        values, rows, cols, masked = stack_for(kind, source, step, scores)
        for layer in range(values.shape[0]):
            for head in range(values.shape[1]):
                views.append(MatrixView(values[layer, head], rows, cols, np.asarray(masked), kind, layer, head,
                                        scores))
    return views
