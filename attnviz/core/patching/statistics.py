"""Patching over many pairs: each head's mean share with a 95 % bootstrap interval, Kendall τ between attribution
patching and real patching (with its own bootstrap interval), and the heads where the two disagree.

The bootstrap resamples pairs with replacement (:data:`RESAMPLES` times, a fixed seed, so the same results give the
same intervals in one process or many); a pair whose shares are NaN (its |Δ| too small to move) is left out of the
means. Only the measures the pairs were patched for are summarised (τ and the disagreements need both ``atp`` and
``denoise``: NaN and none without them); patching.csv's cells of the others read ``not computed``.
Shapes: P pairs, N heads (every kind × layer × head, in the layout's order), R resamples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core.heads.mask import Head, HeadLayout
from attnviz.core.patching.engine import MEASURES, MIN_DIFFERENCE, PairPatching
from attnviz.core.patching.pairs import MinimalPair

RESAMPLES = 1000
SEED = 0
DISAGREEMENT = 0.1  # |AtP − activation patching| over this share of the logit difference: listed
NOT_COMPUTED = "not computed"  # a table's cell of a measure the pairs were not patched for


def heads_of(layout: HeadLayout) -> list[Head]:
    """Every head of ``layout`` in the order of the tables: kind by kind, layer by layer, head by head."""
    return [Head(s.kind, layer, head) for s in layout.kinds for layer in range(s.layers) for head in range(s.heads)]


def share_table(results: list[PairPatching], layout: HeadLayout, measure: str) -> np.ndarray:
    """Each pair's share (P, N) of ``measure`` for every head."""
    return np.array([np.concatenate([r.shares(measure)[s.kind].ravel() for s in layout.kinds]) for r in results],
                    dtype=np.float64).reshape(len(results), -1)


def entropy_table(results: list[PairPatching], layout: HeadLayout) -> np.ndarray:
    """Each pair's attention entropy (P, N) of every head in the corrupt run (nats)."""
    return np.array([np.concatenate([r.entropy[s.kind].ravel() for s in layout.kinds]) for r in results],
                    dtype=np.float64).reshape(len(results), -1)


def _nanmean(values: np.ndarray, axis: int) -> np.ndarray:
    """The mean over ``axis`` of the finite values (NaN where there is none), without numpy's empty-slice warning."""
    finite = np.isfinite(values)
    counts = finite.sum(axis)
    sums = np.where(finite, values, 0.0).sum(axis)
    return np.divide(sums, counts, out=np.full(sums.shape, np.nan), where=counts > 0)


def resampled_rows(pairs: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """(R, P) pair indices drawn with replacement."""
    return np.random.default_rng(seed).integers(0, pairs, size=(resamples, pairs))


def mean_interval(values: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """values (P, N) -> the mean (N,) and the 2.5th and 97.5th percentiles (N,) of the resampled means."""
    means = np.stack([_nanmean(values[index], 0) for index in rows])  # (R, N)
    with np.errstate(all="ignore"):
        low = np.nanpercentile(means, 2.5, axis=0) if np.isfinite(means).any() else np.full(values.shape[1], np.nan)
        high = np.nanpercentile(means, 97.5, axis=0) if np.isfinite(means).any() else np.full(values.shape[1], np.nan)
    return _nanmean(values, 0), low, high


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's τ-b of two rankings (N,) (ties counted as Kendall's b does; NaN entries left out; NaN for fewer
    than two heads or a constant ranking)."""
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if x.size < 2:
        return float("nan")
    upper = np.triu_indices(x.size, 1)
    dx = np.sign(x[:, None] - x[None, :])[upper]
    dy = np.sign(y[:, None] - y[None, :])[upper]
    untied = float(np.count_nonzero(dx)) * float(np.count_nonzero(dy))
    return float((dx * dy).sum() / np.sqrt(untied)) if untied else float("nan")


@dataclass(frozen=True)
class Disagreement:
    """A head where attribution patching and activation patching (denoising) differ by more than
    :data:`DISAGREEMENT` of the logit difference, with its mean attention entropy (nats)."""

    head: Head
    patching: float
    attribution: float
    entropy: float


@dataclass(frozen=True)
class PatchingSummary:
    """Over P pairs: per measure computed the mean, low and high (N,) of every head's share; each head's mean
    entropy (N,); τ between the mean AtP and the mean denoising shares and its interval; the heads where they
    disagree (largest difference first)."""

    heads: tuple[Head, ...]
    pairs: int
    counted: int
    means: dict[str, np.ndarray]
    lows: dict[str, np.ndarray]
    highs: dict[str, np.ndarray]
    entropy: np.ndarray
    tau: float
    tau_low: float
    tau_high: float
    disagreements: tuple[Disagreement, ...]

    def table(self) -> list[dict[str, object]]:
        """heads.csv's rows: kind, layer, head (from 1), each measure's mean and interval, entropy."""
        rows: list[dict[str, object]] = []
        for n, head in enumerate(self.heads):
            row: dict[str, object] = {"kind": head.kind.slug, "layer": head.layer + 1, "head": head.head + 1}
            for measure in MEASURES:
                computed = measure in self.means
                row[measure] = _cell(self.means[measure][n]) if computed else NOT_COMPUTED
                row[f"{measure}_low"] = _cell(self.lows[measure][n]) if computed else NOT_COMPUTED
                row[f"{measure}_high"] = _cell(self.highs[measure][n]) if computed else NOT_COMPUTED
            row["entropy"] = _cell(self.entropy[n])
            rows.append(row)
        return rows


def _cell(value: float) -> object:
    return float(value) if np.isfinite(value) else "n/a"


def summarise(results: list[PairPatching], layout: HeadLayout, resamples: int = RESAMPLES,
              seed: int = SEED) -> PatchingSummary:
    """The summary of the pairs' results (module docstring)."""
    heads = tuple(heads_of(layout))
    rows = resampled_rows(len(results), resamples, seed)
    computed = [m for m in MEASURES if results and all(m in r.metrics for r in results)]
    tables = {measure: share_table(results, layout, measure) for measure in computed}
    means, lows, highs = {}, {}, {}
    for measure, values in tables.items():
        means[measure], lows[measure], highs[measure] = mean_interval(values, rows)
    entropy = _nanmean(entropy_table(results, layout), 0)
    counted = sum(1 for r in results if abs(r.difference) >= MIN_DIFFERENCE)
    if "atp" not in tables or "denoise" not in tables:
        return PatchingSummary(heads, len(results), counted, means, lows, highs, entropy, float("nan"),
                               float("nan"), float("nan"), ())
    taus = np.array([kendall_tau(_nanmean(tables["atp"][index], 0), _nanmean(tables["denoise"][index], 0))
                     for index in rows])
    finite = taus[np.isfinite(taus)]
    tau_low, tau_high = ((float(np.percentile(finite, 2.5)), float(np.percentile(finite, 97.5))) if finite.size
                         else (float("nan"), float("nan")))
    gap = np.abs(means["atp"] - means["denoise"])
    order = np.argsort(-np.nan_to_num(gap, nan=-1.0), kind="stable")
    disagreements = tuple(Disagreement(heads[n], float(means["denoise"][n]), float(means["atp"][n]),
                                       float(entropy[n])) for n in order if np.isfinite(gap[n])
                          and gap[n] > DISAGREEMENT)
    return PatchingSummary(heads, len(results), counted, means, lows, highs, entropy,
                           kendall_tau(means["atp"], means["denoise"]), tau_low, tau_high, disagreements)


@dataclass(frozen=True)
class PatchingResult:
    """A patching run as the Patching tab shows it: the summary over the pairs patched (means and 95 % bootstrap
    intervals per measure and head, :class:`~attnviz.core.patching.statistics.PatchingSummary`), the model's heads
    kind by kind, the pairs patched in order, how many were left out (the model translates both sides alike), where
    the pairs came from (a task's name or a file's) and the model's name."""

    summary: PatchingSummary
    layout: HeadLayout
    pairs: tuple[MinimalPair, ...]
    skipped: int
    source: str
    model: str
