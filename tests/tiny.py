"""Tiny models trained on data the tests make themselves (no ../shared needed)."""

from __future__ import annotations

import random
from pathlib import Path

from attnviz.training.train import TrainOptions

WORDS = [chr(c) for c in range(ord("a"), ord("a") + 10)]


def reversal_of(sentence: str) -> str:
    """The tiny task's correct translation."""
    return " ".join(w + "x" for w in reversed(sentence.split()))


def write_reversal_data(path: Path, n: int = 1500, seed: int = 0) -> Path:
    """``a b c<TAB>cx bx ax``-style pairs: the target is the source reversed, each word suffixed
    with x (so that source and target vocabularies differ)."""
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(2, 6))]
        lines.append(" ".join(words) + "\t" + reversal_of(" ".join(words)))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


TINY_OPTIONS = TrainOptions(epochs=10, batch_size=32, lr=3e-3, warmup_steps=60, label_smoothing=0.0,
                            src_min_freq=1, tgt_min_freq=1, val_sources=60, max_src_tokens=8, max_tgt_tokens=8)
TINY_ARCH = {
    "transformer": {"num_hiddens": 32, "ffn_hiddens": 64, "num_heads": 4, "num_encoder_layers": 2,
                    "num_decoder_layers": 2, "dropout": 0.0, "max_src_len": 10, "max_tgt_len": 12},
    "decoder-only": {"num_hiddens": 32, "ffn_hiddens": 64, "num_heads": 4, "num_decoder_layers": 3,
                     "dropout": 0.0, "max_src_len": 10, "max_tgt_len": 12},
    "rnn-additive": {"embed_size": 32, "num_hiddens": 64, "num_layers": 1, "dropout": 0.0,
                     "max_src_len": 10, "max_tgt_len": 12},
    "rnn-dot": {"embed_size": 32, "num_hiddens": 64, "num_layers": 1, "dropout": 0.0,
                "max_src_len": 10, "max_tgt_len": 12},
}
