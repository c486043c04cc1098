"""Where a Hugging Face model's positions come from, as the Positional-encoding panel draws it (numpy out).

Marian adds a fixed sinusoidal table, BART, GPT-2, BERT, DistilBERT and RoBERTa a learned one (their tables are
read from the weights; RoBERTa's positions start after its padding id);
Llama and Qwen2 add nothing: RoPE rotates each query and key pair (i, i + d/2) by the angle m·θ_i of its
position m, so q·k depends on the distance between the two positions only. For those the panel gets the
angles' cos and sin as a table (the same layout as the sinusoidal encoding), the frequencies θ_i and how the
rotated dot product of two equal all-ones vectors falls off with distance (RoFormer §3.4.3).
Shapes: N positions drawn, D width (the model's, or a head's for RoPE).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from attnviz.core.hf import compat
from attnviz.core.hf.folder import Architecture, architecture_of
from attnviz.core.hf.variants import LayerVariant, layer_variants
from attnviz.core.results import PositionalDescription
from attnviz.i18n import N_, tr

MAX_POSITIONS_DRAWN = 256


def _parameter(root: Any, path: str) -> Any:
    """The parameter at ``path`` under ``root``, or None where the path names a module."""
    try:
        return root.get_parameter(path)
    except AttributeError:
        return None


def _weights(table: Any, skip: int = 0) -> np.ndarray:
    values = table.weight.detach().to("cpu", torch.float32).numpy()[skip:]
    return np.ascontiguousarray(values[:MAX_POSITIONS_DRAWN])


def rope_curves(inv_freq: np.ndarray, positions: int, scaling: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """RoPE's table (positions, 2·len(inv_freq)): cos(m·θ_i) and sin(m·θ_i) interleaved as the sinusoidal
    table is (scaled by the model's ``attention_scaling``); and for m = 0…positions−1 the dot product of two
    all-ones vectors rotated m apart, over its value at m = 0: (1/(D/2)) Σ_i cos(m·θ_i)."""
    angles = np.arange(positions, dtype=np.float64)[:, None] * inv_freq[None, :].astype(np.float64)
    table = np.empty((positions, 2 * len(inv_freq)))
    table[:, 0::2], table[:, 1::2] = np.sin(angles) * scaling, np.cos(angles) * scaling
    return table.astype(np.float32), np.cos(angles).mean(axis=1).astype(np.float32)


def describe_positions(model: Any, architecture: str) -> PositionalDescription:
    """What ``model`` (a transformers model of ``architecture``: "Marian", "BART", "GPT-2", "Llama", "BERT", …)
    does with positions, as its record (:class:`~attnviz.core.hf.folder.Architecture`) says where they come from."""
    record = architecture_of(model)
    if record.position_kind == "relative bias":
        return _relative_bias(model, record, architecture)
    assert record.position_module is not None  # (every other kind names its table or its rotary embedding)
    if isinstance(parameter := _parameter(record.root(model), record.position_module), torch.nn.Parameter):
        # a table held as a bare parameter (1, positions, width), not an embedding module (the image architectures')
        return PositionalDescription(
            N_("learned"), tr("{architecture} adds a learned vector per position to its inputs' embeddings — its "
                              "special tokens' first, then each patch's, row by row (a table of {rows} rows).").format(
                architecture=architecture, rows=parameter.shape[1]),
            np.ascontiguousarray(parameter[0].detach().to("cpu", torch.float32).numpy()[:MAX_POSITIONS_DRAWN]))
    source = record.root(model).get_submodule(record.position_module)
    if record.position_kind == "rotary":
        # a rotary embedding per layer type (Gemma 3, ModernBERT: "full_attention_inv_freq" …): the global layers'
        per_type = "" if hasattr(source, "inv_freq") else next(
            (f"{t}_" for t in ("full_attention", *getattr(source, "layer_types", ()))
             if hasattr(source, f"{t}_inv_freq")), "")
        inv_freq = getattr(source, f"{per_type}inv_freq").detach().to("cpu", torch.float64).numpy()
        longest = getattr(model.config, record.positions) if record.positions else None
        positions = min(MAX_POSITIONS_DRAWN, int(longest or 10**9))
        table, decay = rope_curves(inv_freq, positions, float(getattr(source, f"{per_type}attention_scaling")))
        rope_types = source.rope_type
        kind = rope_types.get(per_type.rstrip("_"), "default") if isinstance(rope_types, dict) else rope_types
        theta = compat.rope_base(model.config) if not per_type else next(  # (the drawn table's: a global layer's)
            (v.rotary_base for v in layer_variants(model.config, record) if v.rotary_base is not None
             and v.window is None), compat.rope_base(model.config))
        if kind == "default":
            note = tr("{architecture} adds no positional encoding: RoPE rotates each query and key by its position "
                      "(pair i of a {width}-wide head turns by m·θ_i, θ_i = base^(−2i/d), base {base:,.0f}), so q·k "
                      "depends only on how far apart they are.")
        else:
            note = tr("{architecture} adds no positional encoding: RoPE rotates each query and key by its position "
                      "(pair i of a {width}-wide head turns by m·θ_i, θ_i = base^(−2i/d), base {base:,.0f}, {scaling} "
                      "scaling), so q·k depends only on how far apart they are.")
        note = note.format(architecture=architecture, width=2 * len(inv_freq), base=theta, scaling=kind)
        per_layer = rotation_by_layer(layer_variants(model.config, record))
        return PositionalDescription(
            N_("rotary (RoPE)"), f"{note} {per_layer}" if per_layer else note,
            table, (-1.0, 1.0), inv_freq.astype(np.float32), decay)
    if record.position_kind == "learned" and record.layout == "decoder-only":  # (GPT-2's one table)
        return PositionalDescription(
            N_("learned"), tr("{architecture} adds a learned table, one vector per position (wpe), to the token "
                              "embeddings.").format(architecture=architecture), _weights(source))
    if record.position_kind == "learned" and record.layout == "encoder-only":  # (BERT's; RoBERTa's after its offset)
        offset = record.offset(model.config)
        note = tr("{architecture} adds a learned table, one vector per position, to the token embeddings.") if not \
            offset else tr("{architecture} adds a learned table, one vector per position, to the token embeddings "
                           "(position 0 is its row {offset}, after the padding id; the rows before it are not drawn).")
        return PositionalDescription(N_("learned"), note.format(architecture=architecture, offset=offset),
                                     _weights(source, offset))
    if record.position_kind == "sinusoidal":
        return PositionalDescription(
            N_("sinusoidal"), tr("{architecture} adds a fixed sinusoidal table to the embeddings (sines in the first "
                                 "half of the dimensions, cosines in the second: the book's interleaved columns, "
                                 "reordered).").format(architecture=architecture),
            _weights(source), (-1.0, 1.0))
    return PositionalDescription(  # (BART's table starts with two unused rows: the record's offset)
        N_("learned"), tr("{architecture} adds a learned table, one vector per position, to the embeddings (the "
                          "encoder's is shown; the decoder has its own).").format(architecture=architecture),
        _weights(source, record.position_offset))


def rotation_by_layer(variants: tuple[LayerVariant, ...]) -> str:
    """What each layer rotates by, runs of alike layers joined ("Per layer: 1–5 RoPE base 10,000; 6 RoPE base
    1,000,000."), where the layers differ (a base per layer type, layers without positions); "" where all are alike."""
    said = [v.steps_of_positions() for v in variants]
    if len(set(said)) <= 1:
        return ""
    runs: list[tuple[int, int, str]] = []
    for layer, words in enumerate(said):
        if runs and runs[-1][2] == words and runs[-1][1] == layer - 1:
            runs[-1] = (runs[-1][0], layer, words)
        else:
            runs.append((layer, layer, words))
    parts = [f"{a + 1}–{b + 1} {words}" if b > a else f"{a + 1} {words}" for a, b, words in runs]
    return tr("Per layer: {runs}.").format(runs="; ".join(parts))


def _relative_bias(model: Any, record: Architecture, architecture: str) -> PositionalDescription:
    """T5: the encoder's learned bias per head for each relative distance key − query (buckets: exact up to
    half the buckets, then logarithmic up to ``relative_attention_max_distance``), (2·M + 1, H)."""
    where = record.modules
    assert where.encoder_blocks and where.encoder_self  # (T5's record)
    attention = model.get_submodule(where.encoder_blocks)[0].get_submodule(where.encoder_self)
    reach = min(int(attention.relative_attention_max_distance), MAX_POSITIONS_DRAWN // 2)
    distances = torch.arange(-reach, reach + 1)
    buckets = compat.t5_buckets(attention, distances)
    table = attention.relative_attention_bias.weight.detach().to("cpu", torch.float32)[buckets].numpy()
    return PositionalDescription(
        N_("relative bias"), tr("{architecture} adds no position vectors: each head adds a learned number to the "
                                "score of every query–key pair, chosen by their distance (one of {buckets} buckets: "
                                "exact when near, logarithmic when far; the encoder's is drawn, the decoder has its "
                                "own).").format(architecture=architecture,
                                                buckets=attention.relative_attention_num_buckets),
        np.ascontiguousarray(table), None, row_values=distances.numpy(), row_axis=N_("distance key − query"),
        col_axis=N_("head"), vectors=False)
