"""Parallel-text loading, splitting and batching for the translation models."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import Tensor

from attnviz.core.decoding import encode_batch
from attnviz.core.text import Vocab, preprocess, tokenize


@dataclass(frozen=True)
class Pair:
    """One preprocessed, tokenized sentence pair."""

    src: tuple[str, ...]
    tgt: tuple[str, ...]


def read_pairs(path: str | Path, max_src_tokens: int | None = None,
               max_tgt_tokens: int | None = None) -> list[Pair]:
    """Pairs from a ``source<TAB>target`` file (extra columns ignored), preprocessed d2l-style.

    Lines without two fields, with an empty side, or longer than the limits are skipped.
    """
    pairs = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 2:
                continue
            src, tgt = tuple(tokenize(preprocess(fields[0]))), tuple(tokenize(preprocess(fields[1])))
            if not src or not tgt:
                continue
            if (max_src_tokens and len(src) > max_src_tokens) or (max_tgt_tokens and len(tgt) > max_tgt_tokens):
                continue
            pairs.append(Pair(src, tgt))
    return pairs


def group_references(pairs: list[Pair]) -> dict[tuple[str, ...], list[tuple[str, ...]]]:
    """Every distinct target of each source sentence, in first-seen order."""
    refs: dict[tuple[str, ...], list[tuple[str, ...]]] = defaultdict(list)
    for pair in pairs:
        if pair.tgt not in refs[pair.src]:
            refs[pair.src].append(pair.tgt)
    return dict(refs)


def split_by_source(pairs: list[Pair], val_sources: int, seed: int = 0) -> tuple[list[Pair], list[Pair]]:
    """Hold out ``val_sources`` distinct source sentences with all their references.

    No source sentence appears on both sides, so validation measures translation of unseen input.
    """
    sources = sorted({p.src for p in pairs})
    random.Random(seed).shuffle(sources)
    held = set(sources[:val_sources])
    return [p for p in pairs if p.src not in held], [p for p in pairs if p.src in held]


def training_split(path: str | Path, max_src_tokens: int | None, max_tgt_tokens: int | None, val_sources: int,
                   seed: int) -> tuple[list[Pair], list[Pair]]:
    """The (train, validation) split that ``attnviz train`` makes of ``path`` with these options.

    At most a tenth of the distinct sources are held out. ``attnviz eval --heldout`` calls this with
    the options stored in a checkpoint to score it on exactly the sentences it never saw.
    """
    pairs = read_pairs(path, max_src_tokens, max_tgt_tokens)
    if not pairs:
        raise ValueError(f"{path}: no usable sentence pairs")
    n_sources = len({p.src for p in pairs})
    return split_by_source(pairs, min(val_sources, n_sources // 10), seed)


@dataclass
class Batch:
    """src (B, S), src_valid_lens (B,), tgt_in (B, T) = <bos> y, tgt_out (B, T) = y <eos>."""

    src: Tensor
    src_valid_lens: Tensor
    tgt_in: Tensor
    tgt_out: Tensor

    def to(self, device: torch.device) -> Batch:
        return Batch(*(t.to(device, non_blocking=True) for t in (self.src, self.src_valid_lens,
                                                                  self.tgt_in, self.tgt_out)))


def make_batches(pairs: list[Pair], src_vocab: Vocab, tgt_vocab: Vocab, batch_size: int,
                 seed: int) -> list[Batch]:
    """Length-bucketed batches in shuffled order: pairs of similar length share a batch (less padding).

    Sorted by target length first: the decoder and its vocabulary-wide output layer dominate the cost.
    """
    rng = random.Random(seed)
    order = sorted(range(len(pairs)), key=lambda i: (len(pairs[i].tgt), len(pairs[i].src), rng.random()))
    chunks = [order[i: i + batch_size] for i in range(0, len(order), batch_size)]
    rng.shuffle(chunks)
    batches = []
    for chunk in chunks:
        src, src_valid = encode_batch([pairs[i].src for i in chunk], src_vocab)
        tgt, _ = encode_batch([pairs[i].tgt for i in chunk], tgt_vocab, add_bos=True, add_eos=True)
        batches.append(Batch(src, src_valid, tgt[:, :-1], tgt[:, 1:]))
    return batches
