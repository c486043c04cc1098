"""Fashion-MNIST's idx files (training/fashion_mnist.py): read plain or gzipped, every bad header or cut file one
TrainingError sentence, the seeded validation split. The tests write their own tiny idx files."""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

import pytest
import torch

from attnviz.training.fashion_mnist import (
    CLASS_NAMES,
    MAX_IMAGES,
    read_split,
    read_test,
    to_inputs,
    train_validation,
)
from attnviz.training.options import TrainingError


def idx_images(images: torch.Tensor, *, count: int | None = None, side: tuple[int, int] = (28, 28),
               magic: int = 0x803) -> bytes:
    n = images.shape[0] if count is None else count
    return struct.pack(">4I", magic, n, *side) + images.to(torch.uint8).numpy().tobytes()


def idx_labels(labels: torch.Tensor, *, count: int | None = None, magic: int = 0x801) -> bytes:
    n = labels.shape[0] if count is None else count
    return struct.pack(">2I", magic, n) + labels.to(torch.uint8).numpy().tobytes()


def write_dataset(folder: Path, n_train: int = 40, n_test: int = 12, *, gz: bool = True, seed: int = 0) -> Path:
    """A tiny Fashion-MNIST-shaped folder: image i is filled with the value 20·label + i % 7 (so each is known)."""
    folder.mkdir(parents=True, exist_ok=True)
    generator = torch.Generator().manual_seed(seed)
    for which, n in (("train", n_train), ("t10k", n_test)):
        labels = torch.randint(0, 10, (n,), generator=generator)
        images = (20 * labels + torch.arange(n) % 7)[:, None, None].expand(n, 28, 28)
        for stem, data in ((f"{which}-images-idx3-ubyte", idx_images(images)),
                           (f"{which}-labels-idx1-ubyte", idx_labels(labels))):
            if gz:
                (folder / f"{stem}.gz").write_bytes(gzip.compress(data))
            else:
                (folder / stem).write_bytes(data)
    return folder


@pytest.mark.parametrize("gz", [True, False])
def test_reads_images_and_labels(tmp_path: Path, gz: bool) -> None:
    folder = write_dataset(tmp_path / "data", gz=gz)
    split = read_split(folder, "train")
    assert split.images.shape == (40, 28, 28) and split.images.dtype == torch.uint8
    assert split.labels.dtype == torch.int64
    assert torch.equal(split.images[:, 5, 9], (20 * split.labels + torch.arange(40) % 7).to(torch.uint8))
    test = read_test(folder)
    assert len(test) == 12
    inputs = to_inputs(test.images)
    assert inputs.shape == (12, 1, 28, 28) and float(inputs.max()) <= 1.0
    assert len(CLASS_NAMES) == 10 and CLASS_NAMES[0] == "T-shirt/top" and CLASS_NAMES[9] == "Ankle boot"


def test_validation_split_is_seeded_and_disjoint(tmp_path: Path) -> None:
    folder = write_dataset(tmp_path / "data", n_train=40)
    train, val = train_validation(folder, seed=3, validation=10)
    again_train, again_val = train_validation(folder, seed=3, validation=10)
    other_train, _ = train_validation(folder, seed=4, validation=10)
    assert (len(train), len(val)) == (30, 10)
    assert torch.equal(train.images, again_train.images) and torch.equal(val.labels, again_val.labels)
    assert not torch.equal(train.images, other_train.images)
    # image i's value 20·label + i % 7 with its label identifies (label, i % 7); all 40 together are the whole set
    full = read_split(folder, "train")
    key = lambda s: sorted(zip(s.images[:, 0, 0].tolist(), s.labels.tolist(), strict=True))  # noqa: E731
    assert key(type(full)(torch.cat([train.images, val.images]), torch.cat([train.labels, val.labels]))) == key(full)


def _write(folder: Path, images: bytes, labels: bytes) -> Path:
    folder.mkdir()
    (folder / "train-images-idx3-ubyte").write_bytes(images)
    (folder / "train-labels-idx1-ubyte").write_bytes(labels)
    return folder


GOOD_IMAGES = torch.zeros(3, 28, 28)
GOOD_LABELS = torch.tensor([0, 1, 2])


@pytest.mark.parametrize(("images", "labels", "message"), [
    (idx_images(GOOD_IMAGES, magic=0x801), idx_labels(GOOD_LABELS), "magic number 0x00000801, expected 0x00000803"),
    (idx_images(GOOD_IMAGES), idx_labels(GOOD_LABELS, magic=0x803), "magic number 0x00000803, expected 0x00000801"),
    (idx_images(torch.zeros(3, 32, 32), side=(32, 32)), idx_labels(GOOD_LABELS), "holds images of 32 × 32"),
    (idx_images(GOOD_IMAGES)[:-10], idx_labels(GOOD_LABELS), "is cut short: 2,342 of 2,352 bytes"),
    (idx_images(GOOD_IMAGES)[:6], idx_labels(GOOD_LABELS), "is cut short: 6 of 16 bytes"),
    (idx_images(GOOD_IMAGES) + b"x", idx_labels(GOOD_LABELS), "has bytes after its 3 items"),
    (idx_images(GOOD_IMAGES), idx_labels(torch.tensor([0, 1])), "holds 3 images but"),
    (idx_images(GOOD_IMAGES), idx_labels(torch.tensor([0, 1, 10])), "has a label 10, outside 0–9"),
    (idx_images(GOOD_IMAGES[:0]), idx_labels(GOOD_LABELS[:0]), "holds no images"),
    (idx_images(GOOD_IMAGES[:0], count=MAX_IMAGES + 1), idx_labels(GOOD_LABELS), "claims 100,001 items, more than"),
])
def test_bad_files_are_one_sentence(tmp_path: Path, images: bytes, labels: bytes, message: str) -> None:
    folder = _write(tmp_path / "data", images, labels)
    with pytest.raises(TrainingError, match=message) as caught:
        read_split(folder, "train")
    assert "\n" not in str(caught.value)


def test_corrupt_gzip_and_missing_files(tmp_path: Path) -> None:
    folder = write_dataset(tmp_path / "data")
    data = (folder / "train-images-idx3-ubyte.gz").read_bytes()
    (folder / "train-images-idx3-ubyte.gz").write_bytes(data[:40])  # a gzip stream cut short
    with pytest.raises(TrainingError, match=r"train-images-idx3-ubyte\.gz"):
        read_split(folder, "train")
    (folder / "train-images-idx3-ubyte.gz").write_bytes(b"not gzip at all" * 10)
    with pytest.raises(TrainingError, match=r"cannot read .*train-images-idx3-ubyte\.gz"):
        read_split(folder, "train")
    (folder / "t10k-labels-idx1-ubyte.gz").unlink()
    with pytest.raises(TrainingError, match="has no Fashion-MNIST file t10k-labels-idx1-ubyte"):
        read_test(folder)
    with pytest.raises(TrainingError, match="is not a folder"):
        read_split(tmp_path / "nowhere", "train")
