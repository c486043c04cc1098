"""The files of a Hugging Face model folder, each checked before any library opens it (torch-free).

Every file a library may read — at the folder's top level, in ``additional_chat_templates/``, or named by a path
inside a config or tokenizer file — is a regular file inside the model's folder (a link may lead into the Hugging
Face cache's ``blobs/`` of the same model, nowhere else), no larger than what its kind can need: a JSON config or
a chat template a few MB, a tokenizer 100 MB, weights 8 GB. A safetensors file's header is read (bounded) and
checked as the library checks it — every tensor of a known type, its bytes where its shape says, the file covered
exactly — so a truncated or forged file is named here instead of failing inside the library.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from attnviz.core.safe_output import kind_of
from attnviz.i18n import tr

MB = 1_000_000
MAX_CONFIG_BYTES = 1 * MB  # real configs are 1–5 kB
MAX_SMALL_BYTES = 5 * MB  # tokenizer_config.json, generation_config.json, a chat template: real ones are 1–100 kB
MAX_TOKENIZER_BYTES = 100 * MB  # the largest real tokenizer.json files (Llama 3, Qwen2) are 7–17 MB
MAX_INDEX_BYTES = 10 * MB  # model.safetensors.index.json: 30 kB for a 7B model
MAX_PARAMETERS = 2_000_000_000  # what a CPU desktop can step through at all (8 GB in float32)
MAX_HEADER = 10 * MB  # one safetensors file's JSON header: 30 kB for 300 tensors
MAX_HEADERS = 32 * MB  # all the shards' headers together
MAX_SHARDS = 1_000
MAX_ENTRIES = 4_096  # files in the folder (a snapshot has 5–50)
MAX_TEMPLATES = 64  # files in additional_chat_templates/
MAX_WEIGHT_BYTES = 4 * MAX_PARAMETERS + MAX_HEADER
TEMPLATE_DIR = "additional_chat_templates"
_TOKENIZER_NAMES = re.compile(r"tokenizer(\..*)?\.json|.*vocab.*\.(json|txt)|.*merges.*\.txt|.*\.(spm|model|tiktoken)")
_SMALL_NAMES = re.compile(r".*\.(json|jinja|txt)")
DTYPE_BYTES = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
               "I32": 4, "U32": 4, "F32": 4, "I64": 8, "U64": 8, "F64": 8}


class HFFolderError(ValueError):
    """The folder cannot be opened as a Hugging Face model; one sentence naming the file."""


class _UnknownType(Exception):
    """A safetensors header's tensor type that attnviz does not read (its name)."""


def bound_of(name: str) -> int:
    """The most bytes a file called ``name`` can need, by its kind."""
    if name == "config.json":
        return MAX_CONFIG_BYTES
    if name == "model.safetensors.index.json":
        return MAX_INDEX_BYTES
    if _TOKENIZER_NAMES.fullmatch(name):
        return MAX_TOKENIZER_BYTES
    if _SMALL_NAMES.fullmatch(name):
        return MAX_SMALL_BYTES
    return MAX_WEIGHT_BYTES  # weights, and files no library reads (a README, a picture)


def cannot_read(path: Path | str, error: OSError) -> HFFolderError:
    return HFFolderError(tr("{path}: cannot be read ({error})").format(path=path, error=error.strerror or error))


def member(folder: Path, root: Path, name: str, max_bytes: int | None = None) -> Path | None:
    """``folder/name`` if it exists: a regular file inside ``root`` (after links) of at most ``max_bytes`` (by
    default, what its kind can need)."""
    path = folder / name
    try:
        os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise cannot_read(path, error) from None
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
        raise cannot_read(path, error) from None
    if not stat.S_ISREG(info.st_mode):
        raise HFFolderError(tr("{path}: is {kind}, not a file").format(path=path, kind=kind_of(info.st_mode)))
    most = bound_of(path.name) if max_bytes is None else max_bytes
    if info.st_size > most:
        raise HFFolderError(tr("{path}: is {mb:,.0f} MB, larger than any real {name} (at most {most:,.0f} MB)").format(
            path=path, mb=info.st_size / 1e6, name=path.name, most=most / 1e6))
    return path


def check_every_file(folder: Path, root: Path) -> None:
    """Every file at the folder's top level and in ``additional_chat_templates/`` (transformers opens more than
    the listed ones: a chat template, a second vocabulary) passes :func:`member`."""
    with os.scandir(folder) as entries:
        names = []
        for entry in entries:
            names.append(entry.name)
            if len(names) > MAX_ENTRIES:
                raise HFFolderError(tr("{path}: holds more than {most:,} files; a model folder holds a few dozen"
                                       ).format(path=folder, most=MAX_ENTRIES))
    for name in sorted(names):
        path = folder / name
        if name == TEMPLATE_DIR and not path.is_symlink() and path.is_dir():
            _check_templates(path, root)
        elif not path.is_dir() or path.is_symlink():
            member(folder, root, name)


def _check_templates(templates: Path, root: Path) -> None:
    with os.scandir(templates) as entries:
        names = []
        for entry in entries:
            names.append(entry.name)
            if len(names) > MAX_TEMPLATES:
                raise HFFolderError(tr("{path}: holds more than {most} chat templates").format(path=templates,
                                                                                             most=MAX_TEMPLATES))
    for name in sorted(names):
        member(templates, root, name, MAX_SMALL_BYTES)


def read_json(path: Path) -> Any:
    """A checked member's JSON (HFFolderError naming it when it is not JSON)."""
    try:
        return json.loads(path.read_bytes().decode("utf-8"))
    except OSError as error:
        raise cannot_read(path, error) from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise HFFolderError(tr("{path}: is not valid JSON").format(path=path)) from None


def weights(folder: Path, root: Path) -> tuple[Path, ...]:
    """The weight files: one safetensors file, the shards an index lists, or one .bin (each checked)."""
    single = member(folder, root, "model.safetensors", MAX_WEIGHT_BYTES)
    if single is not None:
        check_safetensors(single)
        return (single,)
    index = member(folder, root, "model.safetensors.index.json")
    if index is not None:
        return _shards(folder, root, index)
    binary = member(folder, root, "pytorch_model.bin", 4 * MAX_PARAMETERS)
    if binary is not None:
        return (binary,)
    names = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")
    raise HFFolderError(tr("{path}: has no weights (none of {names})").format(path=folder, names=", ".join(names)))


def _shards(folder: Path, root: Path, index: Path) -> tuple[Path, ...]:
    data = read_json(index)
    weight_map = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(weight_map, dict):
        raise HFFolderError(tr("{path}: is not a safetensors index (a JSON object with a weight_map)").format(
            path=index))
    shards = set(weight_map.values())
    if len(shards) > MAX_SHARDS:
        raise HFFolderError(tr("{path}: lists {count:,} shards; attnviz opens models of up to {most:,}").format(
            path=index, count=len(shards), most=MAX_SHARDS))
    files, headers = [], 0
    for shard in sorted(shards, key=str):
        if not isinstance(shard, str) or Path(shard).name != shard or shard in ("", ".", ".."):
            raise HFFolderError(tr("{path}: names {shard!r}, not a file of this folder").format(path=index,
                                                                                               shard=shard))
        found = member(folder, root, shard, MAX_WEIGHT_BYTES)
        if found is None:
            raise HFFolderError(tr("{path}: is missing (model.safetensors.index.json lists it)").format(
                path=folder / shard))
        headers += check_safetensors(found)
        if headers > MAX_HEADERS:
            raise HFFolderError(tr("{path}: its shards' headers take more than {most:,.0f} MB together; a real "
                                   "model's take less than one").format(path=index, most=MAX_HEADERS / MB))
        files.append(found)
    return tuple(files)


def check_safetensors(path: Path) -> int:
    """The file's header is JSON that describes its tensors as the safetensors library requires: each of a known
    type, its bytes (as many as its shape says) right after the previous tensor's, the file covered exactly.
    Returns the header's length."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as stream:
            start = stream.read(8)
            length = int.from_bytes(start, "little") if len(start) == 8 else -1
            if not 2 <= length <= MAX_HEADER or 8 + length > size:
                if length > MAX_HEADER and 8 + length <= size:
                    raise HFFolderError(tr("{path}: has a safetensors header of {mb:,.0f} MB; a real one takes less "
                                           "than one").format(path=path, mb=length / MB))
                raise HFFolderError(tr("{path}: is not a complete safetensors file (its header does not fit the "
                                       "file)").format(path=path))
            raw = stream.read(length)
    except OSError as error:
        raise cannot_read(path, error) from None
    try:
        header = json.loads(raw)
        tensors = sorted(((_extent(entry), name) for name, entry in header.items() if name != "__metadata__"))
    except _UnknownType as unknown:
        raise HFFolderError(tr("{path}: holds a tensor of type {dtype}, which attnviz does not read (it reads "
                               "{names})").format(path=path, dtype=unknown, names=", ".join(DTYPE_BYTES))) from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, KeyError, TypeError, ValueError,
            AttributeError):
        raise HFFolderError(tr("{path}: is not a safetensors file (its header is not one)").format(path=path)) from None
    if not tensors:
        raise HFFolderError(tr("{path}: holds no tensors: the model's weights are not in it").format(path=path))
    end = 0
    for (begin, stop), name in tensors:
        if begin != end:
            raise HFFolderError(tr("{path}: is not a safetensors file (the bytes of its tensor {name} overlap "
                                   "another's or leave a gap)").format(path=path, name=name))
        end = stop
    if 8 + length + end > size:
        raise HFFolderError(tr("{path}: is truncated ({size:,} bytes of {total:,}): download it again").format(
            path=path, size=size, total=8 + length + end))
    if 8 + length + end < size:
        raise HFFolderError(tr("{path}: is not a safetensors file ({count:,} bytes follow its last tensor)").format(
            path=path, count=size - 8 - length - end))
    return length


def _extent(entry: Any) -> tuple[int, int]:
    """A header entry's (begin, end) offsets, checked against its type and shape (ValueError if they disagree)."""
    begin, end = entry["data_offsets"]
    shape = entry["shape"]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (begin, end, *shape)):
        raise ValueError
    count = 1
    for dim in shape:
        count *= dim
    if entry["dtype"] not in DTYPE_BYTES:
        raise _UnknownType(str(entry["dtype"])[:20])
    if end - begin != count * DTYPE_BYTES[entry["dtype"]]:
        raise ValueError
    return begin, end
