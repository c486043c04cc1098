"""Heads across a corpus: statistics, importance, pruning, and switching heads off (torch + numpy, no Qt).

The window and ``attnviz heads`` call :func:`compute_atlas` and :func:`pruning_curve` (on a worker: both report
progress and can be cancelled), :func:`head_layout` for the heads a model has, :meth:`HeadMask.parse` for
``cross:2.1,enc:1.3``, and :class:`HeadGates` / :func:`masked_heads` / :func:`decode_masked` to decode with heads
switched off.
"""

from __future__ import annotations

from typing import Any

import torch

from attnviz.core.heads.atlas import HeadAtlas, HeadsCancelled, KindAtlas, compute_atlas, corpus_of
from attnviz.core.heads.corpus import Corpus, CorpusError, read_corpus
from attnviz.core.heads.gates import GatesUnavailable, HeadGates, head_layout, masked_heads
from attnviz.core.heads.mask import Head, HeadLayout, HeadMask, HeadMaskError, KindShape
from attnviz.core.heads.pruning import PruningCurve, importance_order, pruning_curve

__all__ = ["Corpus", "CorpusError", "GatesUnavailable", "Head", "HeadAtlas", "HeadGates", "HeadLayout", "HeadMask",
           "HeadMaskError", "HeadsCancelled", "KindAtlas", "KindShape", "PruningCurve", "compute_atlas", "corpus_of",
           "decode_masked", "head_layout", "importance_order", "masked_heads", "pruning_curve", "read_corpus"]


def decode_masked(loaded: Any, text: str, mask: HeadMask, device: torch.device | str = "cpu",
                  beam_size: int = 1) -> list[Any]:
    """Decode ``text`` to the end with the heads of ``mask`` off: the steps (DecodeStep) the window shows, every
    map included. (A session that steps itself keeps a :class:`HeadGates` installed while the mask holds.)"""
    with masked_heads(loaded.model, mask, device):
        session = loaded.model_kind.stepping_cls(loaded, device, beam_size=beam_size)
        session.encode(text)
        return list(session.run())
