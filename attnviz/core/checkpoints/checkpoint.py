"""Checkpoints: one safetensors file per model, rebuilt from the metadata stored next to the weights.

Loading never unpickles and never runs code from the file, and trusts nothing in it: the config's
types and ranges are checked first (:mod:`attnviz.core.config_limits`), then the model is laid out on
torch's ``meta`` device (no memory) and its tensor shapes compared with the file's header, and its size
estimated, all before one byte of tensor data is read or one real tensor allocated. Every problem
raises :class:`CheckpointError`, whose message names the file and what is wrong with it.
Metadata keys (all strings): ``format_version``, ``kind``, ``config`` (JSON), ``src_vocab`` and
``tgt_vocab`` (JSON token lists; absent for kernel regression and image models), ``labels`` (an image model's
class names, a JSON list by class index), ``training`` (JSON object) and
``tensor_digest`` (SHA-256 of the tensors, see :func:`tensor_digest`; files written before it existed
load without the check).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import math
import os
import re
import stat
import tempfile
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file
from torch import nn
from torch.overrides import TorchFunctionMode

from attnviz.core.checkpoints.header import MAX_MODEL_BYTES, checkpoint_file_problem
from attnviz.core.limits import check_config_values
from attnviz.core.models.compact import compact, release_freed_memory
from attnviz.core.models.kinds import KINDS, ModelKind, kind_of
from attnviz.core.models.loaded import LoadedModel
from attnviz.core.safe_output import atomic_output
from attnviz.core.text import Vocab
from attnviz.i18n import tr

FORMAT_VERSION = "1"
MAX_TENSORS = 10_000  # the shipped Transformer has 140; a header of 400,000 takes seconds to even list
MAX_TOKEN_CHARS = 100  # a vocabulary entry longer than this is not a word (and would swamp every axis)
MAX_ABS_VALUE = 1e6  # trained weights and the kernel-regression data are far smaller


class CheckpointError(Exception):
    """A checkpoint that cannot be used; the message names the file and the problem."""


def build_model(config: Any) -> nn.Module:
    return kind_of(config).model_cls(config)


def _stored_tensors(model: nn.Module) -> dict[str, torch.Tensor]:
    """The state dict without aliases (tied weights are stored once, under their first name); works on
    the ``meta`` device too (aliases are the same Parameter object, not the same address)."""
    seen: set[int] = set()
    tensors = {}
    for name, tensor in model.state_dict(keep_vars=True).items():
        if id(tensor) in seen:
            continue
        seen.add(id(tensor))
        tensors[name] = tensor.detach()
    return tensors


def tensor_digest(tensors: dict[str, torch.Tensor]) -> str:
    """SHA-256 over every tensor's name, dtype, shape and bytes, in name order (hex)."""
    digest = hashlib.sha256()
    for name in sorted(tensors):
        tensor = tensors[name].detach().cpu().contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    return digest.hexdigest()


def save_checkpoint(path: str | Path, model: nn.Module, *, src_vocab: Vocab | None = None,
                    tgt_vocab: Vocab | None = None, training: dict[str, Any] | None = None,
                    half: bool = False, verify: bool = False, labels: Sequence[str] | None = None) -> Path:
    """Write ``model`` atomically (temp file in the same folder, then rename).

    labels: an image model's class names, by class index (required for one, one per class).
    half: store floating tensors as float16 (the loader converts back to float32).
    verify: load the written file with :func:`load_checkpoint` before renaming it; a file the loader
    refuses raises :class:`CheckpointError` and ``path`` is left as it was.
    """
    path = Path(path)
    config: Any = getattr(model, "config")  # noqa: B009 (every attnviz model has one)
    kind = kind_of(config)
    metadata = {"format_version": FORMAT_VERSION, "kind": kind.name,
                "config": json.dumps(dataclasses.asdict(config)),
                "training": json.dumps(training or {})}
    if kind.reads_text:
        if src_vocab is None or tgt_vocab is None:
            raise ValueError("a translation checkpoint needs src_vocab and tgt_vocab")
        metadata["src_vocab"] = json.dumps(list(src_vocab.tokens), ensure_ascii=False)
        metadata["tgt_vocab"] = json.dumps(list(tgt_vocab.tokens), ensure_ascii=False)
    if kind.names_classes:
        if labels is None or len(labels) != config.num_classes or not all(map(is_label, labels)):
            raise ValueError(f"a classifier's checkpoint needs {config.num_classes} class names without control "
                             "characters")
        metadata["labels"] = json.dumps(list(labels), ensure_ascii=False)
    tensors = {}
    for name, tensor in _stored_tensors(model).items():
        tensor = tensor.detach().cpu()
        if half and tensor.is_floating_point():
            tensor = tensor.half()
        tensors[name] = tensor.contiguous().clone()
    metadata["tensor_digest"] = tensor_digest(tensors)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(path) as tmp:
        try:
            save_file(tensors, str(tmp), metadata=metadata)
        except SafetensorError as error:  # a full disk, say: an OSError, as any other failed write
            raise OSError(tr("{path}: cannot be written ({error})").format(path=path, error=error)) from None
        if verify:  # the loader's own checks, on the written bytes, before the file takes its name
            try:
                load_checkpoint(tmp)
            except CheckpointError as error:
                raise CheckpointError(str(error).replace(str(tmp), str(path))) from None
    return path


def _read_config(path: Path, kind: ModelKind, raw: str | None) -> Any:
    config_cls, fixed = kind.config_cls, kind.fixed
    if raw is None:
        raise CheckpointError(tr("{path}: metadata has no 'config'").format(path=path))
    values = _json(path, "config", raw)
    if not isinstance(values, dict):
        raise CheckpointError(tr("{path}: config must be a JSON object").format(path=path))
    names = {f.name for f in dataclasses.fields(config_cls)}
    required = {f.name for f in dataclasses.fields(config_cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    if missing := sorted((required | set(fixed)) - set(values)):
        raise CheckpointError(tr("{path}: config is missing {names}").format(path=path, names=", ".join(missing)))
    if unknown := sorted(set(values) - names):
        raise CheckpointError(tr("{path}: config has unknown fields {names}").format(path=path,
                                                                                    names=", ".join(unknown)))
    for key, value in fixed.items():
        if values[key] != value:
            raise CheckpointError(tr("{path}: config.{key} is {value!r}, kind {kind!r} needs {needed!r}").format(
                path=path, key=key, value=values[key], kind=kind.name, needed=value))
    if problems := check_config_values(config_cls, values, kind.attention_cells):
        raise CheckpointError(tr("{path}: invalid config: {problems}").format(path=path, problems="; ".join(problems)))
    try:
        return config_cls(**values)
    except (TypeError, ValueError) as error:
        raise CheckpointError(tr("{path}: invalid config ({error})").format(path=path, error=error)) from None


def _json(path: Path, key: str, raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise CheckpointError(tr("{path}: {key} is not valid JSON ({error})").format(path=path, key=key,
                                                                                    error=error.msg)) from None
    except RecursionError:
        raise CheckpointError(tr("{path}: {key} is nested too deeply to be attnviz metadata").format(path=path, key=key)
                              ) from None


_CONTROL_CHARACTER = re.compile("[\x00-\x1f\x7f-\x9f]")  # Unicode's category Cc, all of it (fixed by Unicode)


def has_control_characters(text: str) -> bool:
    """ESC, BEL, NUL … (Unicode category Cc); French text's no-break spaces are fine."""
    return _CONTROL_CHARACTER.search(text) is not None


def is_word(token: str) -> bool:
    """Whether a vocabulary may hold ``token``: at most MAX_TOKEN_CHARS long, no control characters."""
    return len(token) <= MAX_TOKEN_CHARS and not has_control_characters(token)


def is_label(name: object) -> bool:
    """Whether ``name`` may name a class: a word (:func:`is_word`) that is not empty nor only spaces."""
    return isinstance(name, str) and bool(name.strip()) and is_word(name)


def _read_labels(path: Path, raw: str | None, expected: int) -> tuple[str, ...]:
    """An image model's class names (metadata ``labels``): a JSON list of ``expected`` names, each
    :func:`is_label`, all different."""
    if raw is None:
        raise CheckpointError(tr("{path}: metadata has no '{key}'").format(path=path, key="labels"))
    names = _json(path, "labels", raw)
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise CheckpointError(tr("{path}: labels must be a JSON list of class names").format(path=path))
    if len(names) != expected:
        raise CheckpointError(tr("{path}: labels has {count} class names but the config says {expected}").format(
            path=path, count=len(names), expected=expected))
    if bad := next((n for n in names if not is_label(n)), None):
        raise CheckpointError(tr("{path}: class name {name!r}… is not a name (empty, too long, or control "
                                 "characters)").format(path=path, name=bad[:20]))
    if len(set(names)) != len(names):
        raise CheckpointError(tr("{path}: labels names a class twice").format(path=path))
    return tuple(names)


_VOCABS: weakref.WeakValueDictionary[str, Vocab] = weakref.WeakValueDictionary()  # SHA-256 of the JSON -> one
# Vocab while any model uses it: the shipped models share their vocabularies (2.5 MB of strings per model)


def _read_vocab(path: Path, metadata: dict[str, str], key: str, expected_size: int) -> Vocab:
    raw = metadata.get(key)
    if raw is None:
        raise CheckpointError(tr("{path}: metadata has no '{key}'").format(path=path, key=key))
    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()
    known = _VOCABS.get(digest)
    if known is not None and len(known) == expected_size:
        return known
    vocab = _parse_vocab(path, key, raw, expected_size)
    _VOCABS[digest] = vocab
    return vocab


def _parse_vocab(path: Path, key: str, raw: str, expected_size: int) -> Vocab:
    tokens = _json(path, key, raw)
    try:
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise ValueError(tr("it must be a JSON list of strings"))
        if bad := next((t for t in tokens if not is_word(t)), None):
            raise ValueError(tr("token {token!r}… is not a word (too long, or control characters)").format(
                token=bad[:20]))
        vocab = Vocab(tuple(tokens))
    except ValueError as error:
        raise CheckpointError(tr("{path}: {key} is not a valid vocabulary ({error})").format(path=path, key=key,
                                                                                            error=error)) from None
    if len(vocab) != expected_size:
        raise CheckpointError(tr("{path}: {key} has {count} tokens but the config says {expected}").format(
            path=path, key=key, count=len(vocab), expected=expected_size))
    return vocab


class _SkipInitialisation(TorchFunctionMode):
    """Makes torch's in-place initialisers no-ops: on ``meta`` tensors they only cost time (the first
    ``normal_`` on meta imports torch's compiler, about 1.5 s). parameters_only: only on parameters (a model whose
    every parameter the file's tensors then overwrite: drawing random weights first took most of the time a shipped
    model takes to open; buffers a model computes when built, such as a positional table, are computed still)."""

    SKIPPED = frozenset({"normal_", "uniform_", "zero_", "fill_", "trunc_normal_", "orthogonal_", "ones_",
                         "zeros_", "constant_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
                         "kaiming_normal_"})

    def __init__(self, parameters_only: bool = False):
        super().__init__()
        self.parameters_only = parameters_only

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if getattr(func, "__name__", "") in self.SKIPPED:
            target = args[0] if args else kwargs.get("tensor")
            if not self.parameters_only or isinstance(target, nn.Parameter):
                return target
        return func(*args, **kwargs)


def _skeleton(config: Any) -> nn.Module:
    """The model ``config`` describes, laid out on torch's ``meta`` device: shapes, no memory, no data."""
    with torch.device("meta"), _SkipInitialisation():
        return build_model(config)


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def _check_layout(path: Path, skeleton: nn.Module, header: dict[str, tuple[tuple[int, ...], str]]) -> None:
    """The file's tensor names and shapes against the model the config describes (built on ``meta``),
    and the model's size against this machine's memory."""
    expected = _stored_tensors(skeleton)
    if missing := sorted(set(expected) - set(header)):
        raise CheckpointError(tr("{path}: missing tensors {names}").format(path=path, names=", ".join(missing[:5])))
    if unexpected := sorted(set(header) - set(expected)):
        raise CheckpointError(tr("{path}: unexpected tensors {names}").format(path=path,
                                                                             names=", ".join(unexpected[:5])))
    for name, reference in expected.items():
        shape, dtype = header[name]
        if shape != tuple(reference.shape):
            raise CheckpointError(tr("{path}: tensor {name} has shape {shape}, expected {expected} "
                                     "(the config does not match the weights)").format(
                path=path, name=name, shape=shape, expected=tuple(reference.shape)))
        stored = _TORCH_DTYPE.get(dtype, dtype)
        allowed = (torch.float16, torch.float32) if reference.is_floating_point() else (reference.dtype,)
        if stored not in allowed:
            raise CheckpointError(tr("{path}: tensor {name} has dtype {dtype}, expected {expected}").format(
                path=path, name=name, dtype=stored, expected=reference.dtype))
    if problem := _size_problem(skeleton):
        raise CheckpointError(tr("{path}: {problem}").format(path=path, problem=problem))


def _size_problem(skeleton: nn.Module) -> str | None:
    """Why a model (on ``meta``) is too large for attnviz to load on this machine, or None."""
    size = sum(t.numel() * t.element_size() for t in (*skeleton.parameters(), *skeleton.buffers()))
    memory = _physical_memory()
    if size > MAX_MODEL_BYTES or (memory is not None and size > memory // 2):
        return tr("the model would take {gb:.1f} GB of memory, more than attnviz loads").format(gb=size / 1024**3)
    return None


def model_size_problem(config: Any) -> str | None:
    """Why the model ``config`` describes is too large to load (the loader's check), or None; nothing
    is allocated (the model is laid out on ``meta``)."""
    return _size_problem(_skeleton(config))


_TORCH_DTYPE = {"F16": torch.float16, "F32": torch.float32, "F64": torch.float64, "BF16": torch.bfloat16,
                "I8": torch.int8, "I16": torch.int16, "I32": torch.int32, "I64": torch.int64, "U8": torch.uint8,
                "BOOL": torch.bool}  # safetensors' dtype names


def load_checkpoint(path: str | Path, device: torch.device | str = "cpu", compact_weights: bool = True) -> LoadedModel:
    """Validate and load a checkpoint written by :func:`save_checkpoint`; the model is in eval mode.

    compact_weights: hold a translation model's weights in less memory with the same numbers
    (:mod:`attnviz.core.models.compact`; for decoding, not for training it further)."""
    path = Path(path)
    if path.is_dir():
        return _load_hf_folder(path, device)
    _check_openable(path)
    try:
        with _utf8_name(path) as openable:
            try:
                loaded = _load(openable, device, compact_weights)
            except CheckpointError as error:  # name the file the user chose, not the temporary link
                raise CheckpointError(str(error).replace(str(openable), str(path))) from None
        loaded.path = path
        return loaded
    except CheckpointError:
        raise
    except (MemoryError, RecursionError, TypeError, ValueError, RuntimeError, OverflowError, OSError,
            ZeroDivisionError, KeyError, AttributeError) as error:  # a check above should have said why
        raise CheckpointError(tr("{path}: cannot be loaded ({error})").format(
            path=path, error=f"{type(error).__name__}: {error}")) from None


def is_attnviz_checkpoint(path: str | Path) -> bool:
    """Whether ``path`` is a safetensors file with attnviz's metadata (read from its header only; the
    tensors and the config are not checked: a damaged or outdated checkpoint still counts)."""
    try:
        with _utf8_name(Path(path)) as openable, safe_open(str(openable), framework="pt", device="cpu") as handle:
            metadata = handle.metadata() or {}
    except Exception:  # safetensors raises several types for files that are not its own
        return False
    return "format_version" in metadata and "kind" in metadata


def _load_hf_folder(path: Path, device: torch.device | str) -> LoadedModel:
    """A Hugging Face model folder (attnviz/core/hf/load.py); its problems as CheckpointError."""
    from attnviz.core.hf.load import load_hf_folder

    try:
        return cast(LoadedModel, load_hf_folder(path, device))
    except (ValueError, OSError) as error:
        raise CheckpointError(str(error)) from None


def _check_openable(path: Path) -> None:
    """The file can be read: or CheckpointError saying why not, in words. Only a regular file is opened:
    a named pipe or a device would block the reader forever."""
    try:
        if path.exists() and not path.is_dir() and not stat.S_ISREG(path.stat().st_mode):
            raise CheckpointError(tr("{path}: not a regular file (a pipe or a device?)").format(path=path))
        problem = checkpoint_file_problem(path)  # size and header: a 20 GB file is refused before it is mapped
    except FileNotFoundError:
        raise CheckpointError(tr("{path}: no such file").format(path=path)) from None
    except IsADirectoryError:
        raise CheckpointError(tr("{path}: is a folder, not a checkpoint file").format(path=path)) from None
    except PermissionError:
        raise CheckpointError(tr("{path}: permission denied (the file is not readable by you)").format(path=path)
                              ) from None
    except OSError as error:  # a symlink loop, a name too long …
        raise CheckpointError(tr("{path}: cannot be opened ({error})").format(path=path,
                                                                             error=error.strerror or error)) from None
    if problem:
        raise CheckpointError(tr("{path}: {problem}").format(path=path, problem=problem))


@contextlib.contextmanager
def _utf8_name(path: Path) -> Iterator[Path]:
    """``path``, or where its name is not valid UTF-8 (safetensors takes only UTF-8 paths) a temporary
    symlink to it with a plain name."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        with tempfile.TemporaryDirectory(prefix="attnviz-") as folder:
            link = Path(folder) / "checkpoint.safetensors"
            link.symlink_to(os.path.abspath(path))
            yield link
        return
    yield path


def _load(path: Path, device: torch.device | str, compact_weights: bool) -> LoadedModel:
    try:
        # One handle for the header and the data: a file swapped between two opens cannot slip through.
        with safe_open(str(path), framework="pt", device="cpu") as handle:
            return _load_from(path, handle, device, compact_weights)
    except CheckpointError:
        raise
    except Exception as error:  # safetensors raises several types for corrupt files
        raise CheckpointError(tr("{path}: not a readable safetensors file ({error})").format(path=path, error=error)
                              ) from None


def _load_from(path: Path, handle: Any, device: torch.device | str, compact_weights: bool) -> LoadedModel:
    metadata = handle.metadata() or {}
    names = list(handle.keys())
    if len(names) > MAX_TENSORS:
        raise CheckpointError(tr("{path}: {count:,} tensors; no attnviz model has more than {most:,}").format(
            path=path, count=len(names), most=MAX_TENSORS))
    header = {name: (tuple(handle.get_slice(name).get_shape()), handle.get_slice(name).get_dtype())
              for name in names}
    if "format_version" not in metadata and "kind" not in metadata:
        raise CheckpointError(tr("{path}: not an attnviz checkpoint: no attnviz metadata "
                                 "(a safetensors file, but not one attnviz wrote)").format(path=path))
    version = metadata.get("format_version")
    if version != FORMAT_VERSION:
        raise CheckpointError(tr("{path}: format_version {version!r} is not supported (expected {expected})").format(
            path=path, version=version, expected=FORMAT_VERSION))
    name = metadata.get("kind")
    if name not in KINDS:
        raise CheckpointError(tr("{path}: unknown model kind {name!r}; known: {known}").format(
            path=path, name=name, known=", ".join(KINDS)))
    kind = KINDS[name]
    config = _read_config(path, kind, metadata.get("config"))
    src_vocab = tgt_vocab = None
    if kind.reads_text:
        src_vocab = _read_vocab(path, metadata, "src_vocab", config.src_vocab_size)
        tgt_vocab = _read_vocab(path, metadata, "tgt_vocab", config.tgt_vocab_size)
    labels = _read_labels(path, metadata.get("labels"), config.num_classes) if kind.names_classes else ()
    training = _json(path, "training", metadata.get("training", "{}"))
    if not isinstance(training, dict):
        raise CheckpointError(tr("{path}: training info must be a JSON object").format(path=path))
    try:
        meta = kind.reads_text or kind.names_classes  # (kernel regression is built for real: ≤ 100k points)
        skeleton = _skeleton(config) if meta else build_model(config)
    except (ValueError, RuntimeError) as error:
        raise CheckpointError(tr("{path}: config cannot build a model ({error})").format(path=path, error=error)
                              ) from None
    _check_layout(path, skeleton, header)
    tensors = {name: handle.get_tensor(name) for name in header}
    stored_digest = metadata.get("tensor_digest")
    if stored_digest is not None and stored_digest != tensor_digest(tensors):
        raise CheckpointError(tr("{path}: the tensor data does not match its checksum: the file is corrupted "
                                 "(download or copy it again)").format(path=path))
    for name, stored in tensors.items():
        if tuple(stored.shape) != header[name][0]:
            raise CheckpointError(tr("{path}: tensor {name} changed while it was read").format(path=path, name=name))
        if not stored.is_floating_point() or not stored.numel():
            continue
        # One pass over the tensor for both checks (torch.isfinite then abs().max() took three, and most of the
        # time a model takes to open): a NaN makes both ends NaN, an infinity one end infinite.
        low, high = (float(end) for end in torch.aminmax(stored))
        if not (math.isfinite(low) and math.isfinite(high)):
            raise CheckpointError(tr("{path}: tensor {name} holds NaN or infinite values").format(path=path,
                                                                                                   name=name))
        if max(-low, high) > MAX_ABS_VALUE:
            raise CheckpointError(tr("{path}: tensor {name} holds values beyond ±{most:g}, "
                                     "which no attnviz model has").format(path=path, name=name, most=MAX_ABS_VALUE))
    with _SkipInitialisation(parameters_only=True):  # (every parameter is in the state dict, copied over below)
        model = build_model(config)
    with torch.no_grad():
        state = model.state_dict()
        for name in _stored_tensors(model):
            state[name].copy_(tensors[name])  # (converting a float16 file's tensors as it copies)
    if compact_weights and kind.reads_text:
        compact(model, {name for name, tensor in tensors.items() if tensor.dtype == torch.float16})
    del tensors, state  # (before the model moves: a copy on the GPU need not sit beside these)
    release_freed_memory()
    return LoadedModel(kind.name, config, model.to(device).eval(), src_vocab, tgt_vocab, training, path, labels)
