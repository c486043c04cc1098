"""A cheap first look at a checkpoint file (torch-free): its size and the first bytes of its header.

A safetensors file starts with an 8-byte little-endian header length N, then N bytes of JSON (``{`` …),
then the tensor data. Reading those few bytes and the file's size tells a 20 GB film or a random file
from a checkpoint in microseconds, before anything reads the file whole (its SHA-256) or maps it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from attnviz.i18n import tr

MAX_MODEL_BYTES = 2 * 1024**3  # attnviz's models are tens of MB; a config claiming more is refused
MAX_HEADER_BYTES = 100_000_000  # safetensors' own limit on the JSON header
MAX_CHECKPOINT_BYTES = 8 + MAX_HEADER_BYTES + MAX_MODEL_BYTES  # (float16 weights take less)


def checkpoint_file_problem(path: str | Path) -> str:
    """"" when ``path`` is a regular file of a checkpoint's size whose first bytes are a safetensors header;
    else a short sentence saying why it is not one (without the path). OSError when it cannot be read."""
    with open(path, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode):
            return tr("not a regular file (a pipe or a device?)")
        size = info.st_size
        if size > MAX_CHECKPOINT_BYTES:
            return tr("the file is {gb:.1f} GB, larger than any attnviz checkpoint "
                      "(at most {most:.1f} GB): not a checkpoint").format(gb=size / 1024**3,
                                                                         most=MAX_CHECKPOINT_BYTES / 1024**3)
        start = stream.read(9)
    if len(start) < 9:
        return tr("not a readable safetensors file (only {size} bytes)").format(size=size)
    header = int.from_bytes(start[:8], "little")
    if header > MAX_HEADER_BYTES or 8 + header > size or start[8:9] != b"{":
        return tr("not a readable safetensors file (its first bytes are not a safetensors header)")
    return ""


MAX_PEEK_BYTES = 1_000_000  # attnviz's own headers are a few kB (the vocabularies are in them: ~300 kB)


def checkpoint_kind(path: str | Path) -> str:
    """The model kind an attnviz checkpoint's header names ("transformer", …), read from the header alone
    (torch-free: the GUI can sort files without loading a model); "" when the file is not one or unreadable."""
    import json

    try:
        with open(path, "rb") as stream:
            length = int.from_bytes(stream.read(8), "little")
            if not 0 < length <= MAX_PEEK_BYTES:
                return ""
            header = json.loads(stream.read(length))
    except (OSError, ValueError):
        return ""
    metadata = header.get("__metadata__") if isinstance(header, dict) else None
    kind = metadata.get("kind") if isinstance(metadata, dict) else None
    return kind if isinstance(kind, str) else ""
