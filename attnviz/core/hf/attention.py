"""The attention of Hugging Face models, recorded as it is computed: weights and pre-softmax scores.

transformers lets a model's attention layers call a registered function instead of its own. attnviz
registers ``attnviz``: the library's *eager* computation (scaled dot product, the additive mask, softmax,
grouped-query keys and values repeated per head) that also hands each call's scores and weights to the
:func:`recording` block around a forward pass. Its weights are the ones ``output_attentions`` returns
(tests/test_hf_attention.py checks Marian, BART, T5, GPT-2, Llama and Qwen2 against eager); its scores are what the
softmax read, masked cells at -inf. Masks are built as for eager (an additive float mask).
Inside :func:`storing` the same function keeps no map: it hands each layer's queries, keys, scale and the cells its
mask hides to the store (:mod:`attnviz.core.attention.on_demand` recomputes any map from them) and computes the
layer's output with ``scaled_dot_product_attention``, which never makes a (Q, K) matrix per head.
Shapes: B batch, H query heads, G key/value heads, Q queries, K keys, D per-head width.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from attnviz.core.attention.on_demand import STORED_TILE_VALUES, return_freed_memory, stored_layer_listener
from attnviz.core.attention.recording import (  # noqa: F401 (the recording's names, used here and by callers)
    AttentionCall,
    NotFinite,
    check_finite,
    consuming,
    detaching,
    listening,
    recording,
    weights_detached,
)

IMPLEMENTATION = "attnviz"


@dataclass(frozen=True)
class QueryKeyCall:
    """One attention layer's inputs to its softmax in a :func:`storing` pass: the module, queries (B, H, Q, D),
    keys (B, G, K, D) before group repetition, the scale and the cells the mask hides (B, Q, K) bool or None."""

    module: nn.Module
    query: Tensor
    key: Tensor
    scale: float
    hidden: Tensor | None
    softcap: float | None = None  # scores become softcap·tanh(s / softcap) before the mask (Gemma 2)
    sinks: Tensor | None = None  # (H,) a learned logit per head, a column the softmax reads and drops (gpt-oss)


class _QueryKeyCalls(list[QueryKeyCall]):
    """The calls of a :func:`storing` block, and each distinct additive mask's boolean form (by the mask's identity:
    the block holds the masks, so no identity is reused while it lasts)."""

    def __init__(self) -> None:
        super().__init__()
        self.masks: dict[int, tuple[Tensor, Tensor]] = {}  # id(additive mask) -> (that mask, hidden (B, Q, K))

    def hidden(self, attention_mask: Tensor, keys: int) -> Tensor:
        seen = self.masks.get(id(attention_mask))
        if seen is None:
            mask = attention_mask[..., :keys]  # (B, 1, Q, K) additive
            seen = self.masks[id(attention_mask)] = (attention_mask, (mask <= torch.finfo(mask.dtype).min / 2)[:, 0])
        return seen[1]


_stores: ContextVar[_QueryKeyCalls | None] = ContextVar("attnviz_query_key_calls", default=None)


@contextmanager
def storing() -> Iterator[list[QueryKeyCall]]:
    """Collect each attention call's queries, keys, scale and mask (:class:`QueryKeyCall`) of the forward passes run
    inside the block, and no map: the layers' outputs come from ``scaled_dot_product_attention``, so no (B, H, Q, K)
    matrix is made (weights are None; a :func:`recording` block inside it is not served). Calls whose masks are the
    same tensor share one boolean mask."""
    calls = _QueryKeyCalls()
    token = _stores.set(calls)
    try:
        yield calls
    finally:
        _stores.reset(token)


def _stored(calls: _QueryKeyCalls, module: nn.Module, query: Tensor, key: Tensor, value: Tensor,
            attention_mask: Tensor | None, scaling: float, position_bias: Tensor | None, softcap: float | None,
            sinks: Tensor | None) -> tuple[Tensor, None]:
    """:func:`attention` inside :func:`storing`: keep the layer's inputs, compute its output without its maps."""
    if position_bias is not None:
        raise ValueError("maps on demand do not support a relative position bias (T5)")
    return_freed_memory()  # (the earlier layers' temporaries, freed between the kept queries and keys)
    mask = None if attention_mask is None else attention_mask[..., : key.shape[-2]]  # (B, 1, Q, K) additive
    hidden = None if attention_mask is None else calls.hidden(attention_mask, key.shape[-2])
    check_finite(query, key)  # (the maps made later from them would be NaN)
    calls.append(QueryKeyCall(module, query.detach(), key.detach(), scaling, hidden, softcap,
                              None if sinks is None else sinks.detach()))
    if softcap is not None or sinks is not None:  # (no fused kernel caps scores or reads a sink column)
        output = _eager_tiles(query, key, value, mask, scaling, softcap, sinks)
        if (done := stored_layer_listener()) is not None:
            done(len(calls))
        return output, None
    # With a mask, scaled_dot_product_attention on the CPU makes the whole (B, H, Q, K) score matrix (8.6 GB for 32
    # heads over 8,192 tokens): the output is computed a tile of query rows at a time, its scores ≤ STORED_TILE_VALUES.
    # Each tile is written into the output in the layout the layer returns (B, Q, H, D): no list of tiles joined, no
    # transposed copy (a head 4,096 wide over 8,192 tokens: each copy 134 MB a head).
    rows = max(1, STORED_TILE_VALUES // max(1, query.shape[0] * query.shape[1] * key.shape[-2]))
    batch, heads, queries, _ = query.shape
    output = query.new_empty((batch, queries, heads, value.shape[-1]))  # (B, Q, H, D)
    for begin in range(0, queries, rows):
        tile = slice(begin, begin + rows)
        tile_mask = None if mask is None else mask[..., tile, :] if mask.shape[-2] > 1 else mask
        output[:, tile] = nn.functional.scaled_dot_product_attention(
            query[..., tile, :], key, value, attn_mask=tile_mask, scale=scaling,
            enable_gqa=key.shape[1] != query.shape[1]).transpose(1, 2)  # (B, rows, H, D)
    if (done := stored_layer_listener()) is not None:
        done(len(calls))
    return output, None


def _eager_tiles(query: Tensor, key: Tensor, value: Tensor, mask: Tensor | None, scaling: float,
                 softcap: float | None, sinks: Tensor | None) -> Tensor:
    """A storing pass's output for a layer that caps its scores or reads a sink: :func:`attention`'s own arithmetic,
    a tile of query rows at a time (scores ≤ STORED_TILE_VALUES) -> (B, Q, H, D)."""
    key, value = repeated(key, query.shape[1] // key.shape[1]), repeated(value, query.shape[1] // value.shape[1])
    rows = max(1, STORED_TILE_VALUES // max(1, query.shape[0] * query.shape[1] * key.shape[-2]))
    tiles = []
    for begin in range(0, query.shape[-2], rows):
        tile = slice(begin, begin + rows)
        tile_mask = None if mask is None else mask[..., tile, :] if mask.shape[-2] > 1 else mask
        weights, _, _, _ = _softmax(torch.matmul(query[..., tile, :], key.transpose(-1, -2)) * scaling, tile_mask,
                                    softcap, sinks, query.dtype)
        tiles.append(torch.matmul(weights, value))  # (B, H, rows, D)
    output = tiles[0] if len(tiles) == 1 else torch.cat(tiles, dim=-2)
    return output.transpose(1, 2).contiguous()


def capped(scores: Tensor, softcap: float | None) -> Tensor:
    """Logit soft-capping (Gemma 2): softcap·tanh(s / softcap), the library's three steps; None: ``scores``."""
    if softcap is None:
        return scores
    return torch.tanh(scores / softcap) * softcap


def _softmax(raw: Tensor, mask: Tensor | None, softcap: float | None, sinks: Tensor | None, dtype: torch.dtype
             ) -> tuple[Tensor, Tensor, Tensor | None, Tensor | None]:
    """The eager softmax of each variant, as the library computes it: raw scores (B, H, Q, K) (q·k·scale, T5's bias
    added), soft-capped where the layer caps, the additive mask added; with ``sinks`` (H,) a column of each head's
    sink logit appended, the row's maximum subtracted, softmax in the scores' dtype and the column dropped (gpt-oss),
    else softmax in float32 -> (weights in ``dtype``, the scores the softmax read (masked cells still the mask's
    lowest number), the raw scores where they were capped else None, the sink's weight (B, H, Q) or None)."""
    scores = capped(raw, softcap)
    if mask is not None:
        scores = scores + mask
    if sinks is None:
        return nn.functional.softmax(scores, dim=-1, dtype=torch.float32).to(dtype), scores, \
            raw if softcap is not None else None, None
    column = sinks.reshape(1, -1, 1, 1).expand(scores.shape[0], -1, scores.shape[-2], -1)
    combined = torch.cat([scores, column.to(scores.dtype)], dim=-1)
    combined = combined - combined.max(dim=-1, keepdim=True).values
    probabilities = nn.functional.softmax(combined, dim=-1, dtype=combined.dtype)
    return probabilities[..., :-1].to(dtype), scores, raw if softcap is not None else None, probabilities[..., -1]


def repeated(heads: Tensor, times: int) -> Tensor:
    """(B, G, K, D) key or value heads -> (B, G·times, K, D): each group's head serves ``times`` query heads."""
    return heads if times == 1 else heads.repeat_interleave(times, dim=1)


def attention(module: nn.Module, query: Tensor, key: Tensor, value: Tensor, attention_mask: Tensor | None,
              scaling: float | None = None, dropout: float = 0.0, position_bias: Tensor | None = None,
              softcap: float | None = None, s_aux: Tensor | None = None, **_: Any) -> tuple[Tensor, Tensor]:
    """transformers' eager attention (query (B, H, Q, D), key/value (B, G, K, D), the additive mask
    (B, 1, Q, ≥K) or None — a sliding-window layer's band among them, made by the library —, T5's relative position
    bias (B|1, H, Q, K) or None, Gemma 2's ``softcap`` or None, gpt-oss's learned sink logits ``s_aux`` (H,) or
    None) -> output (B, Q, H, D), weights (B, H, Q, K); recorded inside :func:`recording`."""
    scaling = query.shape[-1] ** -0.5 if scaling is None else scaling
    stored = _stores.get()
    if stored is not None:
        return _stored(stored, module, query, key, value, attention_mask, scaling, position_bias,  # type: ignore[return-value]
                       softcap, s_aux)
    key, value = repeated(key, query.shape[1] // key.shape[1]), repeated(value, query.shape[1] // value.shape[1])
    raw = torch.matmul(query, key.transpose(-1, -2)) * scaling
    if position_bias is not None:  # T5 (its scaling is 1: the bias and the mask are added to q·k)
        raw = raw + position_bias
    mask = None if attention_mask is None else attention_mask[..., : key.shape[-2]]
    weights, scores, raw_scores, sink = _softmax(raw, mask, softcap, s_aux, query.dtype)
    dropped = nn.functional.dropout(weights.detach() if detaching() else weights, p=dropout,
                                    training=module.training)
    output = torch.matmul(dropped, value).transpose(1, 2).contiguous()
    blocks = listening()
    if blocks:
        check_finite(weights)  # (rows of a NaN query, key or score: the maps of them are not kept)
        if attention_mask is not None:  # the mask's "minus infinity" is the dtype's lowest number, not -inf
            hidden = attention_mask[..., : key.shape[-2]] <= torch.finfo(attention_mask.dtype).min / 2
            scores = scores.masked_fill(hidden, float("-inf"))
        call = AttentionCall(module, query.detach(), key.detach(), value.detach(), scores.detach(), weights.detach(),
                             None if sink is None else sink.detach(),
                             None if raw_scores is None else raw_scores.detach())
        for calls in blocks:
            calls.append(call)
    return output, weights


def register() -> None:
    """Make ``attn_implementation="attnviz"`` available to transformers, with eager attention's masks (idempotent)."""
    from attnviz.core.hf import compat

    compat.register_attention(IMPLEMENTATION, attention)
