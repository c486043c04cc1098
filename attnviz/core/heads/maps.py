"""One decoded sentence's attention maps, per head kind, as the statistics read them (numpy).

A batch's maps come padded (a Transformer's on the right, a decoder-only model's on the left); each sentence's
are cut to its own tokens here. A decoder-only model's one self-attention gives one map: its prompt's rows, then
one row per decoded token over the prompt, ``<bos>`` and the tokens before it. Shapes: L layers, H heads,
S padded source width, v the sentence's own length, T decoded steps.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.decoding.hypothesis import Hypothesis
from attnviz.core.heads.statistics import Keys
from attnviz.core.text import BOS


@dataclass(frozen=True)
class KindMap:
    """One kind's rows for one sentence: weights (L, H, Q, K), each row's own position (Q,), its keys; tokens: the
    keys' tokens (K,); where (K,): each key's position in the batch's teacher-forced pass (its padded source, its
    target input, or a decoder-only model's padded prompt then target input: :mod:`attnviz.core.heads.value_norms`)."""

    kind: AttentionKind
    weights: np.ndarray
    positions: np.ndarray
    keys: Keys
    tokens: tuple[str, ...]
    where: np.ndarray


def _dense(rows: list[np.ndarray], width: int) -> np.ndarray:
    """Rows (L, H, k_i) of growing width, as (L, H, len(rows), width) with zeros right of each row."""
    layers, heads = rows[0].shape[:2]
    out = np.zeros((layers, heads, len(rows), width), np.float64)
    for i, row in enumerate(rows):
        out[:, :, i, : row.shape[-1]] = row
    return out


def sentence_maps(kinds: tuple[AttentionKind, ...], hyp: Hypothesis, words: tuple[str, ...], outputs: list[str],
                  encoder: np.ndarray | None, width: int, pads_left: bool, prompt_predicts: bool = False,
                  counts: Mapping[str, int] | None = None) -> Iterator[KindMap]:
    """The maps of one decoded sentence of a batch. kinds: the model's head kinds (core/heads/mask.py); words: its
    source tokens (v); outputs: the decoded tokens (T, the last may be <eos>); encoder: its row of the batch's
    encoder self-attention (L, H, S, S) or None; width: S; pads_left: the batch is padded on the left;
    prompt_predicts: a decoder-only model without a separator (a Hugging Face one: the first step's row is the
    prompt's last row, counted once, and no <bos> is among the keys); counts: each source token's frequency in
    the corpus (the source keys' least frequent ones, for the rare-word statistic)."""
    v = len(words)
    pad = width - v if pads_left else 0
    source = slice(pad, pad + v)
    rows = hyp.rows
    steps = len(rows)
    answer_keys = (*(() if prompt_predicts else (BOS,)), *outputs[: max(steps - 1, 0)])
    one_sequence = AttentionKind.DECODER_SELF in kinds and AttentionKind.ENCODER_SELF not in kinds
    if one_sequence:  # a decoder-only model: the prompt's rows, then each step's row over prompt + answer
        assert encoder is not None
        prompt = encoder[:, :, source, source]  # (L, H, v, v)
        answer = [r.self_weights[..., pad:] for r in rows[1 if prompt_predicts else 0:] if r.self_weights is not None]
        every = [prompt[:, :, i, : i + 1] for i in range(v)] + answer
        tokens = (*words, *answer_keys)
        where = np.concatenate([np.arange(pad, pad + v), width + np.arange(len(answer_keys))])
        yield KindMap(AttentionKind.DECODER_SELF, _dense(every, len(tokens)), np.arange(len(every)),
                      Keys.of(tokens, v - 1), tokens, where)
        return
    in_source = np.arange(pad, pad + v)
    if AttentionKind.ENCODER_SELF in kinds and encoder is not None:
        yield KindMap(AttentionKind.ENCODER_SELF, np.asarray(encoder[:, :, source, source], np.float64),
                      np.arange(v), Keys.of(words, v - 1, counts), words, in_source)
    if AttentionKind.DECODER_SELF in kinds and steps:
        selfs = [r.self_weights for r in rows if r.self_weights is not None]
        yield KindMap(AttentionKind.DECODER_SELF, _dense(selfs, steps), np.arange(steps), Keys.of(answer_keys, None),
                      answer_keys, np.arange(len(answer_keys)))
    if AttentionKind.CROSS in kinds and steps:
        cross = np.stack([r.cross_weights[..., source] for r in rows], axis=2).astype(np.float64)  # (L, H, T, v)
        yield KindMap(AttentionKind.CROSS, cross, np.arange(steps), Keys.of(words, v - 1, counts), words, in_source)
