"""Attention computations recorded as they happen: every attention layer's queries, keys, values, scores and weights
handed to the :func:`recording` blocks open around a forward pass (torch only; no Qt, no transformers).

Two computations report here: attnviz's own multi-head attention (:mod:`attnviz.core.attention.layers`) and the
attention function attnviz registers with transformers for Hugging Face models (:mod:`attnviz.core.hf.attention`).
The views, the head atlas, explain and patching read the calls the same way whichever computed them.
Shapes: B batch, H query heads, Q queries, K keys, D per-head width.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from attnviz.i18n import tr


@dataclass(frozen=True)
class AttentionCall:
    """One attention layer's computation in a forward pass: the module (its projections: the Computation
    view), the query/key/value heads (B, H, Q|K, D) after any rotary embedding and group repetition, scores
    (B, H, Q, K) as the softmax read them (masked cells -inf) and the weights (B, H, Q, K)."""

    module: nn.Module
    query: Tensor
    key: Tensor
    value: Tensor
    scores: Tensor
    weights: Tensor
    sink: Tensor | None = None  # (B, H, Q) the weight a learned sink logit took (gpt-oss): rows sum to 1 − sink
    raw_scores: Tensor | None = None  # (B, H, Q, K) q·k·scale before soft-capping (Gemma 2), where the layer caps


class NotFinite(ValueError):
    """A forward pass whose attention or next-token / masked-word logits are not finite numbers (NaN or infinity in
    the model's weights, or numbers of its config that make them): one sentence, raised before any map of it is kept
    or written and before any token is ranked from it."""

    def __init__(self) -> None:
        super().__init__(tr("the model computed attention or predictions that are not finite (NaN or infinity): its "
                            "weights or its config hold numbers that break the computation, so attnviz shows, ranks "
                            "and writes none of them"))


def check_finite(*tensors: Tensor) -> None:
    """Raise :class:`NotFinite` unless every number of ``tensors`` is finite. Read from each tensor's least and
    greatest value (a NaN anywhere makes both NaN), so that no mask the size of a layer's maps is made."""
    for tensor in tensors:
        if tensor.numel() and not bool(torch.isfinite(torch.stack(torch.aminmax(tensor.detach()))).all()):
            raise NotFinite()


_calls: ContextVar[tuple[list[AttentionCall], ...]] = ContextVar("attnviz_attention_calls", default=())
_detached: ContextVar[bool] = ContextVar("attnviz_weights_detached", default=False)


def detaching() -> bool:
    """Whether a :func:`weights_detached` block is open: gradients are not to flow through attention weights."""
    return _detached.get()


def listening() -> tuple[list[AttentionCall], ...]:
    """The recording blocks open now (innermost last): attnviz's own multi-head attention reports its calls to them
    too (:class:`~attnviz.core.attention.layers.MultiHeadAttention`)."""
    return _calls.get()


@contextmanager
def weights_detached() -> Iterator[None]:
    """Within the block, gradients do not flow through the attention weights of the forward passes run inside it
    (Jain & Wallace 2019): the weights act as constants while the values still carry the gradient; the forward
    values are unchanged."""
    token = _detached.set(True)
    try:
        yield
    finally:
        _detached.reset(token)


@contextmanager
def recording() -> Iterator[list[AttentionCall]]:
    """Collect every attention call of the forward passes run inside the block, in the order they ran
    (blocks nest: an outer block sees the calls of the inner ones too)."""
    calls: list[AttentionCall] = []
    token = _calls.set((*_calls.get(), calls))
    try:
        yield calls
    finally:
        _calls.reset(token)


class _Consumer(list[AttentionCall]):
    """A listener that hands each call to a function and keeps nothing (a corpus pass's peak: one layer's maps)."""

    def __init__(self, consume: Callable[[AttentionCall], None]):
        super().__init__()
        self._consume = consume

    def append(self, call: AttentionCall) -> None:
        self._consume(call)


@contextmanager
def consuming(consume: Callable[[AttentionCall], None]) -> Iterator[None]:
    """Hand every attention call of the forward passes run inside the block to ``consume`` as it is made, layer
    after layer, and keep none: the maps of a layer are freed before the next layer's are computed."""
    token = _calls.set((*_calls.get(), _Consumer(consume)))
    try:
        yield
    finally:
        _calls.reset(token)
