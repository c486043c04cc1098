"""Attention rows stacked into the per-step maps a decoding records, in memory that grows with the square of
its length, not the cube (torch-free).

Step t of a decoding holds its maps for all t queries so far: cross-attention (L, H, t, S) and decoder
self-attention (L, H, t, t). Stacked afresh at every step, T steps would keep Σ t² ≈ T³/3 cells: a 600-step
decoding of a one-head model held 1.1 GB. Successive steps of one hypothesis share their first rows, so
:class:`RowStacks` writes each new row once into an append-only buffer and hands out read-only views of
its first t rows. A row of a buffer is written once and never again, so a view already handed out never
changes; rows that do not continue a buffer (another beam became the best, a token forced after a step was
decoded ahead, a rewind) start a new one.
Shapes: L layers, H heads, K_t keys of row t (t for self-attention, S for cross-attention), T rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def stack_rows(rows: list[np.ndarray], width: int) -> np.ndarray:
    """Rows (L, H, K_t) with growing K_t -> a new (L, H, T, width) array, zero-padded on the right."""
    if not rows:
        return np.zeros((0, 0, 0, width), dtype=np.float32)
    out = np.zeros((*rows[0].shape[:2], len(rows), width), dtype=np.float32)
    for t, row in enumerate(rows):
        out[:, :, t, : row.shape[-1]] = row
    return out


@dataclass
class _Buffer:
    rows: list[np.ndarray]  # the row arrays written so far, in order: their identity tells a continuation
    data: np.ndarray  # (L, H, capacity, width capacity), zeros where no row was written

    def continued_by(self, rows: list[np.ndarray], width: int) -> bool:
        data = self.data
        return (len(self.rows) <= len(rows) <= data.shape[2] and width <= data.shape[3]
                and rows[0].shape[:2] == data.shape[:2] and all(a is b for a, b in zip(self.rows, rows, strict=False)))


@dataclass
class RowStacks:
    """Shared buffers for the maps of one decoding, one per name (e.g. "cross_weights").

    max_rows: the most rows a decoding can reach (its length limit); buffers grow by doubling up to it.
    """

    max_rows: int
    _buffers: dict[str, _Buffer] = field(default_factory=dict)

    def stack(self, name: str, rows: list[np.ndarray], width: int, grows: bool = False) -> np.ndarray:
        """Like :func:`stack_rows`, as a read-only view of ``name``'s buffer. grows: the width grows by one
        with each row (self-attention: width t, or S + t for a decoder-only model's prompt and answer)."""
        if not rows:
            return stack_rows(rows, width)
        buffer = self._buffers.get(name)
        if buffer is None or not buffer.continued_by(rows, width):
            capacity = max(len(rows), min(self.max_rows, 2 * len(rows)))
            data = np.zeros((*rows[0].shape[:2], capacity, width + capacity - len(rows) if grows else width),
                            dtype=np.float32)
            buffer = self._buffers[name] = _Buffer([], data)
        for t in range(len(buffer.rows), len(rows)):
            buffer.data[:, :, t, : rows[t].shape[-1]] = rows[t]
            buffer.rows.append(rows[t])
        view = buffer.data[:, :, : len(rows), :width]
        view.flags.writeable = False
        return view
