"""A Hugging Face vision transformer folder (ViT, DeiT, DINOv2 with or without registers) reading images.

The folder is checked first (:mod:`attnviz.core.hf.folder`: config, weights, ``preprocessor_config.json``); the
model is the class config.json's ``architectures`` names (a classifier — ``ViTForImageClassification``,
``DeiTForImageClassificationWithTeacher`` … — or the bare ``ViTModel`` / ``Dinov2Model``), built from disk only
(``local_files_only``, never ``trust_remote_code``), every weight required (:mod:`attnviz.core.hf.load`), and
its attention recorded by :mod:`attnviz.core.hf.attention` (eager attention's weights, and the scores the softmax
read). The folder's own image processor (``AutoImageProcessor``, ``local_files_only``) resizes, crops, rescales and
normalises each image; the image is handed to it in the model's colours (RGB, or grey for a one-channel model), as
transformers' pipelines hand it. :class:`HFVisionReader` is the kind's
:class:`~attnviz.core.models.image_reading.ImageReader`: classify, the image atlas and the views go through it.

Shapes: B images, C channels, L layers, H heads, N positions (the specials — ``[CLS]``, DeiT's ``[DIST]``, DINOv2's
registers — then P patches row by row), K classes, Hp × Wp the picture as the processor made it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from attnviz.core import limits
from attnviz.core.attention.kind import AttentionKind
from attnviz.core.hf.attention import IMPLEMENTATION, AttentionCall, NotFinite, recording, register
from attnviz.core.hf.files import HFFolderError
from attnviz.core.hf.folder import MAX_IMAGE_SIDE, Architecture, HFFolder, model_class_name
from attnviz.core.hf.guard import UNWINDING, library_quiet, refusing, said
from attnviz.i18n import tr

MAX_BATCH_BYTES = 256 * 1024**2  # what one batch's recorded attention (weights, scores, q, k, v) may take
MAX_READER_BATCH = 64  # images through the model at once, at most
MAX_LABEL_CHARS = 200  # a class name's characters (ImageNet's longest: 120)
TRIAL_SIDE = 64  # the side of the blank image a folder's processor and model are tried on when it opens
# The most pixels a folder's processor may resize one image to before it crops (the largest square it may make:
# MAX_IMAGE_SIDE²). A processor resizing the shorter edge to 256 makes 5,120,000 × 256 of a 20,000 × 1 strip
# (13 GB in float32 copies): such an image is refused before the processor runs.
MAX_RESIZED_PIXELS = MAX_IMAGE_SIDE**2


@dataclass(frozen=True)
class HFVisionConfig:
    """attnviz's view of a Hugging Face vision model: its architecture and name, the sizes the views read, the
    picture its processor makes (``picture``: (Hp, Wp) pixels) and the side of its square patches; ``image_size``
    the side its config was made for, ``channels`` the colours it reads, ``num_classes`` its classes (0: the bare
    model)."""

    architecture: str
    name: str
    num_hiddens: int
    num_heads: int
    num_layers: int
    picture: tuple[int, int]
    patch_size: int
    image_size: int
    channels: int
    num_classes: int


class HFVision(nn.Module):
    """A transformers vision model (classifier or bare) recording its attention, with the folder's image processor
    (``processor``) and the labels of its special positions (``specials``)."""

    def __init__(self, model: Any, processor: Any, config: HFVisionConfig, architecture: Architecture):
        super().__init__()
        register()
        model.set_attn_implementation(IMPLEMENTATION)
        self.hf = model.eval()
        self.processor = processor
        self.config = config
        self.architecture = architecture
        self.specials = architecture.special_positions(model.config)
        where = architecture.modules
        assert where.encoder_blocks and where.encoder_self  # (an image model's record)
        blocks: Any = architecture.root(model).get_submodule(where.encoder_blocks)  # (an nn.ModuleList)
        self._attention = [block.get_submodule(where.encoder_self) for block in blocks]

    def attention_modules(self, kind: AttentionKind) -> list[nn.Module]:
        """Each layer's self-attention module (the model has no other kind)."""
        return list(self._attention) if kind is AttentionKind.ENCODER_SELF else []

    def _ordered(self, calls: list[AttentionCall]) -> list[AttentionCall]:
        order = {id(module): layer for layer, module in enumerate(self._attention)}
        return sorted((c for c in calls if id(c.module) in order), key=lambda c: order[id(c.module)])

    @torch.inference_mode()
    def read(self, pixel_values: Tensor, need_scores: bool = False) -> tuple[Tensor | None, Tensor, Tensor | None]:
        """pixel_values (B, C, Hp, Wp) as the processor made them -> (logits (B, K) or None for the bare model,
        weights (L, B, H, N, N), scores (L, B, H, N, N) or None unless ``need_scores``)."""
        with recording() as calls:
            out = self.hf(pixel_values=pixel_values)
        layers = self._ordered(calls)
        weights = torch.stack([c.weights for c in layers])  # (L, B, H, N, N)
        scores = torch.stack([c.scores for c in layers]) if need_scores else None
        logits = out.logits.float() if self.config.num_classes else None
        return logits, weights, scores

    def logits(self, pixel_values: Tensor) -> Tensor:
        """A classifier's logits (B, K) of pixel_values (B, C, Hp, Wp), differentiable (gradients recorded where they
        are enabled; the attention is not recorded); ValueError for the bare model."""
        if not self.config.num_classes:
            raise ValueError(f"{self.config.name} has no classifier head")
        return self.hf(pixel_values=pixel_values).logits


class HFVisionReader:
    """How a Hugging Face vision folder reads pictures (:class:`~attnviz.core.models.image_reading.ImageReader`):
    its own image processor prepares them; the pictures shown are its output with the normalisation undone."""

    def __init__(self, loaded: Any):
        self.model: HFVision = loaded.model
        config: HFVisionConfig = loaded.config
        self.config = config
        self.processor = self.model.processor
        self.labels: tuple[str, ...] = tuple(loaded.labels)
        self.specials: tuple[str, ...] = self.model.specials
        self.patch = (config.patch_size, config.patch_size)
        self.grid = (config.picture[0] // config.patch_size, config.picture[1] // config.patch_size)
        positions = len(self.specials) + self.grid[0] * self.grid[1]
        self.batch = batch_size(config, positions)
        self.side = max(*config.picture, *processor_sides(self.processor))

    def prepare(self, images: Sequence[Any]) -> tuple[Tensor, np.ndarray]:
        values = [self._one(index, image) for index, image in enumerate(images)]
        height, width = self.config.picture
        inputs = torch.cat(values) if values else torch.zeros(0, self.config.channels, height, width)
        return inputs, self._pictures(inputs)

    def _one(self, index: int, image: Any) -> Tensor:
        """One image's pixel_values (1, C, Hp, Wp); UnreadableImage where the processor cannot make them."""
        from attnviz.core.models.image_reading import UnreadableImage

        mode = "L" if self.config.channels == 1 else "RGB"
        width, height = resized_size(self.processor, image.width, image.height)
        if width * height > MAX_RESIZED_PIXELS:
            raise UnreadableImage(index, tr("its {width:,} × {height:,} pixels would be resized by the model folder's "
                                            "image processor to {resized_width:,} × {resized_height:,}, more than the "
                                            "{most:,} pixels attnviz lets it make of one image (an image far longer "
                                            "than it is wide?)").format(
                width=image.width, height=image.height, resized_width=width, resized_height=height,
                most=MAX_RESIZED_PIXELS))
        try:
            values = processed(self.processor, image.convert(mode) if image.mode != mode else image)
        except UNWINDING:
            raise
        except BaseException as error:  # (whatever the processor raises on an image it cannot handle)
            raise UnreadableImage(index, tr("the model folder's image processor cannot prepare it ({error})").format(
                error=said(error))) from None
        expected = (1, self.config.channels, *self.config.picture)
        if tuple(values.shape) != expected:
            raise UnreadableImage(index, tr("the model folder's image processor makes a picture of {height} × {width} "
                                            "pixels in {channels} channels of it; the model reads {wanted}").format(
                height=values.shape[-2], width=values.shape[-1], channels=values.shape[1],
                wanted=" × ".join(map(str, expected[1:]))))
        return values

    def _pictures(self, inputs: Tensor) -> np.ndarray:
        """(B, Hp, Wp, 3) in [0, 1]: the processor's output with its normalisation and rescaling undone."""
        return pictures_of(self.processor, inputs)

    def run(self, inputs: Tensor, need_scores: bool = False) -> Any:
        from attnviz.core.models.image_reading import ImageOutputs

        logits, weights, scores = self.model.read(inputs, need_scores)
        positions = len(self.specials) + self.grid[0] * self.grid[1]
        if weights.shape[-1] != positions:
            raise ValueError(tr("{name}: the model read {count} positions, not the {expected} its special tokens and "
                                "patches make").format(name=self.config.name, count=weights.shape[-1],
                                                       expected=positions))
        return ImageOutputs(logits, weights, scores)

    def logits(self, inputs: Tensor) -> Tensor:
        return self.model.logits(inputs)


_SIZE_KEYS = ("height", "width", "shortest_edge", "longest_edge", "max_height", "max_width")


def _sides(size: Any) -> dict[str, int]:
    """A processor's ``size`` or ``crop_size`` (transformers' SizeDict, a mapping or a number) as its given sides."""
    if isinstance(size, int) and not isinstance(size, bool):
        return {"shortest_edge": size}
    get = size.get if isinstance(size, dict) else (lambda key: getattr(size, key, None))
    return {key: value for key in _SIZE_KEYS if isinstance(value := get(key), int) and not isinstance(value, bool)
            and value > 0}


def processor_sides(processor: Any) -> list[int]:
    """Every side in pixels a folder's image processor resizes or crops to (its ``size`` and ``crop_size``)."""
    return [side for key in ("size", "crop_size") for side in _sides(getattr(processor, key, None)).values()]


def resized_size(processor: Any, width: int, height: int) -> tuple[int, int]:
    """(width, height) in pixels a folder's image processor resizes an image of width × height to, before it crops:
    a fixed height and width as they are; a shorter edge (capped by a longer edge where both are given) or a longer
    edge keeping the image's proportions; the image's own where it does not resize. Sizes it names otherwise are
    taken as the shorter edge (the most it could make)."""
    if not getattr(processor, "do_resize", True):
        return width, height
    sides = _sides(getattr(processor, "size", None))
    if "height" in sides and "width" in sides:
        return sides["width"], sides["height"]
    short, long = min(width, height), max(width, height)
    if "shortest_edge" in sides or not sides.get("longest_edge"):
        scale = max(sides.values(), default=short) / max(short, 1)
        if "longest_edge" in sides and long * scale > sides["longest_edge"]:
            scale = sides["longest_edge"] / long
    else:
        scale = sides["longest_edge"] / long
    return max(1, round(width * scale)), max(1, round(height * scale))


def processed(processor: Any, image: Any) -> Tensor:
    """The processor's pixel_values (1, C, Hp, Wp) float32 of one Pillow image."""
    values = processor(images=[image], return_tensors="pt")["pixel_values"]
    if not isinstance(values, Tensor) or values.dim() != 4:
        raise ValueError(f"pixel_values is not a (1, C, H, W) tensor but {type(values).__name__}")
    return values.float()


def pictures_of(processor: Any, inputs: Tensor) -> np.ndarray:
    """pixel_values (B, C, Hp, Wp) -> the pictures (B, Hp, Wp, 3) float32 in [0, 1]: the processor's mean and
    standard deviation undone (where it normalises), divided by what its rescaling made of 255 (1 for the usual
    1/255), clipped; a grey picture's one channel repeated."""
    values = inputs.detach().float().cpu()
    channels = values.shape[1]
    if getattr(processor, "do_normalize", False):
        mean, std = (_per_channel(getattr(processor, key, None), channels, default) for key, default in
                     (("image_mean", 0.0), ("image_std", 1.0)))
        values = values * std[None, :, None, None] + mean[None, :, None, None]
    rescale = float(getattr(processor, "rescale_factor", 1 / 255) or 1 / 255) \
        if getattr(processor, "do_rescale", False) else 1.0
    values = values / (255.0 * rescale)
    pixels = values.clamp(0.0, 1.0).permute(0, 2, 3, 1).numpy()  # (B, Hp, Wp, C)
    if channels == 3:
        return np.ascontiguousarray(pixels, dtype=np.float32)
    grey = pixels.mean(-1, keepdims=True) if channels != 1 else pixels
    return np.ascontiguousarray(np.repeat(grey, 3, axis=-1), dtype=np.float32)


def _per_channel(value: Any, channels: int, default: float) -> Tensor:
    numbers = [float(v) for v in value] if isinstance(value, list | tuple) else \
        [float(value) if value is not None else default]
    if len(numbers) == 1:
        numbers = numbers * channels
    if len(numbers) != channels:
        numbers = [sum(numbers) / len(numbers)] * channels
    return torch.tensor(numbers)


def batch_size(config: HFVisionConfig, positions: int) -> int:
    """How many images go through the model at once: as many as keep the recorded attention of a batch (weights
    and scores, (L, H, N, N) each, and the heads' queries, keys and values) within MAX_BATCH_BYTES, 1 to
    MAX_READER_BATCH."""
    per_image = 4 * config.num_layers * (2 * config.num_heads * positions**2 + 3 * positions * config.num_hiddens)
    return max(1, min(MAX_READER_BATCH, MAX_BATCH_BYTES // max(per_image, 1)))


def model_class_of(transformers: Any, folder: HFFolder) -> Any:
    """The transformers class of the checked image ``folder`` (the one config.json's ``architectures`` names, of
    those its record knows); HFFolderError where the installed transformers lacks it."""
    class_name = model_class_name(folder.config, folder.architecture)
    model_class = getattr(transformers, class_name, None)
    if model_class is None:
        raise HFFolderError(tr("{path}: transformers {version} has no {name}: install a release that has it to open "
                               "this folder").format(path=folder.path / "config.json",
                                                     version=transformers.__version__, name=class_name))
    return model_class


def load_folder(transformers: Any, folder: HFFolder, build: Any, device: torch.device | str,
                training: dict[str, Any], path: Path) -> Any:
    """The checked image ``folder`` opened (its records' ``loader``): the model of :func:`model_class_of` built with
    every weight by ``build`` (:func:`attnviz.core.hf.load.load_hf_folder`'s), then :func:`load_vision`."""
    with library_quiet(transformers):
        model = build(transformers, model_class_of(transformers, folder), folder)
    return load_vision(transformers, folder, model, device, training, path)


def load_vision(transformers: Any, folder: HFFolder, model: Any, device: torch.device | str,
                training: dict[str, Any], path: Path) -> Any:
    """The image ``model`` of the checked ``folder`` (:func:`model_class_of`, built with every weight by
    :func:`attnviz.core.hf.load.load_hf_folder`) with the folder's image processor, as a LoadedModel of kind
    ``hf-vision``; HFFolderError naming the file for what cannot be opened."""
    from attnviz.core.models.loaded import LoadedModel

    config_file = folder.path / "config.json"
    assert folder.processor is not None  # (inspect_folder requires it of an image folder)
    with library_quiet(transformers), refusing(folder.processor, quiet=True):
        processor = transformers.AutoImageProcessor.from_pretrained(folder.path, local_files_only=True,
                                                                    trust_remote_code=False)
        trial = processed(processor, _blank(int(getattr(model.config, "num_channels", 3) or 3)))
    head = model_class_name(folder.config, folder.architecture) != folder.architecture.bare
    labels = _labels(config_file, model) if head else ()
    patch = int(model.config.patch_size)
    height, width = (int(side) for side in trial.shape[-2:])
    if height < patch or width < patch:
        raise HFFolderError(tr("{path}: makes pictures of {height} × {width} pixels, smaller than the model's patch of "
                               "{patch} × {patch}").format(path=folder.processor, height=height, width=width,
                                                           patch=patch))
    config = HFVisionConfig(folder.architecture.name, folder.name, int(model.config.hidden_size),
                            int(model.config.num_attention_heads), int(model.config.num_hidden_layers),
                            (height, width), patch, int(getattr(model.config, "image_size", height) or height),
                            int(trial.shape[1]), len(labels))
    vision = HFVision(model, processor, config, folder.architecture)
    positions = len(vision.specials) + (height // patch) * (width // patch)
    one_image = 4 * config.num_layers * config.num_heads * positions**2
    if one_image > limits.MAX_ATTENTION_BYTES:
        raise HFFolderError(tr("{path}: makes pictures of {height} × {width} pixels, {count:,} positions: the "
                               "attention maps of one image would take {gb:.1f} GB, more than attnviz records").format(
            path=folder.processor, height=height, width=width, count=positions, gb=one_image / 1024**3))
    try:
        vision.read(trial)
    except UNWINDING:
        raise
    except NotFinite as error:  # (NaN weights: the trial picture's maps are NaN, whatever the processor makes)
        raise HFFolderError(f"{folder.path}: {error}") from None
    except BaseException as error:  # (a ViT whose processor makes pictures of another size than its config's)
        raise HFFolderError(tr("{path}: the model cannot read the pictures it makes ({error})").format(
            path=folder.processor, error=said(error))) from None
    loaded = LoadedModel("hf-vision", config, vision.to(device), None, None, training, path, labels)
    return loaded


def _blank(channels: int) -> Any:
    from PIL import Image

    return Image.new("L" if channels == 1 else "RGB", (TRIAL_SIDE, TRIAL_SIDE))


def _labels(config_file: Path, model: Any) -> tuple[str, ...]:
    """A classifier's class names by index, from its config's id2label (one per class of its head; a class it does
    not name is ``LABEL_i``, as transformers names it), each a one-line name (no control characters: a tab or a line
    break would split ``attnviz classify``'s lines) of at most MAX_LABEL_CHARS."""
    count = int(model.config.num_labels)
    given = getattr(model.config, "id2label", None) or {}
    names = tuple(str(given.get(i, f"LABEL_{i}")) for i in range(count))
    for index, name in enumerate(names):
        if not name.strip() or len(name) > MAX_LABEL_CHARS or any(unicodedata.category(c) == "Cc" for c in name):
            raise HFFolderError(tr("{path}: id2label names class {index} {name!r}, not a name on one line").format(
                path=config_file, index=index, name=name[:40]))
    return names
