"""A model as loaded: the module, its config and vocabularies, where it came from, and what its family is.

Whatever read it (a safetensors checkpoint, :mod:`attnviz.core.checkpoints.checkpoint`; a Hugging Face folder,
:mod:`attnviz.core.hf.load`), decoding, the views and the commands see this one record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from attnviz.core.layout import Capability, SequenceLayout
from attnviz.core.models.kinds import KINDS, ModelKind
from attnviz.core.text import Vocab
from attnviz.i18n import tr


@dataclass
class LoadedModel:
    """A model rebuilt from a checkpoint (in eval mode, on the CPU unless moved)."""

    kind: str
    config: Any
    model: nn.Module
    src_vocab: Vocab | None = None
    tgt_vocab: Vocab | None = None
    training: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    labels: tuple[str, ...] = ()  # a classifier's class names, by class index (an image model's; else none)

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    @property
    def name(self) -> str:
        """What the views call it: the checkpoint's stem, or a Hugging Face model's name (``opus-mt-en-fr``, not
        the hash of its cache snapshot's folder)."""
        if self.training.get("source") == "Hugging Face" and self.training.get("name"):
            return str(self.training["name"]).rsplit("/", 1)[-1]
        return self.path.stem if self.path else self.kind

    @property
    def layer_notes(self) -> tuple[str, ...]:
        """Per layer of its one stack, what the layer's attention does beyond the plain one ("sliding window 512",
        "no positions", ""), as its model reports it (a Hugging Face adapter's ``variants``:
        :mod:`attnviz.core.hf.variants`); () where every layer is alike."""
        variants = tuple(getattr(self.model, "variants", ()))
        windowed = any(variant.window is not None for variant in variants)
        notes = tuple(variant.title() or (tr("global") if windowed else "") for variant in variants)
        return notes if any(notes) else ()

    @property
    def learned_sink(self) -> bool:
        """Whether its heads have a learned sink logit that takes a share of every row (gpt-oss)."""
        return any(variant.sink for variant in getattr(self.model, "variants", ()))

    @property
    def model_kind(self) -> ModelKind:
        return KINDS[self.kind]

    @property
    def layout(self) -> SequenceLayout:
        """How its attention is laid out (what the views ask instead of its kind)."""
        return self.model_kind.sequence_layout

    def offers(self, capability: Capability) -> bool:
        return self.layout.offers(capability)

    @property
    def shared_rows(self) -> int:
        """1 where the answer's first query is the prompt's last position (a model whose prompt's last token
        predicts the first new one: a Hugging Face decoder-only model, which has no separator), else 0."""
        return self.model_kind.shared_rows

    def first_query(self, source_tokens: Sequence[str]) -> str:
        """The query token of the first decoding step: the decoder's start token (``<bos>``), or the source's last
        token where that token predicts the first new one (:attr:`shared_rows`)."""
        vocab = self.tgt_vocab
        assert vocab is not None
        return source_tokens[-1] if self.shared_rows and source_tokens else vocab.tokens[vocab.bos_id]
