"""Tiny Hugging Face vision folders (ViT, DeiT, DINOv2 with and without registers), made here from a config and an
image processor and saved with ``save_pretrained`` — no download. The weights are random (seeded): the library's own
``output_attentions`` (eager attention) and logits are the right answers a test compares with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

SIDE, PATCH = 32, 8  # the tiny models' picture and patch sides: a 4 × 4 grid of patches
REGISTERS = 2  # DINOv2 with registers' register tokens
LABELS = {0: "cat", 1: "dog", 2: "fish"}
# family -> (config class, model class, processor class, its positions before the patches)
FAMILIES: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "vit": ("ViTConfig", "ViTForImageClassification", "ViTImageProcessor", ("[CLS]",)),
    "vit-bare": ("ViTConfig", "ViTModel", "ViTImageProcessor", ("[CLS]",)),
    "deit": ("DeiTConfig", "DeiTForImageClassificationWithTeacher", "DeiTImageProcessor", ("[CLS]", "[DIST]")),
    "deit-bare": ("DeiTConfig", "DeiTModel", "DeiTImageProcessor", ("[CLS]", "[DIST]")),
    "dinov2": ("Dinov2Config", "Dinov2Model", "BitImageProcessor", ("[CLS]",)),
    "dinov2-registers": ("Dinov2WithRegistersConfig", "Dinov2WithRegistersModel", "BitImageProcessor",
                         ("[CLS]", "[REG1]", "[REG2]")),
    "dinov2-classifier": ("Dinov2Config", "Dinov2ForImageClassification", "BitImageProcessor", ("[CLS]",)),
}


def vision_model(family: str, layers: int = 2) -> Any:
    """A random model of ``family`` (one of FAMILIES): width 16, 2 heads, 32 × 32 pictures of 8 × 8 patches."""
    import transformers

    config_name, model_name, _processor, _specials = FAMILIES[family]
    sizes: dict[str, Any] = dict(hidden_size=16, num_hidden_layers=layers, num_attention_heads=2, image_size=SIDE,
                                 patch_size=PATCH, id2label=LABELS, label2id={v: k for k, v in LABELS.items()})
    if config_name.startswith("Dinov2"):
        sizes |= {"mlp_ratio": 2}
        if "Registers" in config_name:
            sizes |= {"num_register_tokens": REGISTERS}
    else:
        sizes |= {"intermediate_size": 32}
    config = getattr(transformers, config_name)(**sizes)
    return getattr(transformers, model_name)(config)


def vision_processor(family: str) -> Any:
    """The family's image processor making 32 × 32 pictures: ViT's resizes; DeiT's resizes to 40 and crops 32;
    DINOv2's (Bit) resizes the shorter side to 36 and crops 32, converting to RGB itself."""
    import transformers

    name = FAMILIES[family][2]
    if name == "ViTImageProcessor":
        return transformers.ViTImageProcessor(size={"height": SIDE, "width": SIDE})
    if name == "DeiTImageProcessor":
        return transformers.DeiTImageProcessor(size={"height": 40, "width": 40}, crop_size={"height": SIDE,
                                                                                             "width": SIDE})
    return transformers.BitImageProcessor(size={"shortest_edge": 36}, crop_size={"height": SIDE, "width": SIDE})


def make_vision_folder(family: str, folder: Path, seed: int = 0, layers: int = 2) -> Path:
    """A ``save_pretrained`` folder of ``family`` with random weights: config.json, model.safetensors,
    preprocessor_config.json."""
    torch.manual_seed(seed)
    model = vision_model(family, layers)
    model.save_pretrained(folder)
    vision_processor(family).save_pretrained(folder)
    return folder
