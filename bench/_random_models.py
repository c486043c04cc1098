"""Random-weight models for benchmarks: the time of a step depends on a model's size, not on its training.

    from bench._random_models import random_checkpoint
    path = random_checkpoint("decoder-only", folder)  # the kind's standard size, the shipped vocabularies

Not a benchmark itself (no table; tests/test_bench.py skips _*.py): bench scripts import it to measure a
kind no trained checkpoint exists for yet, at the size it will ship at.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def random_checkpoint(kind: str, folder: Path, **arch: Any) -> Path:
    """A checkpoint of ``kind`` at its default architecture (``arch`` overrides), random weights (seed 0),
    with the shipped Transformer's English and French vocabularies, written into ``folder``."""
    import torch

    from attnviz.core.checkpoints.checkpoint import build_model, load_checkpoint, save_checkpoint
    from attnviz.core.models.kinds import kind_named

    shipped = load_checkpoint(ROOT / "models" / "transformer.safetensors")
    assert shipped.src_vocab is not None and shipped.tgt_vocab is not None
    torch.manual_seed(0)
    config = kind_named(kind).make_config(src_vocab_size=len(shipped.src_vocab),
                                          tgt_vocab_size=len(shipped.tgt_vocab), dropout=0.0, **arch)
    return save_checkpoint(folder / f"random-{kind}.safetensors", build_model(config).eval(),
                           src_vocab=shipped.src_vocab, tgt_vocab=shipped.tgt_vocab)
