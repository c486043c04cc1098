"""One minimal pair's attention maps, every head, on its clean and its corrupt side (the window's Patching tab: a head
clicked shows its map on each side and their difference).

The runs are those patching compares (:mod:`attnviz.core.patching.inputs`): a translation model fed the clean
translation's prefix before the step read on both sides, a decoder-only folder its prompt, an encoder-only model its
sentence with the mask. Torch only, never Qt. Shapes: L layers, H heads, Q queries, K keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.patching.engine import Patcher
from attnviz.core.patching.pairs import MinimalPair, PairsError


@dataclass(frozen=True)
class PairMaps:
    """Each kind's attention weights (L, H, Q, K) on the clean and the corrupt side of ``pair``, and the labels of the
    rows (Q,) and columns (K,) on each side (where the two sides' words differ, their labels do); ``prefix``: the
    target tokens fed before the step read (a translation model's; else empty)."""

    pair: MinimalPair
    clean: dict[AttentionKind, np.ndarray]
    corrupt: dict[AttentionKind, np.ndarray]
    rows: dict[AttentionKind, tuple[tuple[str, ...], tuple[str, ...]]]  # (clean side's, corrupt side's)
    columns: dict[AttentionKind, tuple[tuple[str, ...], tuple[str, ...]]]
    prefix: tuple[str, ...] = ()


def _labels(count: int, *candidates: tuple[str, ...]) -> tuple[str, ...]:
    """The first candidate of ``count`` labels, else the positions 1 … count."""
    return next((c for c in candidates if len(c) == count), tuple(str(i) for i in range(1, count + 1)))


@torch.no_grad()
def pair_maps(loaded: Any, pair: MinimalPair, device: torch.device | str = "cpu") -> PairMaps:
    """Every head's attention map on both sides of ``pair`` (PairsError for a pair the model cannot read, or one it
    gives no step to read: it translates both sides alike)."""
    with Patcher(loaded, device) as patcher:
        prepared = patcher.reader.prepare([pair])
        if not prepared:
            raise PairsError(patcher.reader.skipped[0][1] if patcher.reader.skipped else str(pair))
        one = prepared[0]
        maps: list[dict[AttentionKind, np.ndarray]] = []
        for clean in (True, False):
            run, _, _ = patcher._run(one, clean=clean, gradient=False)
            kinds: dict[AttentionKind, list[np.ndarray]] = {}
            for (kind, _layer), calls in run.calls.items():
                kinds.setdefault(kind, []).append(calls[0].weights[0].float().cpu().numpy())  # (H, Q, K)
            maps.append({kind: np.stack(layers) for kind, layers in kinds.items()})
        words = (tuple(one.tokens), _corrupt_words(loaded, pair, one.tokens))
    target = ("<bos>", *one.prefix)
    rows: dict[AttentionKind, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    columns: dict[AttentionKind, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for kind, values in maps[0].items():
        _, _, queries, keys = values.shape
        if kind is AttentionKind.ENCODER_SELF:
            rows[kind] = columns[kind] = (_labels(queries, words[0]), _labels(queries, words[1]))
        elif kind is AttentionKind.CROSS:
            rows[kind] = (_labels(queries, target),) * 2
            columns[kind] = (_labels(keys, words[0]), _labels(keys, words[1]))
        else:  # (a decoder's self-attention over its target, or one stack over the prompt and what follows)
            clean_seq, corrupt_seq = ((*words[0], *one.prefix), (*words[1], *one.prefix))
            rows[kind] = (_labels(queries, target, clean_seq, words[0]), _labels(queries, target, corrupt_seq,
                                                                                  words[1]))
            columns[kind] = (_labels(keys, target, clean_seq, words[0]), _labels(keys, target, corrupt_seq, words[1]))
    return PairMaps(pair, maps[0], maps[1], rows, columns, tuple(one.prefix))


def _corrupt_words(loaded: Any, pair: MinimalPair, clean: tuple[str, ...]) -> tuple[str, ...]:
    """The corrupt side's tokens as the model reads them (the clean side's count: same-length pairs only)."""
    vocab = getattr(loaded, "src_vocab", None)
    if vocab is None or not hasattr(loaded.config, "max_src_len"):
        return clean
    from attnviz.core.text import source_words

    words = tuple(source_words(pair.corrupt, vocab, int(loaded.config.max_src_len)).words)
    return words if len(words) == len(clean) else clean
