"""The head atlas of an image model over a folder of images (torch + numpy, no Qt).

Per layer and head: how spread its rows are (entropy), how much of a patch's attention goes to ``[CLS]`` (the sink
share), and how far on the image it looks: the **mean attention distance** in pixels (Dosovitskiy et al. 2021,
"An Image is Worth 16x16 Words", Figure 7 right: averaged over heads, it grows with depth; some heads of the first
layers already look far, others stay near the query).

The mean attention distance of one patch query q is Σ_k a_k · d(q, k) over the patch keys k, the weights renormalised
over those keys (the share on ``[CLS]`` has no place on the image), d the distance between the centres of the two
patches in pixels of the model's input (28 × 28 for the shipped ViT); a head's value is the mean over every patch
query of every image. The statistics are sums kept as the images are read, never every map at once.

Shapes: L layers, H heads, B images, N = 1 + P positions (``[CLS]`` first), P patches on a g × g grid.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from attnviz.i18n import tr

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif")  # what a folder of images is read for
MAX_IMAGES = 100_000  # a folder's images read at most (its first, by name)
BATCH = 64  # images through the model at once
IMAGE_HEADS_COLUMNS = ("layer", "head", "entropy", "cls_share", "mean_distance_px")


def image_paths(folder: str | Path, limit: int | None = None) -> list[Path]:
    """The image files directly in ``folder`` (by suffix, case-insensitive), sorted by name, at most ``limit``
    (default :data:`MAX_IMAGES`); ValueError naming the folder where it holds none. Files of other suffixes are
    passed over; what an image file holds is checked when it is read (:func:`attnviz.core.images.read_grey`)."""
    folder = Path(folder)
    most = min(limit or MAX_IMAGES, MAX_IMAGES)
    try:
        names = sorted(entry.name for entry in _entries(folder) if Path(entry.name).suffix.lower() in IMAGE_SUFFIXES)
    except OSError as error:
        raise ValueError(tr("{folder}: cannot be listed ({error})").format(folder=folder,
                                                                          error=error.strerror or error)) from None
    if not names:
        raise ValueError(tr("{folder}: no images in it (PNG, JPEG, WebP, BMP or GIF files)").format(folder=folder))
    return [folder / name for name in names[:most]]


def _entries(folder: Path) -> Iterator[os.DirEntry[str]]:
    with os.scandir(folder) as entries:
        yield from entries


def patch_centres(grid: int, patch: int) -> np.ndarray:
    """(P, 2): the (row, column) centre of each of the g × g patches in pixels, in reading order (row by row)."""
    index = np.arange(grid * grid)
    return (np.stack([index // grid, index % grid], axis=1) + 0.5) * patch


def patch_distances(grid: int, patch: int) -> np.ndarray:
    """(P, P): the distance in pixels between the centres of every two patches."""
    centres = patch_centres(grid, patch)
    return np.sqrt(((centres[:, None, :] - centres[None, :, :]) ** 2).sum(-1))


@dataclass
class ImageHeadSums:
    """The atlas's running sums, (L, H) each: ``entropy`` over every query row (nats), ``cls_share`` (the weight on
    ``[CLS]``) and ``distance`` (the mean attention distance in pixels) over every patch query; ``rows`` and
    ``patch_rows`` count what was summed; ``images`` how many images were read."""

    entropy: np.ndarray
    cls_share: np.ndarray
    distance: np.ndarray
    rows: int = 0
    patch_rows: int = 0
    images: int = 0

    @classmethod
    def empty(cls, layers: int, heads: int) -> ImageHeadSums:
        return cls(np.zeros((layers, heads)), np.zeros((layers, heads)), np.zeros((layers, heads)))

    def add(self, weights: np.ndarray, distances: np.ndarray) -> None:
        """Add the maps of B images: weights (L, B, H, N, N), rows summing to 1; distances (P, P) in pixels."""
        w = weights.astype(np.float64)
        self.entropy += -np.where(w > 0, w * np.log(np.where(w > 0, w, 1.0)), 0.0).sum(-1).sum(axis=(1, 3))
        patches = w[:, :, :, 1:, :]  # (L, B, H, P, N): the patch queries
        self.cls_share += patches[..., 0].sum(axis=(1, 3))
        on_patches = patches[..., 1:]  # (L, B, H, P, P)
        total = on_patches.sum(-1)  # (L, B, H, P): the share the patches hold of each row
        mean = (on_patches * distances).sum(-1) / np.where(total > 0, total, 1.0)  # renormalised over the patches
        self.distance += mean.sum(axis=(1, 3))
        self.images += w.shape[1]
        self.rows += w.shape[1] * w.shape[3]
        self.patch_rows += w.shape[1] * (w.shape[3] - 1)

    def table(self) -> list[dict[str, Any]]:
        """heads.csv's rows: one per layer and head (1-based), its mean entropy, ``[CLS]`` share and distance."""
        layers, heads = self.entropy.shape
        return [{"layer": layer + 1, "head": head + 1,
                 "entropy": float(self.entropy[layer, head] / max(self.rows, 1)),
                 "cls_share": float(self.cls_share[layer, head] / max(self.patch_rows, 1)),
                 "mean_distance_px": float(self.distance[layer, head] / max(self.patch_rows, 1))}
                for layer in range(layers) for head in range(heads)]

    def layer_distances(self) -> np.ndarray:
        """(L,): each layer's mean attention distance in pixels, averaged over its heads."""
        return (self.distance / max(self.patch_rows, 1)).mean(axis=1)


def image_atlas(loaded: Any, paths: Sequence[Path], device: torch.device | str,
                progress: Callable[[int, int], object] | None = None) -> ImageHeadSums:
    """The atlas of ``loaded`` (an image model: ``config.image_size``, ``patch_size``, ``channels``) over the
    images at ``paths``, read in batches of :data:`BATCH`; ImageError (a ValueError naming the file) for one that
    cannot be read. progress(done, total) after each batch."""
    from attnviz.core.images import read_grey

    config = loaded.config
    grid = config.image_size // config.patch_size
    distances = patch_distances(grid, config.patch_size)
    model = loaded.model.eval()
    sums: ImageHeadSums | None = None
    for start in range(0, len(paths), BATCH):
        pixels = np.stack([read_grey(path, config.image_size) for path in paths[start: start + BATCH]])
        images = torch.from_numpy(pixels)[:, None].expand(-1, config.channels, -1, -1).to(device)  # (B, C, S, S)
        with torch.no_grad():
            weights = model(images, need_weights=True).weights  # (L, B, H, N, N)
        assert weights is not None
        if sums is None:
            sums = ImageHeadSums.empty(weights.shape[0], weights.shape[2])
        sums.add(weights.float().cpu().numpy(), distances)
        if progress is not None:
            progress(min(start + BATCH, len(paths)), len(paths))
    assert sums is not None  # (image_paths gives at least one)
    return sums
