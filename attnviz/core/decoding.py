"""Decoding the translation models: one family-independent step interface, batched greedy decoding.

The step-by-step session for the GUI and the CLI builds on :func:`start` and :func:`step`.
Shapes: B batch (or beams), S source length, V target vocabulary, H heads, L layers.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from attnviz.core.attention import Attended
from attnviz.core.seq2seq import RnnState, Seq2SeqAttention
from attnviz.core.transformer import Transformer, TransformerState

DecoderState = RnnState | TransformerState


@dataclass
class StepAttention:
    """One decoder step's attention, newest query row only.

    cross_weights, cross_scores: (B, L, H, S) — the RNN models have L = H = 1.
    self_weights, self_scores: (B, L, H, t) over the t target positions so far (Transformer), else None.
    """

    cross_weights: Tensor
    cross_scores: Tensor
    self_weights: Tensor | None = None
    self_scores: Tensor | None = None


def _stack_last_row(atts: list[Attended]) -> tuple[Tensor, Tensor]:
    """Per-layer (B, H, T, K) weights/scores -> the last query row of each, stacked to (B, L, H, K)."""
    weights = torch.stack([a.weights[:, :, -1] for a in atts], dim=1)
    scores = torch.stack([a.scores[:, :, -1] for a in atts if a.scores is not None], dim=1)
    return weights, scores


def start(model: nn.Module, src: Tensor, src_valid_lens: Tensor,
          need_attention: bool = False) -> tuple[DecoderState, list[Attended]]:
    """Encode a batch: src (B, S), src_valid_lens (B,) -> decoder state and, for the Transformer,
    each encoder layer's self-attention (weights and scores (B, H, S, S)); [] for the RNN models."""
    if isinstance(model, Transformer):
        encoding = model.encode(src, src_valid_lens, need_scores=need_attention)
        return encoding.state, encoding.attention
    if isinstance(model, Seq2SeqAttention):
        return model.encode(src, src_valid_lens), []
    raise TypeError(f"{type(model).__name__} is not a translation model")


def step(model: nn.Module, tokens: Tensor, state: DecoderState, need_attention: bool = False
         ) -> tuple[Tensor, DecoderState, StepAttention | None]:
    """One decoder step: tokens (B,) previous tokens -> log-probabilities (B, V), next state, attention."""
    if isinstance(model, Transformer) and isinstance(state, TransformerState):
        logits, state, att = model.decode(tokens[:, None], state, need_scores=need_attention)
        log_probs = torch.log_softmax(logits[:, -1].float(), dim=-1)
        if not need_attention:
            return log_probs, state, None
        cross_w, cross_s = _stack_last_row(att.cross_attention)
        self_w, self_s = _stack_last_row(att.self_attention)
        return log_probs, state, StepAttention(cross_w, cross_s, self_w, self_s)
    if isinstance(model, Seq2SeqAttention) and isinstance(state, RnnState):
        logits, state, rnn_att = model.decode_step(tokens, state)
        log_probs = torch.log_softmax(logits.float(), dim=-1)
        if not need_attention:
            return log_probs, state, None
        # (B, 1, S) -> (B, L=1, H=1, S)
        return log_probs, state, StepAttention(rnn_att.weights[:, None], rnn_att.scores[:, None])
    raise TypeError(f"{type(model).__name__} cannot step a {type(state).__name__}")


@torch.inference_mode()
def greedy_batch(model: nn.Module, src: Tensor, src_valid_lens: Tensor, bos_id: int, eos_id: int,
                 max_len: int) -> list[list[int]]:
    """Greedy-decode a batch with the cache; returns each row's token ids, without <eos>."""
    state, _ = start(model, src, src_valid_lens)
    batch = src.shape[0]
    tokens = torch.full((batch,), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(batch, dtype=torch.bool, device=src.device)
    out: list[list[int]] = [[] for _ in range(batch)]
    for _ in range(max_len):
        log_probs, state, _ = step(model, tokens, state)
        tokens = log_probs.argmax(-1)
        for i, (tok, finished) in enumerate(zip(tokens.tolist(), done.tolist(), strict=True)):
            if not finished and tok != eos_id:
                out[i].append(tok)
        done |= tokens == eos_id
        if bool(done.all()):
            break
    return out


@torch.inference_mode()
def step_uncached(model: nn.Module, src: Tensor, src_valid_lens: Tensor, prefix: Tensor,
                  encoded: DecoderState | None = None) -> Tensor:
    """Next-token log-probabilities (B, V) after ``prefix`` (B, t, starting with <bos>), the decoder
    recomputed over the whole prefix with no cache: what a step costs without incremental decoding.

    encoded: the state ``start`` returned for this source (its encoding is reused; default: encode again).
    """
    state = encoded if encoded is not None else start(model, src, src_valid_lens)[0]
    if isinstance(model, Transformer) and isinstance(state, TransformerState):
        logits, _, _ = model.decode(prefix, state)
        return torch.log_softmax(logits[:, -1].float(), dim=-1)
    log_probs = None
    for t in range(prefix.shape[1]):
        log_probs, state, _ = step(model, prefix[:, t], state)
    assert log_probs is not None
    return log_probs
