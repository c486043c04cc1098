"""Parallel-text loading, splitting and batching for the translation models."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import torch
from torch import Tensor

from attnviz.core.checkpoints.checkpoint import MAX_TOKEN_CHARS, is_word
from attnviz.core.decoding.beam_search import encode_batch
from attnviz.core.text import Vocab, preprocess, tokenize
from attnviz.i18n import N_, tr


@dataclass(frozen=True)
class Pair:
    """One preprocessed, tokenized sentence pair."""

    src: tuple[str, ...]
    tgt: tuple[str, ...]


MAX_LINE_BYTES = 64 * 1024  # a sentence pair takes a few hundred bytes; a longer line is skipped, never held whole

# why read_pairs left a line out (the keys of its ``skipped`` counts; templates, shown by describe_skipped)
NOT_UTF8, NO_TAB, EMPTY_SIDE = N_("not UTF-8"), N_("without a tab"), N_("with an empty side")
TOO_LONG_LINE = N_("over {kib} KiB")
NOT_WORDS = N_("with control characters or words over {chars} characters")
OVER_LIMITS = N_("over the length limits")


def read_pairs(path: str | Path, max_src_tokens: int | None = None, max_tgt_tokens: int | None = None,
               skipped: Counter[str] | None = None) -> list[Pair]:
    """Pairs from a ``source<TAB>target`` file (extra columns ignored), preprocessed d2l-style.

    Lines that are not UTF-8, longer than MAX_LINE_BYTES, without two fields, with an empty side, with
    tokens no vocabulary may hold (:func:`attnviz.core.checkpoints.checkpoint.is_word`) or longer than the limits
    are skipped, and counted by reason in ``skipped``; blank lines are ignored.
    """
    skipped = Counter() if skipped is None else skipped
    pairs = []
    with open(path, "rb") as handle:
        for line in _bounded_lines(handle, skipped):
            if not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 2:
                skipped[NO_TAB] += 1
                continue
            src, tgt = tuple(tokenize(preprocess(fields[0]))), tuple(tokenize(preprocess(fields[1])))
            if not src or not tgt:
                skipped[EMPTY_SIDE] += 1
            elif not all(is_word(token) for token in src + tgt):
                skipped[NOT_WORDS] += 1
            elif (max_src_tokens and len(src) > max_src_tokens) or (max_tgt_tokens and len(tgt) > max_tgt_tokens):
                skipped[OVER_LIMITS] += 1
            else:
                pairs.append(Pair(src, tgt))
    return pairs


def _bounded_lines(handle: BinaryIO, skipped: Counter[str]) -> Iterator[str]:
    """The lines of a binary file as text, none read whole past MAX_LINE_BYTES (those are skipped, as are
    lines that are not UTF-8; both counted in ``skipped``)."""
    while raw := handle.readline(MAX_LINE_BYTES + 1):
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # the rest of the line, a bounded piece at a time
                raw = handle.readline(MAX_LINE_BYTES)
            skipped[TOO_LONG_LINE] += 1
            continue
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError:
            skipped[NOT_UTF8] += 1


def describe_skipped(skipped: Counter[str]) -> str:
    """``3 over the length limits, 1 not UTF-8``: the counts of :func:`read_pairs`, largest first."""
    return tr(", ", "list separator").join(
        tr("{count:,} {reason}").format(count=count, reason=tr(reason).format(kib=MAX_LINE_BYTES // 1024,
                                                                               chars=MAX_TOKEN_CHARS))
        for reason, count in skipped.most_common())


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
                   seed: int, skipped: Counter[str] | None = None) -> tuple[list[Pair], list[Pair]]:
    """The (train, validation) split that ``attnviz train`` makes of ``path`` with these options.

    At most a tenth of the distinct sources are held out (none from fewer than 10). ``attnviz eval
    --heldout`` calls this with the options stored in a checkpoint to score it on exactly the sentences
    it never saw. ``skipped``: see :func:`read_pairs`.
    """
    skipped = Counter() if skipped is None else skipped
    pairs = read_pairs(path, max_src_tokens, max_tgt_tokens, skipped)
    if not pairs:
        if skipped:
            raise ValueError(tr("{path}: no usable sentence pairs (lines skipped: {skipped})").format(
                path=path, skipped=describe_skipped(skipped)))
        raise ValueError(tr("{path}: no usable sentence pairs (the file has no lines)").format(path=path))
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
