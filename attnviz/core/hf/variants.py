"""What each layer of a Hugging Face model does to its attention beyond Llama's, read from its config (torch-free).

The models researchers study in 2026 differ from Llama in their attention, layer by layer, and the views say so
rather than hide it: one :class:`LayerVariant` per layer, made once from the config by :func:`layer_variants` and
read by every view (map titles, the Masks, Computation and Positional docks, exports):

* a **sliding window** (Mistral every layer; Gemma 2 every other; Gemma 3 five local to one global; Phi-3; gpt-oss;
  ModernBERT's bidirectional local layers): which keys a query may read, from ``layer_types`` and ``sliding_window``
  (ModernBERT: ``local_attention``). The mask itself is the library's (the one eager attention adds), so a map's
  hidden cells are what the model hid; the window here names it;
* **logit soft-capping** (Gemma 2): s ↦ c·tanh(s / c) before the softmax, c = ``attn_logit_softcapping``;
* **QK-norm** (Qwen3, Gemma 3: an RMSNorm of each head's q and k; OLMo 2: of the whole projection), before RoPE;
* a **learned sink** logit per head (gpt-oss): a column the softmax reads and drops, so a row sums to 1 − p_sink;
* **no positions** in a layer (SmolLM3's ``no_rope_layers``: 0 is a layer without RoPE), and each layer's own RoPE
  base where it has one per layer type (Gemma 3 10k local / 1M global; ModernBERT 10k / 160k).

Which of these an architecture has is its record's (:class:`attnviz.core.hf.folder.Architecture`: ``qk_norm``,
``softcap``, ``sinks``, ``rope_layers``); the numbers are its config's. ``config`` is config.json's mapping or a
transformers config object.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from attnviz.i18n import tr

if TYPE_CHECKING:
    from attnviz.core.hf.folder import Architecture

__all__ = ["LayerVariant", "band", "layer_variants"]

SLIDING = "sliding_attention"


def _get(config: Any, key: str, default: Any = None) -> Any:
    if isinstance(config, Mapping):
        return config.get(key, default)
    return getattr(config, key, default)


@dataclass(frozen=True)
class LayerVariant:
    """One layer's attention as it computes: ``window`` keys a causal query reads back (itself included:
    keys j with i − window < j ≤ i) or, ``bidirectional``, keys within ``window`` positions on each side
    (|i − j| ≤ window); None: every key. ``rotary_base``: the RoPE base θ it rotates q and k by (None: it adds no
    positions in this layer, or the model's positions are not rotary); ``rotary_type``: the library's rope_type
    ("default", "yarn", "linear" …); ``qk_norm``: "" | "head" (an RMSNorm of each head's q and k) | "projection" (of
    the whole projection, before it is cut into heads); ``softcap``: c of c·tanh(s / c) or None; ``sink``: whether a
    learned logit per head joins each row's softmax."""

    layer: int
    window: int | None = None
    bidirectional: bool = False
    rotary_base: float | None = None
    rotary_type: str = "default"
    qk_norm: str = ""
    softcap: float | None = None
    sink: bool = False
    rotary: bool = False  # whether the model's positions are rotary at all (a layer without them then says so)

    @property
    def no_positions(self) -> bool:
        """A rotary model's layer that rotates nothing (SmolLM3's every fourth layer)."""
        return self.rotary and self.rotary_base is None

    def title(self) -> str:
        """What a map's title says of the layer after its number: "sliding window 512", "global", "no positions",
        "bidirectional window ±64", joined with "·"; "" for a plain layer of a model whose layers are all alike."""
        parts = []
        if self.window is not None:
            parts.append(tr("bidirectional window ±{window}").format(window=self.window) if self.bidirectional
                         else tr("sliding window {window}").format(window=self.window))
        if self.no_positions:
            parts.append(tr("no positions"))
        return " · ".join(parts)

    def steps_of_positions(self) -> str:
        """What the layer does with positions, in words: "RoPE base 10,000", "RoPE base 150,000, yarn scaling",
        "no positions" (the Positional dock's per-layer line)."""
        if self.rotary_base is None:
            return tr("no positions") if self.rotary else ""
        if self.rotary_type == "default":
            return tr("RoPE base {base:,.0f}").format(base=self.rotary_base)
        return tr("RoPE base {base:,.0f}, {scaling} scaling").format(base=self.rotary_base, scaling=self.rotary_type)


def band(variants: tuple[LayerVariant, ...], layer: int) -> tuple[int, bool] | None:
    """Layer ``layer``'s window as a map on demand computes it ((window, bidirectional); None: every key)."""
    if layer >= len(variants) or variants[layer].window is None:
        return None
    variant = variants[layer]
    assert variant.window is not None
    return variant.window, variant.bidirectional


def _rotary(config: Any, layer_type: str | None) -> tuple[float | None, str]:
    """The RoPE base and type a layer of ``layer_type`` uses (:func:`attnviz.core.hf.compat.rope_of_layer_type`)."""
    from attnviz.core.hf import compat

    return compat.rope_of_layer_type(config, layer_type)


def layer_variants(config: Any, record: Architecture) -> tuple[LayerVariant, ...]:
    """Per layer of the model's one stack of ``config`` (a decoder-only or encoder-only model's), what its attention
    does (:class:`LayerVariant`); an encoder–decoder or image model: plain layers (no variant applies)."""
    layers = int(_get(config, record.layers[0], 0) or 0)
    if record.layout not in ("decoder-only", "encoder-only"):
        return tuple(LayerVariant(layer) for layer in range(layers))
    types = _get(config, "layer_types")
    types = list(types) if isinstance(types, list | tuple) and len(types) == layers else None
    bidirectional = record.layout == "encoder-only"
    window = _get(config, "sliding_window")
    window = int(window) if isinstance(window, int) and not isinstance(window, bool) and window > 0 else None
    rope_layers = _get(config, record.rope_layers) if record.rope_layers else None
    softcap = _get(config, record.softcap) if record.softcap else None
    softcap = float(softcap) if isinstance(softcap, int | float) and not isinstance(softcap, bool) else None
    rotary = record.position_kind == "rotary"
    variants = []
    for layer in range(layers):
        layer_type = types[layer] if types is not None else None
        # a layer reads a window where its type says so, or, with no types, on every layer when the config sets one
        windowed = window is not None and (layer_type == SLIDING if types is not None else not bidirectional)
        base, kind = _rotary(config, layer_type) if rotary else (None, "default")
        if rotary and isinstance(rope_layers, list | tuple) and layer < len(rope_layers) and not rope_layers[layer]:
            base = None
        variants.append(LayerVariant(layer, window if windowed else None, bidirectional and windowed, base, kind,
                                     record.qk_norm, softcap, bool(record.sinks), rotary))
    return tuple(variants)
