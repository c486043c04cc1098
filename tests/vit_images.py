"""What the image tests build: a tiny ViT checkpoint (random weights, Fashion-MNIST's class names) and small grey
images, so that every test of an image view, command or dock reads the same kind of model and picture."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from PIL import Image

from attnviz.core.checkpoints.checkpoint import save_checkpoint
from attnviz.core.models.vit import VisionTransformer, ViTConfig
from attnviz.training.fashion_mnist import CLASS_NAMES

TINY_VIT = {"image_size": 8, "patch_size": 4, "num_hiddens": 16, "num_heads": 2, "num_layers": 2, "mlp_hiddens": 32,
            "dropout": 0.0}  # a 2 × 2 grid of 4-pixel patches: positions [CLS], r1c1, r1c2, r2c1, r2c2


def save_tiny_vit(folder: Path, seed: int = 3, name: str = "vit", **changes: object) -> Path:
    """A tiny ViT (``TINY_VIT`` with ``changes``) seeded with ``seed``, saved as ``folder/NAME.safetensors``."""
    torch.manual_seed(seed)
    model = VisionTransformer(ViTConfig(**{**TINY_VIT, **changes})).eval()  # type: ignore[arg-type]
    return save_checkpoint(folder / f"{name}.safetensors", model, labels=CLASS_NAMES, verify=True)


def ramp_png(path: Path) -> Path:
    """An 8 × 8 grey ramp (0, 4, 8 … 252), as a PNG at ``path``."""
    Image.fromarray((np.arange(64).reshape(8, 8) * 4).astype(np.uint8), mode="L").save(path)
    return path


def noise_pngs(folder: Path, count: int, seed: int = 7, name: str = "{index}.png") -> Path:
    """``count`` 8 × 8 grey noise PNGs in ``folder`` (made), named by ``name``, and one text file among them (a
    folder of images holds other files too)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for index in range(count):
        Image.fromarray((rng.random((8, 8)) * 255).astype(np.uint8), mode="L").save(folder / name.format(index=index))
    (folder / "notes.txt").write_text("not an image: passed over")
    return folder
