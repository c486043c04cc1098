"""PySide6's import hook answers its question without keeping every module's source in memory.

PySide6 replaces ``__import__`` (``shibokensupport.feature``, for its opt-in ``from __feature__ import
snake_case``) and asks of every module imported after it whether its source mentions "PySide6". It asks
with ``inspect.getsource``, which leaves each file's lines in Python's ``linecache`` for the life of the
process: with pyqtgraph, attnviz and torch imported, ~970 files, 17 MB of text and about 40 MB resident.
:func:`keep_module_sources_uncached` gives the hook the same answer read from the file's bytes, which are
not kept. Tracebacks still read their lines on demand. Where PySide6 has no such hook, nothing changes.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from types import ModuleType

from PySide6 import QtCore  # noqa: F401  (installs the hook)

MARK = "_attnviz_reads_bytes"  # set on the check once it is replaced


def _mentions_pyside(module: ModuleType, original: Callable[[ModuleType], bool]) -> bool:
    """PySide6's own answer ("PySide6" in the module's source) for a module with a readable source file;
    anything else (a built-in, an extension, a module from an archive) goes to PySide6's check."""
    try:
        path = inspect.getsourcefile(module)
    except TypeError:  # a built-in module
        return original(module)
    if path is None:
        return original(module)
    try:
        with open(path, "rb") as file:
            return b"PySide6" in file.read()
    except OSError:
        return original(module)


def keep_module_sources_uncached() -> None:
    """Replace the hook's source check (``_mod_uses_pyside``) by one that keeps nothing. Idempotent."""
    feature = sys.modules.get("shibokensupport.feature")
    original = getattr(feature, "_mod_uses_pyside", None)
    if original is None or getattr(original, MARK, False):
        return

    def mod_uses_pyside(module: ModuleType) -> bool:
        return _mentions_pyside(module, original)

    setattr(mod_uses_pyside, MARK, True)
    feature._mod_uses_pyside = mod_uses_pyside  # type: ignore[union-attr]
