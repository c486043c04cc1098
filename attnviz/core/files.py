"""Atomic file output: a file appears complete under its final name, or not at all."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_output(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success rename it to ``path``, on error delete it.

    The temporary file lives in the same folder (so the rename is atomic) and is hidden (dot name).
    Raises OSError when the folder cannot be written, before anything is created.
    """
    path = Path(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; our outputs are ordinary shareable files
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
