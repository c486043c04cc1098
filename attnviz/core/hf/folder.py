"""A Hugging Face model folder, looked at before anything is loaded (torch- and transformers-free).

A folder made by ``save_pretrained`` holds ``config.json``, the weights (``model.safetensors``, shards listed
in ``model.safetensors.index.json``, or a ``pytorch_model.bin``) and the tokenizer's files. Before a
library reads any of them this module checks, in milliseconds: every file is a regular file inside the
model's folder (a link may point into the Hugging Face cache's ``blobs/`` of the same model, nowhere
else), of a plausible size; the config is a JSON object of a supported architecture that needs no code of
its own (``auto_map``: ``trust_remote_code`` is never used) and whose sizes are bounded the way attnviz
checkpoints are (a config claiming 10⁹ hidden units is refused before any allocation); each safetensors
file's header fits the file (a truncated download is named). Problems raise :class:`HFFolderError`, one
sentence naming the file.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from attnviz.core.checkpoint_file import MAX_HEADER_BYTES
from attnviz.core.files import kind_of
from attnviz.i18n import tr

Layout = Literal["encoder-decoder", "decoder-only"]


@dataclass(frozen=True)
class Architecture:
    """What attnviz knows of one ``model_type``: its layout, a display name, and the config keys of its
    sizes (width, layers per stack, heads, feed-forward width, vocabulary, positions)."""

    name: str
    layout: Layout
    width: str
    layers: tuple[str, ...]
    heads: tuple[str, ...]
    ffn: tuple[str, ...]
    positions: str | None


_BART_LIKE = dict(layout="encoder-decoder", width="d_model", layers=("encoder_layers", "decoder_layers"),
                  heads=("encoder_attention_heads", "decoder_attention_heads"),
                  ffn=("encoder_ffn_dim", "decoder_ffn_dim"), positions="max_position_embeddings")
_LLAMA_LIKE = dict(layout="decoder-only", width="hidden_size", layers=("num_hidden_layers",),
                   heads=("num_attention_heads", "num_key_value_heads"), ffn=("intermediate_size",),
                   positions="max_position_embeddings")
ARCHITECTURES: dict[str, Architecture] = {
    "marian": Architecture("Marian", **_BART_LIKE),  # type: ignore[arg-type]
    "bart": Architecture("BART", **_BART_LIKE),  # type: ignore[arg-type]
    "mbart": Architecture("mBART", **_BART_LIKE),  # type: ignore[arg-type]
    "t5": Architecture("T5", "encoder-decoder", "d_model", ("num_layers", "num_decoder_layers"), ("num_heads",),
                       ("d_ff", "d_kv"), None),
    "gpt2": Architecture("GPT-2", "decoder-only", "n_embd", ("n_layer",), ("n_head",), ("n_inner",), "n_positions"),
    "llama": Architecture("Llama", **_LLAMA_LIKE),  # type: ignore[arg-type]
    "qwen2": Architecture("Qwen2", **_LLAMA_LIKE),  # type: ignore[arg-type]
}

MAX_CONFIG_BYTES = 1_000_000  # real configs are 1–5 kB
MAX_TOKENIZER_BYTES = 100_000_000  # the largest real tokenizer.json files (Llama 3, Qwen2) are 7–17 MB
MAX_PARAMETERS = 2_000_000_000  # what a CPU desktop can step through at all (8 GB in float32)
BOUNDS = {"width": 16_384, "layers": 256, "heads": 256, "ffn": 131_072, "vocab_size": 1_000_000,
          "positions": 1_048_576, "buckets": 4_096}
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json", "merges.txt",
                   "source.spm", "target.spm", "spiece.model", "sentencepiece.bpe.model", "tokenizer.model",
                   "added_tokens.json", "generation_config.json")
TOKENIZER_CORE = ("tokenizer.json", "vocab.json", "source.spm", "spiece.model", "sentencepiece.bpe.model",
                  "tokenizer.model")  # one of these is the tokenizer itself


class HFFolderError(ValueError):
    """The folder cannot be opened as a Hugging Face model; one sentence naming the file."""


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

    @property
    def name(self) -> str:
        """The model's name as a person knows it: ``opus-mt-en-fr`` from the folder or the cache entry."""
        return model_name(self.path)


def model_name(folder: Path) -> str:
    """``Helsinki-NLP/opus-mt-en-fr`` for a snapshot of the Hugging Face cache, else the folder's name."""
    cache_entry = _cache_entry(folder)
    return cache_entry.name.removeprefix("models--").replace("--", "/") if cache_entry else folder.name


def inspect_folder(path: str | Path) -> HFFolder:
    """Check the folder ``path`` (see the module's docstring); HFFolderError says what is wrong."""
    folder = Path(path)
    if not folder.is_dir():
        raise HFFolderError(tr("{path}: not a folder (a Hugging Face model is a folder with config.json)").format(
            path=folder))
    root = _cache_entry(folder) or folder
    config_file = _member(folder, root, "config.json", MAX_CONFIG_BYTES)
    if config_file is None:
        raise HFFolderError(tr("{path}: is a folder, not a checkpoint file, and has no config.json: not a Hugging "
                               "Face model folder either").format(path=folder))
    config = _read_config(config_file)
    model_type = config.get("model_type")
    if not isinstance(model_type, str):
        raise HFFolderError(tr("{path}: has no model_type naming its architecture").format(path=config_file))
    if "auto_map" in config:
        raise HFFolderError(tr("{path}: the model needs its own Python code (auto_map), which attnviz never "
                               "runs (no trust_remote_code)").format(path=config_file))
    if model_type not in ARCHITECTURES:
        raise HFFolderError(tr("{path}: model_type {model_type!r} is not one attnviz opens; it opens {names}").format(
            path=config_file, model_type=model_type, names=", ".join(a.name for a in ARCHITECTURES.values())))
    architecture = ARCHITECTURES[model_type]
    parameters = _check_sizes(config_file, config, architecture)
    try:
        weights = _weights(folder, root)
        _check_every_file(folder, root)
    except OSError as error:  # (a file that can be listed but not read: no permission …)
        raise HFFolderError(tr("{path}: cannot be read ({error})").format(
            path=getattr(error, "filename", None) or folder, error=error.strerror or error)) from None
    tokenizer = tuple(p for name in TOKENIZER_FILES if (p := _member(folder, root, name, MAX_TOKENIZER_BYTES)))
    if not any(p.name in TOKENIZER_CORE for p in tokenizer):
        raise HFFolderError(tr("{path}: has no tokenizer (none of {names})").format(path=folder,
                                                                                   names=", ".join(TOKENIZER_CORE)))
    return HFFolder(folder, model_type, architecture, config, weights, tokenizer, parameters)


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
            found.append((inspect_folder(newest), newest, ""))
        except HFFolderError as error:
            found.append((None, newest, str(error)))
    return found


def _cache_entry(folder: Path) -> Path | None:
    """The ``models--org--name`` entry of the Hugging Face cache that ``folder`` is a snapshot of, or None."""
    absolute = folder.absolute()
    if absolute.parent.name == "snapshots" and absolute.parent.parent.name.startswith("models--"):
        return absolute.parent.parent
    return None


def _member(folder: Path, root: Path, name: str, max_bytes: int) -> Path | None:
    """``folder/name`` if it exists: a regular file inside ``root`` (after links) of at most ``max_bytes``."""
    path = folder / name
    try:
        os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise HFFolderError(tr("{path}: cannot be read ({error})").format(path=path, error=error.strerror or error)
                            ) from None
    try:
        real = path.resolve()
    except (OSError, RuntimeError):  # (a loop of links)
        raise HFFolderError(tr("{path}: is a link that leads nowhere (a loop of links)").format(path=path)) from None
    if not real.is_relative_to(root.resolve()):
        raise HFFolderError(tr("{path}: is a link to {target}, outside the model's folder; attnviz reads only the "
                               "folder's own files").format(path=path, target=real))
    try:
        info = os.stat(real)
    except OSError as error:
        raise HFFolderError(tr("{path}: cannot be read ({error})").format(path=path, error=error.strerror or error)
                            ) from None
    if not stat.S_ISREG(info.st_mode):
        raise HFFolderError(tr("{path}: is {kind}, not a file").format(path=path, kind=kind_of(info.st_mode)))
    if info.st_size > max_bytes:
        raise HFFolderError(tr("{path}: is {mb:,.0f} MB, larger than any real {name} (at most {most:,.0f} MB)").format(
            path=path, mb=info.st_size / 1e6, name=name, most=max_bytes / 1e6))
    return path


def _check_every_file(folder: Path, root: Path) -> None:
    """Every file at the folder's top level (transformers opens more than the listed ones: a chat template, a
    second vocabulary) is a regular file inside the model's folder, of a plausible size."""
    for entry in sorted(folder.iterdir()):
        if not entry.is_dir() or entry.is_symlink():
            _member(folder, root, entry.name, 4 * MAX_PARAMETERS + MAX_HEADER_BYTES)


def _read_config(path: Path) -> dict[str, Any]:
    try:
        config = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as error:
        raise HFFolderError(tr("{path}: cannot be read ({error})").format(path=path, error=error.strerror or error)
                            ) from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise HFFolderError(tr("{path}: is not valid JSON").format(path=path)) from None
    if not isinstance(config, dict):
        raise HFFolderError(tr("{path}: is not a JSON object of settings").format(path=path))
    return config


def _size(config_file: Path, config: Mapping[str, Any], key: str, bound: int, default: int | None = None) -> int:
    value = config.get(key)
    value = default if value is None else value  # (GPT-2 writes n_inner: null for 4 × width)
    if value is None:
        raise HFFolderError(tr("{path}: has no {key}").format(path=config_file, key=key))
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= bound:
        raise HFFolderError(tr("{path}: {key} = {value!r} is not a whole number from 1 to {most:,}").format(
            path=config_file, key=key, value=value, most=bound))
    return value


def _check_sizes(config_file: Path, config: Mapping[str, Any], arch: Architecture) -> int:
    """Every size the config gives, bounded; returns the parameter count they imply (an estimate: the
    matrices of attention, feed-forward and embeddings)."""
    width = _size(config_file, config, arch.width, BOUNDS["width"])
    layers = [_size(config_file, config, key, BOUNDS["layers"], config.get(arch.layers[0])) for key in arch.layers]
    heads = [_size(config_file, config, key, BOUNDS["heads"], config.get(arch.heads[0])) for key in arch.heads]
    ffn = [_size(config_file, config, key, BOUNDS["ffn"], 4 * width) for key in arch.ffn]
    vocab = _size(config_file, config, "vocab_size", BOUNDS["vocab_size"])
    if arch.positions:
        _size(config_file, config, arch.positions, BOUNDS["positions"], 1)
    if heads[0] % heads[-1] or ("d_kv" not in arch.ffn and "head_dim" not in config and width % heads[0]):
        raise HFFolderError(tr("{path}: {key} = {width} is not divisible into {heads} heads "
                               "(or {heads} heads into {groups} groups)").format(
            path=config_file, key=arch.width, width=width, heads=heads[0], groups=heads[-1]))
    head_width = width // heads[0]
    for key in ("head_dim", "d_kv"):  # (a head's width where the config sets it apart from the model's)
        if config.get(key) is not None:
            head_width = _size(config_file, config, key, BOUNDS["width"])
    if config.get("relative_attention_num_buckets") is not None:
        _size(config_file, config, "relative_attention_num_buckets", BOUNDS["buckets"])
    attention = 4 * width * heads[0] * head_width  # q, k, v and the output, over every head
    tables = 1 + (config.get("tie_word_embeddings") is False)  # (an output layer of its own)
    if config.get("share_encoder_decoder_embeddings") is False:  # (a decoder embedding of its own: Marian)
        tables += 1
    parameters = tables * vocab * width + sum(layers) * (attention + 2 * width * ffn[0])
    if arch.layout == "encoder-decoder":
        parameters += layers[-1] * attention  # cross-attention
    if parameters > MAX_PARAMETERS:
        raise HFFolderError(tr("{path}: describes a model of about {billions:,.1f} billion parameters; "
                               "attnviz opens models of up to {most:g} billion").format(
            path=config_file, billions=parameters / 1e9, most=MAX_PARAMETERS / 1e9))
    return parameters


def _weights(folder: Path, root: Path) -> tuple[Path, ...]:
    """The weight files: one safetensors file, the shards an index lists, or one .bin (each checked)."""
    single = _member(folder, root, "model.safetensors", 4 * MAX_PARAMETERS + MAX_HEADER_BYTES)
    if single is not None:
        _check_safetensors(single)
        return (single,)
    index = _member(folder, root, "model.safetensors.index.json", MAX_CONFIG_BYTES * 10)
    if index is not None:
        try:
            shards = sorted(set(json.loads(index.read_bytes())["weight_map"].values()))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, KeyError, TypeError, AttributeError):
            raise HFFolderError(tr("{path}: is not a safetensors index (a JSON object with a weight_map)").format(
                path=index)) from None
        files = []
        for shard in shards:
            if not isinstance(shard, str) or Path(shard).name != shard:
                raise HFFolderError(tr("{path}: names {shard!r}, not a file of this folder").format(path=index,
                                                                                                   shard=shard))
            member = _member(folder, root, shard, 4 * MAX_PARAMETERS + MAX_HEADER_BYTES)
            if member is None:
                raise HFFolderError(tr("{path}: is missing (model.safetensors.index.json lists it)").format(
                    path=folder / shard))
            _check_safetensors(member)
            files.append(member)
        return tuple(files)
    binary = _member(folder, root, "pytorch_model.bin", 4 * MAX_PARAMETERS)
    if binary is not None:
        return (binary,)
    raise HFFolderError(tr("{path}: has no weights (none of {names})").format(path=folder,
                                                                             names=", ".join(WEIGHT_FILES)))


def _check_safetensors(path: Path) -> None:
    """The file's header is JSON whose tensors all end within the file (a truncated download does not)."""
    size = path.stat().st_size
    with open(path, "rb") as stream:
        start = stream.read(8)
        length = int.from_bytes(start, "little") if len(start) == 8 else -1
        if not 2 <= length <= MAX_HEADER_BYTES or 8 + length > size:
            raise HFFolderError(tr("{path}: is not a complete safetensors file (its header does not fit the file)"
                                   ).format(path=path))
        try:
            header = json.loads(stream.read(length))
            end = max((int(entry["data_offsets"][1]) for key, entry in header.items() if key != "__metadata__"),
                      default=0)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, KeyError, TypeError, ValueError,
                IndexError, AttributeError):
            raise HFFolderError(tr("{path}: is not a safetensors file (its header is not one)").format(path=path)
                                ) from None
    if 8 + length + end > size:
        raise HFFolderError(tr("{path}: is truncated ({size:,} bytes of {total:,}): download it again").format(
            path=path, size=size, total=8 + length + end))
