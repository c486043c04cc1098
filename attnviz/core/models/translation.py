"""The decoder interface every translation model implements; :mod:`attnviz.core.decoding.beam_search` drives it.

``start`` encodes a batch of sources and returns the decoder's initial state; ``step`` decodes one
token per row with a cache in that state; ``state.reorder(index)`` selects rows (beam search).
Shapes: B batch rows (sentences or beams), S source length, V target vocabulary, L layers, H heads,
t target positions so far.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, Self

import torch
from torch import Tensor, nn

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.layers import Attended


@dataclass(frozen=True)
class TranslationConfig:
    """The settings every translation model's config has (a family's config adds its own): vocabulary
    sizes, width, dropout, the longest source and target it takes, and whether the target embedding is
    tied to the output projection."""

    src_vocab_size: int
    tgt_vocab_size: int
    num_hiddens: int = 256
    dropout: float = 0.1
    max_src_len: int = 32
    max_tgt_len: int = 32
    tie_output: bool = True  # the target embedding and the output projection share one matrix


def token_embeddings(config: TranslationConfig) -> tuple[nn.Embedding, nn.Embedding]:
    """The source and target embedding tables (vocabulary × num_hiddens) of a Transformer-style model."""
    return (nn.Embedding(config.src_vocab_size, config.num_hiddens),
            nn.Embedding(config.tgt_vocab_size, config.num_hiddens))


class DecoderState(Protocol):
    """A translation model's cache between steps (keys/values or a hidden state)."""

    def reorder(self, index: Tensor) -> Self:
        """Keep rows ``index`` (B',) in that order."""
        ...


@dataclass(frozen=True)
class SourceSelfAttention:
    """The self-attention of every layer that reads the source, weights and pre-softmax scores (B, L, H, S, S): an
    encoder's (each position reads the whole source), or a decoder-only model's over its prompt (causal: each
    position reads the prompt up to itself). The views show it as the source's self-attention
    (``AttentionKind.ENCODER_SELF``, named by the model's layout: "self-attention (prompt)" for a decoder-only one)."""

    weights: Tensor
    scores: Tensor


@dataclass(frozen=True)
class StepAttention:
    """One decoder step's attention, newest query row only.

    cross_weights, cross_scores: (B, L, H, S) — the RNN models have L = H = 1.
    self_weights, self_scores: (B, L, H, t) over the t target positions so far, or None (RNN decoders
    read their prefix through their state).
    """

    cross_weights: Tensor
    cross_scores: Tensor
    self_weights: Tensor | None = None
    self_scores: Tensor | None = None


class TranslationModel(Protocol):
    config: Any

    def attention_modules(self, kind: AttentionKind) -> list[nn.Module]:
        """The module computing attention of ``kind`` in each layer (empty: the model has none), for the
        Computation view's hooks."""
        ...

    def start(self, src: Tensor, src_valid_lens: Tensor, need_attention: bool = False
              ) -> tuple[DecoderState, SourceSelfAttention | None]:
        """src (B, S) ids, src_valid_lens (B,) -> initial state and, when asked and the model has one,
        the self-attention of its pass over the source (:class:`SourceSelfAttention`)."""
        ...

    def step(self, tokens: Tensor, state: Any, need_attention: bool = False
             ) -> tuple[Tensor, DecoderState, StepAttention | None]:
        """tokens (B,) previous tokens -> log-probabilities (B, V) of the next (raw logits where the model's
        ``search_rules`` say so: a library model), next state, attention."""
        ...


def stack_layers(atts: list[Attended], last_row: bool) -> tuple[Tensor, Tensor]:
    """Per-layer (B, H, Q, K) weights and scores stacked to (B, L, H, Q, K), or with ``last_row`` to the
    newest query row only, (B, L, H, K)."""
    pick = (lambda t: t[:, :, -1]) if last_row else (lambda t: t)
    weights = torch.stack([pick(a.weights) for a in atts], dim=1)
    scores = torch.stack([pick(a.scores) for a in atts if a.scores is not None], dim=1)
    return weights, scores
