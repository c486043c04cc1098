"""How a Hugging Face attention module makes one head's query, keys and values: one adapter per projection style.

Each adapter wraps one attention module and explains its chain for the one Computation runner
(:func:`attnviz.core.decoding.query_computation.compute_query`), as attnviz's own attention classes do
(:class:`~attnviz.core.attention.layers.ExplainsChain`): ``record_inputs`` hooks what the module receives, ``inputs_of``
picks the keys and values a query saw, ``explain`` projects one head by hand with the module's own weights.

The styles, as the model's record (:class:`~attnviz.core.hf.folder.Architecture`) names them:
- :class:`SeparateProjections`: ``q_proj``/``k_proj``/``v_proj`` (Marian, BART, mBART; BERT's ``query``/``key``/
  ``value``), with grouped-query heads where the record says so (query head h reads key/value head h // (H/G));
- :class:`FusedProjections`: GPT-2's one ``c_attn`` Conv1D making [q | k | v] (weight (D, 3·D));
- :class:`RotaryProjections`: Llama, Qwen2 and today's decoder-only and encoder-only models, separate and grouped
  (or Phi-3's and ModernBERT's one nn.Linear making [q | k | v]), q and every k rotated by their positions, with each
  layer's twist (:class:`~attnviz.core.hf.variants.LayerVariant`): QK-norm before the rotation, no rotation in a
  layer without positions, soft-capped scores, a sliding window, a learned sink;
- :class:`RelativeBiasProjections`: T5, ``q``/``k``/``v`` with no 1/√d and a learned bias per head and relative
  distance added to every score.
Shapes: Q queries of one call, K keys, D model width, d head width.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn
from torch.utils.hooks import RemovableHandle

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.layers import Chain, GateSource, HeadChange, Sink
from attnviz.core.hf import compat
from attnviz.core.hf.folder import Architecture
from attnviz.core.hf.heads import gate_heads, intervene_heads
from attnviz.core.hf.variants import LayerVariant
from attnviz.i18n import tr


def _numpy(tensor: Tensor) -> np.ndarray:
    return tensor.detach().to(device="cpu", dtype=torch.float64).numpy()


def _project(layer: Any, x: np.ndarray, rows: slice, fused: bool = False) -> np.ndarray:
    """``x`` (…, D) through rows ``rows`` of an nn.Linear (weight (out, D)) or, ``fused``, a Conv1D (weight
    (D, out))."""
    weight = _numpy(layer.weight)
    weight = weight[:, rows].T if fused else weight[rows]
    out = x @ weight.T
    return out if layer.bias is None else out + _numpy(layer.bias)[rows]


def _score_words(divisor: float, width: int) -> str:
    if abs(divisor - width**0.5) < 1e-6:
        return f"s_j = q·k_j / √{width}"
    if abs(divisor - 1) < 1e-6:
        return "s_j = q·k_j"
    return f"s_j = q·k_j / {divisor:.4g}"


class HFChain(ABC):
    """The part every style shares: recording the module's inputs, which keys a query saw, the module's own scale;
    each style says how many heads its module has and how one head's chain is made."""

    rotary = False  # whether the module receives its positions' angles (recorded alongside)

    def __init__(self, module: nn.Module, record: Architecture, cross: bool):
        self.module, self.record, self.cross = module, record, cross
        self.head_width = int(getattr(module, record.projection.head_width))
        self.angles: list[tuple[Tensor, Tensor]] = []  # (cos, sin) (1, Q, d) per call, where ``rotary``

    @property
    @abstractmethod
    def heads(self) -> int: ...

    @abstractmethod
    def explain(self, a: np.ndarray, a_keys: np.ndarray, a_values: np.ndarray, head: int, *,
                query_row: int = 0) -> Chain: ...

    def record_inputs(self, sink: Sink) -> list[RemovableHandle]:
        """A pre-hook passing each call's hidden states (queries; a self-attention's keys and values too) and a
        cross-attention's encoder output (keys and values) to ``sink``."""
        owner = threading.get_ident()
        self.angles = []

        def hook(_module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            hidden, key_value, angles = compat.attention_inputs(args, kwargs, self.rotary)
            keys = hidden if key_value is None else key_value
            for name, tensor in (("queries", hidden), ("keys", keys), ("values", keys)):
                sink(name, tensor)
            if angles is not None and threading.get_ident() == owner:
                self.angles.append((angles[0].detach(), angles[1].detach()))

        return [self.module.register_forward_pre_hook(hook, with_kwargs=True)]

    def gate_heads(self, gate: GateSource) -> list[RemovableHandle]:
        """Gates ξ on the module's heads, before its output projection (:func:`attnviz.core.hf.heads.gate_heads`);
        GatesUnavailable where the record names no output projection (an encoder-only folder's)."""
        if not self.record.projection.output:
            from attnviz.core.heads.gates import GatesUnavailable

            raise GatesUnavailable(tr("heads of this model cannot be switched off (its attention modules have no "
                                      "gates)"))
        return gate_heads(self.module, self.record, gate)

    def intervene_heads(self, change: HeadChange) -> list[RemovableHandle]:
        """A hook handing the module's heads (B, Q, H, d) before its output projection to ``change`` (patching:
        :mod:`attnviz.core.patching`); an encoder-only folder's at its attention module's output, the same values
        (:func:`attnviz.core.hf.heads.intervene_heads`)."""
        return intervene_heads(self.module, self.record, change)

    def inputs_of(self, keys: list[Tensor], values: list[Tensor], query_index: int) -> tuple[Tensor, Tensor]:
        """The key and value inputs (K, D) query ``query_index`` saw: cross-attention gets the whole source at every
        step; a self-attention every position the module has received, in order (the causal mask hides later ones)."""
        if self.cross:
            return keys[query_index][0], values[query_index][0]
        return torch.cat(keys, dim=1)[0], torch.cat(values, dim=1)[0]

    def _scaled(self, chain: Chain) -> Chain:
        """``chain`` with the module's own scale (1/√d, GPT-2's per layer, T5's 1) and its words."""
        divisor = 1 / float(getattr(self.module, "scaling"))  # noqa: B009 (every attention class transformers has)
        return Chain(chain.q, chain.keys, chain.values, {**chain.formulas, "score": _score_words(
            divisor, chain.q.shape[0])}, "dot", scale=divisor)


class _Part:
    """Rows ``rows`` of one nn.Linear seen as a layer of their own (a fused-linear layer's q, k or v part)."""

    def __init__(self, layer: Any, rows: slice):
        self.weight = layer.weight[rows]
        self.bias = None if layer.bias is None else layer.bias[rows]


class SeparateProjections(HFChain):
    """``q``, ``k`` and ``v`` layers (nn.Linear, weight (out, D)), named by the record — or one ``fused-linear``
    nn.Linear making [q (H·d) | k (G·d) | v (G·d)] (Phi-3's qkv_proj, ModernBERT's Wqkv); grouped-query heads share
    one key/value head per group."""

    @property
    def heads(self) -> int:
        if self.record.projection.style == "fused-linear":
            return int(getattr(self.module, "num_heads", 0) or 0) or self._fused_heads()[0]
        return int(self._layers()[0].weight.shape[0]) // self.head_width

    def _fused_heads(self) -> tuple[int, int]:
        """(H, G) of a fused-linear module: its config's heads (the rows are H·d + 2·G·d)."""
        config: Any = getattr(self.module, "config")  # noqa: B009 (Phi-3's and ModernBERT's modules keep it)
        heads = int(config.num_attention_heads)
        groups = int(getattr(config, "num_key_value_heads", None) or heads)
        return heads, groups

    def _layers(self) -> tuple[Any, Any, Any]:
        if self.record.projection.style == "fused-linear":
            fused = getattr(self.module, self.record.projection.layers[0])
            heads, groups = self._fused_heads()
            q, kv = heads * self.head_width, groups * self.head_width
            return _Part(fused, slice(0, q)), _Part(fused, slice(q, q + kv)), _Part(fused, slice(q + kv, q + 2 * kv))
        q, k, v = (getattr(self.module, name) for name in self.record.projection.layers)
        return q, k, v

    def _shared_note(self, head: int) -> str:
        """What the key formula adds when ``head`` (0-based) shares its key/value head with other query heads
        (grouped-query attention): " (key/value head 1 of 2, shared by 2 query heads)", or ""."""
        _q, k_layer, _v = self._layers()
        heads = self.heads
        groups = int(k_layer.weight.shape[0]) // self.head_width if self.record.projection.grouped else heads
        if groups >= heads:
            return ""
        return tr(" (key/value head {group} of {groups}, shared by {count} query heads)").format(
            group=head // (heads // groups) + 1, groups=groups, count=heads // groups)

    def _projected(self, a: np.ndarray, a_keys: np.ndarray, a_values: np.ndarray, head: int) -> Chain:
        q_layer, k_layer, v_layer = self._layers()
        d, heads = self.head_width, self.heads
        groups = int(k_layer.weight.shape[0]) // d if self.record.projection.grouped else heads
        group = head // (heads // groups)
        kv = slice(group * d, (group + 1) * d)
        q_bias = "" if q_layer.bias is None else " + b_q"
        k_bias, v_bias = ("", "") if k_layer.bias is None else (" + b_k", " + b_v")
        shared = self._shared_note(head)
        formulas = {"query": f"q = W_q a{q_bias}", "key": f"k_j = W_k a_j{k_bias}{shared}",
                    "value": f"v_j = W_v a_j{v_bias}"}
        return Chain(_project(q_layer, a, slice(head * d, (head + 1) * d)), _project(k_layer, a_keys, kv),
                     _project(v_layer, a_values, kv), formulas, "dot")

    def explain(self, a: np.ndarray, a_keys: np.ndarray, a_values: np.ndarray, head: int, *,
                query_row: int = 0) -> Chain:
        """Head ``head`` of the query input a (D,) and the key and value inputs (K, D), by hand."""
        return self._scaled(self._projected(a, a_keys, a_values, head))


class FusedProjections(HFChain):
    """GPT-2: one Conv1D ``c_attn`` (weight (D, 3·D)) makes [W_q | W_k | W_v]."""

    @property
    def heads(self) -> int:
        return self._width() // self.head_width

    def _width(self) -> int:
        return int(getattr(self.module, self.record.projection.layers[0]).weight.shape[1]) // 3

    def explain(self, a: np.ndarray, a_keys: np.ndarray, a_values: np.ndarray, head: int, *,
                query_row: int = 0) -> Chain:
        fused, width, d = getattr(self.module, self.record.projection.layers[0]), self._width(), self.head_width
        rows = [slice(part * width + head * d, part * width + (head + 1) * d) for part in range(3)]
        formulas = {"query": tr("q = W_q a + b_q  (GPT-2's c_attn, query part)"), "key": "k_j = W_k a_j + b_k",
                    "value": "v_j = W_v a_j + b_v"}
        chain = Chain(_project(fused, a, rows[0], True), _project(fused, a_keys, rows[1], True),
                      _project(fused, a_values, rows[2], True), formulas, "dot")
        return self._scaled(chain)


def _rotate(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """RoPE as transformers applies it: x·cos + rotate_half(x)·sin, pairs (i, i + d/2)."""
    half = x.shape[-1] // 2
    turned = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + turned * sin


def _rotated(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """RoPE on x (…, d) with angles (…, r): r = d as Llama; r < d the first r dimensions only (a partial rotary
    factor, Phi-3's kind: the rest pass unturned)."""
    width = cos.shape[-1]
    if width >= x.shape[-1]:
        return _rotate(x, cos, sin)
    return np.concatenate([_rotate(x[..., :width], cos, sin), x[..., width:]], axis=-1)


class RotaryProjections(SeparateProjections):
    """Llama, Qwen2 and today's rotary models: separate (or fused-linear), grouped projections; q and every key
    normalised where the layer does QK-norm, then rotated by their positions' angles (not in a layer without
    positions); the layer's soft-cap, window and sink (``variant``) passed on to the scoring."""

    rotary = True

    def __init__(self, module: nn.Module, record: Architecture, cross: bool, variant: LayerVariant | None = None):
        super().__init__(module, record, cross)
        self.variant = variant or LayerVariant(0, rotary=True, rotary_base=10000.0)
        self._norms: dict[str, Any] = {}

    def _norm(self, name: str) -> Any:
        """The module's ``q_norm`` or ``k_norm`` in float64 (a copy, made once)."""
        if name not in self._norms:
            import copy

            self._norms[name] = copy.deepcopy(getattr(self.module, name)).to("cpu", torch.float64).eval()
        return self._norms[name]

    def _normed(self, name: str, x: np.ndarray, inputs: np.ndarray, layer: Any, index: int) -> np.ndarray:
        """QK-norm of one head's vectors x (…, d) made from ``inputs`` (…, D) (``index``: the head of ``layer``'s rows
        it is): of the head itself (Qwen3, Gemma 3) or, OLMo 2, of the whole projection, the head's part taken after."""
        norm, d = self._norm(name), self.head_width
        with torch.no_grad():
            if self.variant.qk_norm == "head":
                return norm(torch.from_numpy(np.ascontiguousarray(x))).numpy()
            whole = _numpy(layer.weight)  # (the whole projection, every head: OLMo 2 normalises across them)
            vectors = inputs @ whole.T + (0 if layer.bias is None else _numpy(layer.bias))
            return norm(torch.from_numpy(vectors)).numpy()[..., index * d:(index + 1) * d]

    def explain(self, a: np.ndarray, a_keys: np.ndarray, a_values: np.ndarray, head: int, *,
                query_row: int = 0) -> Chain:
        chain = self._projected(a, a_keys, a_values, head)
        variant, d = self.variant, self.head_width
        query, keys = chain.q, chain.keys
        shared = self._shared_note(head)  # (said after the whole key chain, not inside its norm and rotation)
        query_words, key_words = chain.formulas["query"].removeprefix("q = "), \
            chain.formulas["key"].removeprefix("k_j = ").removesuffix(shared)
        if variant.qk_norm:
            q_layer, k_layer, _ = self._layers()
            groups = int(k_layer.weight.shape[0]) // d
            query = self._normed("q_norm", query, a, q_layer, head)
            keys = self._normed("k_norm", keys, a_keys, k_layer, head // (self.heads // groups))
            query_words, key_words = f"RMSNorm({query_words})", f"RMSNorm({key_words})"
        if variant.rotary_base is not None:
            if not self.angles:
                raise RuntimeError("the rotary attention module received no position angles")
            cos = _numpy(torch.cat([c for c, _ in self.angles], dim=1)[0])
            sin = _numpy(torch.cat([s for _, s in self.angles], dim=1)[0])
            if self.record.sinks and cos.shape[-1] * 2 == d:  # (gpt-oss: one angle per pair (i, i + d/2), not two)
                cos, sin = np.concatenate([cos, cos], axis=-1), np.concatenate([sin, sin], axis=-1)
            keys = _rotated(keys, cos[: len(keys)], sin[: len(keys)])
            query = _rotated(query, cos[query_row], sin[query_row])
            query_words = tr("RoPE_m({projection}), m = {row}: rotated by its position (base {base:,.0f})").format(
                projection=query_words, row=query_row, base=variant.rotary_base)
            key_words = f"RoPE_j({key_words})"
        else:
            query_words = tr("{projection}: this layer adds no positions (no RoPE)").format(projection=query_words)
        formulas = {**chain.formulas, "query": f"q = {query_words}", "key": f"k_j = {key_words}{shared}"}
        scaled = self._scaled(Chain(query, keys, chain.values, formulas, "dot"))
        sink = None
        if variant.sink:
            sink = float(getattr(self.module, self.record.sinks).detach().to("cpu", torch.float64)[head])
        score = scaled.formulas["score"]
        if variant.softcap is not None:
            score = tr("{score}, capped: s_j ← {cap:g}·tanh(s_j / {cap:g})").format(score=score, cap=variant.softcap)
        window = None if variant.window is None else (variant.window, variant.bidirectional)
        return Chain(scaled.q, scaled.keys, scaled.values, {**scaled.formulas, "score": score}, "dot",
                     scale=scaled.scale, softcap=variant.softcap, window=window, sink_logit=sink)


class RelativeBiasProjections(SeparateProjections):
    """T5: ``q``/``k``/``v``, no 1/√d, and a learned bias per head and relative distance (looked up in the table of
    the stack's first layer, which every layer adds) on each self-attention score."""

    def __init__(self, module: nn.Module, record: Architecture, cross: bool, first_layer: Any):
        super().__init__(module, record, cross)
        self.first_layer = first_layer

    def explain(self, a: np.ndarray, a_keys: np.ndarray, a_values: np.ndarray, head: int, *,
                query_row: int = 0) -> Chain:
        chain = self._scaled(self._projected(a, a_keys, a_values, head))
        if self.cross:
            return chain
        keys = len(chain.keys)
        bias = _numpy(self.first_layer.compute_bias(keys, keys)[0, head, query_row])
        words = tr("s_j = q·k_j + b(j − {row}): T5's learned bias for each relative distance, no 1/√d").format(
            row=query_row)
        return Chain(chain.q, chain.keys, chain.values, {**chain.formulas, "score": words}, "dot", scale=chain.scale,
                     score_bias=bias)


def hf_chains(model: Any, kind: AttentionKind) -> list[HFChain]:
    """Each layer's chain of ``kind`` in a Hugging Face model (its adapter: ``model.architecture`` is the record),
    one adapter per projection style."""
    record: Architecture = model.architecture
    modules = model.attention_modules(kind)
    cross = kind is AttentionKind.CROSS
    if record.position_kind == "relative bias":
        return [RelativeBiasProjections(m, record, cross, modules[0]) for m in modules]
    if record.position_kind == "rotary":
        variants = tuple(getattr(model, "variants", ()))  # (each layer's twist: core/hf/variants.py)
        return [RotaryProjections(m, record, cross, variants[i] if i < len(variants) else None)
                for i, m in enumerate(modules)]
    style = FusedProjections if record.projection.style == "fused" else SeparateProjections
    return [style(m, record, cross) for m in modules]
