"""What each head does, as sums over attention rows (numpy only), kept sentence by sentence.

For every query row w (its K keys; masked keys hold 0) of a head:

- entropy: −Σ_j w_j ln w_j (nats); confidence: max_j w_j (Voita et al. 2019);
- previous, same, next: w at key position q − 1, q, q + 1, where q is the query's own position (for
  cross-attention the target position: the share on the diagonal and beside it); 0 where there is no such key;
- sink_first, sink_end, sink_punct: the weight on the first key, on the last source token (the end of the
  sentence; 0 for a Transformer's decoder self-attention, whose keys hold no source), and on punctuation keys;
  sink: on any of these keys (each key counted once);
- distance: Σ_j w_j |q − j|, in positions;
- cross-attention only: diagonal, the weight on source position round(i (S − 1) / (T − 1)) of target row i of T;
  monotonic, the weight on the running maximum of the rows' argmax positions (a monotone alignment read off the
  head itself).

A head's statistic is the sum over rows divided by the number of rows. Sums add across sentences and
processes (``torch.distributed`` all-reduce), so no process holds more than one sentence's maps.
Shapes: L layers, H heads, Q query rows, K keys.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

STATISTICS = ("entropy", "confidence", "previous", "same", "next", "sink", "sink_first", "sink_end", "sink_punct",
              "distance")
ALIGNMENT = ("diagonal", "monotonic")


def is_punctuation(token: str) -> bool:
    """A token made of punctuation only (``.``, ``?``, ``,``, ``«``…)."""
    return bool(token) and all(unicodedata.category(c).startswith("P") for c in token)


@dataclass(frozen=True)
class Keys:
    """What the statistics need to know of a row's keys (K,): which is the first token, the end of the source
    and punctuation."""

    first: np.ndarray
    end: np.ndarray
    punct: np.ndarray

    @classmethod
    def of(cls, tokens: tuple[str, ...] | list[str], end: int | None) -> Keys:
        """Keys ``tokens``; ``end``: the index of the source's last token among them, or None."""
        count = len(tokens)
        first = np.zeros(count, bool)
        first[:1] = True
        last = np.zeros(count, bool)
        if end is not None:
            last[end] = True
        return cls(first, last, np.array([is_punctuation(t) for t in tokens], bool).reshape(count))


def names_for(alignment: bool) -> tuple[str, ...]:
    return STATISTICS + (ALIGNMENT if alignment else ())


def row_sums(weights: np.ndarray, query_positions: np.ndarray, keys: Keys, alignment: bool = False) -> np.ndarray:
    """The statistics' sums over the Q rows of ``weights`` (L, H, Q, K): (len(names_for(alignment)), L, H).
    query_positions (Q,): each row's own position on the key axis."""
    w = np.asarray(weights, np.float64)
    layers, heads, q_count, k_count = w.shape
    q = np.asarray(query_positions, np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = -np.where(w > 0, w * np.log(np.where(w > 0, w, 1.0)), 0.0).sum(-1)  # (L, H, Q)
    out = [entropy, w.max(-1) if k_count else np.zeros(w.shape[:-1])]
    for shift in (-1, 0, 1):
        out.append(_at(w, q + shift))
    sinks = keys.first | keys.end | keys.punct
    out.append(w[..., sinks].sum(-1))
    out.extend(w[..., mask].sum(-1) for mask in (keys.first, keys.end, keys.punct))
    out.append((w * np.abs(q[:, None] - np.arange(k_count)[None, :])).sum(-1))
    if alignment:
        diagonal = np.rint(np.arange(q_count) * (k_count - 1) / max(q_count - 1, 1)).astype(np.int64)
        out.append(_at(w, diagonal))
        argmax = w.argmax(-1)  # (L, H, Q)
        monotone = np.maximum.accumulate(argmax, axis=-1)
        out.append(np.take_along_axis(w, monotone[..., None], -1)[..., 0])
    stacked = np.stack(out)  # (n, L, H, Q)
    assert stacked.shape[1:] == (layers, heads, q_count)
    return stacked.sum(-1)


def _at(w: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """w[..., i, positions[i]] (L, H, Q), 0 where the position is outside the keys."""
    k_count = w.shape[-1]
    inside = (positions >= 0) & (positions < k_count)
    picked = np.take_along_axis(w, np.clip(positions, 0, max(k_count - 1, 0))[None, None, :, None]
                                .repeat(w.shape[0], 0).repeat(w.shape[1], 1), -1)[..., 0]
    return np.where(inside, picked, 0.0)


@dataclass
class KindSums:
    """One kind's running sums: ``sums`` (len(names), L, H) and the rows counted (per head, all equal)."""

    names: tuple[str, ...]
    sums: np.ndarray
    rows: float = 0.0

    @classmethod
    def empty(cls, layers: int, heads: int, alignment: bool) -> KindSums:
        names = names_for(alignment)
        return cls(names, np.zeros((len(names), layers, heads), np.float64))

    def add(self, weights: np.ndarray, query_positions: np.ndarray, keys: Keys) -> None:
        """Add one sentence's rows (L, H, Q, K) of this kind."""
        if weights.shape[2] == 0:
            return
        self.sums += row_sums(weights, query_positions, keys, "diagonal" in self.names)
        self.rows += weights.shape[2]

    def means(self) -> np.ndarray:
        """(len(names), L, H): each statistic's mean over the rows (NaN with no rows)."""
        return self.sums / self.rows if self.rows else np.full_like(self.sums, np.nan)
