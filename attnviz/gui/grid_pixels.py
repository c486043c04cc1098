"""The All heads grid's colours, worked out off the GUI thread (numpy only: it runs on the session's worker).

8 heads × 2 layers of a 1,024-token sentence are 16 M cells. Each matrix is averaged down to at most
MAX_CELLS per side first (a small multiple is a couple of hundred pixels wide), then coloured, so the
widget only draws small images. Shapes: L layers, H heads, Q queries, K keys.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.figures.spec import GridSpec
from attnviz.render.figure_painter import argb_pixels

MAX_CELLS = 256  # per side of one small multiple's image: more than its pixels on screen


def pooled(values: np.ndarray, most: int = MAX_CELLS) -> np.ndarray:
    """values (Q, K) averaged over blocks of cells so that neither side exceeds ``most``; NaN cells (masked
    scores) are left out of the averages, and a block of only NaN stays NaN."""
    rows, cols = values.shape
    fr, fc = -(-rows // most) if rows else 1, -(-cols // most) if cols else 1
    if fr == 1 and fc == 1:
        return values
    padded = np.full((-(-rows // fr) * fr, -(-cols // fc) * fc), np.nan, np.float32)
    padded[:rows, :cols] = values
    blocks = padded.reshape(padded.shape[0] // fr, fr, padded.shape[1] // fc, fc)
    valid = ~np.isnan(blocks)
    sums = np.where(valid, blocks, 0.0).sum(axis=(1, 3))
    counts = valid.sum(axis=(1, 3))
    return np.divide(sums, counts, out=np.full(sums.shape, np.nan, np.float32), where=counts > 0)


@dataclass(frozen=True)
class GridPicture:
    """A grid figure ready to paint: ``spec`` (what Export writes) and ``pixels``, one uint32 ARGB array
    (q, k) per panel in ``spec.panels`` order, q ≤ min(Q, MAX_CELLS), k ≤ min(K, MAX_CELLS)."""

    spec: GridSpec
    pixels: tuple[np.ndarray, ...]

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.spec.row_names), self.spec.columns

    @property
    def cells(self) -> tuple[int, ...]:
        """(Q, K) of the matrices shown (before averaging down)."""
        return tuple(self.spec.panels[0].values.shape) if self.spec.panels else (0, 0)


def grid_picture(spec: GridSpec) -> GridPicture:
    """Colour every panel of ``spec`` (numpy only: runs on the worker)."""
    return GridPicture(spec, tuple(argb_pixels(pooled(np.asarray(panel.values, np.float32)), spec.levels,
                                               spec.colormap) for panel in spec.panels))
