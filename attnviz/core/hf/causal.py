"""A Hugging Face decoder-only model (GPT-2, Llama, Qwen2) behind attnviz's decoder interface.

The prompt is the source: ``start`` runs it whole (left-padded, positions counted from each row's first
real token, as ``generate`` counts them) and keeps the logits its last position gives for the
first new token; the first ``step`` returns those (the token it is handed is ignored: no separator is fed),
later steps run one token per row. Each step's query row is the position that predicts the new token —
the prompt's last token first, then each generated one — its ``cross_*`` attention the prompt's columns
(the *source view*) and its ``self_*`` attention the whole sequence so far. Keys and values are attnviz's
own, never changed once made (see :mod:`attnviz.core.hf.seq2seq`).
Shapes: B rows, S padded prompt width, P positions so far, L layers, H heads, G key/value heads, D head width.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import torch
from torch import Tensor, nn

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.on_demand import LayerQueryKeys, QueryKeyStore
from attnviz.core.decoding.search_rules import SearchRules
from attnviz.core.hf import compat
from attnviz.core.hf.attention import IMPLEMENTATION, AttentionCall, check_finite, recording, register, storing
from attnviz.core.hf.folder import Architecture, architecture_of
from attnviz.core.hf.generation import left_padded, library_rules
from attnviz.core.hf.variants import band, layer_variants
from attnviz.core.models.translation import SourceSelfAttention, StepAttention


@dataclass(frozen=True)
class CausalState:
    """Per layer the keys and values (B, G, P, D); which positions are real tokens (B, P) (0: left padding);
    each row's next position (B,); the padded prompt width S; and, until the first step takes them, the
    prompt's last-position logits (B, V) and attention rows (B, L, H, S)."""

    kv: tuple[tuple[Tensor, Tensor], ...]
    mask: Tensor
    next_position: Tensor
    prompt_width: int
    first: tuple[Tensor, Tensor, Tensor] | None = None  # logits, weights, scores

    def reorder(self, index: Tensor) -> CausalState:
        first = None if self.first is None else tuple(t[index] for t in self.first)
        return CausalState(tuple((k[index], v[index]) for k, v in self.kv), self.mask[index],
                           self.next_position[index], self.prompt_width, first)  # type: ignore[arg-type]


def _layers(model: nn.Module, architecture: Architecture) -> list[nn.Module]:
    """The attention module of each block, where the record says: GPT-2's ``transformer.h[i].attn``, Llama's
    ``model.layers[i].self_attn``."""
    where = architecture.modules
    blocks: Any = model.get_submodule(where.decoder_blocks)  # (an nn.ModuleList)
    return [block.get_submodule(where.decoder_self) for block in blocks]


class HFCausal(nn.Module):
    """attnviz's decoder interface (:mod:`attnviz.core.models.translation`) over a transformers ``*ForCausalLM`` /
    ``GPT2LMHeadModel``. ``architecture``: its record (the folder's; else found by the model's ``model_type``)."""

    def __init__(self, model: Any, config: Any, pad_id: int, architecture: Architecture | None = None):
        super().__init__()
        register()
        model.set_attn_implementation(IMPLEMENTATION)
        self.hf = model.eval()
        self.config = config
        self.pad_id = pad_id
        self.architecture = architecture or architecture_of(model)
        self._attention = _layers(model, self.architecture)
        self.variants = layer_variants(model.config, self.architecture)  # (what each layer's attention does)

    def attention_modules(self, kind: AttentionKind) -> list[nn.Module]:
        """The one causal self-attention of each block computes every kind (prompt, answer, source view)."""
        return list(self._attention)

    def residual_blocks(self) -> list[nn.Module]:
        """The blocks whose outputs are the residual stream (patching's grid), first layer first."""
        blocks: Any = self.hf.get_submodule(self.architecture.modules.decoder_blocks)
        return list(blocks)

    def forward(self, src: Tensor, src_valid_lens: Tensor, tgt_in: Tensor) -> Tensor:
        """Teacher forcing as attnviz's decoder-only model offers it: src (B, S) right-padded prompts, valid lengths
        (B,), tgt_in (B, T) the answers after a first token that is not fed (no separator: the prompt's last position
        predicts the first answer token) -> logits (B, T, V), row t predicting answer token t. The prompts are
        left-padded and counted from their first token, as :meth:`start` runs them."""
        ids, mask = left_padded(src, src_valid_lens, self.pad_id)
        answers = tgt_in[:, 1:]  # (B, T − 1)
        ids = torch.cat([ids, answers], dim=1)  # (B, S + T − 1): prompt, then the answer (padding after it)
        mask = torch.cat([mask, torch.ones_like(answers)], dim=1)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        out = self.hf(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=False,
                      logits_to_keep=tgt_in.shape[1])  # (the prompt's last position, then each answer position)
        return out.logits

    def search_rules(self, src: Tensor, src_valid_lens: Tensor, max_len: int, beam_size: int) -> SearchRules:
        """Decode as the library's ``generate`` does (:mod:`attnviz.core.hf.generation`)."""
        return library_rules(self.hf, src, src_valid_lens, max_len, beam_size, continues_prompt=True,
                             start_id=self.pad_id, pad_id=self.pad_id)

    def _ordered(self, calls: list[AttentionCall]) -> list[AttentionCall]:
        order = {id(module): layer for layer, module in enumerate(self._attention)}
        return sorted((c for c in calls if id(c.module) in order), key=lambda c: order[id(c.module)])

    def _forward(self, ids: Tensor, mask: Tensor, positions: Tensor, kv: tuple[tuple[Tensor, Tensor], ...]
                 ) -> tuple[Tensor, tuple[tuple[Tensor, Tensor], ...], list[AttentionCall]]:
        with recording() as calls:
            out = self.hf(input_ids=ids, attention_mask=mask, position_ids=positions,
                          past_key_values=compat.decoder_cache(kv), use_cache=True,
                          logits_to_keep=1)  # (the prompt's other positions predict nothing we use)
        logits = out.logits[:, -1].float()
        check_finite(logits)  # (a NaN weight after the last attention: no token is ranked from NaN)
        return logits, compat.keys_and_values(out.past_key_values), self._ordered(calls)

    def start(self, src: Tensor, src_valid_lens: Tensor, need_attention: bool = False
              ) -> tuple[CausalState, SourceSelfAttention | None]:
        """src (B, S) right-padded prompt ids -> the state after the prompt and its self-attention
        (B, L, H, S, S), left-padded."""
        ids, mask = left_padded(src, src_valid_lens, self.pad_id)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        logits, kv, calls = self._forward(ids, mask, positions, ())
        weights = torch.stack([c.weights for c in calls], dim=1)  # (B, L, H, S, S)
        scores = torch.stack([c.scores for c in calls], dim=1)
        first = (logits, weights[:, :, :, -1], scores[:, :, :, -1])
        state = CausalState(kv, mask, positions[:, -1] + 1, src.shape[1], first)
        return state, SourceSelfAttention(weights, scores) if need_attention else None

    @property
    def prompt_positions(self) -> int:
        """The positions the model has (its config's, by the record's key): the longest prompt it reads."""
        return int(getattr(self.hf.config, self.architecture.positions or "", 0) or 0)

    def query_key_bytes(self, tokens: int) -> int:
        """The bytes :meth:`query_keys` keeps for one ``tokens``-long prompt: queries and keys of every layer
        (L·(H + G)·S·D in the model's dtype) and the mask (S² booleans)."""
        config, names = self.hf.config, self.architecture.heads
        heads, groups = int(getattr(config, names[0])), int(getattr(config, names[-1]) or getattr(config, names[0]))
        width = int(getattr(config, "head_dim", None) or getattr(config, self.architecture.width) // heads)
        size = next(self.hf.parameters()).element_size()
        return len(self._attention) * (heads + groups) * tokens * width * size + tokens * tokens

    def query_keys(self, src: Tensor, src_valid_lens: Tensor) -> QueryKeyStore:
        """src (B, S) right-padded prompt ids -> what recomputes any map of the prompt's self-attention
        (B, L, H, S, S), left-padded and positioned as :meth:`start` runs it, without making one
        (:mod:`attnviz.core.attention.on_demand`): one forward pass that keeps each layer's queries and keys."""
        ids, mask = left_padded(src, src_valid_lens, self.pad_id)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        order = {id(module): layer for layer, module in enumerate(self._attention)}
        with torch.inference_mode(), storing() as calls:
            self.hf(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=False, logits_to_keep=1)
        ordered = sorted((c for c in calls if id(c.module) in order), key=lambda c: order[id(c.module)])
        return QueryKeyStore([LayerQueryKeys(c.query, c.key, c.scale, c.hidden, c.softcap, c.sinks,
                                            band(self.variants, i))
                              for i, c in enumerate(ordered)])

    def step(self, tokens: Tensor, state: CausalState, need_attention: bool = False
             ) -> tuple[Tensor, CausalState, StepAttention | None]:
        """tokens (B,) the previous output (ignored at the first step) -> the next token's logits (B, V) (raw: its
        search rules say so), the next state, the attention of the query row that predicts the next token."""
        width = state.prompt_width
        if state.first is not None:
            logits, weights, scores = state.first
            next_state = replace(state, first=None)
        else:
            mask = torch.cat([state.mask, torch.ones_like(state.mask[:, :1])], dim=1)
            logits, kv, calls = self._forward(tokens[:, None], mask, state.next_position[:, None], state.kv)
            weights = torch.stack([c.weights[:, :, -1] for c in calls], dim=1)  # (B, L, H, P)
            scores = torch.stack([c.scores[:, :, -1] for c in calls], dim=1)
            next_state = CausalState(kv, mask, state.next_position + 1, width)
        if not need_attention:
            return logits, next_state, None
        return logits, next_state, StepAttention(weights[..., :width], scores[..., :width], weights, scores)
