"""Reading images with an image model, whatever its family: one protocol each family implements, and what every
command and view does with it (torch + numpy, no Qt).

A family says how it reads images through its registry record (``ModelKind.image_reader``, "module:function"
building an :class:`ImageReader` from a loaded model): attnviz's own ViT (:mod:`attnviz.core.models.vit`) and the
Hugging Face vision folders each have one. Everything after — classifying a batch, one image's maps for the window,
the head atlas, exports — goes through the reader, so a new family of image model is its module and its record.

Shapes: B images, C channels, L layers, H heads, N positions (the specials, then P patches row by row), K classes,
Hp × Wp the picture as the model read it.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch
from torch import Tensor

from attnviz.core.layout import Picture, layout_named, patch_labels
from attnviz.core.results import EncodedSource

TOP_CLASSES = 5  # the classes an image's line and the window name, best first


@dataclass(frozen=True)
class ImageOutputs:
    """What a reader's model gives for a batch: logits (B, K) (None: a model without a classifier head), weights
    (L, B, H, N, N) every layer's attention (rows sum to 1), scores (L, B, H, N, N) before the softmax, or None
    unless asked for."""

    logits: Tensor | None
    weights: Tensor
    scores: Tensor | None = None


class UnreadableImage(ValueError):
    """An image a reader cannot prepare (a folder's image processor refusing it): its ``index`` in the batch given
    to :meth:`ImageReader.prepare` and why, in words that do not name the file (the caller knows its name:
    :meth:`naming`)."""

    def __init__(self, index: int, reason: str):
        super().__init__(reason)
        self.index, self.reason = index, reason

    def naming(self, name: str | Path) -> ValueError:
        """The same problem as an :class:`~attnviz.core.images.ImageError` naming the file ``name``."""
        from attnviz.core.images import ImageError

        return ImageError(f"{name}: {self.reason}")


class ImageReader(Protocol):
    """How one loaded image model reads pictures.

    labels: the class names by class index (empty: no classifier head); specials: the labels of the positions
    before the patches ("[CLS]", DeiT's "[DIST]", DINOv2's registers); grid: (rows, columns) of patches; patch:
    (height, width) of a patch in the prepared picture's pixels; batch: the most images :meth:`run` takes at once
    (what its maps of them take in memory: the callers split larger batches); side: the longest side in pixels it
    resizes a picture to before reading it (the model's input, or its processor's resize before a crop): a file is
    decoded reduced to no less than twice it (:func:`open_for`).
    """

    labels: tuple[str, ...]
    specials: tuple[str, ...]
    grid: tuple[int, int]
    patch: tuple[int, int]
    batch: int
    side: int

    def prepare(self, images: Sequence[Any]) -> tuple[Tensor, np.ndarray]:
        """Pillow images ("L" or "RGB", :func:`attnviz.core.images.open_image`) -> (the model's input (B, C, ·, ·)
        on the CPU, the pictures as read (B, Hp, Wp, 3) float32 in [0, 1], before any normalisation);
        :class:`UnreadableImage` for the first image it cannot prepare."""
        ...

    def run(self, inputs: Tensor, need_scores: bool = False) -> ImageOutputs:
        """The model on a prepared batch (already on its device), with every layer's attention."""
        ...

    def logits(self, inputs: Tensor) -> Tensor:
        """The classifier's logits (B, K) of a prepared batch (on the model's device), differentiable with respect
        to ``inputs`` (gradients are recorded where they are enabled; no attention is kept): what the Explain
        methods' gradients run through. Only for a model with a classifier head (``labels``)."""
        ...


def reader_of(loaded: Any) -> ImageReader:
    """The :class:`ImageReader` of ``loaded`` (an image model: its record's ``image_reader``); ValueError for a
    model that does not read images."""
    path = loaded.model_kind.image_reader
    if path is None:
        raise ValueError(f"a {loaded.kind} model does not read images")
    module, name = path.split(":")
    reader: ImageReader = getattr(importlib.import_module(module), name)(loaded)
    return reader


def open_for(reader: ImageReader, path: str | Path) -> Any:
    """The image file at ``path`` as ``reader`` reads it (:func:`attnviz.core.images.open_image`), decoded reduced
    to no less than twice the reader's :attr:`~ImageReader.side`: an image of 7,000 × 7,000 pixels read at 28 × 28
    takes the memory of one of 56 × 56 once decoded. ImageError naming the file where it cannot be read."""
    from attnviz.core.images import open_image

    return open_image(path, reduce_to=reader.side)


def read_prepared(reader: ImageReader, paths: Sequence[str | Path]) -> tuple[Tensor, np.ndarray]:
    """:meth:`ImageReader.prepare` of the image files at ``paths``, each decoded (:func:`open_for`), prepared and let
    go before the next is read: what a batch holds is its prepared pictures, never its images whole (memory bounded
    by one image, whatever the files are). ImageError naming the file that cannot be read; UnreadableImage (its
    index among ``paths``) for one the reader cannot prepare."""
    inputs: list[Tensor] = []
    pictures: list[np.ndarray] = []
    for index, path in enumerate(paths):
        with open_for(reader, path) as image:
            try:
                one, picture = reader.prepare([image])
            except UnreadableImage as error:
                raise UnreadableImage(index, error.reason) from None
        inputs.append(one)
        pictures.append(picture)
    if not inputs:
        return reader.prepare([])
    return torch.cat(inputs), np.concatenate(pictures)


def boxes_of(reader: ImageReader) -> np.ndarray:
    """(N, 4) int: each position's (top, left, bottom, right) on the picture; −1 for the specials."""
    rows, cols = reader.grid
    height, width = reader.patch
    index = np.arange(rows * cols)
    top, left = index // cols * height, index % cols * width
    patches = np.stack([top, left, top + height, left + width], axis=1)
    return np.concatenate([np.full((len(reader.specials), 4), -1), patches]).astype(np.int64)


def picture_of(reader: ImageReader, pixels: np.ndarray) -> Picture:
    """The :class:`~attnviz.core.layout.Picture` of one prepared picture (Hp, Wp, 3)."""
    return Picture(np.ascontiguousarray(pixels, dtype=np.float32), boxes_of(reader), reader.grid,
                   len(reader.specials))


def top_classes(reader: ImageReader, logits: Tensor, top: int = TOP_CLASSES) -> tuple[list[list[int]], np.ndarray]:
    """The ``top`` most likely classes of each image, best first: (their indices (B, k), their probabilities (B, k));
    ValueError, one sentence, where a logit is not finite (NaN weights): no class is ranked from NaN."""
    if not bool(torch.isfinite(logits).all()):
        from attnviz.i18n import tr

        raise ValueError(tr("the model's class scores are not finite (NaN or infinity): its weights or its settings "
                            "hold numbers that break the computation, so attnviz ranks no class"))
    probs = logits.float().softmax(-1)
    values, indices = probs.topk(min(top, probs.shape[-1]), dim=-1)
    return indices.cpu().tolist(), values.cpu().numpy()


def classify(loaded: Any, images: Sequence[Any], device: torch.device | str, top: int = TOP_CLASSES
             ) -> list[tuple[str, ...]]:
    """The ``top`` class names of each image (Pillow images, :func:`attnviz.core.images.open_image`), best first
    (the model's own names): :func:`classify_with_probabilities` without the probabilities."""
    return [tuple(name for name, _ in line) for line in classify_with_probabilities(loaded, images, device, top)]


def classify_with_probabilities(loaded: Any, images: Sequence[Any], device: torch.device | str,
                                top: int = TOP_CLASSES) -> list[tuple[tuple[str, float], ...]]:
    """The ``top`` likeliest classes of each image, best first, as (the model's own class name, its softmax
    probability in [0, 1]); in batches of the reader's :attr:`~ImageReader.batch`. ValueError for a model without a
    classifier head, :class:`UnreadableImage` (its index among ``images``) for an image the reader cannot prepare."""
    from attnviz.i18n import tr

    reader = reader_of(loaded)
    if not reader.labels:
        raise ValueError(tr("{name} has no classifier head: it names no classes (attnviz heads and the window show "
                            "its attention)").format(name=loaded.name))
    lines: list[tuple[tuple[str, float], ...]] = []
    for start in range(0, len(images), max(reader.batch, 1)):
        try:
            inputs, _pictures = reader.prepare(images[start: start + reader.batch])
        except UnreadableImage as error:
            raise UnreadableImage(start + error.index, error.reason) from None
        lines += classify_prepared(reader, inputs, device, top)
    return lines


def classify_prepared(reader: ImageReader, inputs: Tensor, device: torch.device | str, top: int = TOP_CLASSES
                      ) -> list[tuple[tuple[str, float], ...]]:
    """The ``top`` likeliest classes of each prepared image, best first, as (class name, softmax probability):
    inputs (B, C, ·, ·) as :meth:`ImageReader.prepare` made them (:func:`read_prepared`), run in batches of the
    reader's :attr:`~ImageReader.batch`; the reader has a classifier head (``labels``)."""
    lines: list[tuple[tuple[str, float], ...]] = []
    for start in range(0, len(inputs), max(reader.batch, 1)):
        with torch.no_grad():
            logits = reader.run(inputs[start: start + reader.batch].to(device)).logits
        assert logits is not None
        indices, probs = top_classes(reader, logits, top)
        lines += [tuple((reader.labels[i], float(p)) for i, p in zip(row, row_probs, strict=True))
                  for row, row_probs in zip(indices, probs, strict=True)]
    return lines


def encode_image(loaded: Any, image: Any, name: str, device: torch.device | str) -> EncodedSource:
    """One image read by ``loaded`` for the views: its positions' labels as tokens, every layer's attention and
    scores (L, H, N, N) as the source's self-attention, the picture and where each position lies on it, and the
    top classes with their probabilities. name: what the views call the input (the file's name)."""
    reader = reader_of(loaded)
    try:
        inputs, pictures = reader.prepare([image])
    except UnreadableImage as error:
        raise error.naming(name) from None
    with torch.no_grad():
        outputs = reader.run(inputs.to(device), need_scores=True)
    weights = outputs.weights[:, 0].float().cpu().numpy()  # (L, H, N, N)
    scores = outputs.scores[:, 0].float().cpu().numpy() if outputs.scores is not None else weights.copy()
    classes: tuple[str, ...] = ()
    probs = None
    if outputs.logits is not None and reader.labels:
        indices, values = top_classes(reader, outputs.logits)
        classes, probs = tuple(reader.labels[i] for i in indices[0]), values[0].astype(np.float32)
    labels = patch_labels(reader.specials, reader.grid)
    if len(labels) != weights.shape[-1]:
        raise ValueError(f"{loaded.name}: the model read {weights.shape[-1]} positions, not the {len(labels)} its "
                         "patches make")
    return EncodedSource(text=name, tokens=labels, unknown=(), truncated_from=None, encoder_weights=weights,
                         encoder_scores=scores, padding_mask=np.ones(len(labels), bool),
                         layout=layout_named(loaded.model_kind.layout), picture=picture_of(reader, pixels=pictures[0]),
                         classes=classes, class_probs=probs)


def encode_image_file(loaded: Any, path: str | Path, device: torch.device | str) -> EncodedSource:
    """:func:`encode_image` of the file at ``path``, decoded reduced for the model (:func:`open_for`; ImageError
    naming it where it cannot be read)."""
    with open_for(reader_of(loaded), path) as image:
        return encode_image(loaded, image, Path(path).name, device)

