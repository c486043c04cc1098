"""Attention maps on demand: what a forward pass needs to recompute any layer × head map, and the map computed
when it is asked for.

A model's attention over an S-token input is L·H maps of S² cells: a 16-layer, 16-head model over 4,096 tokens
holds 4.3 × 10⁹ cells, 17 GB of float32 weights (34 GB with the scores). What produces them is much smaller:
per layer the queries (B, H, S, D) after any rotary embedding, the keys (B, G, S, D) of its G key/value heads
(grouped-query attention: query head h reads key head h // (H / G)), the scale, and which cells the layer's
mask hides. :class:`QueryKeyStore` keeps those and :meth:`QueryKeyStore.map` computes one (S, S) map from them,
on the device the tensors are on, a tile of rows at a time: softmax(q·kᵀ · scale + mask) exactly as the
library's eager attention does (an additive mask of the dtype's lowest number, softmax in float32), so its
weights are ``output_attentions``' (tests/test_on_demand.py: GPT-2 and grouped-query Llama to 1e-5).

Memory, bounded by the shape and the length, never by how many maps are asked for:

* the store: L·(H + G)·B·S·D·b bytes of queries and keys (b: 4 for float32), plus one boolean mask of B·S²
  bytes per distinct mask (layers that share a mask share it: every layer of GPT-2, Llama, Qwen2);
* one map: its result (S, S) float32, plus a tile's temporaries, a few ``rows``·S·4 bytes (a float32 map on the CPU
  is computed in its own rows: no temporaries beyond the tile's mask).

For a 16-layer Llama shape with 16 query heads over 4 key/value heads of width 64 (hidden 1,024) and one
4,096-token input: queries 16·16·4,096·64·4 = 268 MB, keys 16·4·4,096·64·4 = 67 MB, the mask 16.8 MB — 352 MB
in all, against the 17.2 GB of weights (34.4 GB with scores) recording every map would take; one map is 67 MB,
its tiles of 256 rows 4.2 MB each.
An encoder–decoder's three kinds are three stores over one forward pass (core/hf/seq2seq.py): the encoder's
self-attention (S, S), the decoder's (T, T, causal) and the cross-attention (T, S), its queries the decoder's and
its keys the encoder's, the source's padding hidden.
Shapes: B rows, L layers, H query heads, G key/value heads, S positions (Q queries, K keys where they differ), D
per-head width, R rows of a tile.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

TILE_ROWS = 256  # the query rows one tile computes: its temporaries are a few TILE_ROWS·S·4 bytes
STORED_TILE_VALUES = 16 * 1024 * 1024  # scores of one tile of query rows in a storing pass (64 MiB of float32)
_stored_layer: ContextVar[Callable[[int], object] | None] = ContextVar("attnviz_stored_layer", default=None)


@contextmanager
def layers_stored(done: Callable[[int], object]) -> Iterator[None]:
    """Within the block, ``done(n)`` is called as each attention call of a storing pass (a model's ``query_keys``:
    :func:`attnviz.core.hf.attention.storing`) has been kept and its output computed (n: the calls kept so far in
    that pass): the progress of a pass that takes minutes."""
    token = _stored_layer.set(done)
    try:
        yield
    finally:
        _stored_layer.reset(token)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` (Linux), or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def return_freed_memory() -> None:
    """Hand the pages of the heap's freed blocks back to the system (glibc's ``malloc_trim``; nothing elsewhere),
    called by a storing pass before each layer. Its kept queries and keys (tens of MB a layer, allocated between the
    layer's temporaries of similar sizes) leave freed blocks between kept ones that later, different-sized
    allocations do not reuse: a Qwen3-0.6B-shaped pass over 4,096 tokens ended with about 700 MB resident beside its
    1,426 MB store and nothing alive in them (bench/RESULTS.md, issue 57 §4)."""
    if (trim := _malloc_trim()) is not None:
        trim(0)


def stored_layer_listener() -> Callable[[int], object] | None:
    """The ``done`` of the innermost :func:`layers_stored` block, or None outside one."""
    return _stored_layer.get()


@dataclass(frozen=True)
class LayerQueryKeys:
    """One attention layer's inputs to its softmax: queries (B, H, Q, D), keys (B, G, K, D) (G divides H), the
    scale q·kᵀ is multiplied by, and the cells its mask hides (B, Q, K) bool (True: hidden) or None (none). A
    self-attention has Q = K = S; a cross-attention's queries are the decoder's (Q = T), its keys the encoder's
    (K = S)."""

    queries: Tensor
    keys: Tensor
    scale: float
    hidden: Tensor | None
    softcap: float | None = None  # Gemma 2: scores capped to softcap·tanh(s / softcap) before the mask
    sinks: Tensor | None = None  # gpt-oss: (H,) a learned logit per head, a column the softmax reads and drops
    # a sliding-window layer's band (core/hf/variants.py): (window, bidirectional); its map is computed over the
    # band's keys only (a causal row i reads i − window < j ≤ i, a bidirectional one |i − j| ≤ window), the rest 0
    window: tuple[int, bool] | None = None

    def __post_init__(self) -> None:
        heads, groups = self.queries.shape[1], self.keys.shape[1]
        if groups < 1 or heads % groups:
            raise ValueError(f"{groups} key/value heads do not divide {heads} query heads")


class QueryKeyStore:
    """Per layer the queries, keys, scale and mask of one forward pass (:class:`LayerQueryKeys`, in layer
    order); any map computed from them on demand (:meth:`map`)."""

    def __init__(self, layers: list[LayerQueryKeys]):
        if not layers:
            raise ValueError("no attention layer was recorded")
        self.layers = tuple(layers)
        first = layers[0]
        self.rows, self.heads, self.positions, _ = first.queries.shape  # B, H, Q (S for a self-attention)
        self.key_positions = int(first.keys.shape[2])  # K (S for a self-attention)

    @property
    def num_layers(self) -> int:
        return len(self.layers)

    def kv_head(self, layer: int, head: int) -> int:
        """The key/value head query ``head`` of ``layer`` reads (grouped-query: head // (H / G))."""
        record = self.layers[layer]
        return head // (record.queries.shape[1] // record.keys.shape[1])

    @property
    def nbytes(self) -> int:
        """The bytes the store holds: queries, keys and the distinct masks."""
        tensors = {id(t): t for r in self.layers for t in (r.queries, r.keys, r.hidden) if t is not None}
        return sum(t.numel() * t.element_size() for t in tensors.values())

    def hidden(self, layer: int, row: int = 0) -> np.ndarray:
        """The cells layer ``layer``'s mask hid for batch row ``row`` (Q, K) bool (True: hidden)."""
        record = self.layers[layer]
        if record.hidden is None:
            return np.zeros((self.positions, self.key_positions), dtype=bool)
        return record.hidden[row].cpu().numpy()

    def map(self, layer: int, head: int, row: int = 0, scores: bool = False, tile_rows: int = TILE_ROWS
            ) -> np.ndarray:
        """Layer ``layer``'s head ``head`` for batch row ``row``: the weights (Q, K) float32 (a query per row, a key
        per column), or with ``scores`` what the softmax read (q·kᵀ · scale, hidden cells -inf), computed
        ``tile_rows`` query rows at a time on the store's device."""
        record = self.layers[layer]
        if not 0 <= head < record.queries.shape[1] or not 0 <= row < self.rows:
            raise IndexError(f"no head {head} or row {row} in layer {layer}")
        query = record.queries[row, head]  # (Q, D)
        key = record.keys[row, self.kv_head(layer, head)]  # (K, D)
        hidden = None if record.hidden is None else record.hidden[row]  # (Q, K)
        if query.device.type == "cpu" and query.dtype == key.dtype == torch.float32 and record.sinks is None:
            return _map_in_place(query, key, hidden, record, scores, tile_rows)
        lowest = torch.finfo(query.dtype).min
        rows = int(query.shape[0])
        out = np.empty((rows, int(key.shape[0])), dtype=np.float32)
        keys = int(key.shape[0])
        if record.window is not None:  # (a band: the cells outside it are hidden, never computed)
            out.fill(float("-inf") if scores else 0.0)
        with torch.inference_mode():
            for start in range(0, rows, tile_rows):
                stop = min(start + tile_rows, rows)
                low, high = _band(record.window, start, stop, keys)
                tile = torch.matmul(query[start:stop], key[low:high].transpose(0, 1)) * record.scale  # (R, K')
                if record.softcap is not None:  # (the library's three steps, in its order: before the mask)
                    tile = torch.tanh(tile / record.softcap) * record.softcap
                if scores:
                    if hidden is not None:
                        tile = tile.masked_fill(hidden[start:stop, low:high], float("-inf"))
                    out[start:stop, low:high] = tile.float().cpu().numpy()
                    continue
                if hidden is not None:  # as eager: the additive mask's lowest number, not -inf (no NaN rows)
                    tile = tile + torch.where(hidden[start:stop, low:high], lowest, 0.0).to(tile.dtype)
                if record.sinks is not None:  # (gpt-oss: the sink's column read, then dropped)
                    column = record.sinks[head].to(tile.dtype).expand(tile.shape[0], 1)
                    combined = torch.cat([tile, column], dim=-1)
                    combined = combined - combined.max(dim=-1, keepdim=True).values
                    weights = torch.softmax(combined, dim=-1, dtype=combined.dtype)[:, :-1].to(query.dtype)
                else:
                    weights = torch.softmax(tile, dim=-1, dtype=torch.float32).to(query.dtype)
                out[start:stop, low:high] = weights.float().cpu().numpy()
        return out


def _band(window: tuple[int, bool] | None, start: int, stop: int, keys: int) -> tuple[int, int]:
    """The keys [low, high) a sliding-window layer's query rows [start, stop) may read (all ``keys`` without one):
    a causal row i reads i − window < j ≤ i, a bidirectional one |i − j| ≤ window."""
    if window is None:
        return 0, keys
    width, both = window
    return max(0, start - width if both else start - width + 1), min(keys, stop + width if both else stop)


def _columns(hidden: np.ndarray | None, low: int, high: int) -> tuple[int, int, int, int]:
    """Of a tile's mask ``hidden`` (R, K) (True: hidden; None: nothing hidden) over the keys [low, high): the keys
    [first, last) its rows can see, when every row sees one (a causal tile: the keys up to its last row; else
    [low, high): a row that sees none is the softmax of equal numbers over all its keys, as eager gives it), and
    the keys [begin, end) within them that hold every hidden cell (a causal tile: its diagonal block)."""
    if hidden is None:
        return low, high, low, low
    tile = hidden[:, low:high]  # (R, K')
    if tile.all(axis=1).any():  # (a row that sees no key)
        first, last = low, high
    else:
        seen = np.flatnonzero(~tile.all(axis=0))
        first, last = low + int(seen[0]), low + int(seen[-1]) + 1
    held = np.flatnonzero(tile[:, first - low:last - low].any(axis=0))
    if not len(held):
        return first, last, first, first
    return first, last, first + int(held[0]), first + int(held[-1]) + 1


def _map_in_place(query: Tensor, key: Tensor, hidden: Tensor | None, record: LayerQueryKeys, scores: bool,
                  tile_rows: int) -> np.ndarray:
    """:meth:`QueryKeyStore.map` of float32 queries (Q, D) and keys (K, D) on the CPU without a sink: each tile of
    query rows is computed where the map keeps it (the matrix product written into the result's rows, then scaled,
    capped, masked and soft-maxed there: no tile copied), over the keys its rows can see only — a causal tile's keys
    up to its last row, a band's keys —, the cells outside them 0 (their weight under the mask's lowest number is
    exactly 0) or -inf (``scores``), the mask applied to the columns that hold hidden cells only. The same numbers
    as the general path: q·kᵀ then the scale, the library's three capping steps, a hidden cell set to the dtype's
    lowest number (what adding it gives in float32: |q·k| is far below that number's precision), softmax in
    float32 -> (Q, K) float32."""
    rows, keys = int(query.shape[0]), int(key.shape[0])
    out = np.empty((rows, keys), dtype=np.float32)
    result = torch.from_numpy(out)  # (Q, K): the tiles are computed into it
    mask = None if hidden is None else hidden.numpy()  # (Q, K) bool, a view
    outside = float("-inf") if scores else 0.0
    fill = float("-inf") if scores else torch.finfo(torch.float32).min
    with torch.inference_mode():
        for start in range(0, rows, tile_rows):
            stop = min(start + tile_rows, rows)
            low, high = _band(record.window, start, stop, keys)
            tile_mask = None if mask is None else mask[start:stop]
            low, high, begin, end = _columns(tile_mask, low, high)
            out[start:stop, :low] = outside
            out[start:stop, high:] = outside
            tile = result[start:stop, low:high]  # (R, K') a view of the result
            torch.matmul(query[start:stop], key[low:high].transpose(0, 1), out=tile)
            tile.mul_(record.scale)
            if record.softcap is not None:  # (the library's three steps, in its order: before the mask)
                tile.div_(record.softcap).tanh_().mul_(record.softcap)
            if hidden is not None and end > begin:
                result[start:stop, begin:end].masked_fill_(hidden[start:stop, begin:end], fill)
            if not scores:
                torch.softmax(tile, dim=-1, out=tile)
    return out
