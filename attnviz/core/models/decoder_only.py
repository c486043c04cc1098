"""Decoder-only Transformer (GPT-style) that translates as continuation.

One sequence under causal self-attention: the English sentence, the separator ``<bos>``, then the French,
one token at a time. There is no encoder and no cross-attention: the French positions read the English
through the same self-attention that reads the French written so far. Pre-norm blocks (LayerNorm before
attention and FFN, as GPT-2), a final LayerNorm, sinusoidal positions, English tokens embedded by the
source table and ``<bos>`` and French tokens by the target table (tied to the output projection).

A batch is **left-padded**: row b of a padded width-S batch puts its v_b English tokens in the last v_b
of the first S columns, so every row's separator and answer start at column S and the newest token is the
last column for all rows; positions count from each row's first real token, and padding is masked as a
key. The decoder interface's ``src`` (B, S) arrives right-padded (``encode_batch``) and is moved here.
Attention maps are returned in this left-padded layout: the prompt's (B, L, H, S, S) from ``start``, and
per step the newest row over all S + t columns (``self_*``) and its first S columns, the English
(``cross_*``: the *source view*; not renormalised, a row sums to the share of attention the English gets).
Shapes: B batch, S padded English length, t target positions so far, D width, H heads, Dh = D / H, V
target vocabulary, L layers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import torch
from torch import Tensor, nn

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.layers import Attended, MultiHeadAttention
from attnviz.core.attention.positional import PositionalEncoding
from attnviz.core.models.projection import project
from attnviz.core.models.transformer import PositionWiseFFN
from attnviz.core.models.translation import (
    SourceSelfAttention,
    StepAttention,
    TranslationConfig,
    stack_layers,
    token_embeddings,
)


@dataclass(frozen=True)
class DecoderOnlyConfig(TranslationConfig):
    """Hyperparameters of :class:`DecoderOnly` (with those of every translation model; about 11 M
    parameters at these defaults and the shipped vocabularies, as the encoder–decoder Transformer)."""

    ffn_hiddens: int = 1024
    num_heads: int = 4
    num_decoder_layers: int = 6


class Block(nn.Module):
    """Pre-norm block: x + Attention(LN(x)), then + FFN(LN(·))."""

    def __init__(self, c: DecoderOnlyConfig):
        super().__init__()
        self.norm1 = nn.LayerNorm(c.num_hiddens)
        self.attention = MultiHeadAttention(c.num_hiddens, c.num_heads, c.dropout)
        self.norm2 = nn.LayerNorm(c.num_hiddens)
        self.ffn = PositionWiseFFN(c.num_hiddens, c.ffn_hiddens)
        self.dropout = nn.Dropout(c.dropout)

    def forward(self, x: Tensor, keys: Tensor, values: Tensor, mask: Tensor, need_scores: bool
                ) -> tuple[Tensor, Tensor, Tensor, Attended]:
        """x (B, T, D) new positions; keys/values (B, H, P, Dh) cached; mask (B, 1, T, P + T) True = visible.
        -> output (B, T, D), keys and values (B, H, P + T, Dh), attention (B, H, T, P + T)."""
        h = self.norm1(x)
        new_keys, new_values = self.attention.project_keys_values(h, h)
        keys, values = torch.cat([keys, new_keys], dim=2), torch.cat([values, new_values], dim=2)
        attended = self.attention.attend(h, keys, values, mask=mask, need_scores=need_scores)
        x = x + self.dropout(attended.output)
        return x + self.dropout(self.ffn(self.norm2(x))), keys, values, attended


@dataclass
class DecoderOnlyState:
    """The KV cache between steps: per layer keys and values (B, H, P, Dh) of the P positions so far,
    which of them are real tokens (B, P) (False: left padding), each row's next position (B,) and the
    padded English width S."""

    keys: list[Tensor]
    values: list[Tensor]
    visible: Tensor
    next_position: Tensor
    prompt_width: int

    def reorder(self, index: Tensor) -> DecoderOnlyState:
        return DecoderOnlyState([k[index] for k in self.keys], [v[index] for v in self.values],
                                self.visible[index], self.next_position[index], self.prompt_width)


def left_padded(src: Tensor, valid_lens: Tensor, pad_id: int) -> tuple[Tensor, Tensor]:
    """Right-padded ids (B, S) -> left-padded ids (B, S) and which columns are real tokens (B, S)."""
    width = src.shape[1]
    columns = torch.arange(width, device=src.device)
    visible = columns[None, :] >= (width - valid_lens)[:, None]
    source_column = (columns[None, :] - (width - valid_lens)[:, None]).clamp(min=0)
    moved = torch.gather(src, 1, source_column)
    return torch.where(visible, moved, torch.full_like(moved, pad_id)), visible


class DecoderOnly(nn.Module):
    """Decoder-only translator; the decoder interface of :mod:`attnviz.core.models.translation` and a teacher-forcing
    ``forward`` for training."""

    PAD_ID = 0  # (the row of a padded column's embedding does not matter: it is never attended to)

    def __init__(self, config: DecoderOnlyConfig):
        super().__init__()
        c = config
        self.config = c
        self.src_embedding, self.tgt_embedding = token_embeddings(c)
        max_len = c.max_src_len + c.max_tgt_len + 2  # the table is not stored: any size loads
        self.positional = PositionalEncoding(c.num_hiddens, c.dropout, max(max_len, 258))
        self.blocks = nn.ModuleList(Block(c) for _ in range(c.num_decoder_layers))
        self.final_norm = nn.LayerNorm(c.num_hiddens)
        self.output = nn.Linear(c.num_hiddens, c.tgt_vocab_size, bias=False)
        if c.tie_output:
            self.output.weight = self.tgt_embedding.weight
        nn.init.normal_(self.src_embedding.weight, std=c.num_hiddens**-0.5)
        nn.init.normal_(self.tgt_embedding.weight, std=c.num_hiddens**-0.5)

    def _embed(self, embedding: nn.Embedding, tokens: Tensor, positions: Tensor) -> Tensor:
        """tokens (B, T) at positions (B, T) -> (B, T, D)."""
        table = self.positional.P
        if int(positions.max()) >= table.shape[0]:
            raise ValueError(f"positions up to {int(positions.max()) + 1} exceed max_len={table.shape[0]}")
        x = embedding(tokens) * math.sqrt(self.config.num_hiddens)
        return self.positional.dropout(x + table[positions].to(x.dtype))

    def _run(self, x: Tensor, state: DecoderOnlyState, visible_new: Tensor, need_scores: bool
             ) -> tuple[Tensor, DecoderOnlyState, list[Attended]]:
        """x (B, T, D) at the next T positions -> normed output (B, T, D), the state after them, attention."""
        count = x.shape[1]
        cached = state.visible.shape[1]
        visible = torch.cat([state.visible, visible_new], dim=1)  # (B, P + T)
        causal = torch.ones(count, cached + count, dtype=torch.bool, device=x.device).tril(cached)
        mask = (causal[None] & visible[:, None, :])[:, None]  # (B, 1, T, P + T)
        keys, values, attention = [], [], []
        for block, k, v in zip(self.blocks, state.keys, state.values, strict=True):
            x, k, v, attended = block(x, k, v, mask, need_scores)
            keys.append(k)
            values.append(v)
            attention.append(attended)
        moved = visible_new.sum(dim=1)
        next_state = DecoderOnlyState(keys, values, visible, state.next_position + moved, state.prompt_width)
        return self.final_norm(x), next_state, attention

    def _empty_state(self, batch: int, width: int, device: torch.device, dtype: torch.dtype) -> DecoderOnlyState:
        c = self.config
        empty = torch.zeros(batch, c.num_heads, 0, c.num_hiddens // c.num_heads, device=device, dtype=dtype)
        return DecoderOnlyState([empty] * c.num_decoder_layers, [empty] * c.num_decoder_layers,
                                torch.zeros(batch, 0, dtype=torch.bool, device=device),
                                torch.zeros(batch, dtype=torch.long, device=device), width)

    def prompt(self, src: Tensor, src_valid_lens: Tensor, need_scores: bool = False
               ) -> tuple[DecoderOnlyState, list[Attended]]:
        """Run the English part: src (B, S) right-padded ids -> the cache after it, its attention."""
        ids, visible = left_padded(src, src_valid_lens, self.PAD_ID)
        width = src.shape[1]
        positions = (torch.arange(width, device=src.device)[None, :] - (width - src_valid_lens)[:, None]).clamp(min=0)
        x = self._embed(self.src_embedding, ids, positions)
        state = self._empty_state(src.shape[0], width, src.device, x.dtype)
        _, state, attention = self._run(x, state, visible, need_scores)
        return state, attention

    def decode(self, tokens: Tensor, state: DecoderOnlyState, need_scores: bool = False
               ) -> tuple[Tensor, DecoderOnlyState, list[Attended]]:
        """tokens (B, T) target ids (<bos> first) at each row's next positions -> logits (B, T, V), the next
        state, attention (B, H, T, P + T) per layer."""
        count = tokens.shape[1]
        positions = state.next_position[:, None] + torch.arange(count, device=tokens.device)[None, :]
        x = self._embed(self.tgt_embedding, tokens, positions)
        visible_new = torch.ones(tokens.shape, dtype=torch.bool, device=tokens.device)
        out, state, attention = self._run(x, state, visible_new, need_scores)
        return project(self.output, out), state, attention

    def residual_blocks(self) -> list[nn.Module]:
        """The blocks whose outputs are the residual stream (patching's grid reads the prompt's call of each: the
        English positions), first layer first."""
        return list(self.blocks)

    # -- the decoder interface (attnviz.core.models.translation) ------------------------------------------
    def attention_modules(self, kind: AttentionKind) -> list[nn.Module]:
        """The module that computes ``kind`` in each layer: the one causal self-attention of each block
        (the prompt's rows, the answer's rows and the source view are all parts of it)."""
        return [cast(Block, block).attention for block in self.blocks]

    def start(self, src: Tensor, src_valid_lens: Tensor, need_attention: bool = False
              ) -> tuple[DecoderOnlyState, SourceSelfAttention | None]:
        """The prompt's cache and, when asked, its self-attention (B, L, H, S, S) (left-padded)."""
        state, attention = self.prompt(src, src_valid_lens, need_scores=need_attention)
        if not need_attention:
            return state, None
        return state, SourceSelfAttention(*stack_layers(attention, last_row=False))

    def step(self, tokens: Tensor, state: DecoderOnlyState, need_attention: bool = False
             ) -> tuple[Tensor, DecoderOnlyState, StepAttention | None]:
        width = state.prompt_width
        logits, state, attention = self.decode(tokens[:, None], state, need_scores=need_attention)
        log_probs = torch.log_softmax(logits[:, -1].float(), dim=-1)
        if not need_attention:
            return log_probs, state, None
        weights, scores = stack_layers(attention, last_row=True)  # (B, L, H, S + t)
        return log_probs, state, StepAttention(weights[..., :width], scores[..., :width], weights, scores)

    def forward(self, src: Tensor, src_valid_lens: Tensor, tgt_in: Tensor) -> Tensor:
        """Teacher forcing: tgt_in (B, T) starts with <bos> -> logits (B, T, V) for the French positions."""
        state, _ = self.prompt(src, src_valid_lens)
        logits, _, _ = self.decode(tgt_in, state)
        return logits
