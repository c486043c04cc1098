"""Fashion-MNIST (Xiao, Rasul & Vollgraf 2017; Zalando, MIT licence) from its four idx files, read safely.

The folder holds ``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``, ``t10k-images-idx3-ubyte`` and
``t10k-labels-idx1-ubyte``, each optionally gzipped (``.gz``), as Debian's ``dataset-fashion-mnist`` installs them
under ``/usr/share/datasets/fashion-mnist``. Every header is checked before anything else is read: the magic
number, the dimensions (28 × 28 images), at most :data:`MAX_IMAGES` items, and images and labels agreeing in count.
A file cut short, a corrupt gzip stream or a label outside 0–9 is one :class:`TrainingError` sentence naming the file.

The validation split is taken from the 60,000 training images by a seeded permutation; the 10,000 test images are
read only by :func:`read_test` (``attnviz classify --data``), never for training or for choosing anything.
Images are uint8 tensors (n, 28, 28), 0 = background; labels int64 (n,).
"""

from __future__ import annotations

import gzip
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import torch
from torch import Tensor

from attnviz.i18n import tr
from attnviz.training.options import TrainingError

CLASS_NAMES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot")
SIDE = 28  # pixels per side
MAX_IMAGES = 100_000  # a header claiming more is refused before anything is read (the dataset has 60,000 + 10,000)
IMAGES_MAGIC, LABELS_MAGIC = 0x00000803, 0x00000801  # unsigned bytes, 3 dimensions / 1 dimension
TRAIN, TEST = "train", "t10k"
VALIDATION_IMAGES = 5_000


class _Reader(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


@dataclass(frozen=True)
class Split:
    """Images (n, 28, 28) uint8 and their labels (n,) int64."""

    images: Tensor
    labels: Tensor

    def __len__(self) -> int:
        return int(self.labels.shape[0])


def idx_file(folder: Path, stem: str) -> Path:
    """``folder/stem`` or ``folder/stem.gz``, whichever is a regular file."""
    for candidate in (folder / stem, folder / f"{stem}.gz"):
        if candidate.is_file():
            return candidate
    raise TrainingError(tr("{folder} has no Fashion-MNIST file {name} (nor {name}.gz)").format(folder=folder,
                                                                                             name=stem))


def _read_exact(handle: _Reader, count: int, path: Path) -> bytes:
    data = handle.read(count)
    if len(data) != count:
        raise TrainingError(tr("{path} is cut short: {got:,} of {want:,} bytes").format(path=path, got=len(data),
                                                                                       want=count))
    return data


def _read_idx(path: Path, magic: int, dims: tuple[int | None, ...]) -> tuple[int, bytes]:
    """(item count, the data bytes) of an idx file whose header must be ``magic`` and ``dims`` (None: the count)."""
    try:
        with (gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")) as handle:
            header = _read_exact(handle, 4 + 4 * len(dims), path)
            found_magic, *found = struct.unpack(f">{1 + len(dims)}I", header)
            if found_magic != magic:
                raise TrainingError(tr("{path} is not a Fashion-MNIST idx file of this kind (magic number {found:#010x}"
                                       ", expected {magic:#010x})").format(path=path, found=found_magic, magic=magic))
            for size, want in zip(found[1:], dims[1:], strict=True):
                if size != want:
                    raise TrainingError(tr("{path} holds images of {dims}, not 28 × 28").format(
                        path=path, dims=" × ".join(str(d) for d in found[1:])))
            count = found[0]
            if count > MAX_IMAGES:
                raise TrainingError(tr("{path} claims {count:,} items, more than the {limit:,} allowed").format(
                    path=path, count=count, limit=MAX_IMAGES))
            size = count * SIDE * SIDE if len(dims) == 3 else count
            data = _read_exact(handle, size, path)
            if handle.read(1):
                raise TrainingError(tr("{path} has bytes after its {count:,} items").format(path=path, count=count))
            return count, data
    except (OSError, EOFError, zlib.error) as error:  # gzip.BadGzipFile is an OSError
        raise TrainingError(tr("cannot read {path}: {reason}").format(path=path, reason=error)) from None


def read_split(folder: str | Path, which: str) -> Split:
    """The ``train`` or ``t10k`` images and labels of ``folder``, checked (see the module's docstring)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise TrainingError(tr("{folder} is not a folder (give the one with the four Fashion-MNIST files)").format(
            folder=folder))
    images_path = idx_file(folder, f"{which}-images-idx3-ubyte")
    labels_path = idx_file(folder, f"{which}-labels-idx1-ubyte")
    count, pixels = _read_idx(images_path, IMAGES_MAGIC, (None, SIDE, SIDE))
    label_count, label_bytes = _read_idx(labels_path, LABELS_MAGIC, (None,))
    if count != label_count:
        raise TrainingError(tr("{images} holds {count:,} images but {labels} {label_count:,} labels").format(
            images=images_path, count=count, labels=labels_path, label_count=label_count))
    if count == 0:
        raise TrainingError(tr("{path} holds no images").format(path=images_path))
    images = torch.frombuffer(bytearray(pixels), dtype=torch.uint8).reshape(count, SIDE, SIDE)
    labels = torch.frombuffer(bytearray(label_bytes), dtype=torch.uint8).to(torch.int64)
    if int(labels.max()) >= len(CLASS_NAMES):
        raise TrainingError(tr("{path} has a label {label}, outside 0–9").format(path=labels_path,
                                                                                 label=int(labels.max())))
    return Split(images, labels)


def train_validation(folder: str | Path, seed: int, validation: int = VALIDATION_IMAGES) -> tuple[Split, Split]:
    """The training images split into (training, validation) by a permutation seeded with ``seed``; the
    validation part has ``validation`` images (at most half of them)."""
    full = read_split(folder, TRAIN)
    held = min(validation, len(full) // 2)
    order = torch.randperm(len(full), generator=torch.Generator().manual_seed(seed))
    val, train = order[:held], order[held:]
    return Split(full.images[train], full.labels[train]), Split(full.images[val], full.labels[val])


def read_test(folder: str | Path) -> Split:
    """The test images: for measuring a finished model only."""
    return read_split(folder, TEST)


def to_inputs(images: Tensor) -> Tensor:
    """uint8 images (n, 28, 28) -> the model's input (n, 1, 28, 28), float32 in [0, 1]."""
    return images[:, None].to(torch.float32) / 255.0
