"""Transformer encoder–decoder ("Attention Is All You Need"; d2l §10.7, §11.7 in d2l 1.0).

Embeddings scaled by √D plus sinusoidal positional encoding, multi-head attention, post-norm
Add & Norm, position-wise FFN. Decoding is incremental: each decoder layer caches its projected
self-attention keys/values, and the cross-attention keys/values are projected once in ``encode``.
Shapes: B batch, S source length, T target length, D width, H heads, Dh = D / H, V vocabulary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Protocol, cast

import torch
from torch import Tensor, nn

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.layers import Attended, MultiHeadAttention
from attnviz.core.attention.masking import causal_mask
from attnviz.core.attention.positional import PositionalEncoding
from attnviz.core.models.projection import project
from attnviz.core.models.translation import (
    SourceSelfAttention,
    StepAttention,
    TranslationConfig,
    stack_layers,
    token_embeddings,
)


@dataclass(frozen=True)
class TransformerConfig(TranslationConfig):
    """Hyperparameters of :class:`Transformer` (with those of every translation model)."""

    ffn_hiddens: int = 1024
    num_heads: int = 4
    num_encoder_layers: int = 3
    num_decoder_layers: int = 3


class AddNorm(nn.Module):
    """Post-norm residual: LayerNorm(x + dropout(y))."""

    def __init__(self, width: int, dropout: float):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.norm = nn.LayerNorm(width)

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        return self.norm(x + self.dropout(y))


class PositionWiseFFN(nn.Module):
    def __init__(self, width: int, hiddens: int):
        super().__init__()
        self.dense1 = nn.Linear(width, hiddens)
        self.dense2 = nn.Linear(hiddens, width)

    def forward(self, x: Tensor) -> Tensor:
        return self.dense2(torch.relu(self.dense1(x)))


class BlockSizes(Protocol):
    """What an encoder block is built from (a Transformer's config, or an encoder-only model's)."""

    @property
    def num_hiddens(self) -> int: ...

    @property
    def num_heads(self) -> int: ...

    @property
    def ffn_hiddens(self) -> int: ...

    @property
    def dropout(self) -> float: ...


class EncoderBlock(nn.Module):
    """Post-norm encoder block: y = LN(x + MHA(x)), out = LN(y + FFN(y)); bias: the attention's projections
    have biases (BERT's; the Transformer's have none)."""

    def __init__(self, c: BlockSizes, bias: bool = False):
        super().__init__()
        self.attention = MultiHeadAttention(c.num_hiddens, c.num_heads, c.dropout, bias=bias)
        self.addnorm1 = AddNorm(c.num_hiddens, c.dropout)
        self.ffn = PositionWiseFFN(c.num_hiddens, c.ffn_hiddens)
        self.addnorm2 = AddNorm(c.num_hiddens, c.dropout)

    def forward(self, x: Tensor, valid_lens: Tensor) -> tuple[Tensor, Attended]:
        """x (B, S, D) -> (B, S, D) and self-attention (weights (B, H, S, S))."""
        attended = self.attention(x, x, x, valid_lens, need_scores=True)
        y = self.addnorm1(x, attended.output)
        return self.addnorm2(y, self.ffn(y)), attended


@dataclass
class LayerCache:
    """One decoder layer's cache: self-attention keys/values so far (B, H, t, Dh) and the
    cross-attention keys/values of the source (B, H, S, Dh)."""

    self_keys: Tensor
    self_values: Tensor
    cross_keys: Tensor
    cross_values: Tensor

    def reorder(self, index: Tensor) -> LayerCache:
        return LayerCache(self.self_keys[index], self.self_values[index], self.cross_keys[index],
                          self.cross_values[index])


class DecoderBlock(nn.Module):
    def __init__(self, c: TransformerConfig):
        super().__init__()
        self.self_attention = MultiHeadAttention(c.num_hiddens, c.num_heads, c.dropout)
        self.addnorm1 = AddNorm(c.num_hiddens, c.dropout)
        self.cross_attention = MultiHeadAttention(c.num_hiddens, c.num_heads, c.dropout)
        self.addnorm2 = AddNorm(c.num_hiddens, c.dropout)
        self.ffn = PositionWiseFFN(c.num_hiddens, c.ffn_hiddens)
        self.addnorm3 = AddNorm(c.num_hiddens, c.dropout)

    def forward(self, x: Tensor, cache: LayerCache, src_valid_lens: Tensor | None, offset: int,
                need_scores: bool) -> tuple[Tensor, LayerCache, Attended, Attended]:
        """x (B, T, D): T new target positions starting at absolute position ``offset``.

        Appends their keys/values to the cache; returns the output (B, T, D), the new cache,
        self-attention (B, H, T, offset+T) and cross-attention (B, H, T, S). src_valid_lens None:
        no source is padded.
        """
        new_keys, new_values = self.self_attention.project_keys_values(x, x)
        keys = torch.cat([cache.self_keys, new_keys], dim=2)  # (B, H, offset+T, Dh)
        values = torch.cat([cache.self_values, new_values], dim=2)
        # A single newest position may see every cached one: its causal mask hides nothing.
        mask = causal_mask(x.shape[1], keys.shape[2], offset=offset, device=x.device) if x.shape[1] > 1 else None
        self_att = self.self_attention.attend(x, keys, values, mask=mask, need_scores=need_scores)
        y = self.addnorm1(x, self_att.output)
        cross_att = self.cross_attention.attend(y, cache.cross_keys, cache.cross_values, src_valid_lens,
                                                need_scores=need_scores)
        z = self.addnorm2(y, cross_att.output)
        out = self.addnorm3(z, self.ffn(z))
        return out, LayerCache(keys, values, cache.cross_keys, cache.cross_values), self_att, cross_att


@dataclass
class TransformerState:
    """Everything a decoder step needs: per-layer caches, source valid lengths (B,), the number of
    target positions already decoded, and whether some source is padded (False: the cross-attention
    masks nothing, so it is not built at every step)."""

    caches: list[LayerCache]
    src_valid_lens: Tensor
    offset: int = 0
    padded: bool = True

    def reorder(self, index: Tensor) -> TransformerState:
        return TransformerState([c.reorder(index) for c in self.caches], self.src_valid_lens[index],
                                self.offset, self.padded)


@dataclass
class TransformerEncoding:
    """Encoder output: memory (B, S, D), the decoder's initial state and each layer's self-attention."""

    memory: Tensor
    state: TransformerState
    attention: list[Attended] = field(default_factory=list)


@dataclass
class TransformerStepAttention:
    """Per-layer attention of decoded positions: self (B, H, T, offset+T), cross (B, H, T, S)."""

    self_attention: list[Attended]
    cross_attention: list[Attended]


class Transformer(nn.Module):
    def __init__(self, config: TransformerConfig):
        super().__init__()
        c = config
        self.config = c
        self.src_embedding, self.tgt_embedding = token_embeddings(c)
        max_len = max(c.max_src_len, c.max_tgt_len, 256) + 2  # the table is not stored: any size loads
        self.positional = PositionalEncoding(c.num_hiddens, c.dropout, max_len)
        self.encoder_blocks = nn.ModuleList(EncoderBlock(c) for _ in range(c.num_encoder_layers))
        self.decoder_blocks = nn.ModuleList(DecoderBlock(c) for _ in range(c.num_decoder_layers))
        self.output = nn.Linear(c.num_hiddens, c.tgt_vocab_size, bias=False)
        if c.tie_output:
            self.output.weight = self.tgt_embedding.weight
        nn.init.normal_(self.src_embedding.weight, std=c.num_hiddens**-0.5)
        nn.init.normal_(self.tgt_embedding.weight, std=c.num_hiddens**-0.5)

    def _embed(self, embedding: nn.Embedding, tokens: Tensor, offset: int = 0) -> Tensor:
        return self.positional(embedding(tokens) * math.sqrt(self.config.num_hiddens), offset)

    def encode(self, src: Tensor, src_valid_lens: Tensor, need_scores: bool = False) -> TransformerEncoding:
        """src (B, S) ids, src_valid_lens (B,) -> memory, decoder state, encoder self-attention."""
        x = self._embed(self.src_embedding, src)
        attention = []
        for block in self.encoder_blocks:
            x, attended = block(x, src_valid_lens)
            attention.append(attended if need_scores else Attended(attended.output, attended.weights))
        b, d = src.shape[0], self.config.num_hiddens
        empty = x.new_zeros(b, self.config.num_heads, 0, d // self.config.num_heads)
        caches = []
        for block in self.decoder_blocks:
            assert isinstance(block, DecoderBlock)
            cross_keys, cross_values = block.cross_attention.project_keys_values(x, x)
            caches.append(LayerCache(empty, empty, cross_keys, cross_values))
        return TransformerEncoding(x, TransformerState(caches, src_valid_lens), attention)

    def decode(self, tokens: Tensor, state: TransformerState, need_scores: bool = False
               ) -> tuple[Tensor, TransformerState, TransformerStepAttention]:
        """tokens (B, T) at positions offset..offset+T-1 -> logits (B, T, V), next state, attention."""
        x = self._embed(self.tgt_embedding, tokens, state.offset)
        caches, self_atts, cross_atts = [], [], []
        valid_lens = state.src_valid_lens if state.padded else None
        for block, cache in zip(self.decoder_blocks, state.caches, strict=True):
            x, cache, self_att, cross_att = block(x, cache, valid_lens, state.offset, need_scores)
            caches.append(cache)
            self_atts.append(self_att)
            cross_atts.append(cross_att)
        next_state = TransformerState(caches, state.src_valid_lens, state.offset + tokens.shape[1], state.padded)
        return project(self.output, x), next_state, TransformerStepAttention(self_atts, cross_atts)

    def residual_blocks(self) -> list[nn.Module]:
        """The blocks whose outputs are the residual stream over the source positions (patching's grid): the
        encoder's, first layer first."""
        return list(self.encoder_blocks)

    # -- the decoder interface (attnviz.core.models.translation) ------------------------------------------
    def attention_modules(self, kind: AttentionKind) -> list[nn.Module]:
        """The module that computes ``kind`` in each layer, first layer first."""
        if kind is AttentionKind.ENCODER_SELF:
            return [cast(EncoderBlock, block).attention for block in self.encoder_blocks]
        decoder = [cast(DecoderBlock, block) for block in self.decoder_blocks]
        return [block.self_attention if kind is AttentionKind.DECODER_SELF else block.cross_attention
                for block in decoder]

    def start(self, src: Tensor, src_valid_lens: Tensor, need_attention: bool = False
              ) -> tuple[TransformerState, SourceSelfAttention | None]:
        encoding = self.encode(src, src_valid_lens, need_scores=need_attention)
        state = replace(encoding.state, padded=bool((src_valid_lens < src.shape[1]).any()))
        if not need_attention:
            return state, None
        return state, SourceSelfAttention(*stack_layers(encoding.attention, last_row=False))

    def step(self, tokens: Tensor, state: TransformerState, need_attention: bool = False
             ) -> tuple[Tensor, TransformerState, StepAttention | None]:
        logits, state, att = self.decode(tokens[:, None], state, need_scores=need_attention)
        log_probs = torch.log_softmax(logits[:, -1].float(), dim=-1)
        if not need_attention:
            return log_probs, state, None
        return log_probs, state, StepAttention(*stack_layers(att.cross_attention, last_row=True),
                                               *stack_layers(att.self_attention, last_row=True))

    def forward(self, src: Tensor, src_valid_lens: Tensor, tgt_in: Tensor) -> Tensor:
        """Teacher forcing: tgt_in (B, T) starts with <bos> -> logits (B, T, V)."""
        encoding = self.encode(src, src_valid_lens)
        logits, _, _ = self.decode(tgt_in, encoding.state)
        return logits
