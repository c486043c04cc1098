"""Patching over a corpus of pairs: the pairs are cut into groups of :data:`GROUP` in their order, each process of a
job (``--processes``) patches its share of the groups (group g goes to process g mod N), the pairs of a group share
batched passes (:meth:`~attnviz.core.patching.engine.Patcher.patch_pairs`), the results are gathered in the pairs'
order, and every process gets the same list — a pair's numbers depend only on its group, which is the same whatever N
is, so N processes give one process's numbers exactly."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from attnviz.core.heads.distributed import Reducer
from attnviz.core.heads.mask import HeadLayout
from attnviz.core.models.compact import release_freed_memory
from attnviz.core.patching.engine import CHOICES, PairPatching, Patcher
from attnviz.core.patching.inputs import PreparedPair
from attnviz.core.patching.pairs import MinimalPair

Progress = Callable[[int, int], bool]  # (pairs done, pairs in all) -> False to cancel
GROUP = 16  # pairs patched together (a group of GPT-2-small pairs of 7 tokens: passes of 192 rows for denoise)


class PatchingCancelled(Exception):
    """The progress callback asked to stop."""


@dataclass(frozen=True)
class PatchingRun:
    """The pairs patched (in the order given) with each one's results and the target prefix fed before its step, and
    the pairs left out with the reason (a translation model that writes the same for both sides and never the
    answer)."""

    layout: HeadLayout
    pairs: tuple[MinimalPair, ...]
    results: tuple[PairPatching, ...]
    prefixes: tuple[tuple[str, ...], ...]
    tokens: tuple[tuple[str, ...], ...]  # each patched pair's clean input as read (the residual grid's positions)
    skipped: tuple[tuple[MinimalPair, str], ...]


def patch_corpus(loaded: Any, pairs: Sequence[MinimalPair], device: torch.device | str = "cpu",
                 progress: Progress | None = None, reducer: Reducer | None = None,
                 measures: Sequence[str] = CHOICES) -> PatchingRun:
    """The ``measures`` (of :data:`~attnviz.core.patching.engine.CHOICES`) of :mod:`attnviz.core.patching.engine`
    for every pair this process takes, gathered (PairsError for a pair that cannot be read; PatchingCancelled when
    ``progress`` says stop)."""
    reducer = reducer or Reducer()
    groups = [range(start, min(start + GROUP, len(pairs))) for start in range(0, len(pairs), GROUP)]
    mine_groups = [group for g, group in enumerate(groups) if g % reducer.world == reducer.rank]
    mine = [i for group in mine_groups for i in group]
    done: list[tuple[int, PairPatching, tuple[str, ...], tuple[str, ...]]] = []
    with Patcher(loaded, device) as patcher:
        prepared: list[PreparedPair] = patcher.reader.prepare([pairs[i] for i in mine])
        kept = {id(p.pair): p for p in prepared}
        skipped = [(i, reason) for i in mine for pair, reason in patcher.reader.skipped if pair is pairs[i]]
        total, count = len(pairs), 0

        def between() -> None:  # (after each batched pass: a cancel is heard within one pass, not one group)
            if progress is not None and not progress(min(count * reducer.world, total), total):
                raise PatchingCancelled

        for group in mine_groups:
            ones = [(i, kept[id(pairs[i])]) for i in group if id(pairs[i]) in kept]
            results = patcher.patch_pairs([one for _, one in ones], measures, between) if ones else []
            done += [(i, result, one.prefix, one.tokens) for (i, one), result in zip(ones, results, strict=True)]
            release_freed_memory()
            count += len(group)
            # (the pairs done over all processes, as far as this one can tell: its own share times N)
            if progress is not None and not progress(min(count * reducer.world, total), total):
                raise PatchingCancelled
        layout = patcher.layout
    gathered = sorted((entry for part in reducer.gather(done) for entry in part), key=lambda entry: entry[0])
    left_out = sorted((entry for part in reducer.gather(skipped) for entry in part), key=lambda entry: entry[0])
    return PatchingRun(layout, tuple(pairs[i] for i, *_ in gathered), tuple(r for _, r, _, _ in gathered),
                       tuple(p for _, _, p, _ in gathered), tuple(t for *_, t in gathered),
                       tuple((pairs[i], reason) for i, reason in left_out))
