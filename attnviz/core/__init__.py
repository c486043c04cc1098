"""The Qt-free core: attention primitives, positional encoding, kernel regression, devices.

Its rooms, each importing only from the rooms before it: ``attention/`` (primitives, masks, positions, rollout,
the numbers of one query's computation); this folder's own modules (the layouts, the plain results the views draw,
text and vocabularies, the limits on untrusted input, safe file output, devices, the CSV columns); ``learning/``
(generated tasks, a training's history, BLEU); ``models/`` (one module per family, the registry of kinds, a
loaded model); ``decoding/`` (beam search, stepping, filling masks, recomputing one query); ``heads/`` (the head
atlas, gates, pruning); ``hf/`` (Hugging Face folders); ``explain/`` (the Explain dock's methods);
``checkpoints/`` (attnviz's checkpoint files, and opening any model path).

Nothing in this package imports Qt; the GUI receives numpy arrays built from what it returns
(:mod:`attnviz.core.results`). The names below load their module on first use, so that importing
a torch-free module such as ``attnviz.core.results`` does not import torch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "attention.layers": ("AdditiveAttention", "Attended", "DotProductAttention", "MultiHeadAttention"),
    "device": ("DeviceUnavailableError", "available_devices", "pick_device"),
    "models.kernel_regression": ("NadarayaWatsonRegression", "fit_parametric", "kernel_weights", "nadaraya_watson",
                                 "synthetic_regression_data"),
    "attention.masking": ("causal_mask", "masked_softmax", "padding_mask"),
    "attention.positional": ("PositionalEncoding", "positional_encoding_table"),
    "results": ("KERNELS",),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = [
    "KERNELS",
    "AdditiveAttention",
    "Attended",
    "DeviceUnavailableError",
    "DotProductAttention",
    "MultiHeadAttention",
    "NadarayaWatsonRegression",
    "PositionalEncoding",
    "available_devices",
    "causal_mask",
    "fit_parametric",
    "kernel_weights",
    "masked_softmax",
    "nadaraya_watson",
    "padding_mask",
    "pick_device",
    "positional_encoding_table",
    "synthetic_regression_data",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


if TYPE_CHECKING:
    from attnviz.core.attention.layers import AdditiveAttention, Attended, DotProductAttention, MultiHeadAttention
    from attnviz.core.attention.masking import causal_mask, masked_softmax, padding_mask
    from attnviz.core.attention.positional import PositionalEncoding, positional_encoding_table
    from attnviz.core.device import DeviceUnavailableError, available_devices, pick_device
    from attnviz.core.models.kernel_regression import (
        NadarayaWatsonRegression,
        fit_parametric,
        kernel_weights,
        nadaraya_watson,
        synthetic_regression_data,
    )
    from attnviz.core.results import KERNELS
