"""The model-kind registry: one frozen record per kind of checkpoint attnviz can load, train and show.

Checkpoint loading, training, the CLI's choices, the session's model info and the panels all read
this table; adding a translation kind is its model module, one entry here and its tests.
Torch-free: the config and model classes are imported on first use, so the GUI can read the table
before torch has loaded.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

from attnviz.core import limits
from attnviz.i18n import N_, tr

Family = Literal["translation", "regression"]


class AttentionKind(Enum):
    """The attention matrices a translation model can expose."""

    ENCODER_SELF = N_("encoder self-attention")
    DECODER_SELF = N_("decoder self-attention")
    CROSS = N_("cross-attention")

    @property
    def slug(self) -> str:
        """Short name used in file names: enc-self, dec-self, cross."""
        return {"ENCODER_SELF": "enc-self", "DECODER_SELF": "dec-self", "CROSS": "cross"}[self.name]

    def label(self, prompt: bool = False) -> str:
        """What the window and the figures call it. prompt: the model is decoder-only (its source is the
        prompt of one causal sequence): prompt self-attention, self-attention, source view."""
        if not prompt:
            return tr(self.value)
        return tr({"ENCODER_SELF": N_("prompt self-attention"), "DECODER_SELF": N_("self-attention (prompt + answer)"),
                   "CROSS": N_("source view")}[self.name])


@dataclass(frozen=True)
class ModelKind:
    """Everything attnviz knows about one kind of model.

    module, config_class, model_class: where the config dataclass and the nn.Module live (imported
        lazily). The config dataclass's defaults are the kind's default architecture.
    fixed: config values the kind implies (rnn-additive has scoring "additive").
    label, scoring_formula: what the window shows (marked with ``N_``: ``tr()`` them where shown).
    default_lr: peak learning rate for ``attnviz train``; scoring_formula: the Scoring panel's text;
    attention: the attention matrices its decoding exposes (empty for regression).
    decoder_only: one causal sequence, English then French (no encoder): a batch pads on the left, its
        "encoder self-attention" is the prompt's, its decoder self-attention spans prompt and answer, and
        its cross-attention is the *source view* (the English columns of those rows, not renormalised).
    """

    name: str
    family: Family
    label: str
    module: str
    config_class: str
    model_class: str
    fixed: Mapping[str, Any] = field(default_factory=dict)
    default_lr: float = 1e-3
    scoring_formula: str = ""
    attention: tuple[AttentionKind, ...] = ()
    decoder_only: bool = False
    attention_cells: Callable[[Mapping[str, Any]], int] | None = None  # core/limits.py: what a decoding records
    sinusoidal_positions: bool = False  # adds the sinusoidal positional encoding to its embeddings
    hugging_face: bool = False  # a transformers model opened from its folder (its own modules and tokenizer)
    trainable: bool = True  # ``attnviz train`` can train it (a Hugging Face model is opened, not trained here)
    prompt_predicts: bool = False  # no separator: the prompt's last token is the query of the first new token

    @property
    def is_translation(self) -> bool:
        return self.family == "translation"

    @property
    def config_cls(self) -> type:
        return getattr(importlib.import_module(self.module), self.config_class)

    @property
    def model_cls(self) -> type:
        return getattr(importlib.import_module(self.module), self.model_class)

    def make_config(self, **values: Any) -> Any:
        """The kind's config from ``values`` (the kind's fixed values win), defaults elsewhere."""
        return self.config_cls(**{**values, **self.fixed})

    def owns(self, config: Any) -> bool:
        """Whether ``config`` is a config of this kind (its class and fixed values match)."""
        return isinstance(config, self.config_cls) and all(getattr(config, k) == v for k, v in self.fixed.items())

    def positions(self, config: Any) -> int:
        """How many positions its positional encoding covers for ``config`` (0: it has none): a decoder-only
        model's one sequence holds the English, <bos> and the French."""
        if not self.sinusoidal_positions:
            return 0
        if self.decoder_only:
            return int(config.max_src_len) + int(config.max_tgt_len) + 1
        return max(int(config.max_src_len), int(config.max_tgt_len))

    def settable_fields(self) -> list[str]:
        """Config fields a user may set (``attnviz train --arch``): all but the vocabularies and fixed ones."""
        return [f.name for f in dataclasses.fields(self.config_cls)
                if f.name not in {"src_vocab_size", "tgt_vocab_size", *self.fixed}]


_RNN = "attnviz.core.seq2seq"
KINDS: dict[str, ModelKind] = {kind.name: kind for kind in (
    ModelKind("transformer", "translation", N_("Transformer encoder–decoder"), "attnviz.core.transformer",
              "TransformerConfig", "Transformer", default_lr=1e-3,
              scoring_formula=N_("scaled dot-product scoring per head: a(q, k) = (W_q q)ᵀ(W_k k) / √d_head"),
              attention=(AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS),
              attention_cells=limits.encoder_decoder_cells, sinusoidal_positions=True),
    ModelKind("decoder-only", "translation", N_("Decoder-only Transformer (GPT-style), translating as continuation"),
              "attnviz.core.decoder_only", "DecoderOnlyConfig", "DecoderOnly", default_lr=1e-3,
              scoring_formula=N_("scaled dot-product scoring per head, causal: a(q, k) = (W_q q)ᵀ(W_k k) / √d_head"),
              attention=(AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS),
              decoder_only=True, attention_cells=limits.decoder_only_cells, sinusoidal_positions=True),
    ModelKind("rnn-additive", "translation", N_("GRU encoder–decoder, additive (Bahdanau) attention"), _RNN,
              "Seq2SeqConfig", "Seq2SeqAttention", {"scoring": "additive"}, default_lr=2e-3,
              scoring_formula=N_("additive (Bahdanau) scoring: a(q, k) = w_vᵀ tanh(W_q q + W_k k)"),
              attention=(AttentionKind.CROSS,), attention_cells=limits.rnn_cells),
    ModelKind("rnn-dot", "translation", N_("GRU encoder–decoder, scaled dot-product attention"), _RNN,
              "Seq2SeqConfig", "Seq2SeqAttention", {"scoring": "dot"}, default_lr=2e-3,
              scoring_formula=N_("scaled dot-product scoring: a(q, k) = qᵀk / √d"),
              attention=(AttentionKind.CROSS,), attention_cells=limits.rnn_cells),
    ModelKind("hf-seq2seq", "translation", N_("Hugging Face encoder–decoder (Marian, BART, mBART, T5)"),
              "attnviz.core.hf.load",
              "HFSeq2SeqConfig", "HFEncoderDecoder",
              scoring_formula=N_("scaled dot-product scoring per head: a(q, k) = (W_q q)ᵀ(W_k k) / √d_head"),
              attention=(AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS),
              hugging_face=True, trainable=False),
    ModelKind("hf-causal", "translation", N_("Hugging Face decoder-only model (GPT-2, Llama, Qwen2)"),
              "attnviz.core.hf.load", "HFCausalConfig", "HFCausal",
              scoring_formula=N_("scaled dot-product scoring per head, causal: a(q, k) = (W_q q)ᵀ(W_k k) / √d_head"),
              attention=(AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS),
              decoder_only=True, hugging_face=True, trainable=False, prompt_predicts=True),
    ModelKind("kernel-regression", "regression", N_("Nadaraya–Watson kernel regression (attention pooling)"),
              "attnviz.core.kernel_regression", "KernelRegressionConfig", "KernelRegressionModel"),
)}


def kind_named(name: str) -> ModelKind:
    """The registry record of ``name``; KeyError names the known kinds."""
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(tr("unknown model kind {name!r}; known: {known}").format(name=name, known=", ".join(KINDS))
                       ) from None


def kind_of(config: Any) -> ModelKind:
    """The kind a config belongs to."""
    for kind in KINDS.values():
        if kind.owns(config):
            return kind
    raise TypeError(f"no model kind for {type(config).__name__}")


def families() -> list[str]:
    """Every model family of the registry, sorted."""
    return sorted({kind.family for kind in KINDS.values()})


def translation_kinds() -> list[str]:
    return [name for name, kind in KINDS.items() if kind.is_translation]
