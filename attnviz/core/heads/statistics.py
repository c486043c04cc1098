"""What each head does, as sums over attention rows (numpy only), kept sentence by sentence.

For every query row w (its K keys; masked keys hold 0) of a head:

- entropy: −Σ_j w_j ln w_j (nats); confidence: max_j w_j over every key (the end of the source included);
  confidence_without_end: max_j w_j over the keys other than the end of the source, as Voita et al. 2019 define a
  head's confidence ("excluding the end of sentence symbol"; 0 for a row whose only key is the end); the end is
  the source's last token: a Hugging Face translator's ``</s>``, the last word (nearly always the final
  punctuation) for attnviz's own models, whose source carries no end token; no key is excluded where a kind's
  keys hold no source (a Transformer's decoder self-attention);
- previous, same, next: w at key position q − 1, q, q + 1, where q is the query's own position (for
  cross-attention the target position: the share on the diagonal and beside it); 0 where there is no such key;
- sink_first, sink_end, sink_punct: the weight on the first key, on the last source token (the end of the
  sentence; 0 for a Transformer's decoder self-attention, whose keys hold no source), and on punctuation keys;
  sink: on any of these keys (each key counted once);
- distance: Σ_j w_j |q − j|, in positions;
- rare (the kinds whose keys are the source: encoder self-attention, cross-attention): 1 when the row's largest
  weight is on a least frequent source token of the sentence (Voita et al. 2019's rare-word heads), frequency
  counted over the corpus being analysed (its distinct source sentences, as the model splits them; every key
  tied for least frequent counts); rare_chance: the share of the row's keys that are such a least frequent
  token, what ``rare`` would be if the argmax fell on a key drawn at random;
- cross-attention only: diagonal, the weight on source position round(i (S − 1) / (T − 1)) of target row i of T;
  monotonic, the weight on the running maximum of the rows' argmax positions (a monotone alignment read off the
  head itself).

Beside them, :func:`argmax_offsets` counts the rows whose largest weight sits at each relative position
key − query in ``OFFSETS`` (−4 … +4): Voita et al. 2019 call a head positional when one relative position is the
argmax in at least 90 % of its rows (``POSITIONAL_SHARE``).

A head's statistic is the sum over rows divided by the number of rows. Sums add across sentences and
processes (``torch.distributed`` all-reduce), so no process holds more than one sentence's maps.
Shapes: L layers, H heads, Q query rows, K keys.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import numpy as np

STATISTICS = ("entropy", "confidence", "confidence_without_end", "previous", "same", "next", "sink", "sink_first",
              "sink_end", "sink_punct", "distance")
ALIGNMENT = ("diagonal", "monotonic")
RARE = ("rare", "rare_chance")
OFFSETS = tuple(range(-4, 5))  # the relative positions (key − query) whose argmax rows are counted
POSITIONAL_SHARE = 0.9  # Voita et al. 2019: one relative position the argmax in at least 90 % of the rows


def is_punctuation(token: str) -> bool:
    """A token made of punctuation only (``.``, ``?``, ``,``, ``«``…)."""
    return bool(token) and all(unicodedata.category(c).startswith("P") for c in token)


@dataclass(frozen=True)
class Keys:
    """What the statistics need to know of a row's keys (K,): which is the first token, the end of the source
    and punctuation; rarest: the keys tied for the least frequent source token (None: frequencies not known)."""

    first: np.ndarray
    end: np.ndarray
    punct: np.ndarray
    rarest: np.ndarray | None = None

    @classmethod
    def of(cls, tokens: tuple[str, ...] | list[str], end: int | None, counts: Mapping[str, int] | None = None
           ) -> Keys:
        """Keys ``tokens``; ``end``: the index of the source's last token among them, or None; counts: each
        token's frequency in the corpus (for ``rarest``; a token missing from it counts 0)."""
        count = len(tokens)
        first = np.zeros(count, bool)
        first[:1] = True
        last = np.zeros(count, bool)
        if end is not None:
            last[end] = True
        rarest = None
        if counts is not None:
            frequency = np.array([counts.get(t, 0) for t in tokens], np.int64).reshape(count)
            rarest = frequency == frequency.min() if count else np.zeros(0, bool)
        return cls(first, last, np.array([is_punctuation(t) for t in tokens], bool).reshape(count), rarest)


def names_for(alignment: bool, rare: bool = False) -> tuple[str, ...]:
    """The statistics of a kind: cross-attention adds the alignment ones; a kind reading the source, ``rare``."""
    return STATISTICS + (RARE if rare else ()) + (ALIGNMENT if alignment else ())


def row_sums(weights: np.ndarray, query_positions: np.ndarray, keys: Keys, alignment: bool = False,
             rare: bool = False) -> np.ndarray:
    """The statistics' sums over the Q rows of ``weights`` (L, H, Q, K): (len(names_for(alignment, rare)), L, H).
    query_positions (Q,): each row's own position on the key axis."""
    w = np.asarray(weights, np.float64)
    layers, heads, q_count, k_count = w.shape
    q = np.asarray(query_positions, np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = -np.where(w > 0, w * np.log(np.where(w > 0, w, 1.0)), 0.0).sum(-1)  # (L, H, Q)
    out = [entropy, w.max(-1) if k_count else np.zeros(w.shape[:-1])]
    others = ~keys.end
    out.append(w[..., others].max(-1) if others.any() else np.zeros(w.shape[:-1]))  # confidence_without_end
    for shift in (-1, 0, 1):
        out.append(_at(w, q + shift))
    sinks = keys.first | keys.end | keys.punct
    out.append(w[..., sinks].sum(-1))
    out.extend(w[..., mask].sum(-1) for mask in (keys.first, keys.end, keys.punct))
    out.append((w * np.abs(q[:, None] - np.arange(k_count)[None, :])).sum(-1))
    if rare:
        rarest = keys.rarest if keys.rarest is not None else np.zeros(k_count, bool)
        out.append(rarest[w.argmax(-1)].astype(np.float64) if k_count else np.zeros(w.shape[:-1]))
        share = rarest.sum() / k_count if k_count else 0.0  # (the kinds with rare read every source key)
        out.append(np.full(w.shape[:-1], float(share)))  # rare_chance: an argmax drawn uniformly over the keys
    if alignment:
        diagonal = np.rint(np.arange(q_count) * (k_count - 1) / max(q_count - 1, 1)).astype(np.int64)
        out.append(_at(w, diagonal))
        argmax = w.argmax(-1)  # (L, H, Q)
        monotone = np.maximum.accumulate(argmax, axis=-1)
        out.append(np.take_along_axis(w, monotone[..., None], -1)[..., 0])
    stacked = np.stack(out)  # (n, L, H, Q)
    assert stacked.shape[1:] == (layers, heads, q_count)
    return stacked.sum(-1)


def argmax_offsets(weights: np.ndarray, query_positions: np.ndarray) -> np.ndarray:
    """(len(OFFSETS), L, H): how many of the Q rows of ``weights`` (L, H, Q, K) have their largest weight (the first
    of ties) at key position query + offset, for each offset of ``OFFSETS``."""
    w = np.asarray(weights, np.float64)
    if w.shape[-1] == 0 or w.shape[2] == 0:
        return np.zeros((len(OFFSETS), *w.shape[:2]))
    relative = w.argmax(-1) - np.asarray(query_positions, np.int64)  # (L, H, Q)
    return np.stack([(relative == offset).sum(-1) for offset in OFFSETS]).astype(np.float64)


def _at(w: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """w[..., i, positions[i]] (L, H, Q), 0 where the position is outside the keys."""
    k_count = w.shape[-1]
    inside = (positions >= 0) & (positions < k_count)
    picked = np.take_along_axis(w, np.clip(positions, 0, max(k_count - 1, 0))[None, None, :, None]
                                .repeat(w.shape[0], 0).repeat(w.shape[1], 1), -1)[..., 0]
    return np.where(inside, picked, 0.0)


@dataclass
class KindSums:
    """One kind's running sums: ``sums`` (len(names), L, H), ``offsets`` (len(OFFSETS), L, H): the rows whose
    argmax sits at each relative position, and the rows counted (per head, all equal)."""

    names: tuple[str, ...]
    sums: np.ndarray
    rows: float = 0.0
    offsets: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.offsets is None:
            self.offsets = np.zeros((len(OFFSETS), *self.sums.shape[1:]), np.float64)

    @classmethod
    def empty(cls, layers: int, heads: int, alignment: bool, rare: bool = False) -> KindSums:
        names = names_for(alignment, rare)
        return cls(names, np.zeros((len(names), layers, heads), np.float64))

    def add(self, weights: np.ndarray, query_positions: np.ndarray, keys: Keys) -> None:
        """Add one sentence's rows (L, H, Q, K) of this kind."""
        if weights.shape[2] == 0:
            return
        self.sums += row_sums(weights, query_positions, keys, "diagonal" in self.names, "rare" in self.names)
        self.offsets = cast(np.ndarray, self.offsets) + argmax_offsets(weights, query_positions)
        self.rows += weights.shape[2]

    def means(self) -> np.ndarray:
        """(len(names), L, H): each statistic's mean over the rows (NaN with no rows)."""
        return self.sums / self.rows if self.rows else np.full_like(self.sums, np.nan)
