"""The attention matrices a model can expose (torch-free, Qt-free: the layouts and the registry both read it)."""

from __future__ import annotations

from enum import Enum

from attnviz.i18n import N_, tr


class AttentionKind(Enum):
    """The attention matrices a translation model can expose."""

    ENCODER_SELF = N_("encoder self-attention")
    DECODER_SELF = N_("decoder self-attention")
    CROSS = N_("cross-attention")

    @property
    def slug(self) -> str:
        """Short name used in file names: enc-self, dec-self, cross."""
        return {"ENCODER_SELF": "enc-self", "DECODER_SELF": "dec-self", "CROSS": "cross"}[self.name]

    def label(self) -> str:
        """Its plain name, translated (a layout may name it its own way: ``SequenceLayout.kind_label``)."""
        return tr(self.value)
