"""Bounds on what untrusted input may ask for: a checkpoint's config and training options, the beam size
(torch-free).

What a checkpoint's config may say: each field's type and range, checked before anything is built.

A config read from a stranger's file is untrusted: ``num_hiddens = 10**9`` or ``num_layers = 10**6``
would make the model constructor allocate tens of GB or run for minutes, ``num_heads = 0`` would divide
by zero. :func:`check_config_values` refuses such values in microseconds with a sentence that names the
field. ``attnviz train`` checks its options and ``--arch`` through the same function before it builds
anything, so it never trains a model that loading would refuse. The bounds are far above any model
attnviz trains (its Transformer: width 256, 3 + 3 layers, 32 positions) and far below what would
exhaust a laptop.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import types
from collections.abc import Callable, Mapping
from typing import Any, cast, get_type_hints

from attnviz.core.results import KERNELS
from attnviz.i18n import tr

MAX_BEAM = 16  # beam sizes above this add nothing for sentences this short, only memory and time
MAX_IG_STEPS = 256  # integrated gradients' steps (Explain dock, `attnviz explain`): 10^5 would ask for ~75 GB

# The bandwidth h of kernel regression is two facts. BANDWIDTH_CHOICES: what a person picks, in the
# Kernel-regression panel's spin box, in a saved session's view (it restores into that box) and with
# ``attnviz export --bandwidth`` (the same view without a window). CONFIG_BANDWIDTHS: what a checkpoint's
# config may hold as the model's own h, a sanity bound on an untrusted file (training writes 1.0).
BANDWIDTH_CHOICES = (0.05, 5.0)
CONFIG_BANDWIDTHS = (1e-6, 1e6)


def bandwidth_choosable(bandwidth: float) -> bool:
    """Whether ``bandwidth`` is an h a person may pick (:data:`BANDWIDTH_CHOICES`, ends included)."""
    low, high = BANDWIDTH_CHOICES
    return math.isfinite(bandwidth) and low <= bandwidth <= high


# field name -> (smallest, largest) allowed; fields not listed keep only their type check.
INT_RANGES: dict[str, tuple[int, int]] = {
    "src_vocab_size": (4, 200_000), "tgt_vocab_size": (4, 200_000),
    "num_hiddens": (1, 4096), "ffn_hiddens": (1, 16384), "embed_size": (1, 4096),
    "num_heads": (1, 64), "num_encoder_layers": (1, 24), "num_decoder_layers": (1, 24), "num_layers": (1, 8),
    "max_src_len": (1, 1024), "max_tgt_len": (1, 1024),
    "n_train": (1, 100_000), "seed": (0, 2**32 - 1),
    # training options (TrainOptions, stored in a checkpoint's training info)
    "epochs": (1, 100_000), "stop_after": (1, 100_000), "batch_size": (1, 4096),
    # an image model's image and classes (its positions are bounded by its kind's own ``attention_cells``)
    "image_size": (1, 1024), "patch_size": (1, 1024), "channels": (1, 4), "mlp_hiddens": (1, 16384),
    "num_classes": (1, 100_000), "warmup_steps": (0, 1_000_000), "val_images": (1, 50_000),
}
TEXT_CHOICES: dict[str, tuple[str, ...]] = {"kernel": KERNELS}
FLOAT_RANGES: dict[str, tuple[float, float]] = {
    "dropout": (0.0, 0.99), "noise": (0.0, 1000.0), "bandwidth": CONFIG_BANDWIDTHS,
    "lr": (1e-8, 1.0), "minutes": (0.01, 1e6),  # training options
    "weight_decay": (0.0, 10.0), "label_smoothing": (0.0, 0.99), "clip_norm": (1e-6, 1e6),
}


MAX_ATTENTION_BYTES = 1024**3  # the attention maps one sentence's decoding records, at most

# Maps on demand (core/attention/on_demand.py, core/decoding/long_prompt.py: the window beyond the decoding cap,
# ``attnviz export --prompt-map``): no map is recorded, so the bound on what one input may allocate is its queries and
# keys, L·(H + G)·S·D, and the S² cells of its mask and of the one map asked for (the model's additive mask, 4 bytes a
# cell while the forward pass runs; the boolean one it keeps; the map, 4). MAX_PROMPT_MAP_TOKENS bounds S (S² · 9
# bytes: 0.6 GB at 8,192) — a decoder-only prompt, an encoder-only sentence, an encoder–decoder's source and its
# target each —, MAX_QUERY_KEY_BYTES the store, an encoder–decoder's three kinds together (a 16-layer, 16-head Llama
# shape over 4 key/value heads keeps 352 MB at 4,096 tokens; BERT-base's shape 151 MB at 2,048; the folder checks
# bound L, H, D, so a hostile config's heads or positions are refused there or here, before the forward pass).
# MAX_QUERY_KEY_BYTES bounds the whole pass, not the store alone: the store and, beside it, one layer's activations
# (queries, keys, values, rotary temporaries, output), the additive mask, a scores tile and the map
# (core/decoding/long_prompt.py ``pass_bytes``: a head_dim of 8,000 over 8,192 tokens, its store 3.1 GB, is refused).
MAX_PROMPT_MAP_TOKENS = 8192
MAX_QUERY_KEY_BYTES = 4 * 1024**3


AttentionCells = Callable[[Mapping[str, Any]], int]  # config values -> cells one decoding records


def _sizes(values: Mapping[str, Any]) -> tuple[int, int, list[int]]:
    return (int(values.get("num_heads", 1)), int(values.get("max_src_len", 0)),
            list(range(1, int(values.get("max_tgt_len", 0)) + 1)))


def encoder_decoder_cells(values: Mapping[str, Any]) -> int:
    """A Transformer encoder–decoder: encoder L·H·S², and per decoder step t cross L·H·t·S and self L·H·t²
    (each step keeps its maps for all t queries so far: the worst case, when beams change the best)."""
    heads, source, steps = _sizes(values)
    layers = int(values.get("num_decoder_layers", 0))
    encoder = int(values.get("num_encoder_layers", 0)) * heads * source**2
    return encoder + layers * heads * sum(t * source + t * t for t in steps)


def one_sequence_cells(values: Mapping[str, Any]) -> int:
    """A decoder-only model: the prompt L·H·S², and per step t the source view L·H·t·S and the self-attention
    over prompt and answer L·H·t·(S + t)."""
    heads, source, steps = _sizes(values)
    layers = int(values.get("num_decoder_layers", 0))
    return layers * heads * (source**2 + sum(t * source + t * (source + t) for t in steps))


def rnn_cells(values: Mapping[str, Any]) -> int:
    """An RNN encoder–decoder: one cross-attention (one layer, one head), t·S per step t."""
    _, source, steps = _sizes(values)
    return sum(t * source for t in steps)


def cells_function(cells: AttentionCells | str) -> AttentionCells:
    """``cells`` itself, or the function a ``"module:function"`` names (a family's own bound, imported when a config
    is first checked)."""
    if isinstance(cells, str):
        module, name = cells.split(":")
        return cast(AttentionCells, getattr(importlib.import_module(module), name))
    return cells


def recorded_attention_bytes(values: Mapping[str, Any], cells: AttentionCells | str) -> int:
    """Bytes of attention maps (weights and scores, float32) the app keeps for one sentence decoded to
    max_tgt_len, counted by the model kind's ``cells`` (``ModelKind.attention_cells``: a function, or a
    ``"module:function"`` naming one)."""
    return 8 * cells_function(cells)(values)


def check_config_values(config_cls: type, values: dict[str, Any],
                        cells: AttentionCells | str | None = None) -> list[str]:
    """The problems with ``values`` for ``config_cls`` (a dataclass): wrong types, values out of range,
    heads that do not divide the width, literals not allowed, and (given the model kind's ``cells``) more
    attention maps than one decoding may record. Empty when it can be built."""
    hints = get_type_hints(config_cls)
    problems = []
    for field in dataclasses.fields(config_cls):
        if field.name not in values:
            continue
        value, hint = values[field.name], hints[field.name]
        problem = _check_one(field.name, value, hint)
        if problem:
            problems.append(problem)
    if not problems and "num_heads" in values and "num_hiddens" in values \
            and values["num_hiddens"] % values["num_heads"]:
        problems.append(tr("num_heads = {heads} does not divide num_hiddens = {width}").format(
            heads=values["num_heads"], width=values["num_hiddens"]))
    if not problems and cells is not None and (needed := recorded_attention_bytes(values, cells)) > MAX_ATTENTION_BYTES:
        problems.append(tr("decoding one sentence would record {gb:.1f} GB of attention maps "
                           "(layers × heads × lengths too large; attnviz allows {most:.0f} GB)").format(
            gb=needed / 1024**3, most=MAX_ATTENTION_BYTES / 1024**3))
    return problems


def seed_problem(seed: int) -> str | None:
    """'--seed: seed = … is outside 0..4294967295' for a seed torch and numpy cannot take (None: a usable one)."""
    problem = _check_one("seed", seed, int)
    return None if problem is None else f"--seed: {problem}"


def _check_one(name: str, value: Any, hint: Any) -> str | None:
    if isinstance(hint, types.UnionType) and type(None) in hint.__args__:  # ``float | None``: None, or the type
        if value is None:
            return None
        inner = [a for a in hint.__args__ if a is not type(None)]
        return _check_one(name, value, inner[0]) if len(inner) == 1 else None
    allowed = getattr(hint, "__args__", None) if getattr(hint, "__origin__", None) is not None else None
    if allowed is not None and all(isinstance(a, str) for a in allowed):  # typing.Literal of strings
        return None if value in allowed else tr("{name} must be one of {choices}, not {value!r}").format(
            name=name, choices=", ".join(allowed), value=value)
    if hint is bool:
        return None if isinstance(value, bool) else tr("{name} must be true or false, not {value!r}").format(
            name=name, value=value)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            return tr("{name} must be a whole number, not {value!r}").format(name=name, value=value)
        low, high = INT_RANGES.get(name, (-(2**63), 2**63 - 1))
        return None if low <= value <= high else tr("{name} = {value} is outside {low}..{high}").format(
            name=name, value=value, low=low, high=high)
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return tr("{name} must be a finite number, not {value!r}").format(name=name, value=value)
        low_f, high_f = FLOAT_RANGES.get(name, (-math.inf, math.inf))
        return None if low_f <= value <= high_f else tr("{name} = {value} is outside {low:g}..{high:g}").format(
            name=name, value=value, low=low_f, high=high_f)
    if hint is str:
        choices = TEXT_CHOICES.get(name)
        if choices is not None and value not in choices:
            return tr("{name} must be one of {choices}, not {value!r}").format(name=name, choices=", ".join(choices),
                                                                               value=value)
        return None if isinstance(value, str) and len(value) <= 100 else tr("{name} must be a short text").format(
            name=name)
    return None
