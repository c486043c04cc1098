"""A Hugging Face model folder, looked at before anything is loaded (torch- and transformers-free).

A folder made by ``save_pretrained`` holds ``config.json``, the weights (``model.safetensors``, shards listed
in ``model.safetensors.index.json``, or a ``pytorch_model.bin``) and the tokenizer's files (an image model's:
its image processor's ``preprocessor_config.json``, whose sizes are bounded). Before a
library reads any of them this module checks, in milliseconds: every file is a regular file inside the
model's folder (a link may point into the Hugging Face cache's ``blobs/`` of the same model, nowhere
else), of a plausible size; the config is a JSON object of a supported architecture that needs no code of
its own (``auto_map``: ``trust_remote_code`` is never used) and whose sizes are bounded the way attnviz
checkpoints are (a config claiming 10⁹ hidden units, or 10⁶ positions, is refused before any allocation);
each safetensors file's header fits the file (a truncated download is named). The files themselves are checked
in :mod:`attnviz.core.hf.files`, what the configs and tokenizer files say (the paths they name, the keywords
they pass on) in :mod:`attnviz.core.hf.contents`. Problems raise :class:`HFFolderError`, one sentence naming the
file.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from attnviz.core.hf import compat
from attnviz.core.hf.contents import check_contents
from attnviz.core.hf.files import MAX_PARAMETERS, HFFolderError, cannot_read, check_every_file, member, read_json
from attnviz.core.hf.files import weights as weight_files_of
from attnviz.core.layout import layout_named
from attnviz.i18n import tr

__all__ = ["ARCHITECTURES", "Architecture", "HFFolder", "HFFolderError", "Modules", "Projection", "architecture_of",
           "cached_models", "has_masked_lm_head", "hub_cache", "inspect_folder", "model_class_name", "model_name"]



PositionKind = Literal["sinusoidal", "learned", "rotary", "relative bias"]


@dataclass(frozen=True)
class Modules:
    """Where an architecture keeps its attention modules, as ``nn.Module.get_submodule`` paths: each stack's list
    of blocks from the model (:meth:`Architecture.root`), and each kind's module from one block (a decoder-only
    model's one causal self-attention is its ``decoder_self``; an encoder-only model's one self-attention its
    ``encoder_self``, and it has no decoder: "")."""

    decoder_blocks: str = ""
    decoder_self: str = ""
    encoder_blocks: str | None = None
    encoder_self: str | None = None
    cross: str | None = None


@dataclass(frozen=True)
class Projection:
    """How an attention module makes one head's query, key and value: ``separate`` layers (nn.Linear, weight
    (out, D); named in ``layers`` as q, k, v), one ``fused`` layer making [q | k | v] (GPT-2's Conv1D
    ``c_attn``, weight (D, 3·out)) or one ``fused-linear`` nn.Linear making [q | k | v] (weight (H·d + 2·G·d, D):
    Phi-3's ``qkv_proj``, ModernBERT's ``Wqkv``); the module's attribute holding a head's width; whether groups of
    query heads share one key/value head (grouped-query attention); and ``output``, the output projection that reads
    the heads side by side (B, Q, H·D) from the attention module (out_proj, o_proj, GPT-2's Conv1D c_proj, T5's o;
    "": it is not inside the module, BERT's): where the head gates of :mod:`attnviz.core.hf.heads` go."""

    style: Literal["separate", "fused", "fused-linear"]
    layers: tuple[str, ...]
    head_width: str = "head_dim"
    grouped: bool = False
    output: str = ""


@dataclass(frozen=True)
class Architecture:
    """What attnviz knows of one ``model_type``: its layout, a display name, the config keys of its sizes (width,
    layers per stack, heads, feed-forward width, vocabulary, positions), where its attention modules are, how they
    project q, k and v, and where its positions come from (``position_kind``; ``position_module``: the table of a
    sinusoidal or learned encoding — the encoder's where there are two — or the rotary embedding, from the model;
    ``position_offset``: the table's rows before position 0; ``padding_offset``: they are RoBERTa's padding_idx + 1,
    :meth:`offset`). An encoder-only architecture names its classes (config.json's ``architectures``): those with a
    masked-language-model head (``masked_lm``) and the bare model (``bare``), and the weights its folders may hold
    that the model attnviz opens does not use (``unused``: BERT's pooler and next-sentence head). An image
    architecture (layout "image") names its classes with a classifier head (``classifiers``) and the bare model, the
    positions every image has before its patches (``specials``: ``[CLS]``, DeiT's distillation token) and the config
    key counting its register tokens (``registers``: DINOv2 with registers). Chosen once, when the folder is read;
    the adapters, the Computation and the Positional views read it, never the modules' attributes."""

    name: str
    layout: str  # the name of its sequence layout: one of attnviz.core.layout.LAYOUTS (checked when it is made)
    width: str
    layers: tuple[str, ...]
    heads: tuple[str, ...]
    ffn: tuple[str, ...]
    positions: str | None
    modules: Modules
    projection: Projection
    position_kind: PositionKind
    position_module: str | None = None
    position_offset: int = 0
    position_tables: int = 0  # tables of positions × width it builds (learned or sinusoidal; rotary: none)
    padding_offset: bool = False
    masked_lm: tuple[str, ...] = ()
    bare: str = ""
    unused: tuple[str, ...] = ()
    classifiers: tuple[str, ...] = ()
    specials: tuple[str, ...] = ()
    registers: str = ""
    # the attention's twists beyond Llama's, each in one place (core/hf/variants.py reads them with the config):
    qk_norm: Literal["", "head", "projection"] = ""  # the module's q_norm/k_norm: per head (Qwen3) or whole (OLMo 2)
    softcap: str = ""  # the config key of the scores' soft-cap (Gemma 2: attn_logit_softcapping)
    sinks: str = ""  # the module's attribute of its learned sink logits, one per head (gpt-oss: sinks)
    rope_layers: str = ""  # the config key saying per layer whether it rotates (SmolLM3: no_rope_layers, 0: none)
    # module:function opening a checked folder of this architecture itself: (transformers, folder, build, device,
    # training, path) -> LoadedModel, build(transformers, model class, folder) making the model with its weights
    # (core/hf/load.py's ``_model``); "": core/hf/load.py's own layouts
    loader: str = ""

    def __post_init__(self) -> None:
        layout_named(self.layout)  # (KeyError: the layouts attnviz knows are core/layout.py's, not a list of its own)

    def root(self, model: Any) -> Any:
        """The module the record's paths start from: an encoder-only or image model's base model (the same ``bert``
        or ``vit`` with or without its head), else the model itself."""
        return model.base_model if self.layout in ("encoder-only", "image") else model

    def special_positions(self, config: Any) -> tuple[str, ...]:
        """The labels of the positions an image model puts before its patches for ``config`` (config.json's mapping
        or a transformers config): the record's ``specials``, then ``[REG1]`` … one per register token."""
        count = config.get(self.registers) if isinstance(config, Mapping) else getattr(config, self.registers, 0)
        registers = int(count) if self.registers and isinstance(count, int) and not isinstance(count, bool) else 0
        return (*self.specials, *(f"[REG{i + 1}]" for i in range(registers)))

    def offset(self, config: Any) -> int:
        """The position table's rows before position 0 for ``config`` (config.json's mapping or a transformers
        config): the record's ``position_offset``, or with ``padding_offset`` the padding id + 1 (RoBERTa: 2)."""
        if not self.padding_offset:
            return self.position_offset
        pad = config.get("pad_token_id") if isinstance(config, Mapping) else getattr(config, "pad_token_id", None)
        return int(pad) + 1 if isinstance(pad, int) and not isinstance(pad, bool) else self.position_offset


_BART_MODULES = Modules(decoder_blocks="model.decoder.layers", decoder_self="self_attn",
                        encoder_blocks="model.encoder.layers", encoder_self="self_attn", cross="encoder_attn")
_SEPARATE = Projection("separate", ("q_proj", "k_proj", "v_proj"), output="out_proj")
_BART_LIKE = dict(layout="encoder-decoder", width="d_model", layers=("encoder_layers", "decoder_layers"),
                  heads=("encoder_attention_heads", "decoder_attention_heads"),
                  ffn=("encoder_ffn_dim", "decoder_ffn_dim"), positions="max_position_embeddings",
                  modules=_BART_MODULES, projection=_SEPARATE, position_module="model.encoder.embed_positions",
                  position_tables=2)
_LLAMA_LIKE = dict(layout="decoder-only", width="hidden_size", layers=("num_hidden_layers",),
                   heads=("num_attention_heads", "num_key_value_heads"), ffn=("intermediate_size",),
                   positions="max_position_embeddings",
                   modules=Modules(decoder_blocks="model.layers", decoder_self="self_attn"),
                   projection=Projection("separate", ("q_proj", "k_proj", "v_proj"), grouped=True, output="o_proj"),
                   position_kind="rotary", position_module="model.rotary_emb")
_BERT_LIKE = dict(layout="encoder-only", width="hidden_size", layers=("num_hidden_layers",),
                  heads=("num_attention_heads",), ffn=("intermediate_size",), positions="max_position_embeddings",
                  modules=Modules(encoder_blocks="encoder.layer", encoder_self="attention.self"),
                  projection=Projection("separate", ("query", "key", "value"), head_width="attention_head_size"),
                  position_kind="learned", position_module="embeddings.position_embeddings", position_tables=1,
                  unused=("pooler", "seq_relationship"))
_VISION_PROJECTION = Projection("separate", ("q_proj", "k_proj", "v_proj"), output="o_proj")
_VIT_LIKE = dict(layout="image", width="hidden_size", layers=("num_hidden_layers",), heads=("num_attention_heads",),
                 ffn=("intermediate_size",), positions=None,
                 modules=Modules(encoder_blocks="layers", encoder_self="attention"), projection=_VISION_PROJECTION,
                 position_kind="learned", position_module="embeddings.position_embeddings", position_tables=1,
                 unused=("pooler",), loader="attnviz.core.hf.vision:load_folder")  # (DINOv2: 4 × width, mlp_ratio)
_DINOV2_LIKE = {**_VIT_LIKE, "ffn": (), "modules": Modules(encoder_blocks="encoder.layer", encoder_self="attention")}
ARCHITECTURES: dict[str, Architecture] = {
    "marian": Architecture("Marian", **_BART_LIKE, position_kind="sinusoidal"),  # type: ignore[arg-type]
    "bart": Architecture("BART", **_BART_LIKE, position_kind="learned", position_offset=2),  # type: ignore[arg-type]
    "mbart": Architecture("mBART", **_BART_LIKE, position_kind="learned", position_offset=2),  # type: ignore[arg-type]
    "t5": Architecture("T5", "encoder-decoder", "d_model", ("num_layers", "num_decoder_layers"), ("num_heads",),
                       ("d_ff", "d_kv"), None,
                       modules=Modules(decoder_blocks="decoder.block", decoder_self="layer.0.SelfAttention",
                                       encoder_blocks="encoder.block", encoder_self="layer.0.SelfAttention",
                                       cross="layer.1.EncDecAttention"),
                       projection=Projection("separate", ("q", "k", "v"), head_width="key_value_proj_dim", output="o"),
                       position_kind="relative bias"),
    "gpt2": Architecture("GPT-2", "decoder-only", "n_embd", ("n_layer",), ("n_head",), ("n_inner",), "n_positions",
                         modules=Modules(decoder_blocks="transformer.h", decoder_self="attn"),
                         projection=Projection("fused", ("c_attn",), output="c_proj"), position_kind="learned",
                         position_module="transformer.wpe", position_tables=1),
    "llama": Architecture("Llama", **_LLAMA_LIKE),  # type: ignore[arg-type]
    "qwen2": Architecture("Qwen2", **_LLAMA_LIKE),  # type: ignore[arg-type]
    # today's decoder-only models: Llama's layout, each with its attention's twist (core/hf/variants.py)
    "qwen3": Architecture("Qwen3", **_LLAMA_LIKE, qk_norm="head"),  # type: ignore[arg-type]
    "qwen3_moe": Architecture("Qwen3-MoE", **_LLAMA_LIKE, qk_norm="head"),  # type: ignore[arg-type]
    "mistral": Architecture("Mistral", **_LLAMA_LIKE),  # type: ignore[arg-type]
    "mixtral": Architecture("Mixtral", **_LLAMA_LIKE),  # type: ignore[arg-type]
    "gemma2": Architecture("Gemma 2", **_LLAMA_LIKE, softcap="attn_logit_softcapping"),  # type: ignore[arg-type]
    "gemma3_text": Architecture("Gemma 3", **_LLAMA_LIKE, qk_norm="head"),  # type: ignore[arg-type]
    "phi3": Architecture("Phi-3", **{**_LLAMA_LIKE, "projection": Projection(  # type: ignore[arg-type]
        "fused-linear", ("qkv_proj",), grouped=True, output="o_proj")}),
    "olmo2": Architecture("OLMo 2", **_LLAMA_LIKE, qk_norm="projection"),  # type: ignore[arg-type]
    "smollm3": Architecture("SmolLM3", **_LLAMA_LIKE, rope_layers="no_rope_layers"),  # type: ignore[arg-type]
    "gpt_oss": Architecture("gpt-oss", **_LLAMA_LIKE, sinks="sinks"),  # type: ignore[arg-type]
    "bert": Architecture("BERT", **_BERT_LIKE,  # type: ignore[arg-type]
                         masked_lm=("BertForMaskedLM", "BertForPreTraining"), bare="BertModel"),
    "distilbert": Architecture(
        "DistilBERT", "encoder-only", "dim", ("n_layers",), ("n_heads",), ("hidden_dim",), "max_position_embeddings",
        modules=Modules(encoder_blocks="transformer.layer", encoder_self="attention"),
        projection=Projection("separate", ("q_lin", "k_lin", "v_lin"), head_width="attention_head_size"),
        position_kind="learned", position_module="embeddings.position_embeddings", position_tables=1,
        masked_lm=("DistilBertForMaskedLM",), bare="DistilBertModel"),
    "roberta": Architecture("RoBERTa", **_BERT_LIKE, position_offset=2, padding_offset=True,  # type: ignore[arg-type]
                            masked_lm=("RobertaForMaskedLM",), bare="RobertaModel"),
    "modernbert": Architecture(
        "ModernBERT", "encoder-only", "hidden_size", ("num_hidden_layers",), ("num_attention_heads",),
        ("intermediate_size",), "max_position_embeddings",
        modules=Modules(encoder_blocks="layers", encoder_self="attn"),
        projection=Projection("fused-linear", ("Wqkv",), output="Wo"), position_kind="rotary",
        position_module="rotary_emb", masked_lm=("ModernBertForMaskedLM",), bare="ModernBertModel"),
    "vit": Architecture("ViT", **_VIT_LIKE, classifiers=("ViTForImageClassification",),  # type: ignore[arg-type]
                        bare="ViTModel", specials=("[CLS]",)),
    "deit": Architecture("DeiT", **_VIT_LIKE, bare="DeiTModel", specials=("[CLS]", "[DIST]"),  # type: ignore[arg-type]
                         classifiers=("DeiTForImageClassificationWithTeacher", "DeiTForImageClassification")),
    "dinov2": Architecture("DINOv2", **_DINOV2_LIKE, classifiers=("Dinov2ForImageClassification",),  # type: ignore[arg-type]
                           bare="Dinov2Model", specials=("[CLS]",)),
    "dinov2_with_registers": Architecture(
        "DINOv2 with registers", **_DINOV2_LIKE, classifiers=("Dinov2WithRegistersForImageClassification",),  # type: ignore[arg-type]
        bare="Dinov2WithRegistersModel", specials=("[CLS]",), registers="num_register_tokens"),
}


def architecture_of(model: Any) -> Architecture:
    """The record of a transformers model (by its config's ``model_type``: a model built in memory has one too)."""
    return ARCHITECTURES[model.config.model_type]


BOUNDS = {"width": 16_384, "layers": 256, "heads": 256, "ffn": 131_072, "vocab_size": 1_000_000,
          "positions": 1_048_576, "buckets": 4_096, "labels": 1_000_000}  # labels: a classifier's classes
MAX_IMAGE_SIDE = 2048  # pixels: an image model's input side, and its processor's sizes (real ones: 224–1024)
PROCESSOR_FILE = "preprocessor_config.json"
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json", "merges.txt",
                   "vocab.txt", "source.spm", "target.spm", "spiece.model", "sentencepiece.bpe.model",
                   "tokenizer.model", "added_tokens.json", "generation_config.json")
TOKENIZER_CORE = ("tokenizer.json", "vocab.json", "vocab.txt", "source.spm", "spiece.model", "sentencepiece.bpe.model",
                  "tokenizer.model")  # one of these is the tokenizer itself


@dataclass(frozen=True)
class HFFolder:
    """A checked model folder: its architecture, config (the parsed JSON), weight files (safetensors
    shards or one ``.bin``), tokenizer files, and the parameter count its config implies (an estimate)."""

    path: Path
    model_type: str
    architecture: Architecture
    config: Mapping[str, Any]
    weights: tuple[Path, ...]
    tokenizer_files: tuple[Path, ...]
    parameters: int
    processor: Path | None = None  # an image model's preprocessor_config.json (its image processor's settings)

    @property
    def name(self) -> str:
        """The model's name as a person knows it: ``opus-mt-en-fr`` from the folder or the cache entry."""
        return model_name(self.path)


def model_name(folder: Path) -> str:
    """``Helsinki-NLP/opus-mt-en-fr`` for a snapshot of the Hugging Face cache (or a link to one), else the folder's
    name."""
    cache_entry = _cache_entry(snapshot_behind(folder))
    return cache_entry.name.removeprefix("models--").replace("--", "/") if cache_entry else folder.name


def inspect_folder(path: str | Path, tokenizer_json: bool = True) -> HFFolder:
    """Check the folder ``path`` (see the module's docstring; ``tokenizer_json``: its tokenizer.json's contents
    too, :mod:`attnviz.core.hf.contents`); HFFolderError says what is wrong."""
    folder = Path(path)
    if not folder.is_dir():
        raise HFFolderError(tr("{path}: not a folder (a Hugging Face model is a folder with config.json)").format(
            path=folder))
    folder = snapshot_behind(folder)  # (a link to a cache snapshot: the snapshot, whose files lead into its blobs/)
    root = _cache_entry(folder) or folder
    config_file = member(folder, root, "config.json")
    if config_file is None:
        raise HFFolderError(tr("{path}: is a folder, not a checkpoint file, and has no config.json: not a Hugging "
                               "Face model folder either").format(path=folder))
    config = read_json(config_file)
    if not isinstance(config, dict):
        raise HFFolderError(tr("{path}: is not a JSON object of settings").format(path=config_file))
    model_type = config.get("model_type")
    if not isinstance(model_type, str):
        raise HFFolderError(tr("{path}: has no model_type naming its architecture").format(path=config_file))
    if "auto_map" in config:
        raise HFFolderError(tr("{path}: the model needs its own Python code (auto_map), which attnviz never "
                               "runs (no trust_remote_code)").format(path=config_file))
    if model_type == "gemma3":  # (the image–text model: its vision tower and projector are not a text model's)
        raise HFFolderError(tr("{path}: model_type 'gemma3' is Gemma 3's image–text model, which attnviz does not "
                               "open; it opens Gemma 3's language model saved alone (model_type 'gemma3_text', as "
                               "Gemma 3 270M and 1B are)").format(path=config_file))
    if model_type not in ARCHITECTURES:
        raise HFFolderError(tr("{path}: model_type {model_type!r} is not one attnviz opens; it opens {names}").format(
            path=config_file, model_type=model_type, names=", ".join(a.name for a in ARCHITECTURES.values())))
    architecture = ARCHITECTURES[model_type]
    images = architecture.layout == "image"
    if architecture.layout == "encoder-only" or images:
        _check_classes(config_file, config, architecture)
    _check_labels(config_file, config)
    parameters = _check_image_sizes(config_file, config) if images else _check_sizes(config_file, config, architecture)
    _check_numbers(config_file, config)
    processor = None
    try:
        weight_files = weight_files_of(folder, root)
        check_every_file(folder, root)
        tokenizer: tuple[Path, ...] = ()
        if images:  # (an image model reads no text: its image processor's settings instead of a tokenizer)
            processor = member(folder, root, PROCESSOR_FILE)
            if processor is None:
                raise HFFolderError(tr("{path}: has no {name}: the image processor that prepares its images").format(
                    path=folder, name=PROCESSOR_FILE))
            _check_processor(processor)
        else:
            tokenizer = tuple(p for name in TOKENIZER_FILES if (p := member(folder, root, name)))
            if not any(p.name in TOKENIZER_CORE for p in tokenizer):
                raise HFFolderError(tr("{path}: has no tokenizer (none of {names})").format(
                    path=folder, names=", ".join(TOKENIZER_CORE)))
        check_contents(folder, root, tokenizer_json)
    except OSError as error:  # (a file that can be listed but not read: no permission …)
        raise cannot_read(getattr(error, "filename", None) or folder, error) from None
    return HFFolder(folder, model_type, architecture, config, weight_files, tokenizer, parameters, processor)


def has_masked_lm_head(config: Mapping[str, Any], architecture: Architecture) -> bool:
    """Whether config.json's ``architectures`` names a class of ``architecture`` with a masked-language-model head
    (else the folder holds the bare model)."""
    named = config.get("architectures")
    return isinstance(named, list) and any(name in architecture.masked_lm for name in named)


def model_class_name(config: Mapping[str, Any], architecture: Architecture) -> str:
    """The transformers class an image folder holds: the first of config.json's ``architectures`` that the record
    knows (a classifier or the bare model; none named: the bare model). Checked by :func:`inspect_folder`."""
    named = config.get("architectures")
    known = (*architecture.classifiers, architecture.bare)
    return next((name for name in named if name in known), architecture.bare) if isinstance(named, list) \
        else architecture.bare


def _check_classes(config_file: Path, config: Mapping[str, Any], architecture: Architecture) -> None:
    """An encoder-only folder holds a model with a masked-language-model head or the bare model (config.json's
    ``architectures``; none named: the bare model), not one with another head (a classifier's weights are not the
    model attnviz opens); an image folder a classifier (ViTForImageClassification …) or the bare model (ViTModel)."""
    named = config.get("architectures")
    if named is None:
        return
    known = (*architecture.masked_lm, *architecture.classifiers, architecture.bare)
    if not isinstance(named, list) or not any(isinstance(name, str) and name in known for name in named):
        raise HFFolderError(tr("{path}: architectures = {named} is not a model attnviz opens; of model_type "
                               "{model_type!r} it opens {known}").format(
            path=config_file, named=_shown(named), model_type=config.get("model_type"), known=", ".join(known)))


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "…"


def hub_cache() -> Path:
    """The local Hugging Face cache's folder (HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub)."""
    if cache := os.environ.get("HF_HUB_CACHE"):
        return Path(cache)
    home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache",
                                                     "huggingface")
    return Path(home) / "hub"


def cached_models(cache: Path | None = None) -> list[tuple[HFFolder | None, Path, str]]:
    """The models in the local Hugging Face cache, by name: (the checked folder or None, the snapshot, why it
    cannot be opened or ""), one per model (its newest snapshot)."""
    found: list[tuple[HFFolder | None, Path, str]] = []
    for entry in sorted((cache or hub_cache()).glob("models--*")):
        try:
            snapshots = [s for s in (entry / "snapshots").glob("*") if (s / "config.json").exists()]
            if not snapshots:
                continue
            newest = max(snapshots, key=lambda s: s.stat().st_mtime)
        except OSError as error:  # (an entry this user may not look into)
            found.append((None, entry, tr("{path}: cannot be read ({error})").format(path=entry,
                                                                                     error=error.strerror or error)))
            continue
        try:
            found.append((inspect_folder(newest, tokenizer_json=False), newest, ""))
        except HFFolderError as error:
            found.append((None, newest, str(error)))
    return found


def snapshot_behind(folder: Path) -> Path:
    """``folder``, or the Hugging Face cache snapshot (``models--org--name/snapshots/HASH``) it leads to through
    links (the user's own link to a snapshot): that snapshot is then read by the cache's own rule — its files may
    lead into the same model's ``blobs/``, nowhere else. A folder that is no snapshot, whatever its links, stays
    as it is (its files must lie inside it)."""
    if _cache_entry(folder) is not None:
        return folder
    try:
        real = folder.resolve(strict=True)
    except (OSError, RuntimeError):  # (missing, or a loop of links: said by the checks that follow)
        return folder
    return real if _cache_entry(real) is not None else folder


def _cache_entry(folder: Path) -> Path | None:
    """The ``models--org--name`` entry of the Hugging Face cache that ``folder`` is a snapshot of, or None."""
    absolute = folder.absolute()
    if absolute.parent.name == "snapshots" and absolute.parent.parent.name.startswith("models--"):
        return absolute.parent.parent
    return None


def _size(config_file: Path, config: Mapping[str, Any], key: str, bound: int, default: int | None = None) -> int:
    value = config.get(key)
    value = default if value is None else value  # (GPT-2 writes n_inner: null for 4 × width)
    if value is None:
        raise HFFolderError(tr("{path}: has no {key}").format(path=config_file, key=key))
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= bound:
        raise HFFolderError(tr("{path}: {key} = {value!r} is not a whole number from 1 to {most:,}").format(
            path=config_file, key=key, value=value, most=bound))
    return value


def _check_image_sizes(config_file: Path, config: Mapping[str, Any]) -> int:
    """An image model's sizes, bounded (width, layers, heads, feed-forward width or DINOv2's ``mlp_ratio``, image
    side, patch side, channels, register tokens, classes); returns the parameter count they imply (an estimate)."""
    width = _size(config_file, config, "hidden_size", BOUNDS["width"])
    layers = _size(config_file, config, "num_hidden_layers", BOUNDS["layers"])
    heads = _size(config_file, config, "num_attention_heads", BOUNDS["heads"])
    ratio = config.get("mlp_ratio")
    ffn = _size(config_file, config, "intermediate_size", BOUNDS["ffn"], 4 * width) if ratio is None else \
        _size(config_file, config, "mlp_ratio", BOUNDS["ffn"] // width)
    ffn = ffn * width if ratio is not None else ffn
    side = _size(config_file, config, "image_size", MAX_IMAGE_SIDE, 224)
    patch = _size(config_file, config, "patch_size", MAX_IMAGE_SIDE, 16)
    _size(config_file, config, "num_channels", 4, 3)
    if config.get("num_register_tokens") is not None:
        _size(config_file, config, "num_register_tokens", 256)
    if width % heads and config.get("head_dim") is None:
        raise HFFolderError(tr("{path}: {key} = {width} is not divisible into {heads} heads "
                               "(or {heads} heads into {groups} groups)").format(
            path=config_file, key="hidden_size", width=width, heads=heads, groups=heads))
    positions = (side // patch) ** 2 + 1
    parameters = layers * (4 * width * width + 2 * width * ffn) + positions * width + patch * patch * 4 * width
    parameters += _check_labels(config_file, config) * width  # (the classifier's head)
    if parameters > MAX_PARAMETERS:
        raise HFFolderError(tr("{path}: describes a model of about {billions:,.1f} billion parameters; "
                               "attnviz opens models of up to {most:g} billion").format(
            path=config_file, billions=parameters / 1e9, most=MAX_PARAMETERS / 1e9))
    return parameters


def _check_labels(config_file: Path, config: Mapping[str, Any]) -> int:
    """The classes a config names, bounded before transformers reads it (every architecture: its config class makes
    ``id2label`` of ``num_labels`` entries whatever the model, 2³¹ of them in minutes and GBs): ``num_labels`` a whole
    number from 1 to BOUNDS["labels"], ``id2label`` a mapping of at most as many; returns the larger of the two
    counts (0: the config names none)."""
    labels = config.get("id2label")
    if labels is not None and (not isinstance(labels, dict) or len(labels) > BOUNDS["labels"]):
        raise HFFolderError(tr("{path}: id2label is not a mapping of at most {most:,} class numbers to names").format(
            path=config_file, most=BOUNDS["labels"]))
    count = _size(config_file, config, "num_labels", BOUNDS["labels"]) if config.get("num_labels") is not None else 0
    return max(count, len(labels or ()))


def _check_processor(path: Path) -> None:
    """preprocessor_config.json is a JSON object whose sizes (``size``, ``crop_size``: a number or a mapping of
    them) are whole numbers up to :data:`MAX_IMAGE_SIDE` pixels: a processor that would make a picture of 10⁵ × 10⁵
    pixels is refused before it is built; and whose numbers are finite, its ``image_std`` (divided by) and
    ``rescale_factor`` above 0: NaN or a division by 0 there would make every map NaN."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise HFFolderError(tr("{path}: is not a JSON object of settings").format(path=path))
    _check_finite(path, data)
    for key in ("image_std", "rescale_factor"):
        value = data.get(key)
        for number in value if isinstance(value, list) else () if value is None else (value,):
            if isinstance(number, int | float) and not isinstance(number, bool) and not number > 0:
                raise HFFolderError(tr("{path}: {key} = {value} is not a number above 0 (the pictures are divided "
                                       "by it)").format(path=path, key=key, value=_shown(value)))
    for key in ("size", "crop_size"):
        value = data.get(key)
        sides = value.values() if isinstance(value, dict) else () if value is None else (value,)
        for side in sides:
            if side is not None and (isinstance(side, bool) or not isinstance(side, int)
                                     or not 1 <= side <= MAX_IMAGE_SIDE):
                raise HFFolderError(tr("{path}: {key} = {value} is not a size in pixels from 1 to {most:,}").format(
                    path=path, key=key, value=_shown(value), most=MAX_IMAGE_SIDE))


def _check_sizes(config_file: Path, config: Mapping[str, Any], arch: Architecture) -> int:
    """Every size the config gives, bounded; returns the parameter count they imply (an estimate: the
    matrices of attention, feed-forward, embeddings and position tables)."""
    width = _size(config_file, config, arch.width, BOUNDS["width"])
    layers = [_size(config_file, config, key, BOUNDS["layers"], config.get(arch.layers[0])) for key in arch.layers]
    heads = [_size(config_file, config, key, BOUNDS["heads"], config.get(arch.heads[0])) for key in arch.heads]
    ffn = [_size(config_file, config, key, BOUNDS["ffn"], 4 * width) for key in arch.ffn]
    vocab = _size(config_file, config, "vocab_size", BOUNDS["vocab_size"])
    positions = _size(config_file, config, arch.positions, BOUNDS["positions"], 1) if arch.positions else 0
    target_vocab = _size(config_file, config, "decoder_vocab_size", BOUNDS["vocab_size"], vocab)  # (Marian's own)
    if heads[0] % heads[-1] or ("d_kv" not in arch.ffn and "head_dim" not in config and width % heads[0]):
        raise HFFolderError(tr("{path}: {key} = {width} is not divisible into {heads} heads "
                               "(or {heads} heads into {groups} groups)").format(
            path=config_file, key=arch.width, width=width, heads=heads[0], groups=heads[-1]))
    head_width = width // heads[0]
    for key in ("head_dim", "d_kv"):  # (a head's width where the config sets it apart from the model's)
        if config.get(key) is not None:
            head_width = _size(config_file, config, key, BOUNDS["width"])
    if arch.padding_offset:  # (RoBERTa: position ids start after the padding id; beyond the table they cannot be read)
        pad = config.get("pad_token_id")
        if isinstance(pad, bool) or not isinstance(pad, int) or not 0 <= pad <= positions - 3:
            raise HFFolderError(tr("{path}: pad_token_id = {value!r} is not a whole number from 0 to {most:,}: the "
                                   "model's positions start after it, within its {positions:,}").format(
                path=config_file, value=pad, most=max(positions - 3, 0), positions=positions))
    if config.get("relative_attention_num_buckets") is not None:
        _size(config_file, config, "relative_attention_num_buckets", BOUNDS["buckets"])
    attention = 4 * width * heads[0] * head_width  # q, k, v and the output, over every head
    embeddings = (1 + (config.get("tie_word_embeddings") is False)) * vocab * width  # (an output layer of its own)
    if config.get("share_encoder_decoder_embeddings") is False:  # a decoder embedding and output layer: Marian
        embeddings = vocab * width + 2 * target_vocab * (width + 1)
    embeddings += arch.position_tables * (positions + 2) * width  # (BART's tables have 2 rows more)
    parameters = embeddings + sum(layers) * (attention + 2 * width * ffn[0])
    if arch.layout == "encoder-decoder":
        parameters += layers[-1] * attention  # cross-attention
    if parameters > MAX_PARAMETERS:
        raise HFFolderError(tr("{path}: describes a model of about {billions:,.1f} billion parameters; "
                               "attnviz opens models of up to {most:g} billion").format(
            path=config_file, billions=parameters / 1e9, most=MAX_PARAMETERS / 1e9))
    return parameters


POSITIVE_ROPE_KEYS = frozenset({compat.ROPE_BASE, "factor"})  # a rotary base and a scaling factor: ≤ 0 makes NaN
ROPE_SETTINGS = (compat.ROPE_PARAMETERS, compat.ROPE_SCALING)  # (transformers 5's name, and the legacy one)
EPSILON_KEYS = ("layer_norm_epsilon", "layer_norm_eps", "rms_norm_eps", "norm_eps")


def _check_numbers(config_file: Path, config: Mapping[str, Any]) -> None:
    """Refuse the numbers of config.json that would make every map and logit NaN, before a library builds the
    model: any NaN or infinity (at any depth), a rotary base ``rope_theta`` or a rope scaling ``factor`` that is
    not above 0 (at the top, in ``rope_parameters`` or the legacy ``rope_scaling``, per layer type too), a
    normalisation's epsilon below 0."""
    _check_finite(config_file, config)
    ropes: list[tuple[str, Any]] = [(compat.ROPE_BASE, config.get(compat.ROPE_BASE))]
    for name in ROPE_SETTINGS:
        ropes += [(f"{name}.{key}" if key else name, value) for key, value in _numbers_in(config.get(name))]
    for key, value in ropes:
        if key.rsplit(".", 1)[-1] in POSITIVE_ROPE_KEYS and _is_number(value) and not value > 0:
            raise HFFolderError(tr("{path}: {key} = {value!r} is not a number above 0; the rotary positions would "
                                   "make every attention map NaN").format(path=config_file, key=key, value=value))
    for key in EPSILON_KEYS:
        epsilon: Any = config.get(key)
        if _is_number(epsilon) and epsilon < 0:
            raise HFFolderError(tr("{path}: {key} = {value!r} is below 0; the normalisation would take the square "
                                   "root of a negative number").format(path=config_file, key=key, value=epsilon))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _numbers_in(data: Any, prefix: str = "", depth: int = 0) -> list[tuple[str, Any]]:
    """(dotted key, number) of every number in the JSON ``data``, at any depth (to 16)."""
    if _is_number(data):
        return [(prefix, data)]
    if depth > 16:
        return []
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    found: list[tuple[str, Any]] = []
    for key, value in items:
        name = f"{prefix}[{key}]" if isinstance(key, int) else f"{prefix}.{key}" if prefix else str(key)
        found += _numbers_in(value, name, depth + 1)
    return found


def _check_finite(path: Path, data: Mapping[str, Any]) -> None:
    """Every number of the JSON object ``data`` (read from ``path``) is finite: Python's JSON reader accepts NaN
    and Infinity, which no real config holds."""
    for key, value in _numbers_in(data):
        if isinstance(value, float) and not math.isfinite(value):
            raise HFFolderError(tr("{path}: {key} = {value!r} is not a finite number; attnviz refuses it rather than "
                                   "show maps of NaN").format(path=path, key=key, value=value))
