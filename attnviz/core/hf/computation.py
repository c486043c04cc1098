"""One attention query of a Hugging Face model, recomputed from the module's own projections.

:func:`compute_hf_query` runs the model as decoding runs it (the adapter's ``start`` and one ``step`` per
decoder input) while a pre-hook on the chosen attention module records what it received: the hidden states
(its query inputs ``a``), an encoder–decoder's encoder output (cross-attention's key inputs) and the rotary
angles (Llama, Qwen2). Then one head's query, keys and values are projected by hand with the module's own
weights, rotated (RoPE), scored with the module's own scale, softmaxed over the visible keys and summed —
float64 numpy — next to the row the model recorded itself.

Families, as the model's record (:class:`~attnviz.core.hf.folder.Architecture`) says: Marian, BART and mBART
(separate ``q_proj``/``k_proj``/``v_proj``), GPT-2 (one fused ``c_attn`` Conv1D that makes q, k and v), Llama and
Qwen2 (grouped-query heads: query head h reads key/value head h // (H/G); rotary positions), T5 (``q``/``k``/``v``,
no 1/√d, its relative position bias added to each score).
Shapes: S source (prompt) tokens, T decoder inputs, D model width, d head width, K keys.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from attnviz.core.computation import QueryComputation, StageFormulas, masked_softmax
from attnviz.core.hf import compat
from attnviz.core.hf.attention import AttentionCall, recording
from attnviz.core.hf.folder import Architecture, Projection
from attnviz.core.kinds import AttentionKind
from attnviz.i18n import tr


@dataclass
class _Inputs:
    """Per forward call of the hooked module (batch of one): its hidden states (1, Q, D), the key/value
    states of cross-attention (1, S, D) or None, the rotary (cos, sin) (1, Q, d) or None."""

    hidden: list[Tensor] = field(default_factory=list)
    key_value: list[Tensor | None] = field(default_factory=list)
    rotary: list[tuple[Tensor, Tensor] | None] = field(default_factory=list)


@contextmanager
def _hooked(module: nn.Module, rotary: bool) -> Iterator[_Inputs]:
    """Record what ``module`` receives (``rotary``: its positions' angles too) while inside."""
    inputs, owner = _Inputs(), threading.get_ident()

    def hook(_module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if threading.get_ident() != owner:
            return
        hidden, key_value, angles = compat.attention_inputs(args, kwargs, rotary)
        inputs.hidden.append(hidden.detach())
        inputs.key_value.append(key_value)
        inputs.rotary.append(None if angles is None else (angles[0].detach(), angles[1].detach()))

    handle = module.register_forward_pre_hook(hook, with_kwargs=True)
    try:
        yield inputs
    finally:
        handle.remove()


def _numpy(tensor: Tensor) -> np.ndarray:
    return tensor.detach().to(device="cpu", dtype=torch.float64).numpy()


def _linear(layer: Any, x: np.ndarray, rows: slice, fused: bool) -> np.ndarray:
    """``x`` (…, D) through rows ``rows`` of an nn.Linear (weight (out, D)) or, ``fused``, GPT-2's Conv1D (weight
    (D, out))."""
    weight = _numpy(layer.weight)
    weight = weight[:, rows].T if fused else weight[rows]
    out = x @ weight.T
    return out if layer.bias is None else out + _numpy(layer.bias)[rows]


def _rotate(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """RoPE as transformers applies it: x·cos + rotate_half(x)·sin, pairs (i, i + d/2)."""
    half = x.shape[-1] // 2
    turned = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + turned * sin


@dataclass(frozen=True)
class _Heads:
    """How one query head of ``module`` is made: its q, k, v projections (module, row slice) and words."""

    q: tuple[Any, slice]
    k: tuple[Any, slice]
    v: tuple[Any, slice]
    formulas: tuple[str, str, str]
    shared: str = ""  # grouped-query attention: which key/value head this query head reads


def _heads(module: Any, head: int, projection: Projection) -> _Heads:
    """The projections of query head ``head``, made as the record's ``projection`` says."""
    d = int(getattr(module, projection.head_width))
    if projection.style == "fused":  # GPT-2: [W_q | W_k | W_v] in one Conv1D
        fused, width = getattr(module, projection.layers[0]), int(module.embed_dim)
        rows = [slice(part * width + head * d, part * width + (head + 1) * d) for part in range(3)]
        words = (tr("q = W_q a + b_q  (GPT-2's c_attn, query part)"), "k_j = W_k a_j + b_k", "v_j = W_v a_j + b_v")
        return _Heads((fused, rows[0]), (fused, rows[1]), (fused, rows[2]), words)
    q_layer, k_layer, v_layer = (getattr(module, name) for name in projection.layers)
    heads = q_layer.weight.shape[0] // d
    groups = k_layer.weight.shape[0] // d if projection.grouped else heads
    group = head // (heads // groups)
    kv = slice(group * d, (group + 1) * d)
    bias = "" if q_layer.bias is None else " + b_q"
    k_bias, v_bias = ("", "") if k_layer.bias is None else (" + b_k", " + b_v")
    shared = tr(" (key/value head {group} of {groups}, shared by {count} query heads)").format(
        group=group + 1, groups=groups, count=heads // groups) if groups < heads else ""
    words = (f"q = W_q a{bias}", f"k_j = W_k a_j{k_bias}", f"v_j = W_v a_j{v_bias}")
    return _Heads((q_layer, slice(head * d, (head + 1) * d)), (k_layer, kv), (v_layer, kv), words, shared)


def compute_hf_query(loaded: Any, source_ids: Sequence[int], source_tokens: Sequence[str],
                     query_tokens: Sequence[str], kind: AttentionKind, asked: AttentionKind, layer: int, head: int,
                     query_index: int, device: torch.device,
                     source_segments: Sequence[int] | None = None) -> QueryComputation:
    """The computation of one query of one head of a Hugging Face model (see the module docstring).

    source_ids: the S ids the model read (the tokenizer's own); query_tokens: the decoder inputs so far (an
    encoder–decoder's decoder start first; a decoder-only model's prompt's last token first). kind: the
    attention computed (a decoder-only model's source view is its self-attention: ``asked`` is what the
    user asked for and is what the result says). source_segments: an encoder-only model's token type ids."""
    model = loaded.model
    layout = loaded.layout
    record: Architecture = model.architecture
    module = model.attention_modules(kind)[layer]
    parts = _heads(module, head, record.projection)
    fused = record.projection.style == "fused"
    model.to(device).eval()
    src = torch.tensor([list(source_ids)], dtype=torch.long, device=device)
    target = loaded.tgt_vocab.ids(query_tokens) if query_tokens and kind is not AttentionKind.ENCODER_SELF else []
    steps = 0 if kind is AttentionKind.ENCODER_SELF else len(query_tokens)
    with torch.inference_mode(), _hooked(module, record.position_kind == "rotary") as inputs, recording() as calls:
        segments = {} if source_segments is None else {  # (only an encoder-only model reads segments)
            "segments": torch.tensor([list(source_segments)], dtype=torch.long, device=device)}
        state, _ = model.start(src, torch.tensor([len(source_ids)], device=device), **segments)
        for t in range(steps):
            _, state, _ = model.step(torch.tensor([target[t]], device=device), state)
    own = [c for c in calls if c.module is module]
    source_tokens, query_tokens = tuple(source_tokens), tuple(query_tokens)
    prompt = len(source_tokens)
    shared = 1 if loaded.model_kind.prompt_predicts else 0  # (the first query is the prompt's last position)
    if kind is not AttentionKind.DECODER_SELF:
        query_row, key_tokens = query_index, source_tokens
    else:
        query_row = layout.answer_first_row(prompt, shared) + query_index
        key_tokens = layout.answer_keys(source_tokens, query_tokens, shared)
    cross = kind is AttentionKind.CROSS  # (a decoder-only model's source view arrives here as its self-attention)
    if not inputs.hidden or len(own) <= (0 if kind is AttentionKind.ENCODER_SELF else query_index):
        raise RuntimeError(f"the {kind.value} module of layer {layer + 1} was not called as decoding calls it")
    hidden = _numpy(torch.cat(inputs.hidden, dim=1)[0])  # every position this module has seen, in order
    a = hidden[query_row]
    encoder_output = inputs.key_value[query_index] if cross else None
    if cross and encoder_output is None:
        raise RuntimeError("the cross-attention module received no encoder output")
    a_keys = _numpy(encoder_output[0]) if encoder_output is not None else hidden
    if a_keys.shape[0] != len(key_tokens):
        raise RuntimeError(f"the {kind.value} module received {a_keys.shape[0]} keys; expected {len(key_tokens)}")
    q = _linear(parts.q[0], a, parts.q[1], fused)
    keys, values = _linear(parts.k[0], a_keys, parts.k[1], fused), _linear(parts.v[0], a_keys, parts.v[1], fused)
    query_words, key_words, value_words = parts.formulas
    if record.position_kind == "rotary":  # RoPE: rotate q and every k by its position's angles
        cos = _numpy(torch.cat([r[0] for r in inputs.rotary if r is not None], dim=1)[0])
        sin = _numpy(torch.cat([r[1] for r in inputs.rotary if r is not None], dim=1)[0])
        q, keys = _rotate(q, cos[query_row], sin[query_row]), _rotate(keys, cos, sin)
        query_words = tr("q = RoPE_m({projection}), m = {row}: rotated by its position").format(
            projection=query_words.removeprefix("q = "), row=query_row)
        key_words = f"k_j = RoPE_j({key_words.removeprefix('k_j = ')})"
    key_words += parts.shared
    scaling = float(module.scaling)  # (the module's own: 1/√d, GPT-2's per layer, T5's 1)
    scores = keys @ q * scaling
    bias = _relative_bias(model.attention_modules(kind)[0], len(key_tokens), query_row, head) \
        if kind is not AttentionKind.CROSS and record.position_kind == "relative bias" else None
    if bias is not None:  # T5: a learned number per head and relative distance, added to every score
        scores = scores + bias
    positions = np.arange(len(key_tokens))
    causal = kind is AttentionKind.DECODER_SELF or layout.source_causal
    visible = positions <= query_row if causal else np.ones(len(key_tokens), bool)
    weights = masked_softmax(scores, visible)
    recorded = _recorded(own, query_row if kind is AttentionKind.ENCODER_SELF else query_index, kind)
    model_weights, model_scores = (np.zeros(len(key_tokens)) for _ in range(2))
    width = min(len(key_tokens), recorded[0].shape[-1])
    model_weights[:width] = _numpy(recorded[0][0, head, :width])
    model_scores[:width] = _numpy(recorded[1][0, head, :width])
    divisor = 1 / scaling
    score_words = f"s_j = q·k_j / {divisor:.4g}" if abs(divisor - round(divisor)) > 1e-6 or divisor > 1 \
        else "s_j = q·k_j"
    if abs(divisor - q.shape[0] ** 0.5) < 1e-6:
        score_words = f"s_j = q·k_j / √{q.shape[0]}"
    if bias is not None:
        score_words = tr("s_j = q·k_j + b(j − {row}): T5's learned bias for each relative distance, no 1/√d").format(
            row=query_row)
    if asked is not kind:  # the source view, computed as the self-attention it is part of
        weights_words = tr("α = softmax(s) over visible keys (causal mask: j ≤ {row}; the source view is keys "
                           "1–{prompt})").format(row=query_row, prompt=prompt)
    elif causal:
        weights_words = tr("α = softmax(s) over visible keys (causal mask: j ≤ {row})").format(row=query_row)
    else:
        weights_words = tr("α = softmax(s) over visible keys (every source token)")
    query_token = (source_tokens if kind is AttentionKind.ENCODER_SELF else query_tokens)[query_index]
    return QueryComputation(
        model_kind=loaded.kind, kind=asked, layer=layer, head=head, query_index=query_index, query_token=query_token,
        key_tokens=key_tokens, scoring="dot",
        formulas=StageFormulas(query=query_words, key=key_words, value=value_words, score=score_words,
                               weights=weights_words, output="b = Σ_j α_j v_j"),
        query_input=a, key_inputs=a_keys, query=q, keys=keys, values=values, scale=divisor,
        additive_query=None, additive_keys=None, additive_features=None, additive_w_v=None,
        scores=scores, visible=visible, weights=weights, output=weights @ values,
        model_weights=model_weights, model_scores=model_scores)


def _relative_bias(first_layer: Any, keys: int, query_row: int, head: int) -> np.ndarray:
    """T5's relative position bias of ``head`` for the query at ``query_row`` over ``keys`` keys, (keys,) —
    looked up in the table of the stack's first layer, which every layer adds."""
    return _numpy(first_layer.compute_bias(keys, keys)[0, head, query_row])


def _recorded(calls: list[AttentionCall], index: int, kind: AttentionKind) -> tuple[Tensor, Tensor]:
    """The module's own weights and scores (1, H, K) of the query: for the encoder (or the prompt) row
    ``index`` of its one call; for decoder query ``index``, the newest row of call ``index`` (a decoder-only
    model's call 0 is the prompt's, whose last row is its first query)."""
    if kind is AttentionKind.ENCODER_SELF:
        return calls[0].weights[:, :, index], calls[0].scores[:, :, index]
    return calls[index].weights[:, :, -1], calls[index].scores[:, :, -1]
