"""The vision family's bound on what one image's reading records (torch-free: read when a checkpoint's config is
checked, before anything is built; the kind's record names it, ``ModelKind.attention_cells``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def vit_cells(values: Mapping[str, Any]) -> int:
    """A vision transformer: one image, L·H·N² with N = 1 + (image_size / patch_size)² positions ([CLS] and
    the patches)."""
    patch = max(int(values.get("patch_size", 1)), 1)
    positions = 1 + (int(values.get("image_size", 0)) // patch) ** 2
    return int(values.get("num_layers", 0)) * int(values.get("num_heads", 1)) * positions**2
