"""Which heads a model has, and a set of heads switched off (a :class:`HeadMask`), torch-free.

A model's heads are grouped by the attention kind whose modules compute them (:class:`HeadLayout`): a
Transformer has encoder self-attention, decoder self-attention and cross-attention (layers × heads each); a
decoder-only model has one causal self-attention per block (named ``dec-self``: its prompt rows, answer rows and
source view are all rows of these heads); an RNN model has one cross-attention "head" in one layer (masking it
zeroes the context vector). Users name a head ``kind:layer.head``, both numbers counted from 1, e.g.
``cross:2.1,enc:1.3``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from attnviz.core.attention.kind import AttentionKind
from attnviz.i18n import tr

# the names a user may give each kind (the CLI's slugs, and short forms)
KIND_NAMES: dict[str, AttentionKind] = {
    "enc": AttentionKind.ENCODER_SELF, "enc-self": AttentionKind.ENCODER_SELF,
    "dec": AttentionKind.DECODER_SELF, "dec-self": AttentionKind.DECODER_SELF, "self": AttentionKind.DECODER_SELF,
    "cross": AttentionKind.CROSS,
}
KIND_ORDER = (AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS)


@dataclass(frozen=True)
class Head:
    """One head: its kind's slug order, layer and head, both 0-based (``str``: as users see it, 1-based)."""

    kind: AttentionKind
    layer: int
    head: int

    def __lt__(self, other: object) -> bool:  # kinds in KIND_ORDER, then layer, then head
        if not isinstance(other, Head):
            return NotImplemented
        return self._key() < other._key()

    def _key(self) -> tuple[int, int, int]:
        return KIND_ORDER.index(self.kind), self.layer, self.head

    def __str__(self) -> str:
        return f"{self.kind.slug}:{self.layer + 1}.{self.head + 1}"


@dataclass(frozen=True)
class KindShape:
    """One kind's heads: ``layers`` × ``heads``."""

    kind: AttentionKind
    layers: int
    heads: int


@dataclass(frozen=True)
class HeadLayout:
    """Every head of a model, kind by kind (in KIND_ORDER)."""

    kinds: tuple[KindShape, ...]

    def shape_of(self, kind: AttentionKind) -> KindShape | None:
        return next((shape for shape in self.kinds if shape.kind is kind), None)

    def heads(self) -> Iterator[Head]:
        """Every head, kind by kind, layer by layer."""
        for shape in self.kinds:
            for layer in range(shape.layers):
                for head in range(shape.heads):
                    yield Head(shape.kind, layer, head)

    @property
    def count(self) -> int:
        return sum(shape.layers * shape.heads for shape in self.kinds)

    def describe(self) -> str:
        """``enc-self 3×4, dec-self 3×4, cross 3×4`` (layers × heads)."""
        return ", ".join(f"{s.kind.slug} {s.layers}×{s.heads}" for s in self.kinds)


class HeadMaskError(ValueError):
    """A head mask that does not parse, or names a head the model does not have (one readable line)."""


@dataclass(frozen=True)
class HeadMask:
    """The heads switched off (their output zeroed before the output projection)."""

    heads: frozenset[Head] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.heads)

    def __len__(self) -> int:
        return len(self.heads)

    def __contains__(self, head: object) -> bool:
        return head in self.heads

    def sorted(self) -> list[Head]:
        return sorted(self.heads)

    def __str__(self) -> str:
        """``enc-self:1.3,cross:2.1`` (parses back to the same mask)."""
        return ",".join(str(head) for head in self.sorted())

    def with_heads(self, heads: Iterable[Head]) -> HeadMask:
        return HeadMask(self.heads | frozenset(heads))

    @classmethod
    def parse(cls, text: str, layout: HeadLayout) -> HeadMask:
        """``"cross:2.1,enc:1.3"`` -> the mask; HeadMaskError for bad syntax or a head ``layout`` lacks."""
        heads = []
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            name, colon, numbers = part.partition(":")
            layer_text, dot, head_text = numbers.partition(".")
            kind = KIND_NAMES.get(name.strip().lower())
            if kind is None or not colon or not dot:
                raise HeadMaskError(tr("{part!r}: name a head as kind:layer.head, e.g. cross:2.1 (kinds: {kinds})"
                                       ).format(part=part, kinds=", ".join(KIND_NAMES)))
            try:
                layer, head = int(layer_text), int(head_text)
            except ValueError:
                raise HeadMaskError(tr("{part!r}: layer and head are whole numbers counted from 1, e.g. cross:2.1"
                                       ).format(part=part)) from None
            shape = layout.shape_of(kind)
            if shape is None:
                raise HeadMaskError(tr("{part!r}: this model has no {kind} (its heads: {heads})").format(
                    part=part, kind=kind.slug, heads=layout.describe()))
            if not (1 <= layer <= shape.layers and 1 <= head <= shape.heads):
                raise HeadMaskError(tr("{part!r}: this model's {kind} has {layers} layer(s) of {count} head(s), "
                                       "counted from 1").format(part=part, kind=kind.slug, layers=shape.layers,
                                                                count=shape.heads))
            heads.append(Head(kind, layer - 1, head - 1))
        return cls(frozenset(heads))
