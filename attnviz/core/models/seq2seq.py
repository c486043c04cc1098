"""RNN encoder–decoder with attention (d2l §10.4, §11.4 in d2l 1.0; Bahdanau et al. 2014).

A GRU encoder reads the source; at every decoder step the query is the decoder's previous
top-layer hidden state, keys and values are the encoder outputs (masked by the source valid
length), and the context vector is fed to the GRU together with the previous token's embedding.
``scoring`` picks additive (Bahdanau) or scaled dot-product attention; nothing else changes.
Shapes: B batch, S source length, T target length, H hidden width, L GRU layers, V vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.layers import AdditiveAttention, DotProductAttention
from attnviz.core.models.projection import project
from attnviz.core.models.translation import SourceSelfAttention, StepAttention, TranslationConfig


@dataclass(frozen=True)
class Seq2SeqConfig(TranslationConfig):
    """Hyperparameters of :class:`Seq2SeqAttention` (with those of every translation model)."""

    scoring: Literal["additive", "dot"] = "additive"
    embed_size: int = 256
    num_layers: int = 2
    dropout: float = 0.2


@dataclass
class RnnState:
    """Decoder state: encoder outputs (B, S, H), src valid lengths (B,), hidden (L, B, H)."""

    enc_outputs: Tensor
    src_valid_lens: Tensor
    hidden: Tensor

    def reorder(self, index: Tensor) -> RnnState:
        """Select batch rows (beam search): index (B',)."""
        return RnnState(self.enc_outputs[index], self.src_valid_lens[index], self.hidden[:, index])


@dataclass
class RnnStepAttention:
    """Cross-attention of one decoder step: weights and pre-softmax scores, both (B, 1, S)."""

    weights: Tensor
    scores: Tensor


class Seq2SeqAttention(nn.Module):
    """GRU encoder–decoder whose decoder attends over the encoder outputs at every step."""

    def __init__(self, config: Seq2SeqConfig):
        super().__init__()
        c = config
        self.config = c
        self.src_embedding = nn.Embedding(c.src_vocab_size, c.embed_size)
        self.encoder = nn.GRU(c.embed_size, c.num_hiddens, c.num_layers, batch_first=True,
                              dropout=c.dropout if c.num_layers > 1 else 0.0)
        self.tgt_embedding = nn.Embedding(c.tgt_vocab_size, c.embed_size)
        if c.scoring == "additive":
            self.attention: nn.Module = AdditiveAttention(c.num_hiddens, c.num_hiddens, c.num_hiddens)
        elif c.scoring == "dot":
            self.attention = DotProductAttention()
        else:
            raise ValueError(f"unknown scoring {c.scoring!r}; use 'additive' or 'dot'")
        self.decoder = nn.GRU(c.embed_size + c.num_hiddens, c.num_hiddens, c.num_layers,
                              batch_first=True, dropout=c.dropout if c.num_layers > 1 else 0.0)
        self.dropout = nn.Dropout(c.dropout)
        # "Deep output" (Bahdanau et al. 2014): the prediction sees the GRU output, the context and
        # the previous token, squeezed to the embedding width so the output matrix can be tied.
        self.pre_output = nn.Linear(2 * c.num_hiddens + c.embed_size, c.embed_size)
        self.output = nn.Linear(c.embed_size, c.tgt_vocab_size)
        if c.tie_output:
            self.output.weight = self.tgt_embedding.weight
            nn.init.normal_(self.tgt_embedding.weight, std=c.embed_size**-0.5)  # N(0, 1) logits would be huge

    def encode(self, src: Tensor, src_valid_lens: Tensor) -> RnnState:
        """src (B, S) token ids, src_valid_lens (B,) -> initial decoder state."""
        embedded = self.dropout(self.src_embedding(src))  # (B, S, E)
        packed = pack_padded_sequence(embedded, src_valid_lens.clamp_min(1).cpu(), batch_first=True,
                                      enforce_sorted=False)
        outputs, hidden = self.encoder(packed)
        outputs, _ = pad_packed_sequence(outputs, batch_first=True, total_length=src.shape[1])
        return RnnState(outputs, src_valid_lens, hidden)  # (B, S, H), (B,), (L, B, H)

    def decode_step(self, tokens: Tensor, state: RnnState) -> tuple[Tensor, RnnState, RnnStepAttention]:
        """tokens (B,) previous tokens -> logits (B, V), next state, this step's cross-attention."""
        query = state.hidden[-1][:, None, :]  # (B, 1, H)
        attended = self.attention(query, state.enc_outputs, state.enc_outputs, state.src_valid_lens,
                                  need_scores=True)
        embedded = self.dropout(self.tgt_embedding(tokens))[:, None, :]  # (B, 1, E)
        output, hidden = self.decoder(torch.cat([embedded, attended.output], dim=-1), state.hidden)
        features = torch.cat([output[:, 0], attended.output[:, 0], embedded[:, 0]], dim=-1)  # (B, 2H+E)
        logits = project(self.output, self.dropout(torch.tanh(self.pre_output(features))))  # (B, V)
        next_state = RnnState(state.enc_outputs, state.src_valid_lens, hidden)
        return logits, next_state, RnnStepAttention(attended.weights, attended.scores)

    # -- the decoder interface (attnviz.core.models.translation) ------------------------------------------
    def attention_modules(self, kind: AttentionKind) -> list[nn.Module]:
        """The module that computes ``kind`` in each layer: cross-attention only, one layer."""
        return [self.attention] if kind is AttentionKind.CROSS else []

    def start(self, src: Tensor, src_valid_lens: Tensor, need_attention: bool = False
              ) -> tuple[RnnState, SourceSelfAttention | None]:
        return self.encode(src, src_valid_lens), None  # no encoder self-attention

    def step(self, tokens: Tensor, state: RnnState, need_attention: bool = False
             ) -> tuple[Tensor, RnnState, StepAttention | None]:
        logits, state, att = self.decode_step(tokens, state)
        log_probs = torch.log_softmax(logits.float(), dim=-1)
        if not need_attention:
            return log_probs, state, None
        # (B, 1, S) -> (B, L=1, H=1, S)
        return log_probs, state, StepAttention(att.weights[:, None], att.scores[:, None])

    def forward(self, src: Tensor, src_valid_lens: Tensor, tgt_in: Tensor) -> Tensor:
        """Teacher forcing: tgt_in (B, T) starts with <bos> -> logits (B, T, V)."""
        state = self.encode(src, src_valid_lens)
        logits = []
        for t in range(tgt_in.shape[1]):
            step_logits, state, _ = self.decode_step(tgt_in[:, t], state)
            logits.append(step_logits)
        return torch.stack(logits, dim=1)
