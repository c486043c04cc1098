"""A decoder-only Hugging Face model's prompt beyond the window's decoding cap (issue 49 §1): encoded through a
:class:`~attnviz.core.attention.on_demand.QueryKeyStore` (one forward pass keeps each layer's queries and keys), its
maps computed one at a time when the Attention view asks, never all at once.

The cap (``config.max_src_len``, 448 tokens) stays what decoding records: a prompt within it is encoded and stepped
as always. Beyond it, up to the model's positions and :data:`~attnviz.core.limits.MAX_PROMPT_MAP_TOKENS`, the
published :class:`~attnviz.core.results.EncodedSource` has no ``encoder_weights`` and an
:class:`~attnviz.core.results.OnDemandMaps` instead; the answer is not stepped (its (L, H, T, S + T) rows would be
the maps again).
Shapes: L layers, H heads, S prompt tokens.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from attnviz.core.attention.on_demand import QueryKeyStore
from attnviz.core.limits import MAX_PROMPT_MAP_TOKENS, MAX_QUERY_KEY_BYTES
from attnviz.core.models.loaded import LoadedModel
from attnviz.core.results import EncodedSource, OnDemandMaps
from attnviz.core.text import check_text_size, valid_text
from attnviz.i18n import tr


def longest_prompt(loaded: LoadedModel) -> int:
    """The longest prompt ``loaded`` reads with maps on demand: its positions, up to MAX_PROMPT_MAP_TOKENS (its
    decoding cap when it computes no map on demand)."""
    if not loaded.model_kind.maps_on_demand:
        return int(loaded.config.max_src_len)
    model: Any = loaded.model  # (an HFCausal: its positions)
    return min(int(model.prompt_positions or MAX_PROMPT_MAP_TOKENS), MAX_PROMPT_MAP_TOKENS)


def encode_long_prompt(loaded: LoadedModel, text: str, device: torch.device | str = "cpu"
                       ) -> tuple[QueryKeyStore, EncodedSource] | None:
    """``text`` as ``loaded`` reads it, when that is longer than its decoding cap and it computes maps on demand:
    the store of its queries and keys and the source to publish (no map computed yet); None when the prompt fits
    the cap (or the model computes no map on demand): it is decoded as always. ValueError when the store would
    take more than MAX_QUERY_KEY_BYTES (before the forward pass)."""
    if not loaded.model_kind.maps_on_demand or loaded.src_vocab is None:
        return None
    check_text_size(text)
    source = loaded.src_vocab.split(valid_text(text), longest_prompt(loaded))
    tokens = len(source.words)
    if tokens <= loaded.config.max_src_len:
        return None
    model: Any = loaded.model  # (an HFCausal: core/hf/causal.py)
    if (needed := model.query_key_bytes(tokens)) > MAX_QUERY_KEY_BYTES:
        raise ValueError(tr("the queries and keys of {tokens:,} tokens would take {gb:.1f} GB (attnviz allows "
                            "{most:.0f} GB): give a shorter prompt").format(tokens=tokens, gb=needed / 1024**3,
                                                                           most=MAX_QUERY_KEY_BYTES / 1024**3))
    ids = torch.tensor([list(source.ids or loaded.src_vocab.ids(source.words))], device=device)  # (1, S)
    store = model.query_keys(ids, torch.tensor([tokens], device=device))
    encoded = EncodedSource(text, tuple(source.words), tuple(source.unknown), source.truncated_from, None, None,
                            np.ones(tokens, dtype=bool), layout=loaded.layout,
                            ids=None if source.ids is None else tuple(source.ids),
                            on_demand=OnDemandMaps(store.num_layers, store.heads))
    return store, encoded


def prompt_map(store: QueryKeyStore, layer: int, head: int, scores: bool) -> tuple[np.ndarray, np.ndarray]:
    """Layer ``layer``'s head ``head`` (0-based) of the store's prompt: its weights (or ``scores``) (S, S) and the
    cells its mask hid (S, S)."""
    return store.map(layer, head, scores=scores), store.hidden(layer)
