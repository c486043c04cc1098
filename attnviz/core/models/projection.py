"""The output projection onto the vocabulary, fast for decoding on a CPU.

``nn.Linear`` multiplies by Wᵀ with W stored (V, D); for one decoding step (a single row of x) MKL
is 1.5–2× quicker over a contiguous (D, V) copy of W, and this product is the largest of a step
(12.9 MB of weights for the shipped Transformer's 12,614 French words). The copy is kept on the
layer, remade whenever the weight changes (an optimiser step bumps the tensor's version) and used
only on a CPU when no gradient is recorded; training and GPUs use the layer itself. A loaded model's
weight is stored that way already (:func:`attnviz.core.models.compact.lay_out_for_projection`): then no copy
is kept. Measured by ``bench/decode_latency.py``.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn


def project(linear: nn.Linear, x: Tensor) -> Tensor:
    """``linear(x)`` for x (..., D) -> (..., V): the same numbers up to float rounding."""
    weight = linear.weight
    if torch.is_grad_enabled() or x.device.type != "cpu" or weight.dtype != x.dtype or weight.is_inference():
        return linear(x)  # (an inference tensor, made by a model built under inference_mode, has no version)
    if weight.t().is_contiguous():  # laid out (D, V) when it was loaded: the same product, no copy
        out = x @ weight.t()
        return out if linear.bias is None else out + linear.bias
    key = (weight.data_ptr(), weight._version, weight.dtype)
    kept = getattr(linear, "_attnviz_transposed", None)
    if kept is None or kept[0] != key:
        kept = (key, weight.detach().t().contiguous())
        object.__setattr__(linear, "_attnviz_transposed", kept)  # a plain attribute: not in the state dict
    out = x @ kept[1]
    return out if linear.bias is None else out + linear.bias
