"""The pruning curve: BLEU on the reference lines with 0, 1, 2 … heads switched off (Michel et al. 2019, §4).

Heads are removed in order of importance (least important first, by the importance normalised per layer, as
Michel et al. do) and in random orders (seeded; the curve is their mean). Each point decodes the corpus with those
heads' gates at 0 and sums BLEU's sufficient statistics (:func:`attnviz.core.learning.bleu.bleu_statistics`), which
processes add exactly: N processes give one process's BLEU. Its point with no head removed is ``attnviz eval``'s
BLEU on the same lines with the same beam.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import torch

from attnviz.core.heads.atlas import HeadAtlas, HeadsCancelled, Progress, decode_batch
from attnviz.core.heads.corpus import Corpus, plan_batches, shard, split_sources
from attnviz.core.heads.distributed import Reducer
from attnviz.core.heads.gates import HeadGates
from attnviz.core.heads.mask import Head, HeadMask
from attnviz.core.learning.bleu import STATISTICS, bleu_from_statistics, bleu_statistics
from attnviz.core.models.compact import release_freed_memory
from attnviz.core.models.translation import TranslationModel
from attnviz.core.text import preprocess
from attnviz.i18n import tr

PERCENTS = (10, 20, 40, 60)  # the shares of heads pruned that Michel et al. 2019 discuss (docs/head-atlas.md too)


@dataclass(frozen=True)
class PruningCurve:
    """heads: the importance order (least important first); importance_bleu (N + 1,): BLEU with the first n of
    them off; random_orders (seeds, N) and random_bleu (seeds, N + 1) likewise for each random order;
    scores (N,): the normalised importance of each head of ``heads`` (the order's key; empty: not kept)."""

    heads: tuple[Head, ...]
    importance_bleu: np.ndarray
    random_orders: tuple[tuple[Head, ...], ...]
    random_bleu: np.ndarray
    sentences: int
    scores: tuple[float, ...] = ()

    @property
    def random_mean(self) -> np.ndarray:
        """(N + 1,): the random orders' mean BLEU at each count."""
        return self.random_bleu.mean(0)

    def pruned_for(self, percent: float) -> int:
        """How many heads make ``percent`` % of them (rounded to the nearest head, halves up)."""
        return int(np.floor(len(self.heads) * percent / 100 + 0.5))

    def table(self) -> list[dict[str, Any]]:
        """pruning.csv's rows: order, heads_pruned, percent_pruned, bleu; for the importance order the head
        switched off last and its normalised importance ("none" in the first row, where no head is off; the random
        rows name no head: each is the mean of the seeds' orders, which differ)."""
        count = max(len(self.heads), 1)
        rows: list[dict[str, Any]] = []
        for n, bleu in enumerate(self.importance_bleu):
            rows.append({"order": "importance", "heads_pruned": n, "percent_pruned": round(100 * n / count, 1),
                         "bleu": float(bleu), "head": str(self.heads[n - 1]) if n else "none",
                         "head_importance_normalised": float(self.scores[n - 1]) if n and self.scores else "none"})
        for n, bleu in enumerate(self.random_mean):
            rows.append({"order": "random", "heads_pruned": n, "percent_pruned": round(100 * n / count, 1),
                         "bleu": float(bleu), "head": "mean of the random orders",
                         "head_importance_normalised": "mean of the random orders"})
        return rows

    def at_percents(self) -> list[tuple[int, int, float, float]]:
        """(percent, heads pruned, BLEU least important first, BLEU random mean) at each of :data:`PERCENTS`."""
        return [(p, n, float(self.importance_bleu[n]), float(self.random_mean[n]))
                for p in PERCENTS for n in [self.pruned_for(p)]]


def importance_order(atlas: HeadAtlas) -> tuple[Head, ...]:
    """Every head, least important first (normalised importance; ties in the atlas's order)."""
    heads = atlas.heads()
    scores = atlas.normalised_importance()
    return tuple(heads[i] for i in np.argsort(scores, kind="stable"))


def random_orders(heads: tuple[Head, ...], seeds: int) -> tuple[tuple[Head, ...], ...]:
    """``seeds`` shuffles of ``heads`` (seed 0, 1, …): the same in every process."""
    orders = []
    for seed in range(seeds):
        shuffled = sorted(heads)
        random.Random(seed).shuffle(shuffled)
        orders.append(tuple(shuffled))
    return tuple(orders)


def pruning_curve(loaded: Any, corpus: Corpus, atlas: HeadAtlas, device: torch.device | str,
                  progress: Progress | None = None, *, beam_size: int = 1, seeds: int = 3,
                  reducer: Reducer | None = None) -> PruningCurve:
    """BLEU of ``loaded`` on ``corpus`` (it needs references) with 0 … N heads off, in the atlas's importance order
    and in ``seeds`` random orders. progress(done, total) after each decoded batch; False cancels."""
    if corpus.references is None:
        raise ValueError(tr("the pruning curve needs reference translations (source<TAB>reference lines)"))
    reducer = reducer or Reducer()
    device = torch.device(device)
    model = cast(TranslationModel, loaded.model.to(device).eval())
    splits, _ = split_sources(corpus, loaded.src_vocab, loaded.config.max_src_len)
    mine = shard(plan_batches([len(s.words) for s in splits], beam_size), reducer.rank, reducer.world)
    order = importance_order(atlas)
    shuffles = random_orders(order, seeds)
    count = len(order)
    masks = {HeadMask(frozenset(o[:n])) for o in (order, *shuffles) for n in range(count + 1)}
    total = len(masks) * len(mine)
    done = 0
    statistics: dict[HeadMask, np.ndarray] = {}
    gates = HeadGates(model)
    try:
        for mask in sorted(masks, key=lambda m: (len(m), str(m))):
            gates.set_mask(mask, device)
            hypotheses: list[str] = []
            references: list[list[str]] = []
            for batch in mine:
                search, _ = decode_batch(model, [splits[i] for i in batch], loaded, device, beam_size, record=False)
                for b, i in enumerate(batch):
                    ids = search.best(b).ids
                    tokens = loaded.tgt_vocab.to_tokens(ids[:-1] if ids and ids[-1] in loaded.tgt_vocab.end_ids
                                                         else ids)
                    hypotheses.append(preprocess(loaded.tgt_vocab.text_of(tokens)))
                    references.append(list(corpus.references[i]))
                release_freed_memory()
                done += 1
                if progress is not None and not progress(done, total):
                    raise HeadsCancelled
            statistics[mask] = bleu_statistics(hypotheses, references)
    finally:
        gates.remove()
    ordered = sorted(statistics, key=str)  # (the same order in every process)
    summed = reducer.sum(np.stack([statistics[m] for m in ordered]).astype(np.int64)).reshape(-1, STATISTICS)
    bleu = {m: bleu_from_statistics(summed[k]) for k, m in enumerate(ordered)}
    curve = np.array([bleu[HeadMask(frozenset(order[:n]))] for n in range(count + 1)])
    randoms = np.array([[bleu[HeadMask(frozenset(o[:n]))] for n in range(count + 1)] for o in shuffles]).reshape(
        len(shuffles), count + 1)
    scores = dict(zip(atlas.heads(), atlas.normalised_importance().tolist(), strict=True))
    return PruningCurve(order, curve, shuffles, randoms, len(corpus), tuple(float(scores[h]) for h in order))
