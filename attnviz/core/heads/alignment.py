"""How well each cross-attention head follows a generated task's true alignment (``attnviz heads --task``).

A task (:mod:`attnviz.core.learning.tasks`: copy, reverse, sort, dates) knows, for every target token, the source
positions it comes from. A head *agrees* on a target token when its strongest attention (the row's argmax, the
model fed the right target so far: teacher forcing) falls on one of them; its agreement is the share of target
tokens with a known alignment on which it does (``<eos>`` and padding have none). The same definition as live
training's (:mod:`attnviz.training.live`), which reads it from here. Under torchrun each process takes every
``world``-th example and the counts are added (:class:`~attnviz.core.heads.distributed.Reducer`).
Shapes: B examples, T target positions (``<bos>`` fed first), S source positions, L layers, H heads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.decoding.beam_search import encode_batch
from attnviz.core.heads.atlas import corpus_of
from attnviz.core.heads.corpus import Corpus
from attnviz.core.heads.distributed import Reducer
from attnviz.core.heads.gates import head_layout
from attnviz.core.learning.tasks import HELD_OUT_SHARE, Example, Task
from attnviz.i18n import tr

BATCH = 64  # examples per teacher-forced pass


def gold_mask(examples: Sequence[Example], width: int, length: int) -> Tensor:
    """(B, T, S) bool: gold[b, t, s] — source position s is a right one for target token t of example b."""
    mask = torch.zeros(len(examples), length, width, dtype=torch.bool)
    for b, example in enumerate(examples):
        for t, positions in enumerate(example.gold):
            mask[b, t, list(positions)] = True
    return mask


def agreeing(cross: Tensor, gold: Tensor) -> tuple[Tensor, Tensor]:
    """cross (B, T, L, H, S) attention of target token t over the source, gold (B, T, S) -> (hits (L, H): per head,
    the target tokens with a gold position whose strongest attention falls on one; the count of target tokens with
    a gold position)."""
    counted = gold.any(-1)  # (B, T): tokens with a gold alignment (not <eos>, not padding)
    strongest = cross.argmax(-1)  # (B, T, L, H)
    hit = torch.gather(gold[:, :, None, None, :].expand(*strongest.shape, gold.shape[-1]), -1,
                       strongest[..., None])[..., 0]
    return (hit & counted[:, :, None, None]).sum((0, 1)), counted.sum()


def head_agreement(cross: Tensor, gold: Tensor) -> Tensor:
    """(L, H): per head, the share of target tokens with a gold position whose strongest attention falls on one."""
    hits, counted = agreeing(cross, gold)
    return hits.float() / counted.clamp(min=1)


@torch.inference_mode()
def cross_attention(model: Any, src: Tensor, valid: Tensor, feed: Tensor) -> Tensor:
    """Teacher-forced cross-attention: feed (B, T) tokens, <bos> first -> (B, T, L, H, S), row t the
    attention with which the model predicts target token t."""
    state, _ = model.start(src, valid)
    rows = []
    for t in range(feed.shape[1]):
        _, state, attention = model.step(feed[:, t], state, need_attention=True)
        rows.append(attention.cross_weights.float())
    return torch.stack(rows, dim=1)


MAX_TASK_INPUTS = 100_000  # held-out inputs ``heads --task`` takes at most (each a few hundred bytes in memory)


def check_task_count(task: Task, count: int) -> None:
    """ValueError (one sentence, saying how many there are) when the task has fewer than ``count`` distinct held-out
    inputs, or ``count`` is over :data:`MAX_TASK_INPUTS`: asked before anything is generated."""
    held_out = task.held_out_inputs()
    if held_out is not None and count > held_out:
        raise ValueError(tr("the {task} task has {count:,} distinct held-out inputs (of {total:,} in all): give "
                            "--limit {count} or fewer").format(task=task.name, count=held_out,
                                                              total=task.distinct_inputs()))
    if count > MAX_TASK_INPUTS:
        raise ValueError(tr("--task takes at most {most:,} held-out inputs (the {task} task has about {count:,} of "
                            "{total:,} distinct inputs): give --limit {most} or fewer").format(
            most=MAX_TASK_INPUTS, task=task.name, count=task.distinct_inputs() // HELD_OUT_SHARE,
            total=task.distinct_inputs()))


def task_examples(task: Task, count: int) -> tuple[list[Example], Corpus]:
    """The task's first ``count`` distinct held-out inputs (seed 0: the ones live training evaluates on, never
    trained on) and the same as a corpus with its one right output as the reference. ValueError (before anything
    is generated) for a ``count`` the task cannot give (:func:`check_task_count`)."""
    check_task_count(task, count)
    seen: dict[tuple[str, ...], Example] = {}
    for example in task.stream(0, held_out=True):
        seen.setdefault(example.src, example)
        if len(seen) >= count:
            break
    examples = list(seen.values())
    return examples, corpus_of([" ".join(e.src) for e in examples], [[" ".join(e.tgt)] for e in examples])


def check_vocabulary(loaded: Any, task: Task) -> None:
    """ValueError (one sentence) when ``loaded`` cannot read the task's symbols or write its outputs."""
    missing = [s for s in task.src_symbols if s not in loaded.src_vocab] + \
        [s for s in task.tgt_symbols if s not in loaded.tgt_vocab]
    if missing:
        raise ValueError(tr("this model does not know the {task} task's symbols (e.g. {symbol!r}): train one with "
                            "attnviz train KIND --task {task}").format(task=task.name, symbol=missing[0]))


def alignment_agreement(loaded: Any, examples: Sequence[Example], device: torch.device | str,
                        reducer: Reducer | None = None) -> np.ndarray:
    """(L, H): each cross-attention head's agreement with the true alignment over ``examples`` (this process's
    share under torchrun, the counts added over every process). ValueError for a model without cross-attention."""
    reducer = reducer or Reducer()
    model = loaded.model.to(device).eval()
    shape = next(((s.layers, s.heads) for s in head_layout(model).kinds if s.kind is AttentionKind.CROSS), None)
    if shape is None:
        raise ValueError(tr("--task compares cross-attention with the task's alignment: a {kind} model has "
                            "none").format(kind=loaded.kind))
    hits, counted = np.zeros(shape, np.int64), 0
    mine = list(examples[reducer.rank::reducer.world])
    for first in range(0, len(mine), BATCH):
        batch = mine[first:first + BATCH]
        src, valid = encode_batch([e.src for e in batch], loaded.src_vocab)
        feed, _ = encode_batch([e.tgt for e in batch], loaded.tgt_vocab, add_bos=True)
        cross = cross_attention(model, src.to(device), valid.to(device), feed.to(device)).cpu()
        batch_hits, batch_counted = agreeing(cross, gold_mask(batch, src.shape[1], feed.shape[1]))
        hits += batch_hits.numpy().astype(np.int64)
        counted += int(batch_counted)
    totals = reducer.sum(np.concatenate([hits.ravel(), [counted]]))
    return totals[:-1].reshape(shape) / max(int(totals[-1]), 1)
