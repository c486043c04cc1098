"""Figures of the Computation panel: one query's chain, a = input → q, k_j, v_j → s_j → α → b, each vector
as a small heatmap strip titled with its formula (numpy only).

Everything that has one value per key (k_j, v_j, s_j, the mask, α, and the additive features) puts the
keys in columns, in the same order, so that one column is one key in every strip.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core.attention.computation import QueryComputation
from attnviz.core.models.kinds import KINDS
from attnviz.figures.panels import MASK_MAP
from attnviz.figures.spec import FigureSpec
from attnviz.i18n import tr

SIGNED_MAP = "CET-D1"  # vectors of a layer are signed: a diverging map centred on 0


@dataclass(frozen=True)
class Stage:
    """One strip of the chain: its figure, and whether its columns are the keys (linked on hover)."""

    name: str
    figure: FigureSpec
    per_key: bool


def _centred(values: np.ndarray) -> tuple[float, float]:
    """A colour range symmetric about 0 (0 is the map's neutral middle)."""
    finite = values[np.isfinite(values)]
    reach = float(np.abs(finite).max()) if finite.size else 0.0
    return (-reach, reach) if reach > 0 else (-1.0, 1.0)


def _dims(count: int, name: str) -> tuple[str, ...]:
    return tuple(f"{name}{i}" for i in range(count))


def _row(values: np.ndarray, label: str, name: str, title: str, col_axis: str | None = None) -> FigureSpec:
    """A vector as a 1 × n strip (its columns: "dimension" unless ``col_axis`` says otherwise)."""
    vector = np.asarray(values, np.float32)[None, :]
    return FigureSpec(vector, (label,), _dims(vector.shape[1], name), title, _centred(vector), SIGNED_MAP,
                      row_axis="", col_axis=tr("dimension") if col_axis is None else col_axis, max_grid_px=360)


def _per_key(values: np.ndarray, keys: tuple[str, ...], name: str, title: str) -> FigureSpec:
    """(K, n) per-key vectors as an n × K matrix: one column per key."""
    matrix = np.asarray(values, np.float32).T
    return FigureSpec(matrix, _dims(matrix.shape[0], name), keys, title, _centred(matrix), SIGNED_MAP,
                      row_axis=tr("dimension"), col_axis=tr("keys"), max_grid_px=360)


def computation_stages(comp: QueryComputation) -> list[Stage]:
    """The chain of ``comp`` in the lecture's order (the additive projections only for additive scoring)."""
    f, keys, token = comp.formulas, comp.key_tokens, comp.query_token
    masked = comp.masked[None, :]
    stages = [
        Stage("input", _row(comp.query_input, token, "", tr("a: the input of the query {token!r}").format(token=token)),
              False),
        Stage("query", _row(comp.query, "q", "", f.query), False),
        Stage("keys", _per_key(comp.keys, keys, "", f.key), True),
    ]
    if comp.additive_query is not None and comp.additive_keys is not None and comp.additive_features is not None:
        stages += [
            Stage("additive-query", _row(comp.additive_query, "W_q q", "", tr("W_q q: the query's projection")),
                  False),
            Stage("additive-keys", _per_key(comp.additive_keys, keys, "", tr("W_k k_j: each key's projection")), True),
            Stage("additive-features", _per_key(comp.additive_features, keys, "", "tanh(W_q q + W_k k_j)"), True),
        ]
    scores = comp.scores.astype(np.float32)[None, :]
    visible_scores = scores[~masked]
    low_high = (float(visible_scores.min()), float(visible_scores.max())) if visible_scores.size else (0.0, 1.0)
    if low_high[1] <= low_high[0]:
        low_high = (low_high[0], low_high[0] + 1.0)
    key_axis = tr("keys")
    stages += [
        Stage("scores", FigureSpec(scores, ("s",), keys, f.score, low_high, "viridis", masked, row_axis="",
                                   col_axis=key_axis, max_grid_px=360), True),
        Stage("mask", FigureSpec(comp.visible.astype(np.float32)[None, :], (tr("visible"),), keys,
                                 tr("Mask: may the query attend to key j? (1 = yes)"), colormap=MASK_MAP,
                                 colour_bar=False, row_axis="", col_axis=key_axis, max_grid_px=360), True),
        Stage("weights", FigureSpec(comp.weights.astype(np.float32)[None, :], ("α",), keys, f.weights,
                                    masked=masked, row_axis="", col_axis=key_axis, max_grid_px=360), True),
        Stage("values", _per_key(comp.values, keys, "", f.value), True),
        Stage("output", _row(comp.output, "b", "", f.output), False),
    ]
    return stages


def computation_title(comp: QueryComputation) -> str:
    """Which query this is, in words: 'cross-attention · layer 2 · head 1 · query 3 ("chez")'."""
    kind = KINDS[comp.model_kind].sequence_layout.kind_label(comp.kind) if comp.model_kind in KINDS \
        else comp.kind.label()
    return tr("{kind} · layer {layer} · head {head} · query {query} ({token!r})").format(
        kind=kind, layer=comp.layer + 1, head=comp.head + 1, query=comp.query_index + 1,
        token=comp.query_token)
