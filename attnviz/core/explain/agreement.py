"""Rank agreement of two attribution rows: Kendall's τ-b and Spearman's ρ (numpy only).

Both treat ties as scipy does: τ-b = Σ sign(Δx)·sign(Δy) / √(pairs untied in x · pairs untied in y) over
all pairs i < j (``scipy.stats.kendalltau``'s default variant), ρ = Pearson's r of the average ranks
(``scipy.stats.spearmanr``). A row with every value equal has no order: both give NaN. Shapes: N values.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's τ-b of two rows (N,); NaN if N < 2 or either row is constant."""
    x, y = _pair(x, y)
    upper = np.triu_indices(x.size, k=1)  # every pair i < j once
    sx = np.sign(x[:, None] - x[None, :])[upper]
    sy = np.sign(y[:, None] - y[None, :])[upper]
    denominator = np.sqrt(float(np.sum(sx * sx)) * float(np.sum(sy * sy)))  # untied pairs in x, in y
    return float(np.sum(sx * sy) / denominator) if denominator > 0 else float("nan")


@lru_cache(maxsize=64)
def _inversion_counts(n: int) -> tuple[int, ...]:
    """How many permutations of n items have k inversions, k = 0 … n(n − 1)/2 (the Mahonian numbers)."""
    counts = [1]
    for size in range(2, n + 1):  # insert the size-th item: it adds 0 … size − 1 inversions
        grown = [0] * (len(counts) + size - 1)
        for k, c in enumerate(counts):
            for extra in range(size):
                grown[k + extra] += c
        counts = grown
    return tuple(counts)


def kendall_p(x: np.ndarray, y: np.ndarray) -> float:
    """The two-sided p-value of Kendall's τ-b of two rows (N,) under independence, as ``scipy.stats.kendalltau``
    computes it: exact (the permutation distribution) when neither row has ties and N ≤ 33, else the normal
    approximation with the variance corrected for ties; NaN where τ is (N < 2, a constant row)."""
    x, y = _pair(x, y)
    n = x.size
    upper = np.triu_indices(n, k=1)
    sx = np.sign(x[:, None] - x[None, :])[upper]
    sy = np.sign(y[:, None] - y[None, :])[upper]
    if n < 2 or not sx.any() or not sy.any():
        return float("nan")
    s = float(np.sum(sx * sy))  # concordant − discordant
    pairs = n * (n - 1) // 2
    x_ties, y_ties = _tie_sizes(x), _tie_sizes(y)
    if not x_ties.size and not y_ties.size and n <= 33:
        discordant = round((pairs - s) / 2)
        c = min(discordant, pairs - discordant)
        counts = _inversion_counts(n)
        return min(1.0, 2.0 * sum(counts[: c + 1]) / math.factorial(n))
    variance = (n * (n - 1) * (2 * n + 5) - _tie_sum(x_ties) - _tie_sum(y_ties)) / 18.0
    variance += float((x_ties * (x_ties - 1)).sum() * (y_ties * (y_ties - 1)).sum()) / (2.0 * n * (n - 1))
    if n > 2:
        variance += float((x_ties * (x_ties - 1) * (x_ties - 2)).sum() * (y_ties * (y_ties - 1) * (y_ties - 2)).sum()
                          ) / (9.0 * n * (n - 1) * (n - 2))
    return float(math.erfc(abs(s) / math.sqrt(2.0 * variance))) if variance > 0 else float("nan")


def _tie_sizes(x: np.ndarray) -> np.ndarray:
    """The sizes (> 1) of the groups of equal values of x."""
    _, counts = np.unique(x, return_counts=True)
    return counts[counts > 1].astype(np.float64)


def _tie_sum(t: np.ndarray) -> float:
    return float((t * (t - 1) * (2 * t + 5)).sum())


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..N of x (N,), tied values sharing the mean of their ranks (``scipy.stats.rankdata``)."""
    x = np.asarray(x, dtype=np.float64).ravel()
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])  # first index of each run of ties
    ends = np.r_[starts[1:], x.size]
    mean_rank = (starts + ends + 1) / 2.0  # mean of the 1-based ranks start+1 .. end
    ranks = np.empty(x.size)
    ranks[order] = np.repeat(mean_rank, ends - starts)
    return ranks


def spearman_rho(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's ρ of two rows (N,): Pearson's r of their average ranks; NaN if either is constant."""
    x, y = _pair(x, y)
    rx, ry = average_ranks(x), average_ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    denominator = np.sqrt(float(rx @ rx) * float(ry @ ry))
    return float(rx @ ry / denominator) if denominator > 0 else float("nan")


def agreement_matrices(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """rows (M, N), one per method -> (τ (M, M), ρ (M, M)), symmetric, 1 on the diagonal (NaN for a
    constant row)."""
    rows = np.asarray(rows, dtype=np.float64)
    count = rows.shape[0]
    tau, rho = np.full((count, count), np.nan), np.full((count, count), np.nan)
    for i in range(count):
        for j in range(i, count):
            tau[i, j] = tau[j, i] = kendall_tau(rows[i], rows[j])
            rho[i, j] = rho[j, i] = spearman_rho(rows[i], rows[j])
    return tau, rho


def _pair(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=np.float64).ravel(), np.asarray(y, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ValueError(f"rows of different lengths: {x.size} and {y.size}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("rows must be finite")
    return x, y
