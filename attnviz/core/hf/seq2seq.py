"""A Hugging Face encoder–decoder (Marian, BART, mBART, T5) behind attnviz's decoder interface.

``start`` runs the encoder once; ``step`` runs the decoder on one token per row with the previous keys and
values, through the library's own forward pass and :mod:`attnviz.core.hf.attention`'s recording attention,
so that every map is the model's own. The cache is attnviz's: per layer the self-attention keys and values
(B, G, t, D), handed to a fresh ``DynamicCache`` each step (the library only appends to it), so a state is
never changed once made (beam search and the app's prefetch go back to earlier states).
Shapes: B rows, S source tokens, L layers, H heads, G key/value heads, t target tokens so far, D head width.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.on_demand import LayerQueryKeys, QueryKeyStore
from attnviz.core.decoding.search_rules import SearchRules
from attnviz.core.hf import attention, compat
from attnviz.core.hf.attention import IMPLEMENTATION, AttentionCall, QueryKeyCall, recording, register, storing
from attnviz.core.hf.folder import Architecture, architecture_of
from attnviz.core.hf.generation import library_rules
from attnviz.core.models.translation import SourceSelfAttention, StepAttention
from attnviz.i18n import tr


@dataclass(frozen=True)
class Seq2SeqState:
    """The encoder's output (B, S, D·H), its mask (B, S) (1: a real token) and per decoder layer the
    self-attention keys and values so far."""

    encoder_hidden: Tensor
    encoder_mask: Tensor
    self_kv: tuple[tuple[Tensor, Tensor], ...]

    def reorder(self, index: Tensor) -> Seq2SeqState:
        return Seq2SeqState(self.encoder_hidden[index], self.encoder_mask[index],
                            tuple((k[index], v[index]) for k, v in self.self_kv))


def attention_modules_of(model: Any, architecture: Architecture | None = None) -> dict[AttentionKind, list[nn.Module]]:
    """Each kind's attention module per layer, where the model's record (``architecture``, else the model's own:
    :func:`~attnviz.core.hf.folder.architecture_of`) says they are: BART-like
    ``model.{encoder,decoder}.layers[i].self_attn`` and ``encoder_attn``; T5's
    ``{encoder,decoder}.block[i].layer[0].SelfAttention`` and ``layer[1].EncDecAttention``."""
    where = (architecture or architecture_of(model)).modules
    assert where.encoder_blocks and where.encoder_self and where.cross  # (an encoder–decoder's record)
    encoder, decoder = model.get_submodule(where.encoder_blocks), model.get_submodule(where.decoder_blocks)
    return {AttentionKind.ENCODER_SELF: [block.get_submodule(where.encoder_self) for block in encoder],
            AttentionKind.DECODER_SELF: [block.get_submodule(where.decoder_self) for block in decoder],
            AttentionKind.CROSS: [block.get_submodule(where.cross) for block in decoder]}


class HFEncoderDecoder(nn.Module):
    """attnviz's decoder interface (:mod:`attnviz.core.models.translation`) over a transformers
    ``*ForConditionalGeneration`` (Marian, BART, mBART, T5: :func:`attention_modules_of`). ``architecture``: its
    record (the folder's; else found by the model's ``model_type``)."""

    def __init__(self, model: Any, config: Any, start_id: int = 0, pad_id: int = 0,
                 architecture: Architecture | None = None):
        super().__init__()
        self.start_id, self.pad_id = start_id, pad_id  # the decoder's first input; the padding id
        register()
        model.set_attn_implementation(IMPLEMENTATION)
        self.hf = model.eval()
        self.config = config  # attnviz's view of it (max_src_len, max_tgt_len, layers, heads)
        self.architecture = architecture or architecture_of(model)
        self._modules_of = attention_modules_of(model, self.architecture)

    def attention_modules(self, kind: AttentionKind) -> list[nn.Module]:
        return self._modules_of[kind]

    def residual_blocks(self) -> list[nn.Module]:
        """The encoder's blocks, whose outputs are the residual stream over the source positions (patching's
        grid), first layer first."""
        blocks: Any = self.hf.get_submodule(self.architecture.modules.encoder_blocks or "")
        return list(blocks)

    def forward(self, src: Tensor, src_valid_lens: Tensor, tgt_in: Tensor) -> Tensor:
        """Teacher forcing: src (B, S) right-padded, valid lengths (B,), tgt_in (B, T) starting with the decoder's
        start token -> logits (B, T, V) (the importance of core/heads; padding after a target changes nothing
        before it)."""
        mask = (torch.arange(src.shape[1], device=src.device)[None, :] < src_valid_lens[:, None]).long()
        return self.hf(input_ids=src, attention_mask=mask, decoder_input_ids=tgt_in, use_cache=False).logits

    def search_rules(self, src: Tensor, src_valid_lens: Tensor, max_len: int, beam_size: int) -> SearchRules:
        """Decode as the library's ``generate`` does (:mod:`attnviz.core.hf.generation`)."""
        return library_rules(self.hf, src, src_valid_lens, max_len, beam_size, continues_prompt=False,
                             start_id=self.start_id, pad_id=self.pad_id)

    def _of_kind(self, calls: list[AttentionCall], kind: AttentionKind) -> list[AttentionCall]:
        order = {id(module): layer for layer, module in enumerate(self._modules_of[kind])}
        return sorted((c for c in calls if id(c.module) in order), key=lambda c: order[id(c.module)])

    @property
    def prompt_positions(self) -> int:
        """The positions the model has (its config's: BART's table has 2 rows more): the longest source it reads, and
        the longest target its decoder reads (start token included). 0: the model counts no positions (T5's relative
        bias)."""
        return int(getattr(self.hf.config, self.architecture.positions or "", 0) or 0)

    def query_key_bytes(self, source: int, target: int = 0) -> int:
        """The bytes :meth:`query_keys` keeps at most for one ``source``-token source and, with a ``target`` of that
        many decoder inputs, the decoder: queries and keys of the encoder's self-attention (L_e·2H·S·D), the
        decoder's (L_d·2H·T·D) and the cross-attention's (L_d·H·(T + S)·D), in the model's dtype (H·D: the model's
        width), and the masks' S² + T² + T·S booleans."""
        width = int(getattr(self.hf.config, self.architecture.width))  # H·D: every head's queries (or keys) together
        size = next(self.hf.parameters()).element_size()
        numbers = len(self._modules_of[AttentionKind.ENCODER_SELF]) * 2 * source * width
        masks = source * source
        if target:
            numbers += len(self._modules_of[AttentionKind.DECODER_SELF]) * (3 * target + source) * width
            masks += target * target + target * source
        return numbers * size + masks

    def _stores(self, calls: list[QueryKeyCall], kinds: tuple[AttentionKind, ...]
                ) -> dict[AttentionKind, QueryKeyStore]:
        stores = {}
        for kind in kinds:
            order = {id(module): layer for layer, module in enumerate(self._modules_of[kind])}
            layers = sorted((c for c in calls if id(c.module) in order), key=lambda c: order[id(c.module)])
            stores[kind] = QueryKeyStore([LayerQueryKeys(c.query, c.key, c.scale, c.hidden, c.softcap, c.sinks)
                                          for c in layers])
        return stores

    def query_keys(self, src: Tensor, src_valid_lens: Tensor, tgt_in: Tensor | None = None
                   ) -> dict[AttentionKind, QueryKeyStore]:
        """src (B, S) right-padded ids, valid lengths (B,), and ``tgt_in`` (B, T) the decoder's inputs (its start
        token, then the target: teacher forcing) or None -> per kind what recomputes any of its maps without making
        one (:mod:`attnviz.core.attention.on_demand`): the encoder's self-attention (S, S, padding keys hidden); with
        ``tgt_in`` also the decoder's (T, T, causal) and the cross-attention (T, S: the decoder's queries, the
        encoder's keys, the source's padding hidden). One forward pass (without ``tgt_in``: the encoder's alone)
        that keeps each layer's queries and keys. ValueError for a model with a relative position bias (T5)."""
        if self.architecture.position_kind == "relative bias":
            raise ValueError(tr("{model} adds a relative position bias to its scores: its maps are not computed on "
                                "demand").format(model=self.architecture.name))
        mask = (torch.arange(src.shape[1], device=src.device)[None, :] < src_valid_lens[:, None]).long()
        with torch.inference_mode(), storing() as calls:
            if tgt_in is None:
                self.hf.get_encoder()(input_ids=src, attention_mask=mask)
            else:  # (the decoder's own mask: causal; no target padding, each row as long as tgt_in)
                self.hf.base_model(input_ids=src, attention_mask=mask, decoder_input_ids=tgt_in, use_cache=False)
        kinds = (AttentionKind.ENCODER_SELF,) if tgt_in is None else \
            (AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS)
        return self._stores(calls, kinds)

    def start(self, src: Tensor, src_valid_lens: Tensor, need_attention: bool = False
              ) -> tuple[Seq2SeqState, SourceSelfAttention | None]:
        """src (B, S) right-padded ids, valid lengths (B,) -> the state and the encoder's self-attention."""
        mask = (torch.arange(src.shape[1], device=src.device)[None, :] < src_valid_lens[:, None]).long()
        with recording() as calls:
            hidden = self.hf.get_encoder()(input_ids=src, attention_mask=mask).last_hidden_state
        state = Seq2SeqState(hidden, mask, ())
        if not need_attention:
            return state, None
        layers = self._of_kind(calls, AttentionKind.ENCODER_SELF)
        return state, SourceSelfAttention(torch.stack([c.weights for c in layers], dim=1),
                                       torch.stack([c.scores for c in layers], dim=1))

    def step(self, tokens: Tensor, state: Seq2SeqState, need_attention: bool = False
             ) -> tuple[Tensor, Seq2SeqState, StepAttention | None]:
        """tokens (B,) -> the next token's logits (B, V) (raw: its search rules say so), the next state, the newest
        row's attention."""
        from transformers.modeling_outputs import BaseModelOutput

        cache = compat.encoder_decoder_cache(state.self_kv)
        with recording() as calls:
            out = self.hf(encoder_outputs=BaseModelOutput(last_hidden_state=state.encoder_hidden),
                          attention_mask=state.encoder_mask, decoder_input_ids=tokens[:, None],
                          past_key_values=cache, use_cache=True)
        next_state = Seq2SeqState(state.encoder_hidden, state.encoder_mask, compat.keys_and_values(out.past_key_values))
        logits = out.logits[:, -1].float()  # (raw: the library's rules normalise them, search_rules.SearchRules)
        attention.check_finite(logits)  # (a NaN weight after the last attention: no token is ranked from NaN)
        if not need_attention:
            return logits, next_state, None
        own, cross = self._of_kind(calls, AttentionKind.DECODER_SELF), self._of_kind(calls, AttentionKind.CROSS)

        def newest(layer_calls: list[AttentionCall], part: str) -> Tensor:
            return torch.stack([getattr(c, part)[:, :, -1] for c in layer_calls], dim=1)  # (B, L, H, K)

        return logits, next_state, StepAttention(newest(cross, "weights"), newest(cross, "scores"),
                                                 newest(own, "weights"), newest(own, "scores"))
