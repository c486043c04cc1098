"""Attention sinks by the query's position (numpy only): per layer × head, the share of a row's weight on the first
position and on each special token, and the same share of Kobayashi et al. 2020's norm view ‖α f(x)‖, averaged over
the rows whose query sits in each bin of positions (1–16, 17–128, 129–1,024, 1,025–4,096: StreamingLLM, Xiao et
al. 2024, find the sinks grow with the distance from the start).

For a row i with weights α_ij and per-key norms n_j = ‖f_h(x_j)‖ (the value vector through the head's part of the
output projection), the share on a class of keys S is Σ_{j∈S} α_ij for the weights and
Σ_{j∈S} α_ij n_j / Σ_j α_ij n_j for the norm view. Sums are kept (never a map), so they add across sentences,
documents and processes. Shapes: C classes, N bins, L layers, H heads, Q query rows, K keys.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

POSITION_BINS = ((1, 16), (17, 128), (129, 1024), (1025, 4096))  # query positions counted from 1, both ends in
FIRST = "first"  # the class of the first key (position 1), whatever token it holds
LEARNED_SINK = "learned sink"  # gpt-oss's sink logit per head: no key; its share of a row 1 − Σ_j α_ij


def bin_labels() -> tuple[str, ...]:
    """``1-16``, ``17-128``, … (the CSV's ``queries`` cells)."""
    return tuple(f"{low}-{high}" for low, high in POSITION_BINS)


def position_bin(positions: np.ndarray) -> np.ndarray:
    """The bin of each query position (Q,), counted from 0: its index in POSITION_BINS, −1 past the last bin."""
    ones = np.asarray(positions, np.int64) + 1
    out = np.full(ones.shape, -1, np.int64)
    for index, (low, high) in enumerate(POSITION_BINS):
        out[(ones >= low) & (ones <= high)] = index
    return out


def key_classes(tokens: list[str] | tuple[str, ...], special: tuple[str, ...]) -> np.ndarray:
    """(1 + len(special), K) bool: the first key, then the keys holding each special token."""
    count = len(tokens)
    masks = np.zeros((1 + len(special), count), bool)
    masks[0, :1] = True
    for index, name in enumerate(special, start=1):
        masks[index] = [token == name for token in tokens]
    return masks


@dataclass
class SinkSums:
    """Running sums per class, bin, layer and head (C, N, L, H): ``weight`` and ``norm`` (the shares), ``rows``
    (the rows whose keys hold such a key: a special token absent from a row's keys is not averaged in)."""

    classes: tuple[str, ...]
    weight: np.ndarray
    norm: np.ndarray
    rows: np.ndarray

    @classmethod
    def empty(cls, classes: tuple[str, ...], layers: int, heads: int) -> SinkSums:
        shape = (len(classes), len(POSITION_BINS), layers, heads)
        return cls(classes, np.zeros(shape), np.zeros(shape), np.zeros(shape))

    def add(self, layer: int, weights: np.ndarray, key_norms: np.ndarray | None, query_positions: np.ndarray,
            masks: np.ndarray, causal: bool) -> None:
        """One layer's rows: weights (H, Q, K), key_norms (H, K) (None: the norm view is not added), query
        positions (Q,) from 0, masks (C, K) from :func:`key_classes`; ``causal``: row i sees keys 0 … i only (a
        class is averaged over the rows that can see one of its keys), else every row sees every key."""
        w = np.asarray(weights, np.float64)
        q = np.asarray(query_positions, np.int64)
        bins = position_bin(q)
        inside = bins >= 0
        if not inside.any():
            return
        w, q, bins = w[:, inside], q[inside], bins[inside]
        classes = masks.astype(np.float64)
        on = np.einsum("hqk,ck->chq", w, classes)  # (C, H, Q)
        norm_on = None
        if key_norms is not None:
            weighted = w * np.asarray(key_norms, np.float64)[:, None, :]  # (H, Q, K): α_ij n_j
            total = weighted.sum(-1)[None]  # (1, H, Q)
            part = np.einsum("hqk,ck->chq", weighted, classes)
            norm_on = np.divide(part, total, out=np.zeros_like(part), where=total > 0)
        keys = masks.shape[1]
        first_at = np.where(masks.any(-1), masks.argmax(-1), keys)  # (C,): each class's first key (K: none)
        seen = (first_at[:, None] <= q[None, :]) if causal else np.broadcast_to((first_at < keys)[:, None],
                                                                               (len(first_at), len(q)))
        if LEARNED_SINK in self.classes:  # (the sink's column: what the keys' weights leave, in every row)
            sink = self.classes.index(LEARNED_SINK)
            on[sink] = 1.0 - w.sum(-1)
            seen = seen.copy()
            seen[sink] = True
            if norm_on is not None:
                norm_on[sink] = 0.0  # (it has no value vector: it adds nothing to the output)
        for index in range(len(POSITION_BINS)):
            chosen = bins == index
            if not chosen.any():
                continue
            kept = seen[:, chosen].astype(np.float64)  # (C, q)
            self.weight[:, index, layer] += (on[:, :, chosen] * kept[:, None]).sum(-1)
            if norm_on is not None:
                self.norm[:, index, layer] += (norm_on[:, :, chosen] * kept[:, None]).sum(-1)
            self.rows[:, index, layer] += kept.sum(-1)[:, None]

    def copy(self) -> SinkSums:
        return SinkSums(self.classes, self.weight.copy(), self.norm.copy(), self.rows.copy())

    def __iadd__(self, other: SinkSums) -> SinkSums:
        self.weight += other.weight
        self.norm += other.norm
        self.rows += other.rows
        return self

    def flat(self) -> np.ndarray:
        return np.concatenate([self.weight.ravel(), self.norm.ravel(), self.rows.ravel()])

    def from_flat(self, flat: np.ndarray) -> SinkSums:
        size = self.weight.size
        shape = self.weight.shape
        return SinkSums(self.classes, flat[:size].reshape(shape), flat[size: 2 * size].reshape(shape),
                        flat[2 * size: 3 * size].reshape(shape))

    def means(self) -> tuple[np.ndarray, np.ndarray]:
        """(weight share, norm share), each (C, N, L, H): NaN where no row had such a key."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return (np.where(self.rows > 0, self.weight / np.maximum(self.rows, 1), np.nan),
                    np.where(self.rows > 0, self.norm / np.maximum(self.rows, 1), np.nan))


def sinks_rows(sinks: SinkSums, kind: str) -> list[dict[str, Any]]:
    """sinks_by_position.csv's rows: per layer, head, bin of query positions and class of keys that some query of
    the bin could see (the others are left out), the mean shares of the weights and of the norm view."""
    from attnviz.core.columns import NOT_APPLICABLE

    weight, norm = sinks.means()
    labels = bin_labels()
    rows = []
    classes, bins, layers, heads = weight.shape
    for layer in range(layers):
        for head in range(heads):
            for index in range(bins):
                for c in range(classes):
                    count = int(sinks.rows[c, index, layer, head])
                    if not count:
                        continue
                    share = float(norm[c, index, layer, head])
                    rows.append({"kind": kind, "layer": layer + 1, "head": head + 1, "queries": labels[index],
                                 "key": sinks.classes[c], "rows": count,
                                 "weight_share": float(weight[c, index, layer, head]),
                                 "norm_share": share if share == share else NOT_APPLICABLE})
    return rows


def sinks_csv(parts: Sequence[tuple[str, SinkSums]]) -> str:
    """sinks_by_position.csv's text: the rows of each (kind slug, sums) in turn (floats written to round-trip)."""
    rows = [row for kind, sinks in parts for row in sinks_rows(sinks, kind)]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["kind", "layer", "head", "queries", "key", "rows", "weight_share",
                                             "norm_share"], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
    return out.getvalue()
