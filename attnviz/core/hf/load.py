"""Open a Hugging Face model folder as a :class:`~attnviz.core.checkpoints.checkpoint.LoadedModel`.

The folder is checked first (:mod:`attnviz.core.hf.folder`: nothing is read until its files, config and
sizes pass). Then transformers builds the model from disk only — offline, ``local_files_only``, never
``trust_remote_code`` — in float32 with attnviz's recording attention, and the tokenizer becomes a
:class:`~attnviz.core.hf.vocab.SubwordVocab`. The model is wrapped in the decoder interface of its layout
(:class:`~attnviz.core.hf.seq2seq.HFEncoderDecoder`, :class:`~attnviz.core.hf.causal.HFCausal`), or, encoder-only,
in :class:`~attnviz.core.hf.encoder.HFEncoder`, which fills masks; an architecture whose record names a ``loader``
is opened by it (an image model, with the folder's own image processor).
"""

from __future__ import annotations

import copy
import importlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import torch

from attnviz.core.hf import compat
from attnviz.core.hf.files import MAX_PARAMETERS, HFFolderError
from attnviz.core.hf.folder import ARCHITECTURES, TOKENIZER_CORE, HFFolder, has_masked_lm_head, inspect_folder
from attnviz.core.hf.guard import check_loaded, checked_ids, library_quiet, refusing
from attnviz.core.hf.vocab import SubwordVocab
from attnviz.i18n import tr

DECODED = ("marian", "bart", "mbart", "t5", "gpt2", "llama", "qwen2", "bert", "distilbert", "roberta",
           "qwen3", "qwen3_moe", "gemma2", "gemma3_text", "mistral", "mixtral", "phi3", "olmo2", "smollm3", "gpt_oss",
           "modernbert",  # (today's: tests/test_hf_modern.py)
           *(name for name, record in ARCHITECTURES.items() if record.loader)
           )  # the architectures whose adapters are tested (those with a loader of their own: by its family)
MAX_OUTPUT_TOKENS = 64  # subword pieces: about twice the words attnviz's own models take (a folder that sets none)
MAX_FOLDER_OUTPUT_TOKENS = 512  # a folder's own length limit is followed up to this many new tokens
MAX_SOURCE_TOKENS = 512  # a source (a decoder-only model's prompt and answer together) beyond is cut
MAX_MODEL_BYTES = 4 * MAX_PARAMETERS + 2**30  # every tensor and buffer, in float32
MAX_NUMBERS_PER_BYTE = 2  # stored weights take at least half a byte a number (4-bit; float32 takes 4 bytes)
GENERATION_IDS = ("bos_token_id", "eos_token_id", "pad_token_id", "decoder_start_token_id", "forced_bos_token_id",
                  "forced_eos_token_id")  # in a generation config: one id (the end of text: or a list)
GENERATION_ID_LISTS = ("bad_words_ids", "suppress_tokens", "begin_suppress_tokens")  # lists of ids (or of lists)
TRIAL_TEXT = "The house is big. Ça va ? 1 2 3"  # what the tokenizer is tried on before it is used


@dataclass(frozen=True)
class HFModelConfig:
    """attnviz's view of a Hugging Face model: its architecture and name, the sizes the views read, and the
    longest source and output it decodes here (``max_src_len`` tokens, ``max_tgt_len`` new tokens)."""

    architecture: str
    name: str
    num_hiddens: int
    num_heads: int
    num_encoder_layers: int
    num_decoder_layers: int
    max_src_len: int
    max_tgt_len: int


class HFSeq2SeqConfig(HFModelConfig):
    """An encoder–decoder's view (the registry tells the layouts apart by the config's class)."""


class HFCausalConfig(HFModelConfig):
    """A decoder-only model's view."""


class HFEncoderConfig(HFModelConfig):
    """An encoder-only model's view: its layers are ``num_encoder_layers`` (no decoder: 0), ``max_src_len`` the
    longest sequence it reads, special tokens included (its positions, after RoBERTa's offset), nothing is output
    (``max_tgt_len`` 0)."""


def _offline() -> None:
    """No download, ever: the hub client and transformers are told so before they are imported."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


def load_hf_folder(path: str | Path, device: torch.device | str = "cpu") -> Any:
    """The model in the folder ``path`` as a LoadedModel (HFFolderError, or the library's error in one
    sentence as ValueError, when it cannot be)."""
    from attnviz.core.models.loaded import LoadedModel

    folder = inspect_folder(path)
    if folder.model_type not in DECODED:
        raise ValueError(tr("{path}: attnviz does not step {architecture} models yet; it steps {names}").format(
            path=folder.path, architecture=folder.architecture.name,
            names=", ".join(ARCHITECTURES[t].name for t in DECODED)))
    _offline()
    try:
        import transformers
    except ImportError:
        raise ValueError(tr("{path}: opening Hugging Face models needs the transformers package, which the "
                            "standalone build leaves out: install attnviz from source (README: bash scripts/run.sh)"
                            ).format(path=folder.path)) from None
    if problem := compat.unsupported():  # (a release outside the tested ones, a private name it lacks)
        raise compat.UnsupportedTransformers(tr("{path}: {problem}").format(path=folder.path, problem=problem))
    transformers.utils.logging.disable_progress_bar()  # (its "Loading weights" bar is noise on a CLI's stderr)
    compat.quick_marian_table(marian_table)  # (Marian's tables: 0.5 s of the 0.65 s opus-mt's size takes to open)

    from attnviz.core.hf.causal import HFCausal
    from attnviz.core.hf.encoder import HFEncoder
    from attnviz.core.hf.seq2seq import HFEncoderDecoder

    training = {"architecture": folder.architecture.name, "source": "Hugging Face", "name": folder.name}
    if folder.architecture.loader:  # (an architecture whose family opens it: its record names how)
        module, name = folder.architecture.loader.split(":")
        opener = getattr(importlib.import_module(module), name)
        return opener(transformers, folder, _model, device, training, Path(path))
    if folder.architecture.layout == "encoder-only":  # (a bare model reads sentences but fills no mask)
        with library_quiet(transformers):
            head = has_masked_lm_head(folder.config, folder.architecture)
            model = _model(transformers, transformers.AutoModelForMaskedLM if head else transformers.AutoModel, folder)
            vocab = _encoder_vocab(folder, _tokenizer(transformers, folder), model)
        words = cast(Any, vocab)
        encoder = HFEncoder(model, _encoder_config(folder), folder.architecture)
        return LoadedModel("hf-encoder", encoder.config, encoder.to(device), words, words, training, Path(path))
    encoder_decoder = folder.architecture.layout == "encoder-decoder"
    model_class = transformers.AutoModelForSeq2SeqLM if encoder_decoder else transformers.AutoModelForCausalLM
    with library_quiet(transformers):
        model = _model(transformers, model_class, folder)
        tokenizer = _tokenizer(transformers, folder)
        vocab = _vocab(folder, tokenizer, model, encoder_decoder)
    config = _view_config(folder, encoder_decoder)
    adapter = (HFEncoderDecoder(model, config, vocab.bos_id, vocab.pad_id, folder.architecture) if encoder_decoder
               else HFCausal(model, config, vocab.pad_id, folder.architecture))
    kind = "hf-seq2seq" if encoder_decoder else "hf-causal"
    training["output_limit_set_by"] = "folder" if folder_output_limit(folder, encoder_decoder) is not None \
        else "attnviz"
    words = cast(Any, vocab)  # (SubwordVocab has Vocab's interface: ids, tokens, special ids, split, text_of)
    return LoadedModel(kind, config, adapter.to(device), words, words, training, Path(path))


def _model(transformers: Any, model_class: Any, folder: HFFolder) -> Any:
    """The model, each file's problem named: its config as transformers reads it, then the memory every tensor
    and buffer of it takes (laid out on ``meta`` first), its generation config, and weights that fill it."""
    config_file = folder.path / "config.json"
    with refusing(config_file):
        config = transformers.AutoConfig.from_pretrained(folder.path, local_files_only=True, trust_remote_code=False)
        with torch.device("meta"):
            make = getattr(model_class, "from_config", model_class)  # (an Auto class, or a model's own class)
            skeleton = make(copy.deepcopy(config))
    size = sum(t.numel() * (4 if t.is_floating_point() else t.element_size())  # (held in float32)
               for t in (*skeleton.parameters(), *skeleton.buffers()))
    numbers = sum(p.numel() for p in skeleton.parameters())
    del skeleton
    memory = _physical_memory()
    if size > MAX_MODEL_BYTES or (memory is not None and size > memory // 2):
        problem = tr("the model would take {gb:.1f} GB of memory, more than attnviz loads").format(gb=size / 1024**3)
        raise HFFolderError(tr("{path}: {problem}").format(path=config_file, problem=problem))
    weights = folder.weights[0] if len(folder.weights) == 1 else folder.path / "model.safetensors.index.json"
    stored = sum(path.stat().st_size for path in folder.weights)
    if numbers > stored * MAX_NUMBERS_PER_BYTE:  # (a big config over a few tensors: refused before it is built)
        raise HFFolderError(tr("{path}: holds {size} of weights, too few for the {numbers} config.json describes; "
                               "attnviz does not start a model with made-up weights").format(
            path=weights, size=bytes_in_words(stored), numbers=numbers_in_words(numbers)))
    generation = folder.path / "generation_config.json"
    if generation.exists():
        with refusing(generation):
            transformers.GenerationConfig.from_pretrained(folder.path, local_files_only=True)
    with refusing(weights):
        model, info = model_class.from_pretrained(folder.path, config=config, local_files_only=True,
                                                  trust_remote_code=False, dtype=torch.float32,
                                                  attn_implementation="eager", output_loading_info=True)
    check_loaded(weights, info, folder.architecture.unused)
    return model


def _tokenizer(transformers: Any, folder: HFFolder) -> Any:
    """The tokenizer, tried on a sentence (a tokenizer that fails on text fails here, naming its file: a
    SentencePiece model that cannot be read is named itself, not the vocabulary beside it)."""
    try:
        with refusing(_tokenizer_file(folder), quiet=True):
            tokenizer = transformers.AutoTokenizer.from_pretrained(folder.path, local_files_only=True,
                                                                   trust_remote_code=False)
            tokenizer.decode(tokenizer(TRIAL_TEXT)["input_ids"])
    except HFFolderError:
        if (broken := _unreadable_sentencepiece(folder)) is not None:
            raise broken from None
        raise
    return tokenizer


def _tokenizer_file(folder: HFFolder) -> Path:
    return next(p for p in folder.tokenizer_files if p.name in TOKENIZER_CORE)


def _unreadable_sentencepiece(folder: HFFolder) -> HFFolderError | None:
    """The refusal naming the folder's first SentencePiece model (``*.spm``, ``*.model``) that sentencepiece cannot
    read, or None (all read, or sentencepiece is not installed)."""
    try:
        import sentencepiece
    except ImportError:
        return None
    for path in folder.tokenizer_files:
        if path.suffix in (".spm", ".model"):
            try:
                with refusing(path, quiet=True):
                    sentencepiece.SentencePieceProcessor(model_file=str(path))
            except HFFolderError:
                return HFFolderError(tr("{path}: not a SentencePiece model that can be read; the tokenizer needs it"
                                        ).format(path=path))
    return None


def bytes_in_words(size: int) -> str:
    """A size in the unit that reads well: '212 bytes', '4.1 KB', '12.9 MB', '1.3 GB' (powers of 1,000)."""
    if size < 1000:
        return tr("{count:,} bytes").format(count=size)
    for unit, scale in (("KB", 1e3), ("MB", 1e6), ("GB", 1e9)):
        if size < scale * 1000 or unit == "GB":
            return tr("{amount:,.1f} {unit}").format(amount=size / scale, unit=unit)
    raise AssertionError  # (unreachable: GB takes every larger size)


def numbers_in_words(count: int) -> str:
    """'3,120 numbers' below a million, '7.5 million numbers' from there."""
    if count < 1_000_000:
        return tr("{count:,} numbers").format(count=count)
    return tr("{millions:,.1f} million numbers").format(millions=count / 1e6)


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def marian_table(positions: int, dim: int) -> torch.Tensor:
    """Marian's sinusoidal table (positions, dim) — sines of pos / 10000^(2⌊j/2⌋/dim) for even j in the first
    half, cosines for odd j in the second — computed as transformers' ``create_weight`` does, element for
    element, but with numpy's array operations instead of a Python loop over every cell (a block of rows at a
    time: the float64 angles never take more than a few MB beside the table)."""
    import numpy as np

    frequencies = np.power(10000, 2 * (np.arange(dim) // 2) / dim)[None, :]
    out = torch.empty(positions, dim)
    half = dim // 2 if dim % 2 == 0 else dim // 2 + 1
    rows = max(1, (1 << 19) // max(dim, 1))
    for first in range(0, positions, rows):
        angles = np.arange(first, min(first + rows, positions))[:, None] / frequencies
        out[first:first + rows, :half] = torch.FloatTensor(np.sin(angles[:, 0::2]))
        out[first:first + rows, half:] = torch.FloatTensor(np.cos(angles[:, 1::2]))
    return out


def folder_output_limit(folder: HFFolder, encoder_decoder: bool) -> int | None:
    """The most new tokens the folder's own generation settings let ``generate`` write (its generation_config.json,
    else config.json: ``max_new_tokens``, or an encoder–decoder's ``max_length`` less the decoder's start token),
    or None where it sets none (a decoder-only model's ``max_length`` counts its prompt: not a fixed number)."""
    generation = folder.path / "generation_config.json"
    values: Any = folder.config
    if generation.is_file():
        try:
            values = json.loads(generation.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # (the loader refuses it in one sentence)
    if not isinstance(values, Mapping):
        return None
    new, longest = values.get("max_new_tokens"), values.get("max_length")
    if isinstance(new, int) and not isinstance(new, bool) and new > 0:
        return new
    if encoder_decoder and isinstance(longest, int) and not isinstance(longest, bool) and longest > 1:
        return longest - 1
    return None


def _view_config(folder: HFFolder, encoder_decoder: bool) -> HFModelConfig:
    """The sizes as the folder's checked config gives them (its Architecture record names the keys); the output
    limit is the folder's own where it sets one (up to MAX_FOLDER_OUTPUT_TOKENS), else attnviz's."""
    arch, values = folder.architecture, folder.config
    layers = [int(values.get(key) or values[arch.layers[0]]) for key in arch.layers]
    positions = int(values.get(arch.positions) or 512) if arch.positions else 512
    own = folder_output_limit(folder, encoder_decoder)
    wanted = min(own, MAX_FOLDER_OUTPUT_TOKENS) if own is not None else MAX_OUTPUT_TOKENS
    if encoder_decoder:  # (the source and the output each have the model's positions)
        source, output = min(positions, MAX_SOURCE_TOKENS), min(wanted, positions - 1)
    else:  # one sequence: the prompt and the answer share them (a small model's: half each)
        output = min(wanted, positions // 2)
        source = min(positions - output, MAX_SOURCE_TOKENS - MAX_OUTPUT_TOKENS)
    cls = HFSeq2SeqConfig if encoder_decoder else HFCausalConfig
    return cls(arch.name, folder.name, int(values[arch.width]), int(values[arch.heads[0]]),
               layers[0] if encoder_decoder else 0, layers[-1], max(source, 1), max(output, 1))


def _encoder_config(folder: HFFolder) -> HFEncoderConfig:
    """An encoder-only model's sizes as its checked config gives them; the longest sequence it reads is its
    positions after the table's offset (RoBERTa's 514 rows: 512), up to MAX_SOURCE_TOKENS."""
    arch, values = folder.architecture, folder.config
    positions = int(values.get(arch.positions) or 512) if arch.positions else 512
    longest = min(positions - arch.offset(values), MAX_SOURCE_TOKENS)
    return HFEncoderConfig(arch.name, folder.name, int(values[arch.width]), int(values[arch.heads[0]]),
                           int(values[arch.layers[0]]), 0, max(longest, 1), 0)


def _encoder_vocab(folder: HFFolder, tokenizer: Any, model: Any) -> SubwordVocab:
    """The tokenizer's vocabulary over the model's token ids (its output layer's, or a bare model's embedding's),
    every id it has and its special ones checked against the model."""
    rows = int(model.get_input_embeddings().weight.shape[0])
    head = model.get_output_embeddings()
    size = int(head.weight.shape[0]) if head is not None else rows
    tokenizer_file = _tokenizer_file(folder)
    with refusing(tokenizer_file, quiet=True):
        ids = list(tokenizer.get_vocab().values())
        special = {key: getattr(tokenizer, f"{key}_id") for key in ("mask_token", "cls_token", "sep_token", "pad_token",
                                                                   "unk_token")}
    beyond = [i for i in ids if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < min(rows, size)][:1]
    if beyond:
        raise HFFolderError(tr("{path}: has a token of id {id!r}, beyond the model's {count:,} token ids").format(
            path=tokenizer_file, id=beyond[0], count=min(rows, size)))
    for key, value in special.items():
        checked_ids(tokenizer_file, key, value, size)
    first = special["cls_token"] if special["cls_token"] is not None else 0  # (only the decoders read these)
    last = special["sep_token"] if special["sep_token"] is not None else first
    pad = special["pad_token"] if special["pad_token"] is not None else last
    with refusing(tokenizer_file, quiet=True):
        return SubwordVocab.of(tokenizer, size, bos_id=int(first), eos_id=int(last), pad_id=int(pad))


def _vocab(folder: HFFolder, tokenizer: Any, model: Any, encoder_decoder: bool) -> SubwordVocab:
    """The tokenizer's vocabulary over the model's output ids, every special id checked against the model (an id
    beyond its table would fail at the first step, not here)."""
    size = int(model.get_output_embeddings().weight.shape[0])
    rows = int(model.get_input_embeddings().weight.shape[0])
    tokenizer_file, config_file = _tokenizer_file(folder), folder.path / "config.json"
    generation_file = folder.path / "generation_config.json"
    generation_file = generation_file if generation_file.exists() else config_file
    generation = model.generation_config
    for key in GENERATION_IDS:
        checked_ids(generation_file, key, getattr(generation, key, None), size)
    for key in GENERATION_ID_LISTS:
        checked_ids(generation_file, key, getattr(generation, key, None), size, nested=True)
    with refusing(tokenizer_file, quiet=True):
        ids = list(tokenizer.get_vocab().values())
        special = {key: getattr(tokenizer, f"{key}_id") for key in ("eos_token", "pad_token", "bos_token")}
    beyond = [i for i in ids if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < rows][:1]
    if beyond:
        raise HFFolderError(tr("{path}: has a token of id {id!r}, beyond the model's {count:,} token ids").format(
            path=tokenizer_file, id=beyond[0], count=rows))
    for key, value in special.items():
        checked_ids(tokenizer_file, key, value, size)
    ends = checked_ids(generation_file, "eos_token_id", generation.eos_token_id, size) or \
        checked_ids(tokenizer_file, "eos_token", special["eos_token"], size)
    eos = ends[0] if ends else None
    pad = special["pad_token"] if special["pad_token"] is not None else eos  # (GPT-2 has none of its own)
    if encoder_decoder:
        starts = checked_ids(generation_file, "decoder_start_token_id", generation.decoder_start_token_id, size) or \
            checked_ids(config_file, "decoder_start_token_id", model.config.decoder_start_token_id, size)
        start = starts[0] if starts else None
    else:
        start = special["bos_token"] if special["bos_token"] is not None else eos
    if eos is None or start is None or pad is None:
        raise ValueError(tr("{path}: its config names no end-of-text token or decoder start token").format(
            path=model.name_or_path))
    with refusing(tokenizer_file, quiet=True):
        return SubwordVocab.of(tokenizer, size, bos_id=int(start), eos_id=int(eos), pad_id=int(pad), ends=tuple(ends))
