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

from attnviz.core.images import IMAGE_SUFFIXES
from attnviz.i18n import tr

MAX_IMAGES = 100_000  # a folder's images read at most (its first, by name)
BATCH = 64  # images through the model at once
IMAGE_HEADS_COLUMNS = ("layer", "head", "entropy", "cls_share", "other_specials_share", "mean_distance_px")


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


def patch_centres(grid: int | tuple[int, int], patch: int | tuple[int, int]) -> np.ndarray:
    """(P, 2): the (row, column) centre of each patch of a rows × columns grid (an int: square) in pixels, in
    reading order (row by row); patch: its (height, width) in pixels (an int: square)."""
    rows, cols = (grid, grid) if isinstance(grid, int) else grid
    height, width = (patch, patch) if isinstance(patch, int) else patch
    index = np.arange(rows * cols)
    return (np.stack([index // cols, index % cols], axis=1) + 0.5) * np.array([height, width])


def patch_distances(grid: int | tuple[int, int], patch: int | tuple[int, int]) -> np.ndarray:
    """(P, P): the distance in pixels between the centres of every two patches (:func:`patch_centres`)."""
    centres = patch_centres(grid, patch)
    return np.sqrt(((centres[:, None, :] - centres[None, :, :]) ** 2).sum(-1))


def even_spread_distance(grid: int | tuple[int, int], patch: int | tuple[int, int]) -> float:
    """The mean attention distance in pixels of a head that spreads every patch query's weight evenly over the
    patches (its own included): the mean distance between two patches' centres — the level a head looking nowhere in
    particular sits at (the ViT paper's Figure 7 right)."""
    return float(patch_distances(grid, patch).mean())


@dataclass(frozen=True)
class ImageAtlas:
    """The atlas of an image model over a folder of images, as the window shows it (numpy only): per layer × head
    (L, H) the mean entropy of a row (nats), the share of a patch query's weight on ``[CLS]``, on the other specials
    (DeiT's distillation token, DINOv2's registers) and the mean attention distance in pixels; ``images`` read,
    ``even_distance`` (:func:`even_spread_distance`) and the ``specials``' labels."""

    entropy: np.ndarray
    cls_share: np.ndarray
    other_specials: np.ndarray
    distance: np.ndarray
    images: int
    even_distance: float
    specials: tuple[str, ...] = ("[CLS]",)

    def layer_distances(self) -> np.ndarray:
        """(L,): each layer's mean attention distance in pixels, averaged over its heads."""
        return self.distance.mean(axis=1)


@dataclass
class ImageHeadSums:
    """The atlas's running sums, (L, H) each: ``entropy`` over every query row (nats), ``cls_share`` (the weight on
    ``[CLS]``), ``other_specials`` (on the other positions before the patches: DeiT's distillation token, DINOv2's
    registers) and ``distance`` (the mean attention distance in pixels) over every patch query; ``rows`` and
    ``patch_rows`` count what was summed; ``images`` how many images were read."""

    entropy: np.ndarray
    cls_share: np.ndarray
    other_specials: np.ndarray
    distance: np.ndarray
    rows: int = 0
    patch_rows: int = 0
    images: int = 0
    specials: int = 1  # the positions before the patches ([CLS], a distillation token, registers)

    @classmethod
    def empty(cls, layers: int, heads: int, specials: int = 1) -> ImageHeadSums:
        entropy, cls_share, other_specials, distance = (np.zeros((layers, heads)) for _ in range(4))
        return cls(entropy, cls_share, other_specials, distance, specials=specials)

    def add(self, weights: np.ndarray, distances: np.ndarray) -> None:
        """Add the maps of B images: weights (L, B, H, N, N), rows summing to 1; distances (P, P) in pixels."""
        w = weights.astype(np.float64)
        self.entropy += -np.where(w > 0, w * np.log(np.where(w > 0, w, 1.0)), 0.0).sum(-1).sum(axis=(1, 3))
        first = self.specials
        patches = w[:, :, :, first:, :]  # (L, B, H, P, N): the patch queries
        self.cls_share += patches[..., 0].sum(axis=(1, 3))
        self.other_specials += patches[..., 1:first].sum(-1).sum(axis=(1, 3))
        on_patches = patches[..., first:]  # (L, B, H, P, P)
        total = on_patches.sum(-1)  # (L, B, H, P): the share the patches hold of each row
        mean = (on_patches * distances).sum(-1) / np.where(total > 0, total, 1.0)  # renormalised over the patches
        self.distance += mean.sum(axis=(1, 3))
        self.images += w.shape[1]
        self.rows += w.shape[1] * w.shape[3]
        self.patch_rows += w.shape[1] * (w.shape[3] - first)

    def table(self) -> list[dict[str, Any]]:
        """heads.csv's rows: one per layer and head (1-based), its mean entropy, ``[CLS]`` share and distance."""
        layers, heads = self.entropy.shape
        return [{"layer": layer + 1, "head": head + 1,
                 "entropy": float(self.entropy[layer, head] / max(self.rows, 1)),
                 "cls_share": float(self.cls_share[layer, head] / max(self.patch_rows, 1)),
                 "other_specials_share": float(self.other_specials[layer, head] / max(self.patch_rows, 1)),
                 "mean_distance_px": float(self.distance[layer, head] / max(self.patch_rows, 1))}
                for layer in range(layers) for head in range(heads)]

    def layer_distances(self) -> np.ndarray:
        """(L,): each layer's mean attention distance in pixels, averaged over its heads."""
        return (self.distance / max(self.patch_rows, 1)).mean(axis=1)

    def means(self, even_distance: float, specials: tuple[str, ...]) -> ImageAtlas:
        """The sums as means (the values :meth:`table` writes), for the window."""
        rows, patch_rows = max(self.rows, 1), max(self.patch_rows, 1)
        return ImageAtlas(self.entropy / rows, self.cls_share / patch_rows, self.other_specials / patch_rows,
                          self.distance / patch_rows, self.images, even_distance, specials)


def image_atlas(loaded: Any, paths: Sequence[Path], device: torch.device | str,
                progress: Callable[[int, int], object] | None = None) -> ImageHeadSums:
    """The atlas of ``loaded`` (an image model, read through its
    :class:`~attnviz.core.models.image_reading.ImageReader`) over the images at ``paths``, read in batches of
    :data:`BATCH` (or fewer: the reader's own :attr:`~attnviz.core.models.image_reading.ImageReader.batch`); ImageError
    (a ValueError naming the file) for one that cannot be read or that the reader cannot prepare. progress(done, total)
    after each batch. Each image is decoded reduced and prepared before the next is read: memory bounded by one image
    (:func:`~attnviz.core.models.image_reading.read_prepared`)."""
    from attnviz.core.models.image_reading import UnreadableImage, read_prepared, reader_of

    reader = reader_of(loaded)
    distances = patch_distances(reader.grid, reader.patch)
    sums: ImageHeadSums | None = None
    step = max(min(BATCH, reader.batch), 1)
    for start in range(0, len(paths), step):
        batch = paths[start: start + step]
        try:
            inputs, _pictures = read_prepared(reader, batch)  # (each image decoded reduced, let go before the next)
        except UnreadableImage as error:
            raise error.naming(batch[error.index]) from None
        with torch.no_grad():
            weights = reader.run(inputs.to(device)).weights  # (L, B, H, N, N)
        if sums is None:
            sums = ImageHeadSums.empty(weights.shape[0], weights.shape[2], len(reader.specials))
        sums.add(weights.float().cpu().numpy(), distances)
        if progress is not None and progress(min(start + step, len(paths)), len(paths)) is False:
            from attnviz.core.heads.atlas import HeadsCancelled

            raise HeadsCancelled
    assert sums is not None  # (image_paths gives at least one)
    return sums
