"""What one decoded step's attention is made of, for each family of attnviz's own translation models.

One teacher-forced pass over the source and ``<bos>`` + the target prefix gives, for the newest query (the
position that predicts the next token): every layer's attention weights over its keys, the values each head
mixes, projected by that head's slice of W_O (Kobayashi et al. 2020's f_h(x_j)), and the layer matrices that
rollout and attention flow walk through. A family is one function here, which its registry record names
(:attr:`attnviz.core.models.kinds.ModelKind.internals`). Shapes: L layers, H heads, K keys of a layer, S source tokens,
t target positions (``<bos>`` + prefix), D width, Dh head width, P = S + t (decoder-only).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np
import torch
from torch import Tensor, nn

from attnviz.core.attention.layers import Attended
from attnviz.core.attention.rollout import layer_matrices, rollout, source_attribution
from attnviz.core.layout import Capability
from attnviz.core.models.decoder_only import Block, DecoderOnly
from attnviz.core.models.encoder_only import EncoderOnly
from attnviz.core.models.kinds import ModelKind, kind_of
from attnviz.core.models.seq2seq import Seq2SeqAttention
from attnviz.core.models.transformer import DecoderBlock, EncoderBlock, Transformer

from .flow import layered_flow


@dataclass(frozen=True)
class AttentionKindAtStep:
    """One kind of attention (cross, decoder self …) for the newest query, every layer.

    weights (L, H, K); transformed (L, H, K, D): f_h(x_j), the value of key j through head h's W_V and its
    slice of W_O (so Σ_h Σ_j weights·transformed + bias = the layer's attention output); output (L, D): that
    output as the model computed it; bias (L, D): W_O's bias (zeros where it has none); keys: K labels.
    """

    name: str
    weights: np.ndarray
    transformed: np.ndarray
    output: np.ndarray
    bias: np.ndarray
    keys: tuple[str, ...]


@dataclass(frozen=True)
class StepInternals:
    """A step's internals: log_probs (V,) of the next token; kinds (the first one reads the source);
    source: which of the first kind's keys are the source tokens; rollout (L, S) per layer of the first kind,
    and flow_of(layer) -> (S,) its attention flow (computed when asked: max flows cost the most), or None where
    they do not apply (one recurrent attention: nothing to roll out)."""

    log_probs: np.ndarray
    kinds: tuple[AttentionKindAtStep, ...]
    source: slice
    rollout: np.ndarray | None
    flow_of: Callable[[int], np.ndarray] | None


def _np(tensor: Tensor) -> np.ndarray:
    return tensor.detach().to(device="cpu", dtype=torch.float64).numpy()


def _through_heads(value_heads: Tensor, w_o: nn.Linear) -> tuple[np.ndarray, np.ndarray]:
    """value_heads (H, K, Dh) -> f (H, K, D): each head's values through its slice of W_O; and W_O's bias (D,)."""
    heads, _, width = value_heads.shape
    weight = w_o.weight.view(w_o.weight.shape[0], heads, width)  # (D, H, Dh)
    f = torch.einsum("hkd,ehd->hke", value_heads, weight)
    bias = w_o.bias if w_o.bias is not None else torch.zeros(w_o.weight.shape[0], device=f.device)
    return _np(f), _np(bias)


def _kind(name: str, attended: list, values: list[Tensor], w_os: list[nn.Linear], keys: tuple[str, ...],
          columns: slice | None = None) -> AttentionKindAtStep:
    """Stack per-layer Attended (B=1, H, T, K'), value heads (1, H, K', Dh) and W_O into one kind, newest row;
    ``columns``: the keys kept (default all)."""
    cut = columns or slice(None)
    weights, transformed, outputs, biases = [], [], [], []
    for att, value, w_o in zip(attended, values, w_os, strict=True):
        weights.append(_np(att.weights[0, :, -1, cut]))
        f, bias = _through_heads(value[0, :, cut], w_o)
        transformed.append(f)
        outputs.append(_np(att.output[0, -1]))
        biases.append(bias)
    return AttentionKindAtStep(name, np.stack(weights), np.stack(transformed), np.stack(outputs), np.stack(biases),
                               keys)


def transformer_internals(model: Transformer, src: Tensor, tgt_in: Tensor, labels: tuple[str, ...],
                          target_labels: tuple[str, ...]) -> StepInternals:
    valid = torch.tensor([src.shape[1]], device=src.device)
    encoding = model.encode(src, valid, need_scores=True)
    logits, state, att = model.decode(tgt_in, encoding.state, need_scores=True)
    blocks = [cast(DecoderBlock, b) for b in model.decoder_blocks]
    cross = _kind("cross", att.cross_attention, [c.cross_values for c in state.caches],
                  [b.cross_attention.W_o for b in blocks], labels)
    self_kind = _kind("decoder self", att.self_attention, [c.self_values for c in state.caches],
                      [b.self_attention.W_o for b in blocks], target_labels)
    encoder = np.stack([_np(a.weights[0]) for a in encoding.attention])  # (L_enc, H, S, S)
    matrices = layer_matrices(encoder)  # (L_enc, S, S), first layer first
    rolled = source_attribution(cross.weights[:, :, None, :], rollout(encoder)[-1])[:, 0]  # (L_dec, S)
    tops = cross.weights.mean(axis=1)  # (L_dec, S): each decoder layer's query reads the encoder's top layer

    def flow(layer: int) -> np.ndarray:
        return layered_flow(tops[layer], list(matrices[::-1]))
    log_probs = _np(torch.log_softmax(logits[0, -1].float(), dim=-1))
    return StepInternals(log_probs, (cross, self_kind), slice(0, src.shape[1]), rolled, flow)


def decoder_only_internals(model: DecoderOnly, src: Tensor, tgt_in: Tensor, labels: tuple[str, ...],
                           target_labels: tuple[str, ...]) -> StepInternals:
    width = src.shape[1]
    valid = torch.tensor([width], device=src.device)
    prompt_state, prompt_att = model.prompt(src, valid, need_scores=True)
    logits, state, att = model.decode(tgt_in, prompt_state, need_scores=True)
    blocks = [cast(Block, b) for b in model.blocks]
    whole = _kind("self", att, state.values, [b.attention.W_o for b in blocks], labels + target_labels)
    # every layer's full (H, P, P) causal self-attention: the prompt's rows, then the answer's
    full = []
    for prompt_rows, answer in zip(prompt_att, att, strict=True):
        heads = prompt_rows.weights.shape[1]
        top = torch.cat([prompt_rows.weights[0], prompt_rows.weights.new_zeros(heads, width, tgt_in.shape[1])], -1)
        full.append(_np(torch.cat([top, answer.weights[0]], dim=1)))
    matrices = layer_matrices(np.stack(full))  # (L, P, P)
    chained = rollout(np.stack(full))[:, -1, :width]  # (L, S): the newest row after each layer, prompt columns

    def flow(layer: int) -> np.ndarray:  # the newest position after ``layer`` reads the layers below
        return layered_flow(matrices[layer, -1], list(matrices[:layer][::-1]), range(width))
    log_probs = _np(torch.log_softmax(logits[0, -1].float(), dim=-1))
    return StepInternals(log_probs, (whole,), slice(0, width), chained, flow)


def recurrent_internals(model: Seq2SeqAttention, src: Tensor, tgt_in: Tensor, labels: tuple[str, ...],
                        target_labels: tuple[str, ...]) -> StepInternals:
    state = model.encode(src, torch.tensor([src.shape[1]], device=src.device))
    for t in range(tgt_in.shape[1] - 1):
        _, state, _ = model.decode_step(tgt_in[:, t], state)
    query = state.hidden[-1][:, None, :]  # the attention call of the last step, repeated to keep its output
    attended = model.attention(query, state.enc_outputs, state.enc_outputs, state.src_valid_lens)
    logits, _, att = model.decode_step(tgt_in[:, -1], state)
    values = state.enc_outputs[0]  # (S, Hd): not projected; the context vector is Σ_j α_j h_j
    kind = AttentionKindAtStep("cross", _np(att.weights[0])[None], _np(values)[None, None],
                               _np(attended.output[0, -1])[None], np.zeros((1, values.shape[-1])), labels)
    log_probs = _np(torch.log_softmax(logits[0].float(), dim=-1))
    return StepInternals(log_probs, (kind,), slice(0, src.shape[1]), None, None)


@torch.no_grad()
def masked_internals(model: EncoderOnly, ids: Tensor, segments: Tensor, position: int, labels: tuple[str, ...]
                     ) -> StepInternals:
    """An encoder-only model (a small BERT) predicting the token at ``position`` of ids (1, S) (segments (1, S)):
    its self-attention's row ``position`` in every layer over all S tokens ([CLS] and [SEP] included)."""
    valid = torch.tensor([ids.shape[1]], device=ids.device)
    x = model.embed(ids, segments)
    attended, values, w_os, full = [], [], [], []
    for block in model.blocks:
        attention = cast(EncoderBlock, block).attention
        values.append(attention.project_keys_values(x, x)[1])  # (1, H, S, Dh): this block's input, projected
        x, att = block(x, valid)
        # the query row ``position`` as the newest row (what _kind reads)
        attended.append(Attended(att.output[:, : position + 1], att.weights[:, :, : position + 1]))
        w_os.append(attention.W_o)
        full.append(_np(att.weights[0]))  # (H, S, S)
    kind = _kind("self", attended, values, w_os, labels)
    weights = np.stack(full)  # (L, H, S, S)
    matrices = layer_matrices(weights)  # (L, S, S)
    rolled = rollout(weights)[:, position]  # (L, S)

    def flow(layer: int) -> np.ndarray:
        return layered_flow(matrices[layer, position], list(matrices[:layer][::-1]))

    logits = model.mlm_logits(x, torch.tensor([[position]], device=ids.device))[0, 0]
    log_probs = _np(torch.log_softmax(logits.float(), dim=-1))
    return StepInternals(log_probs, (kind,), slice(0, ids.shape[1]), rolled, flow)


@torch.no_grad()
def step_internals(model: nn.Module, src: Tensor, tgt_in: Tensor, labels: tuple[str, ...],
                   target_labels: tuple[str, ...]) -> StepInternals:
    """src (1, S) source ids, tgt_in (1, t) ``<bos>`` + prefix ids; labels (S,), target_labels (t,)."""
    kind = _kind_of(model)
    if kind.sequence_layout.offers(Capability.MASKS):
        raise ValueError(f"a {kind.name} model predicts a masked position, not a next token (masked_internals)")
    return cast(StepInternals, kind.internals_reader()(model, src, tgt_in, labels, target_labels))


def _kind_of(model: nn.Module) -> ModelKind:
    """The registry record of ``model``; ValueError for a model attnviz did not build."""
    try:
        return kind_of(model.config)
    except (AttributeError, TypeError):
        raise ValueError(f"explanations cover attnviz's own models, not {type(model).__name__}") from None
