"""Explain an image model's predicted class: one row per method over the image's patches, and how far the methods
agree (torch + numpy, no Qt).

:func:`explain_image` reads the image through the model's own
:class:`~attnviz.core.models.image_reading.ImageReader` (its preprocessing: attnviz's ViT's grey pixels in [0, 1], a
Hugging Face folder's normalised ``pixel_values``), so it serves every image family. What is explained is the log-
probability of the predicted class (or of the class asked for), f(x) = log softmax(logits(x))[class], x the model's
input tensor (B, C, Hp, Wp). Methods (names from :data:`attnviz.core.explain.METHODS`):

- ``attention``: ``[CLS]``'s row at the layer chosen (one head, or the heads' mean), over the patches;
- ``rollout``: attention rollout (Abnar & Zuidema 2020; heads averaged, A = 0.5·W + 0.5·I) over every position,
  ``[CLS]``'s row, the patches' columns;
- ``grad_x_input``: gradient × input with respect to the input tensor, summed over the channels and the pixels of
  each patch's box (signed, as the text methods sum over the embedding's width);
- ``ig``: integrated gradients (Captum, Gauss–Legendre points) from the black image — the black picture as the
  model's own preprocessing makes it (zeros for attnviz's ViT; −mean/std per channel after a folder's
  normalisation) — to the image, summed per patch alike (signed); their completeness is checked: the sum of every
  pixel's attribution (inside the patches or not) against f(x) − f(black);
- ``occlusion``: each patch replaced by the black baseline's pixels, the drop f(x) − f(x with the patch black)
  (signed; exactly 0 for a patch that is black already, as gradient × input and integrated gradients are there).

The special positions (``[CLS]``, DeiT's ``[DIST]``, DINOv2's registers) have no pixels: they are left out of every
row (``labels`` are the patches' ``r1c1`` …). Left out too: attention flow (a max-flow per patch over 1 + P nodes per
layer: minutes for a folder of images, and rollout already walks the same graph) and norm-based attention, which
needs each head's value vectors f_h(x_j) — a reader hands out the weights only, and reaching into a library's
attention modules for them is not generic. Shapes: B images, C channels, Hp × Wp the model's input, L layers,
H heads, N positions (the specials, then P patches), M methods.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor

from attnviz.core.attention.rollout import DEFAULT_RESIDUAL, rollout
from attnviz.core.layout import patch_labels

from .agreement import agreement_matrices
from .attribution import DEFAULT_IG_STEPS, Completeness
from .step import ATTENTION, GRAD_X_INPUT, INTEGRATED_GRADIENTS, METHODS, OCCLUSION, ROLLOUT, Explanation

IMAGE_METHODS = (ATTENTION, ROLLOUT, GRAD_X_INPUT, INTEGRATED_GRADIENTS, OCCLUSION)  # in METHODS order
IMAGE_LAYERED = (ATTENTION, ROLLOUT)  # the methods with a row after every layer


class ClassLogProb:
    """f(inputs (B, C, Hp, Wp)) = the log-probability of class ``target`` (B,), through ``logits`` (differentiable)."""

    def __init__(self, logits: Callable[[Tensor], Tensor], target: int):
        self.logits, self.target = logits, target

    def __call__(self, inputs: Tensor) -> Tensor:
        logits = self.logits(inputs)
        return torch.log_softmax(logits.to(torch.promote_types(logits.dtype, torch.float32)), dim=-1)[:, self.target]


def per_patch(values: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """values (C, Hp, Wp) per input pixel -> (P,): each patch box's sum (boxes (P, 4): top, left, bottom, right)."""
    pixels = values.sum(axis=0)  # (Hp, Wp)
    return np.array([pixels[top:bottom, left:right].sum() for top, left, bottom, right in boxes], dtype=np.float64)


def black_like(image: Any) -> Any:
    """A black Pillow image of ``image``'s size and mode (what the baseline is prepared from)."""
    from PIL import Image

    return Image.new(image.mode, image.size)


def occluded(inputs: Tensor, baseline: Tensor, boxes: np.ndarray, patches: Sequence[int]) -> Tensor:
    """inputs (1, C, Hp, Wp) -> (len(patches), C, Hp, Wp): row i with patch ``patches[i]``'s box taken from
    ``baseline`` (1, C, Hp, Wp)."""
    out = inputs.repeat(len(patches), 1, 1, 1)
    for row, patch in enumerate(patches):
        top, left, bottom, right = (int(v) for v in boxes[patch])
        out[row, :, top:bottom, left:right] = baseline[0, :, top:bottom, left:right]
    return out


def explain_image(loaded: Any, image: Any, device: torch.device | str = "cpu", methods: Sequence[str] = IMAGE_METHODS,
                  layer: int | None = None, head: int | None = None, ig_steps: int = DEFAULT_IG_STEPS,
                  target: str | None = None) -> Explanation:
    """Explain the class an image model predicts for ``image`` (a Pillow image,
    :func:`attnviz.core.images.open_image`) by each of ``methods`` (those of :data:`IMAGE_METHODS`; others are
    refused), over its patches (see the module).

    layer: 0-based (default the last) for the attention row and the rollout's end; head: 0-based or None (the heads'
    mean) for the attention row (rollout always averages the heads); target: the class name to explain (default the
    most likely class). The returned :class:`~attnviz.core.explain.Explanation` has the patches' labels, the rows
    (M, P), τ and ρ (M, M), ``layer_rows`` attention and rollout (L, P) after every layer, ``token`` the class's name,
    ``log_prob`` its log-probability, ``completeness`` integrated gradients' check, and no sinks (an image has no
    end or punctuation keys). ValueError for a model that reads no images or has no classifier head, an unknown
    method or class, a layer or head out of range; UnreadableImage where the reader cannot prepare the image.
    """
    from attnviz.core.models.image_reading import boxes_of, reader_of

    reader = reader_of(loaded)
    if not reader.labels:
        raise ValueError(f"{loaded.name} has no classifier head: it predicts no class to explain")
    if unknown := [m for m in methods if m not in IMAGE_METHODS]:
        raise ValueError(f"methods {unknown} do not explain an image; these do: {', '.join(IMAGE_METHODS)}")
    if ig_steps < 1:
        raise ValueError(f"integrated gradients need at least one step, got {ig_steps}")
    device = torch.device(device)
    inputs, _pictures = reader.prepare([image])
    baseline, _ = reader.prepare([black_like(image)])
    inputs, baseline = inputs.to(device), baseline.to(device)
    specials = len(reader.specials)
    boxes = boxes_of(reader)[specials:]  # (P, 4) in the input's pixels (the picture is the input, unnormalised)
    with torch.no_grad():
        outputs = reader.run(inputs)
    weights = outputs.weights[:, 0].double().cpu().numpy()  # (L, H, N, N)
    layers, heads = weights.shape[:2]
    layer = layers - 1 if layer is None else layer
    if not 0 <= layer < layers:
        raise ValueError(f"layer {layer} is out of range: the model has {layers}")
    if head is not None and not 0 <= head < heads:
        raise ValueError(f"head {head} is out of range: the model has {heads}")
    assert outputs.logits is not None  # (a reader with labels has a classifier head)
    log_probs = torch.log_softmax(outputs.logits[0].double(), dim=-1).cpu().numpy()
    if target is None:
        index = int(np.argmax(log_probs))
    elif target in reader.labels:
        index = reader.labels.index(target)
    else:
        raise ValueError(f"{loaded.name} has no class {target!r}")
    layered = {ATTENTION: weights[:, :, 0, specials:].mean(axis=1) if head is None else weights[:, head, 0, specials:],
               ROLLOUT: rollout(weights, DEFAULT_RESIDUAL)[:, 0, specials:]}
    layer_rows = {m: layered[m] for m in IMAGE_LAYERED if m in methods}
    rows: dict[str, np.ndarray] = {m: r[layer] for m, r in layer_rows.items()}
    f = ClassLogProb(reader.logits, index)
    completeness = None
    batch = max(1, min(reader.batch, ig_steps))
    from captum.attr import InputXGradient, IntegratedGradients  # (here: see attribution.gradient_x_input)

    with torch.enable_grad():
        if GRAD_X_INPUT in methods:
            gxi = InputXGradient(f).attribute(inputs.clone().requires_grad_(True))
            rows[GRAD_X_INPUT] = per_patch(gxi[0].detach().double().cpu().numpy(), boxes)
        if INTEGRATED_GRADIENTS in methods:
            ig = IntegratedGradients(f).attribute(inputs, baselines=baseline, n_steps=ig_steps,
                                                  internal_batch_size=batch)
            pixels = ig[0].detach().double().cpu().numpy()
            rows[INTEGRATED_GRADIENTS] = per_patch(pixels, boxes)
            with torch.no_grad():
                ends = f(torch.cat([inputs, baseline])).double()  # f(x), f(black)
            completeness = Completeness(float(pixels.sum()), float(ends[0] - ends[1]))
    if OCCLUSION in methods:
        rows[OCCLUSION] = occlusion_row(f, inputs, baseline, boxes, max(reader.batch, 1))
    names = tuple(m for m in METHODS if m in rows)
    matrix = np.stack([rows[m] for m in names]).astype(np.float64) if names else np.zeros((0, len(boxes)))
    kendall, spearman = agreement_matrices(matrix)
    labels = patch_labels(reader.specials, reader.grid)[specials:]
    return Explanation(names, labels, matrix, kendall, spearman, layer_rows, reader.labels[index],
                       float(log_probs[index]), completeness, layer, head, {})


@torch.no_grad()
def occlusion_row(f: ClassLogProb, inputs: Tensor, baseline: Tensor, boxes: np.ndarray, batch: int) -> np.ndarray:
    """(P,): f(x) − f(x with patch j's box taken from ``baseline``), in batches of ``batch`` occluded images; exactly 0
    for a patch that already is the baseline (a black patch: the model reads the same image, and a batch's rounding
    must not rank such patches by noise)."""
    changed = [j for j, (top, left, bottom, right) in enumerate(boxes.tolist())
               if not torch.equal(inputs[..., top:bottom, left:right], baseline[..., top:bottom, left:right])]
    drops = np.zeros(len(boxes))
    if not changed:
        return drops
    base = f(inputs)[0].double()
    for start in range(0, len(changed), batch):
        chunk = changed[start: start + batch]
        drops[chunk] = (base - f(occluded(inputs, baseline, boxes, chunk)).double()).cpu().numpy()
    return drops
