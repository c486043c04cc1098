"""‖f_h(x_j)‖ of every key a decoded sentence's heads read (Kobayashi et al. 2020's norm view), for the atlas's sinks.

f_h(x_j) is key j's value through head h's part of the output projection W_O (its bias left out, as
:mod:`attnviz.core.explain.internals` makes it): with v_j^h the head's value (its W_V's bias included) and
G_h = W_O^h W_O^hᵀ (D, D), ‖f_h(x_j)‖² = v_j^h G_h v_j^hᵀ, so no f is ever made — where the head is no wider than
the model (D ≤ E); a head wider than the model (a folder's ``head_dim`` 4,096 over a width of 32) keeps W_O^h (D, E)
instead and takes ‖v_j^h W_O^h‖ (:class:`HeadOutput`: the smaller of the two, H·D·min(D, E) floats a layer).
The values come from one
teacher-forced pass over the batch's sources and decoded outputs (the model's own ``forward``: the importance's
pass), read as each attention module computes them. A family's record names its reader
(:attr:`attnviz.core.models.kinds.ModelKind.value_norms`): attnviz's own
:class:`~attnviz.core.attention.layers.MultiHeadAttention` here (a hook on its W_V: every call's output in order, a
decoder-only model's prompt then its answer), a Hugging Face folder's in :mod:`attnviz.core.hf.values`; a recurrent
attention (no W_V, no W_O) has none. Shapes: B rows, H heads, K keys, D a head's width, E the model's width.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import torch
from torch import Tensor, nn

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.layers import MultiHeadAttention

PASS_TOKENS = 384  # target positions of one teacher-forced pass (its logits: PASS_TOKENS × V), as the importance's


class ValueNorms(ABC):
    """Reads ‖f_h(x_j)‖ (B, H, K) per kind and layer from a teacher-forced pass of ``model`` (a translation model:
    ``forward(src, valid, tgt_in)``); ``modules``: each kind's attention modules, first layer first; ``grams``:
    each module's :class:`HeadOutput` by its id."""

    def __init__(self, model: nn.Module, modules: Mapping[AttentionKind, Sequence[nn.Module]],
                 grams: dict[int, HeadOutput]):
        self.model = model
        self.modules = {kind: list(found) for kind, found in modules.items()}
        self.grams = grams

    @abstractmethod
    def values(self, src: Tensor, valid: Tensor, tgt_in: Tensor) -> dict[int, Tensor]:
        """Each module's values (B, H, K, D) in one teacher-forced pass, by the module's id."""

    def __call__(self, src: Tensor, valid: Tensor, tgt_in: Tensor) -> dict[AttentionKind, list[np.ndarray]]:
        """Each kind's norms per layer, (B, H, K) float64, K every key position the module read in the pass
        (a source-reading kind: the padded source; a decoder's self-attention: tgt_in's positions; a decoder-only
        model's: the padded prompt, then tgt_in's positions as its ``forward`` lays them)."""
        norms: dict[int, list[np.ndarray]] = {}  # each module's (B', H, K) per chunk of rows
        rows = max(1, PASS_TOKENS // max(1, tgt_in.shape[1]))  # (the pass makes rows × T × V logits: bounded)
        for begin in range(0, src.shape[0], rows):
            chunk = slice(begin, begin + rows)
            for key, value in self.values(src[chunk], valid[chunk], tgt_in[chunk]).items():
                norm = self.grams[key].norms(value)  # (B', H, K)
                norms.setdefault(key, []).append(norm.cpu().numpy().astype(np.float64))  # (mps has no float64)
        return {kind: [np.concatenate(norms[id(module)]) for module in found] for kind, found in self.modules.items()}


@dataclass(frozen=True)
class HeadOutput:
    """What ‖f_h(x_j)‖ = ‖v_j^h W_O^h‖ is computed from for one layer's H heads: ``matrix`` G (H, D, D) =
    W_O^h W_O^hᵀ where ``gram`` (D ≤ E), else W_O^h itself (H, D, E) — whichever holds fewer floats."""

    matrix: Tensor
    gram: bool

    def norms(self, values: Tensor) -> Tensor:
        """values (B, H, K, D) -> ‖f_h(x_j)‖ (B, H, K) float32, head by head: one batched product (H, B·K, D) @
        (H, D, D|E), its temporaries H·B·K·min(D, E) floats (a broadcast (B, H, D, D) copy is never made)."""
        rows, heads, keys, width = values.shape
        flat = values.float().transpose(0, 1).reshape(heads, rows * keys, width)  # (H, B·K, D)
        product = torch.bmm(flat, self.matrix.to(flat.device))  # (H, B·K, D|E)
        squares = (product * flat).sum(-1) if self.gram else product.square().sum(-1)  # (H, B·K)
        return squares.clamp(min=0).sqrt().reshape(heads, rows, keys).transpose(0, 1)


def head_grams(per_head_rows: Tensor, heads: int) -> HeadOutput:
    """What the heads' norms are computed from (:class:`HeadOutput`), from W_O with the heads' inputs as rows (H·D,
    E): G (H, D, D) = W_O^h W_O^hᵀ where D ≤ E, else W_O^h (H, D, E)."""
    with torch.no_grad():
        per_head = per_head_rows.detach().float().unflatten(0, (heads, -1))  # (H, D, E)
        if per_head.shape[1] > per_head.shape[2]:
            return HeadOutput(per_head.contiguous(), gram=False)
        return HeadOutput(per_head @ per_head.transpose(-1, -2), gram=True)


class OwnValueNorms(ValueNorms):
    """attnviz's own multi-head attention: each call of a module's W_V kept through a hook, split into heads."""

    def values(self, src: Tensor, valid: Tensor, tgt_in: Tensor) -> dict[int, Tensor]:
        seen: dict[int, list[Tensor]] = {}
        handles = []
        for found in self.modules.values():
            for module in found:
                if id(module) not in seen:
                    seen[id(module)] = []
                    attention = cast(MultiHeadAttention, module)
                    handles.append(attention.W_v.register_forward_hook(_keeper(seen[id(module)], attention)))
        try:
            with torch.inference_mode():
                self.model(src, valid, tgt_in)
        finally:
            for handle in handles:
                handle.remove()
        return {key: torch.cat(calls, dim=2) for key, calls in seen.items()}


def _keeper(calls: list[Tensor], attention: MultiHeadAttention) -> Any:
    """A forward hook on ``attention``'s W_V keeping each call's values, split into heads (B, H, n, D)."""
    def keep(_layer: nn.Module, _args: Any, output: Tensor) -> None:
        calls.append(attention.split_heads(output.detach()))
    return keep


def own_value_norms(loaded: Any, modules: Mapping[AttentionKind, Sequence[nn.Module]]) -> ValueNorms | None:
    """The reader for an attnviz model whose heads are :class:`MultiHeadAttention` (None: an RNN's attention)."""
    found = [m for kind_modules in modules.values() for m in kind_modules]
    if not found or not all(isinstance(m, MultiHeadAttention) for m in found):
        return None
    attentions = [cast(MultiHeadAttention, m) for m in found]
    return OwnValueNorms(loaded.model, modules, {
        id(m): head_grams(cast(Tensor, m.W_o.weight).t(), m.num_heads) for m in attentions})
