"""The one way into Qt for pictures drawn without a window: PNG, SVG and PDF files, flip-books.

A command that writes numbers (CSV, NPY, JSON) never imports Qt or pyqtgraph: :mod:`attnviz.render.figure_files`
writes them without Qt, and reaches the painters (:mod:`attnviz.render.pictures`) only through
:func:`picture_painters` when a picture is asked for. :func:`start_qt` imports Qt and makes the process's Qt
application on the offscreen platform when there is none yet (the window has its own), and holds it for the
process's life. Where Qt cannot start (PySide6 not installed, or a system library it needs missing: libGL, libEGL,
libxkbcommon …) it raises :class:`QtUnavailable`, one sentence naming what is missing and how to write the numbers
alone instead. Imports no Qt itself.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from attnviz.i18n import N_, tr
from attnviz.render.export_error import ExportError

PICTURE_FORMATS = ("png", "svg", "pdf")  # (a flip-book's PDF and GIF are pictures too)
NUMBERS_ONLY = N_("write the numbers alone with --format csv, which needs no display")  # (the usual way out)
_SHARED_LIBRARY = re.compile(r"(lib[\w.+-]*?\.so(?:\.\d+)*)")
_held: list[Any] = []  # the Qt application made here (painting needs one alive)


class QtUnavailable(ExportError):
    """Qt cannot start on this machine; the message names the missing module or library and the alternative."""


def wants_pictures(formats: Iterable[str]) -> bool:
    """Whether any of ``formats`` is a picture (drawn with Qt)."""
    return any(fmt in PICTURE_FORMATS for fmt in formats)


def start_qt(alternative: str | None = None) -> None:
    """Import Qt (PySide6, pyqtgraph) and make the offscreen Qt application when the process has none.
    :class:`QtUnavailable` where Qt cannot be imported, ending with ``alternative`` (a clause saying what to do
    instead; default :data:`NUMBERS_ONLY`)."""
    try:
        from PySide6 import QtGui  # (first: where neither is there, the message names PySide6)

        importlib.import_module("pyqtgraph")  # the colour maps (it imports QtWidgets too)
    except ImportError as error:
        raise QtUnavailable(unavailable_message(error, alternative)) from None
    if QtGui.QGuiApplication.instance() is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # never a window, display or not
        _held.append(QtGui.QGuiApplication(sys.argv[:1]))


def picture_painters(alternative: str | None = None) -> ModuleType:
    """:mod:`attnviz.render.pictures` (PNG, SVG and PDF bytes), Qt started first (:func:`start_qt`)."""
    start_qt(alternative)
    from attnviz.render import pictures

    return pictures


def unavailable_message(error: ImportError, alternative: str | None = None) -> str:
    """One sentence for a failed import of Qt: what is missing (a shared library, with the Debian package that
    has it, or the Python package) and ``alternative`` (default: how to write the numbers alone)."""
    from attnviz.xcb_check import debian_package

    text = str(error)
    if match := _SHARED_LIBRARY.search(text):
        library = match.group(1)
        reason = tr("the system library {library} is missing (on Debian or Ubuntu: apt-get install {package})").format(
            library=library, package=debian_package(library))
    elif isinstance(error, ModuleNotFoundError) and error.name:
        reason = tr("the Python package {name} is not installed").format(name=error.name.split(".")[0])
    else:
        reason = text
    return tr("pictures (png, svg, pdf) are drawn with Qt, which cannot start on this machine: {reason}; "
              "{alternative}").format(reason=reason, alternative=alternative or tr(NUMBERS_ONLY))
