"""Unexpected errors in the app: logged in full to a file, shown to the user once, in one line.

No traceback reaches the terminal or the window; the log file holds it for a bug report.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from PySide6 import QtCore, QtWidgets

from attnviz.i18n import N_, tr

log = logging.getLogger("attnviz")
LEVELS = {"warning": N_("warning"), "error": N_("error"), "critical": N_("critical")}  # as stderr names them


def warn(parent: QtWidgets.QWidget | None, message: str) -> None:
    """A warning dialog showing ``message`` as plain text: a checkpoint's kind or file name shown in it
    can never become a link or formatting (Qt would guess rich text from a '<b>' in it)."""
    box = QtWidgets.QMessageBox(QtWidgets.QMessageBox.Icon.Warning, "attnviz", message,
                                QtWidgets.QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(QtCore.Qt.TextFormat.PlainText)
    box.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
    box.exec()


def ask(parent: QtWidgets.QWidget | None, question: str) -> bool:
    """A Yes/No question in plain text (No is the default); whether the user answered Yes."""
    buttons = QtWidgets.QMessageBox.StandardButton
    box = QtWidgets.QMessageBox(QtWidgets.QMessageBox.Icon.Question, "attnviz", question, buttons.Yes | buttons.No,
                                parent)
    box.setTextFormat(QtCore.Qt.TextFormat.PlainText)
    box.setDefaultButton(buttons.No)
    return box.exec() == buttons.Yes


class _OneLine(logging.Formatter):
    """``attnviz: LEVEL: message`` and nothing else: tracebacks go to the log file only."""

    def format(self, record: logging.LogRecord) -> str:
        level = record.levelname.lower()
        return tr("attnviz: {level}: {message}").format(level=tr(LEVELS.get(level, level)),
                                                          message=record.getMessage())


def default_log_path() -> Path:
    base = QtCore.QStandardPaths.writableLocation(QtCore.QStandardPaths.StandardLocation.AppLocalDataLocation)
    return Path(base or Path.home() / ".local" / "share" / "attnviz") / "attnviz.log"


def configure_logging(log_path: Path) -> Path | None:
    """Warnings and errors to stderr in one line each; everything with tracebacks to ``log_path``.

    Returns the log file in use, or None when it cannot be written (then stderr alone is used).
    """
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.WARNING)
    console.setFormatter(_OneLine())
    root.addHandler(console)
    try:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(log_path, encoding="utf-8")
    except OSError:
        return None
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
    root.addHandler(handler)
    return log_path


def route_qt_messages() -> None:
    """Qt's own diagnostics go to the log file, not the terminal (critical ones to both)."""
    qt_log = logging.getLogger("attnviz.qt")
    levels = {QtCore.QtMsgType.QtDebugMsg: logging.DEBUG, QtCore.QtMsgType.QtInfoMsg: logging.DEBUG,
              QtCore.QtMsgType.QtWarningMsg: logging.INFO, QtCore.QtMsgType.QtCriticalMsg: logging.ERROR,
              QtCore.QtMsgType.QtFatalMsg: logging.CRITICAL}

    def handler(kind: QtCore.QtMsgType, _context: QtCore.QMessageLogContext, message: str) -> None:
        qt_log.log(levels.get(kind, logging.INFO), "Qt: %s", message)

    QtCore.qInstallMessageHandler(handler)


def install_excepthooks(show: Callable[[str], None], post: Callable[[Callable[[], None]], None],
                        log_path: Path | None) -> Callable[[], None]:
    """Route uncaught exceptions (GUI thread and worker threads) to the log and to ``show``, once each.

    show: displays a message in the window (called on the GUI thread); post: hands a callable to it.
    Returns ``stop_showing``: call it when the window closes; later errors are only logged.
    """
    shown: set[tuple[type, str]] = set()
    showing = [True]
    def report(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        log.error("unexpected error: %s: %s", kind.__name__, error, exc_info=(kind, error, trace))
        key = (kind, str(error))
        if showing[0] and key not in shown:
            shown.add(key)
            message = tr("Unexpected error: {kind}: {error}. attnviz keeps running.").format(
                kind=kind.__name__, error=str(error).rstrip("."))
            show(message + (tr(" Details are in {path}.").format(path=log_path) if log_path else ""))

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            QtCore.QCoreApplication.quit()
            return
        report(kind, error, trace)

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            error = args.exc_value
            post(lambda: report(args.exc_type, error, args.exc_traceback))

    sys.excepthook = hook
    threading.excepthook = thread_hook
    return lambda: showing.__setitem__(0, False)
