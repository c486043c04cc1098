"""Sinusoidal positional encoding ("Attention Is All You Need", section 3.5)."""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn


def positional_encoding_table(max_len: int, num_hiddens: int) -> np.ndarray:
    """The encoding table P, float32 array (max_len, num_hiddens).

    P[pos, 2i] = sin(pos / 10000^(2i/d)), P[pos, 2i+1] = cos(pos / 10000^(2i/d)).
    Works for odd ``num_hiddens`` too (the last column is a sine).
    """
    if max_len <= 0 or num_hiddens <= 0:
        raise ValueError(f"max_len and num_hiddens must be positive, got {max_len}, {num_hiddens}")
    pos = np.arange(max_len, dtype=np.float64)[:, None]
    two_i = np.arange(0, num_hiddens, 2, dtype=np.float64)[None, :]
    angles = pos / np.power(10000.0, two_i / num_hiddens)  # (max_len, ceil(d/2))
    table = np.zeros((max_len, num_hiddens), dtype=np.float64)
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : num_hiddens // 2])
    return table.astype(np.float32)


class PositionalEncoding(nn.Module):
    """Adds the sinusoidal table to a batch of embeddings, then applies dropout."""

    def __init__(self, num_hiddens: int, dropout: float = 0.0, max_len: int = 1000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.P: Tensor
        self.register_buffer("P", torch.from_numpy(positional_encoding_table(max_len, num_hiddens)),
                             persistent=False)

    @property
    def max_len(self) -> int:
        return int(self.P.shape[0])

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:
        """x (B, T, D) -> x + P[offset:offset+T]; ``offset`` is the position of x's first token."""
        t = x.shape[1]
        if offset + t > self.max_len:
            raise ValueError(f"positions up to {offset + t} exceed max_len={self.max_len}")
        return self.dropout(x + self.P[offset: offset + t].to(x.dtype))
