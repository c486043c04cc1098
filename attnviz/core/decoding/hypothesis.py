"""A hypothesis of a beam search and the attention rows it recorded (numpy, torch-free).

Shapes: L layers, H heads, S source length, t target positions so far.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attnviz.core.results import LENGTH_PENALTY, length_normalised


@dataclass(frozen=True)
class AttentionRow:
    """One step's attention for one hypothesis, newest query row only, as numpy: cross (L, H, S),
    self (L, H, t) or None (RNN)."""

    cross_weights: np.ndarray
    cross_scores: np.ndarray
    self_weights: np.ndarray | None
    self_scores: np.ndarray | None


@dataclass
class Hypothesis:
    """ids: tokens chosen so far (no <bos>, <eos> last once finished); rows: its attention per step
    (empty unless recorded); top: the next-token distribution (ids, probabilities) at its last step."""

    ids: list[int]
    log_prob: float
    finished: bool = False
    rows: list[AttentionRow] = field(default_factory=list)
    top: tuple[list[int], list[float]] = ([], [])
    penalty: float = LENGTH_PENALTY  # the length's exponent in its score (a library's rules may set another)

    def score(self) -> float:
        return length_normalised(self.log_prob, len(self.ids), self.penalty)
