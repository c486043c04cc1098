"""Statistics of many explained steps, kept as they come (one number per step and pair, never the rows):
the rank agreement of every pair of methods, each layer's Spearman ρ of the attention-based rows against
occlusion and integrated gradients (Abnar & Zuidema 2020's table), and the sinks' shares (Kobayashi et al.
2020). numpy only. Shapes: L layers, M methods."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from attnviz.core.columns import NO_SUCH_KEY
from attnviz.core.heads.sinks import SinkSums
from attnviz.core.heads.sinks import sinks_csv as position_sinks_csv

from .agreement import kendall_p, kendall_tau, spearman_rho
from .step import GRAD_DETACHED, GRAD_X_INPUT, INTEGRATED_GRADIENTS, LAYERED, LEAVE_ONE_OUT, OCCLUSION, Explanation

REFERENCES = (OCCLUSION, INTEGRATED_GRADIENTS)  # what each layer's attention rows are compared with
SIGNED = (GRAD_X_INPUT, GRAD_DETACHED, INTEGRATED_GRADIENTS, OCCLUSION, LEAVE_ONE_OUT)  # rows that may be negative
SIGNIFICANCE = 0.05  # a τ with p below this counts as significant (Jain & Wallace 2019's "Sig. Frac.")


def magnitude(method: str) -> str:
    """The name of a signed method's row taken as magnitudes, |row| (as Jain & Wallace rank gradients)."""
    return f"|{method}|"


@dataclass(frozen=True)
class PairSummary:
    """τ of one pair of methods over the steps where both rows have an order: count, mean and quartiles."""

    first: str
    second: str
    count: int
    mean: float
    quartiles: tuple[float, float, float]
    rho_mean: float
    significant: float = float("nan")  # the share of the tokens whose τ has p < SIGNIFICANCE


@dataclass
class CorpusTally:
    """Add each step's :class:`Explanation` with :meth:`add`; read the summaries at the end."""

    methods: list[str] = field(default_factory=list)
    taus: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    rhos: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    layer_rhos: dict[tuple[str, str], list[np.ndarray]] = field(default_factory=lambda: defaultdict(list))
    sinks: dict[str, list[np.ndarray]] = field(default_factory=lambda: defaultdict(list))
    steps: int = 0
    significant: dict[tuple[str, str], list[bool]] = field(default_factory=lambda: defaultdict(list))
    position_sinks: dict[str, SinkSums] = field(default_factory=dict)  # kind slug -> every step's query row summed

    def add(self, explanation: Explanation) -> None:
        self.steps += 1
        names = explanation.methods
        self.methods = self.methods or list(names)
        for i, first in enumerate(names):
            for j in range(i + 1, len(names)):
                self._keep(first, names[j], explanation.kendall[i, j], explanation.spearman[i, j],
                           kendall_p(explanation.rows[i], explanation.rows[j]))
        for first in (m for m in LAYERED if m in names):  # attention-based rows against |signed rows|
            for second in (m for m in SIGNED if m in names):
                row, other = explanation.row(first), np.abs(explanation.row(second))
                self._keep(first, magnitude(second), kendall_tau(row, other), spearman_rho(row, other),
                           kendall_p(row, other))
        for reference in REFERENCES:
            if reference not in names:
                continue
            target = explanation.row(reference)
            for method, rows in explanation.layer_rows.items():
                self.layer_rhos[method, reference].append(np.array([
                    spearman_rho(row, target) if np.isfinite(row).all() else np.nan for row in rows]))
        for kind, shares in explanation.sinks.items():
            self.sinks[kind].append(shares)
        self._add_position_sinks(explanation.position_sinks)

    def _add_position_sinks(self, sums: dict[str, SinkSums]) -> None:
        for slug, part in sums.items():
            if slug in self.position_sinks:
                self.position_sinks[slug] += part
            else:
                self.position_sinks[slug] = part.copy()

    def extend(self, other: CorpusTally) -> None:
        """Add ``other``'s steps after this tally's, as if they had been added here one by one: a corpus cut in
        parts (a torchrun job's processes) and tallied part by part, extended in the corpus's order, gives the
        tally of the whole, list for list, so its means and quartiles are the same numbers."""
        self.steps += other.steps
        self.methods = self.methods or list(other.methods)
        _extend(self.taus, other.taus)
        _extend(self.rhos, other.rhos)
        _extend(self.layer_rhos, other.layer_rhos)
        _extend(self.sinks, other.sinks)
        _extend(self.significant, other.significant)
        self._add_position_sinks(other.position_sinks)

    def _keep(self, first: str, second: str, tau: float, rho: float, p: float) -> None:
        if math.isfinite(tau):
            self.taus[first, second].append(float(tau))
            self.significant[first, second].append(bool(p < SIGNIFICANCE))
        if math.isfinite(rho):
            self.rhos[first, second].append(float(rho))

    def pairs(self, magnitudes: bool = True) -> list[PairSummary]:
        """Every pair of methods, in :data:`METHODS` order; then (``magnitudes``) each attention-based method
        against the magnitudes of each signed one (named ``|method|``)."""
        out = []
        pairs = [(first, second) for i, first in enumerate(self.methods) for second in self.methods[i + 1:]]
        if magnitudes:
            pairs += [(first, magnitude(second)) for first in LAYERED if first in self.methods
                      for second in SIGNED if second in self.methods]
        for first, second in pairs:
            taus = np.array(self.taus.get((first, second), []))
            rhos = self.rhos.get((first, second), [])
            quartiles = tuple(float(q) for q in np.percentile(taus, [25, 50, 75])) if taus.size else (np.nan,) * 3
            significant = self.significant.get((first, second), [])
            out.append(PairSummary(first, second, int(taus.size), float(taus.mean()) if taus.size else np.nan,
                                   quartiles, float(np.mean(rhos)) if rhos else np.nan,  # type: ignore[arg-type]
                                   float(np.mean(significant)) if significant else np.nan))
        return out

    def layer_spearman(self) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]:
        """(method, reference) -> (mean ρ per layer (L,), steps counted per layer (L,)), NaN steps left out."""
        out = {}
        for key, rows in self.layer_rhos.items():
            stack = np.stack(rows)  # (steps, L)
            finite = np.isfinite(stack)
            counts = finite.sum(axis=0)
            means = np.where(counts > 0, np.where(finite, stack, 0.0).sum(axis=0) / np.maximum(counts, 1), np.nan)
            out[key] = (means, counts)
        return out

    def sink_shares(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """kind -> (mean shares (L, 2, 3): raw / norm-based on each sink class, steps with such a key (3,))."""
        out = {}
        for kind, shares in self.sinks.items():
            stack = np.stack(shares)  # (steps, L, 2, 3)
            present = np.isfinite(stack[:, 0, 0, :]).sum(axis=0)
            finite = np.isfinite(stack)
            counts = finite.sum(axis=0)
            means = np.where(counts > 0, np.where(finite, stack, 0.0).sum(axis=0) / np.maximum(counts, 1), np.nan)
            out[kind] = (means, present)
        return out

def _extend(mine: dict[Any, list[Any]], theirs: dict[Any, list[Any]]) -> None:
    """Each of ``theirs``' lists after ``mine``'s of the same key (a new key last, as :meth:`CorpusTally.add`
    would have put it)."""
    for key, values in theirs.items():
        mine.setdefault(key, []).extend(values)


def _number(value: float, missing: str = "no token with an order") -> str:
    """A CSV cell: 4 decimals, or ``missing`` (why there is no number) for NaN."""
    return missing if not np.isfinite(value) else f"{value + 0.0:.4f}".replace("-0.0000", "0.0000")


def agreement_csv(tally: CorpusTally, count: str = "tokens") -> str:
    """One row per pair of methods: the τ over all decoded tokens (mean, quartiles), the mean ρ, the count (its
    column named ``count``: an image model's run counts "images"), and the share of tokens whose τ is significant."""
    lines = [f"method_a,method_b,{count},tau_mean,tau_q1,tau_median,tau_q3,rho_mean,significant"]
    for p in tally.pairs():
        values = [p.mean, *p.quartiles, p.rho_mean, p.significant]
        lines.append(",".join([p.first, p.second, str(p.count), *(_number(v) for v in values)]))
    return "\n".join(lines) + "\n"


def layers_csv(tally: CorpusTally, count: str = "tokens") -> str:
    """One row per (method, reference, layer): the mean Spearman ρ and the number of steps it averages (its column
    named ``count``, as :func:`agreement_csv`'s)."""
    lines = [f"method,reference,layer,spearman_mean,{count}"]
    for (method, reference), (means, counts) in tally.layer_spearman().items():
        for layer, (mean, count) in enumerate(zip(means, counts, strict=True), start=1):
            lines.append(f"{method},{reference},{layer},{_number(mean)},{int(count)}")
    return "\n".join(lines) + "\n"


SLUG_OF = {"cross": "cross", "decoder self": "dec-self"}  # an explanation's kind -> its short name (AttentionKind.slug)


def sinks_csv(tally: CorpusTally, classes: tuple[str, ...]) -> str:
    """One row per (attention kind, layer, sink class): the mean share of the weight and of norm-based attention on
    those keys, over the steps that had such a key (their number; NO_SUCH_KEY where none had one). The kind, the
    key and the share are named as sinks_by_position.csv names them (``dec-self``, ``key``, ``weight_share``): a
    model's one "self" attention is its by-position slug (a decoder-only model's dec-self, a BERT's enc-self)."""
    own = [slug for slug in tally.position_sinks if slug != "cross"]
    lines = ["kind,layer,key,weight_share,norm_share,tokens"]
    for kind, (means, present) in tally.sink_shares().items():
        slug = SLUG_OF.get(kind) or (own[0] if len(own) == 1 else kind)
        for layer in range(means.shape[0]):
            for index, name in enumerate(classes):
                lines.append(f"{slug},{layer + 1},{name},{_number(means[layer, 0, index], NO_SUCH_KEY)},"
                             f"{_number(means[layer, 1, index], NO_SUCH_KEY)},{int(present[index])}")
    return "\n".join(lines) + "\n"


def sinks_by_position_csv(tally: CorpusTally) -> str:
    """sinks_by_position.csv (``attnviz heads --documents``' columns): per attention kind, layer, head, bin of query
    positions and class of keys, the mean share of the weight and of the norm view over the explained steps."""
    return position_sinks_csv(list(tally.position_sinks.items()))
