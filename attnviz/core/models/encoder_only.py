"""Encoder-only Transformer (a small BERT; d2l 0.17 §14.8, d2l 1.0 §15.8) with a masked-language-model head.

One sequence ``[CLS] w1 … wn [SEP]`` (padded on the right) under bidirectional self-attention: every position
sees every real token of its sentence, and padding keys get weight exactly 0. The input is the sum of three
learned tables, as in d2l's ``BERTEncoder``: token embeddings, segment embeddings (sentence A = 0, B = 1) and
**learned** position embeddings (a ``(1, max_len, D)`` parameter, not the sinusoidal table of the
translators). The blocks are the Transformer's post-norm encoder blocks (d2l's ``TransformerEncoderBlock``,
:class:`attnviz.core.models.transformer.EncoderBlock`, with biases on the projections as d2l's BERT):
``AddNorm(x, MHA(x))`` then ``AddNorm(y, FFN(y))``.
The MLM head is d2l's ``MaskLM``: Linear(D, D) – ReLU – LayerNorm(D) – Linear(D, V), read at the positions
to predict only. There is no next-sentence head: the model is trained on masked words alone
(:mod:`attnviz.training.mlm`).

Two choices differ from d2l's code, both as the original BERT and the project's translators do: with
``tie_output`` (the default) the head's last Linear shares its (V, D) weight with the token embedding (it keeps
its own bias), and the token embedding is initialised N(0, 1/D) and multiplied by √D at the input (d2l: N(0, 1),
unscaled; the same input scale at the start, and a tied output whose logits start near unit scale).

Shapes: B batch, S padded sequence length, D width, H heads, Dh = D / H, L layers, P positions to predict per
sentence, V vocabulary.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

import torch
from torch import Tensor, nn

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.layers import MultiHeadAttention
from attnviz.core.models.transformer import EncoderBlock
from attnviz.core.models.translation import SourceSelfAttention
from attnviz.core.results import PositionalDescription
from attnviz.i18n import N_, tr


@dataclass(frozen=True)
class EncoderOnlyConfig:
    """Hyperparameters of :class:`EncoderOnly`.

    At these defaults and the translators' English vocabulary with three tokens added (9,482) the model has
    4,101,386 parameters: 8.2 MB as float16.
    """

    vocab_size: int
    num_hiddens: int = 256
    num_heads: int = 4
    num_layers: int = 3
    ffn_hiddens: int = 512
    dropout: float = 0.1
    max_len: int = 64  # learned position embeddings: the longest sequence, [CLS] and [SEP] included
    type_vocab_size: int = 2  # segments (sentence A, sentence B), as d2l's BERT
    tie_output: bool = True  # the MLM head's last layer shares the token embedding's weights (as BERT)

    @property
    def src_vocab_size(self) -> int:
        """The vocabulary it reads (a checkpoint stores it as its source and its target vocabulary: one)."""
        return self.vocab_size

    @property
    def tgt_vocab_size(self) -> int:
        """The vocabulary its masked-word head predicts: the same one."""
        return self.vocab_size


def recorded_cells(values: Mapping[str, Any]) -> int:
    """Attention cells one sentence's filling records: L·H·S² per step, one step per mask (at most S), and the
    first reading (``ModelKind.attention_cells``)."""
    layers, heads, positions = (int(values.get(k, 0)) for k in ("num_layers", "num_heads", "max_len"))
    return layers * heads * positions**2 * (positions + 1)


@dataclass(frozen=True)
class EncoderOnlyEncoding:
    """What :meth:`EncoderOnly.encode` returns; unpacks as ``hidden, weights, scores``.

    hidden: (B, S, D) the last block's output.
    weights: (B, L, H, S, S) every layer's self-attention (query rows, key columns); each row sums to 1 over
        the sentence's real tokens and is exactly 0 on padding keys.
    scores: (B, L, H, S, S) the pre-softmax scores qᵀk / √Dh of the same cells (padding keys unmasked).
    """

    hidden: Tensor
    weights: Tensor
    scores: Tensor

    def __iter__(self) -> Iterator[Tensor]:
        return iter((self.hidden, self.weights, self.scores))


class MaskLM(nn.Module):
    """d2l's MaskLM head: the hidden states at the positions to predict -> logits over the vocabulary."""

    def __init__(self, vocab_size: int, num_hiddens: int):
        super().__init__()
        self.dense = nn.Linear(num_hiddens, num_hiddens)
        self.norm = nn.LayerNorm(num_hiddens)
        self.output = nn.Linear(num_hiddens, vocab_size)

    def forward(self, hidden: Tensor, positions: Tensor) -> Tensor:
        """hidden (B, S, D), positions (B, P) column indices -> logits (B, P, V)."""
        index = positions[:, :, None].expand(-1, -1, hidden.shape[-1])  # (B, P, D)
        return self.output(self.norm(torch.relu(self.dense(torch.gather(hidden, 1, index)))))


class EncoderOnly(nn.Module):
    """A small BERT: :meth:`encode` for the hidden states and every layer's attention, :meth:`mlm_logits` for
    the masked-word predictions, ``forward`` for both at once in training."""

    def __init__(self, config: EncoderOnlyConfig):
        super().__init__()
        c = config
        self.config = c
        self.token_embedding = nn.Embedding(c.vocab_size, c.num_hiddens)
        self.segment_embedding = nn.Embedding(c.type_vocab_size, c.num_hiddens)
        # learned, as d2l's: N(0, 1) (drawn with nn.init: under the loader's device context torch.randn goes through
        # torch._refs, whose checks import torch._dynamo and sympy, 40 MB more for the window)
        self.pos_embedding = nn.Parameter(nn.init.normal_(torch.empty(1, c.max_len, c.num_hiddens)))
        self.blocks = nn.ModuleList(EncoderBlock(c, bias=True) for _ in range(c.num_layers))
        self.mlm = MaskLM(c.vocab_size, c.num_hiddens)
        nn.init.normal_(self.token_embedding.weight, std=c.num_hiddens**-0.5)  # x √D at the input: std 1
        if c.tie_output:
            self.mlm.output.weight = self.token_embedding.weight

    def describe_positions(self) -> PositionalDescription:
        """Its learned position table (max_len, D), for the Positional panel."""
        return PositionalDescription(
            N_("learned"), tr("attnviz's BERT adds a learned table, one vector per position, to the token and segment "
                              "embeddings."), self.pos_embedding[0].detach().float().cpu().numpy())

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def attention_modules(self, kind: AttentionKind = AttentionKind.ENCODER_SELF) -> list[MultiHeadAttention]:
        """Each layer's self-attention module, first layer first (its one kind of attention)."""
        if kind is not AttentionKind.ENCODER_SELF:
            raise ValueError(tr("an encoder-only model has no {kind}").format(kind=kind.label()))
        return [cast(EncoderBlock, block).attention for block in self.blocks]

    def residual_blocks(self) -> list[nn.Module]:
        """The blocks whose outputs are the residual stream (patching's grid), first layer first."""
        return list(self.blocks)

    def embed(self, tokens: Tensor, segments: Tensor) -> Tensor:
        """tokens (B, S), segments (B, S) -> the first block's input (B, S, D)."""
        width = tokens.shape[1]
        if width > self.config.max_len:
            raise ValueError(f"a sequence of {width} tokens exceeds max_len={self.config.max_len}")
        scaled = self.token_embedding(tokens) * math.sqrt(self.config.num_hiddens)
        return scaled + self.segment_embedding(segments) + self.pos_embedding[:, :width]

    def encode(self, tokens: Tensor, segments: Tensor, valid_lens: Tensor) -> EncoderOnlyEncoding:
        """tokens (B, S) right-padded ids, segments (B, S) 0/1, valid_lens (B,) real tokens per row ->
        hidden (B, S, D), attention weights and scores (B, L, H, S, S)."""
        x = self.embed(tokens, segments)
        weights, scores = [], []
        for block in self.blocks:
            x, attended = block(x, valid_lens)
            weights.append(attended.weights)
            scores.append(cast(Tensor, attended.scores))
        return EncoderOnlyEncoding(x, torch.stack(weights, dim=1), torch.stack(scores, dim=1))

    def start(self, src: Tensor, src_valid_lens: Tensor, need_attention: bool = False,
              segments: Tensor | None = None) -> tuple[EncoderOnlyEncoding, SourceSelfAttention | None]:
        """The one pass a translator's ``start`` makes, for the Computation view: src (B, S) ids, src_valid_lens (B,),
        segments (B, S) (default: one sentence) -> the encoding and, if asked, every layer's attention."""
        encoding = self.encode(src, torch.zeros_like(src) if segments is None else segments, src_valid_lens)
        return encoding, SourceSelfAttention(encoding.weights, encoding.scores) if need_attention else None

    def mlm_logits(self, hidden: Tensor, positions: Tensor) -> Tensor:
        """hidden (B, S, D) from :meth:`encode`, positions (B, P) columns to predict -> logits (B, P, V)."""
        return cast(Tensor, self.mlm(hidden, positions))

    def masked_logits(self, tokens: Tensor, segments: Tensor, position: int) -> Tensor:
        """Whole sentences tokens (B, S), segments (B, S) -> the logits (B, V) at column ``position`` (gradients
        flow: patching's attribution estimate, core/patching)."""
        valid = torch.full((tokens.shape[0],), tokens.shape[1], dtype=torch.long, device=tokens.device)
        encoding = self.encode(tokens, segments, valid)
        columns = torch.full((tokens.shape[0], 1), position, dtype=torch.long, device=tokens.device)
        return self.mlm_logits(encoding.hidden, columns)[:, 0]

    def forward(self, tokens: Tensor, segments: Tensor, valid_lens: Tensor, positions: Tensor) -> Tensor:
        """Training: tokens, segments (B, S), valid_lens (B,), positions (B, P) -> MLM logits (B, P, V)."""
        return self.mlm_logits(self.encode(tokens, segments, valid_lens).hidden, positions)
