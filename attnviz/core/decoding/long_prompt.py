"""A Hugging Face model's input beyond the window's decoding cap (issue 49 §1): encoded through
:class:`~attnviz.core.attention.on_demand.QueryKeyStore` (one forward pass keeps each layer's queries and keys), its
maps computed one at a time when the Attention view (or ``attnviz export --prompt-map``) asks, never all at once.

Three layouts read a long input:

* decoder-only (GPT-2, Llama, Qwen2): the prompt's causal self-attention (S, S), left-padded;
* encoder-only (BERT, DistilBERT, RoBERTa): the sentence's (or pair's) self-attention in both directions (S, S),
  read by the base model (no masked-language-model head: its S × V logits are not made, so no mask is filled);
* encoder–decoder (Marian, BART, mBART): the source's encoder self-attention (S, S) and, with a target read by
  teacher forcing (its start token, then the target's T − 1 tokens), the decoder's causal self-attention (T, T) and
  the cross-attention (T, S). T5 (a relative position bias added to the scores) has no maps on demand.

The cap (``config.max_src_len``: 448 tokens for a decoder-only folder, the positions up to 512 for the others) stays
what decoding records: an input within it is encoded and stepped as always. Beyond it, up to the model's positions
and :data:`~attnviz.core.limits.MAX_PROMPT_MAP_TOKENS`, the published :class:`~attnviz.core.results.EncodedSource`
has no ``encoder_weights`` and an :class:`~attnviz.core.results.OnDemandMaps` instead; nothing is stepped (an answer's
(L, H, T, S + T) rows would be the maps again, a mask's prediction the S × V logits).
Shapes: L layers, H heads, S source tokens, T decoder inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.on_demand import STORED_TILE_VALUES, QueryKeyStore, layers_stored
from attnviz.core.limits import MAX_PROMPT_MAP_TOKENS
from attnviz.core.models.loaded import LoadedModel
from attnviz.core.results import EncodedSource, OnDemandMaps
from attnviz.core.text import check_text_size, valid_text
from attnviz.i18n import tr


def on_demand_refusal(loaded: LoadedModel) -> str | None:
    """Why ``loaded``'s maps are not computed on demand, in one sentence, or None when they are."""
    if not loaded.model_kind.maps_on_demand:
        return tr("maps on demand are for Hugging Face decoder-only, encoder-only and encoder–decoder folders; "
                  "{name} is a {kind} model").format(name=loaded.name, kind=loaded.kind)
    model: Any = loaded.model
    if not model.prompt_positions:  # (T5: no position table, a relative bias in its scores)
        return tr("{model} adds a relative position bias to its scores: its maps are not computed on demand").format(
            model=model.architecture.name)
    return None


def longest_prompt(loaded: LoadedModel) -> int:
    """The longest input ``loaded`` reads with maps on demand: its positions, up to MAX_PROMPT_MAP_TOKENS (its
    decoding cap when it computes no map on demand)."""
    if on_demand_refusal(loaded) is not None:
        return int(loaded.config.max_src_len)
    model: Any = loaded.model  # (an HFCausal, HFEncoder or HFEncoderDecoder: its positions)
    return min(int(model.prompt_positions), MAX_PROMPT_MAP_TOKENS)


@dataclass(frozen=True)
class LongInput:
    """A text (and an encoder–decoder's target) as the model reads it, before the forward pass: the source's S
    tokens shown, their ids, the words read as unknown, the length it was cut from (None: not cut; an encoder-only
    sentence is never cut, it is refused), its segments (S,) (an encoder-only pair) or None, and the decoder's inputs
    (its start token, then the target) shown and as ids ((): no target)."""

    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    unknown: tuple[str, ...]
    truncated_from: int | None
    segments: tuple[int, ...] | None = None
    target_tokens: tuple[str, ...] = ()
    target_ids: tuple[int, ...] = ()


def read_long_input(loaded: LoadedModel, text: str, target: str | None = None,
                    device: torch.device | str = "cpu") -> LongInput:
    """``text`` (and, for an encoder–decoder, ``target``) as ``loaded`` reads it with maps on demand: a decoder-only
    prompt or an encoder–decoder source cut at :func:`longest_prompt` tokens; an encoder-only sentence (or pair: the
    tokenizer's own encoding, ``[MASK]`` read as its mask token) refused beyond it; a target refused beyond the
    decoder's positions. ValueError in one sentence."""
    check_text_size(text)
    longest = longest_prompt(loaded)
    model: Any = loaded.model
    if loaded.layout.name == "encoder-only":  # (its fill-mask session's reader: HFMaskedLM, its own tokenizer)
        stepping: Any = loaded.model_kind.stepping_cls
        reader = stepping.reader_for(loaded, torch.device(device))
        reader.positions = longest
        read = reader.read(text)
        return LongInput(read.tokens, read.ids, read.unknown, None, read.segments)
    assert loaded.src_vocab is not None
    source = loaded.src_vocab.split(valid_text(text), longest)
    ids = tuple(source.ids or loaded.src_vocab.ids(source.words))
    if target is None or loaded.layout.name != "encoder-decoder" or loaded.tgt_vocab is None:
        return LongInput(tuple(source.words), ids, tuple(source.unknown), source.truncated_from)
    pieces = loaded.tgt_vocab.target_tokens(target)
    inputs = (int(model.start_id), *loaded.tgt_vocab.ids(pieces))  # (teacher forcing: the start token, the target)
    if len(inputs) > longest:
        raise ValueError(tr("the target is {count:,} tokens long with the decoder's start token; this model reads at "
                            "most {most:,}").format(count=len(inputs), most=longest))
    return LongInput(tuple(source.words), ids, tuple(source.unknown), source.truncated_from, None,
                     tuple(loaded.tgt_vocab.to_tokens(inputs)), inputs)


def query_key_bytes(loaded: LoadedModel, read: LongInput) -> int:
    """What the store of ``read`` will hold at most, in bytes (the model's ``query_key_bytes``)."""
    model: Any = loaded.model
    if loaded.layout.name == "encoder-decoder":
        return int(model.query_key_bytes(len(read.ids), len(read.target_ids)))
    return int(model.query_key_bytes(len(read.ids)))


# While one layer of a storing pass runs, its activations live beside the store: the projections' queries, keys and
# values, the rotary embedding's temporaries, the output (written in place, core/hf/attention.py) — measured at most
# 3 times that layer's share of the store (a Llama of head_dim 4,096 over 2,048 tokens: 1.0 GB beside 0.4 GB); 4 for
# a margin.
LAYER_COPIES = 4


def attention_calls(loaded: LoadedModel, read: LongInput) -> int:
    """The attention calls of the storing pass over ``read``: a layer each, and an encoder–decoder's decoder two (its
    self-attention and cross-attention) when a target is read."""
    config = loaded.config
    if loaded.layout.name == "encoder-decoder":
        return config.num_encoder_layers + (2 * config.num_decoder_layers if read.target_ids else 0)
    return max(config.num_encoder_layers, config.num_decoder_layers)


def pass_bytes(loaded: LoadedModel, read: LongInput) -> int:
    """The bytes the storing pass over ``read`` holds at its peak, from the config and the lengths alone: the store
    (:func:`query_key_bytes`), LAYER_COPIES times one attention call's share of it (that call's activations), the
    model's additive mask and the one map then computed (float32: 8 bytes a cell of the longest side squared) and a
    tile of scores (:data:`~attnviz.core.attention.on_demand.STORED_TILE_VALUES` floats)."""
    store = query_key_bytes(loaded, read)
    longest = max(len(read.ids), len(read.target_ids))
    return store + LAYER_COPIES * store // max(1, attention_calls(loaded, read)) + 8 * longest**2 \
        + 4 * STORED_TILE_VALUES


def check_query_key_bytes(loaded: LoadedModel, read: LongInput) -> None:
    """ValueError in one sentence when the forward pass over ``read`` (its store of queries and keys and every buffer
    beside it: :func:`pass_bytes`) would take more than MAX_QUERY_KEY_BYTES (said before the forward pass)."""
    from attnviz.core import limits

    if (needed := pass_bytes(loaded, read)) > limits.MAX_QUERY_KEY_BYTES:
        raise ValueError(tr("reading {tokens:,} tokens while keeping their queries and keys would take {gb:.1f} GB "
                            "at its peak (attnviz allows {most:.0f} GB): give a shorter prompt").format(
            tokens=len(read.ids) + len(read.target_ids), gb=needed / 1024**3,
            most=limits.MAX_QUERY_KEY_BYTES / 1024**3))


def query_keys(loaded: LoadedModel, read: LongInput, device: torch.device | str = "cpu",
               progress: Callable[[int, int], object] | None = None) -> dict[AttentionKind, QueryKeyStore]:
    """The stores of one forward pass over ``read`` (checked against MAX_QUERY_KEY_BYTES first), per kind: the
    self-attention of a decoder-only prompt or an encoder-only sentence, and an encoder–decoder's encoder
    self-attention and, with a target, its decoder self-attention and cross-attention (all named ENCODER_SELF,
    DECODER_SELF, CROSS). progress(done, total): after each attention call of the pass. ValueError in one
    sentence."""
    from contextlib import nullcontext

    check_query_key_bytes(loaded, read)
    total = attention_calls(loaded, read)
    with nullcontext() if progress is None else layers_stored(lambda done: progress(min(done, total), total)):
        return _query_keys(loaded, read, device)


def _query_keys(loaded: LoadedModel, read: LongInput, device: torch.device | str) -> dict[AttentionKind, QueryKeyStore]:
    model: Any = loaded.model
    ids = torch.tensor([list(read.ids)], device=device)  # (1, S)
    lengths = torch.tensor([len(read.ids)], device=device)
    if loaded.layout.name == "encoder-decoder":
        target = torch.tensor([list(read.target_ids)], device=device) if read.target_ids else None  # (1, T)
        return dict(model.query_keys(ids, lengths, target))
    if loaded.layout.name == "encoder-only":
        types = (torch.tensor([list(read.segments)], device=device)
                 if read.segments is not None and model.segment_count > 1 else None)
        return {AttentionKind.ENCODER_SELF: model.query_keys(ids, lengths, types)}
    return {AttentionKind.ENCODER_SELF: model.query_keys(ids, lengths)}


def encode_long_prompt(loaded: LoadedModel, text: str, device: torch.device | str = "cpu"
                       ) -> tuple[QueryKeyStore, EncodedSource] | None:
    """``text`` as ``loaded`` reads it, when that is longer than its decoding cap and it computes maps on demand:
    the store of its (source's) self-attention and the source to publish (no map computed yet); None when the input
    fits the cap (or the model computes no map on demand): it is decoded as always. ValueError when the store would
    take more than MAX_QUERY_KEY_BYTES (before the forward pass)."""
    if on_demand_refusal(loaded) is not None or loaded.src_vocab is None:
        return None
    read = read_long_input(loaded, text, None, device)
    if len(read.ids) <= loaded.config.max_src_len:
        return None
    store = query_keys(loaded, read, device)[AttentionKind.ENCODER_SELF]
    segments = None if read.segments is None else np.array(read.segments)
    encoded = EncodedSource(text, read.tokens, read.unknown, read.truncated_from, None, None,
                            np.ones(len(read.tokens), dtype=bool), layout=loaded.layout, ids=read.ids,
                            segments=segments, on_demand=OnDemandMaps(store.num_layers, store.heads),
                            layer_notes=loaded.layer_notes, learned_sink=loaded.learned_sink)
    return store, encoded


def prompt_map(store: QueryKeyStore, layer: int, head: int, scores: bool) -> tuple[np.ndarray, np.ndarray]:
    """Layer ``layer``'s head ``head`` (0-based) of the store's input: its weights (or ``scores``) (Q, K) and the
    cells its mask hid (Q, K)."""
    return store.map(layer, head, scores=scores), store.hidden(layer)
