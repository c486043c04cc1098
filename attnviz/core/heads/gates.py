"""Head gates ξ on a model's attention heads (Michel et al. 2019), installed as hooks.

Each attention module multiplies head h's output by ξ_h before its output projection (``gate_heads`` of
:class:`~attnviz.core.attention.layers.MultiHeadAttention`; an RNN's one attention scales its context vector; a Hugging
Face model's adapter gates its library's modules, :mod:`attnviz.core.hf.heads`). ξ = 1 leaves the model as it is;
ξ_h = 0 switches head h off (a :class:`HeadMask`); ξ as ones with ``requires_grad`` gives ∂L/∂ξ_h, the head's
importance. Values per kind: (L, H) for every row alike, or (B, L, H), one gate per sentence of a batch (a sentence's
gradient is then its own, from one backward pass).
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from typing import Any

import torch
from torch import Tensor, nn
from torch.utils.hooks import RemovableHandle

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.heads.mask import KIND_ORDER, HeadLayout, HeadMask, KindShape
from attnviz.core.models.kinds import kind_of
from attnviz.i18n import tr

# a decoder-only model's one self-attention answers for every kind: it is named by the first kind here
_PRIORITY = (AttentionKind.DECODER_SELF, AttentionKind.CROSS, AttentionKind.ENCODER_SELF)


class GatesUnavailable(ValueError):
    """A model whose attention modules cannot be gated (one readable line)."""


def modules_by_kind(model: Any) -> dict[AttentionKind, list[nn.Module]]:
    """Each kind's modules, first layer first, every module under one kind only, in KIND_ORDER."""
    modules_of = getattr(model, "attention_modules", None)
    if modules_of is None:
        raise GatesUnavailable(tr("this model does not say where its attention heads are"))
    found: dict[AttentionKind, list[nn.Module]] = {}
    seen: set[tuple[int, ...]] = set()
    for kind in _PRIORITY:
        modules = list(modules_of(kind))
        key = tuple(id(m) for m in modules)
        if modules and key not in seen:
            seen.add(key)
            found[kind] = modules
    return {kind: found[kind] for kind in KIND_ORDER if kind in found}


def _chains_by_kind(model: Any) -> dict[AttentionKind, list[Any]]:
    """Each kind's chains (:class:`~attnviz.core.attention.layers.ExplainsChain`: ``heads``, ``gate_heads``), first
    layer first, as the model's kind record makes them: attnviz's attention modules themselves, or a Hugging Face
    folder's adapters (:mod:`attnviz.core.hf.chains`)."""
    modules = modules_by_kind(model)
    record = kind_of(model.config)
    return {kind: record.chains_of(model, kind) for kind in modules}


def _layout_of(chains_by_kind: dict[AttentionKind, list[Any]]) -> HeadLayout:
    return HeadLayout(tuple(KindShape(kind, len(chains), int(chains[0].heads))
                            for kind, chains in chains_by_kind.items()))


def head_layout(model: Any) -> HeadLayout:
    """Every head of a translation model (attnviz's own families, a Hugging Face folder's), kind by kind."""
    return _layout_of(_chains_by_kind(model))


class HeadGates:
    """Gates on every head of ``model``, live until :meth:`remove` (or the end of a ``with`` block).

    ``values[kind]``: a tensor (L, H) or (B, L, H), or absent (that kind ungated). Set them with
    :meth:`set_mask` or :meth:`set_values`; the hooks read them at every call. GatesUnavailable for a model whose
    heads cannot be gated (a Hugging Face encoder-only folder's).
    """

    def __init__(self, model: Any):
        chains_by_kind = _chains_by_kind(model)
        self.layout = _layout_of(chains_by_kind)
        self.values: dict[AttentionKind, Tensor] = {}
        self._handles: list[RemovableHandle] = []
        try:
            for kind, chains in chains_by_kind.items():
                for layer, chain in enumerate(chains):
                    self._handles.extend(chain.gate_heads(self._source(kind, layer)))
        except GatesUnavailable:
            self.remove()
            raise

    def _source(self, kind: AttentionKind, layer: int):
        def gate() -> Tensor | None:
            values = self.values.get(kind)
            return None if values is None else values[..., layer, :]  # (H,) or (B, H)
        return gate

    def set_mask(self, mask: HeadMask, device: torch.device | str = "cpu") -> None:
        """Gates of 0 on the heads of ``mask``, none elsewhere (the kinds it does not name run ungated)."""
        self.values = mask_values(self.layout, mask, device)

    def set_values(self, values: dict[AttentionKind, Tensor]) -> None:
        self.values = dict(values)

    def ones(self, batch: int | None = None, device: torch.device | str = "cpu",
             requires_grad: bool = False) -> dict[AttentionKind, Tensor]:
        """Gates of 1 on every head, (L, H) or (B, L, H), set on the model and returned (leaf tensors)."""
        self.values = {s.kind: torch.ones(*(() if batch is None else (batch,)), s.layers, s.heads, device=device,
                                          requires_grad=requires_grad) for s in self.layout.kinds}
        return self.values

    @property
    def handles(self) -> tuple[RemovableHandle, ...]:
        """The hooks' handles (removing one switches its gate off for good)."""
        return tuple(self._handles)

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []
        self.values = {}

    def __enter__(self) -> HeadGates:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.remove()


def ungated_copy(model: nn.Module, gates: HeadGates | None) -> nn.Module:
    """A deep copy of ``model`` without the hooks of ``gates`` (``model`` keeps them). The handles are copied with
    the model in one deep copy, so the copies name the copy's hook dictionaries; removing them leaves the copy as
    the model was before it was gated."""
    model_copy, handles = copy.deepcopy((model, gates.handles if gates is not None else ()))
    for handle in handles:
        handle.remove()
    return model_copy


def mask_values(layout: HeadLayout, mask: HeadMask, device: torch.device | str = "cpu") -> dict[AttentionKind, Tensor]:
    """Gates (L, H) per kind that ``mask`` names: 0 on its heads, 1 on the others."""
    values = {}
    for shape in layout.kinds:
        heads = [h for h in mask.heads if h.kind is shape.kind]
        if heads:
            gate = torch.ones(shape.layers, shape.heads, device=device)
            for h in heads:
                gate[h.layer, h.head] = 0.0
            values[shape.kind] = gate
    return values


@contextlib.contextmanager
def masked_heads(model: Any, mask: HeadMask, device: torch.device | str = "cpu") -> Iterator[None]:
    """``with masked_heads(model, mask): …``: the heads of ``mask`` are off inside the block (an empty mask:
    nothing changes and no hook is installed)."""
    if not mask:
        yield
        return
    gates = HeadGates(model)
    try:
        gates.set_mask(mask, device)
        yield
    finally:
        gates.remove()
