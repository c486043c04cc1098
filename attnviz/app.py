"""Entry point of ``attnviz``, ``python -m attnviz`` and ``main.py``.

``attnviz COMMAND …`` runs a CLI command (see :mod:`attnviz.cli` and :mod:`attnviz.commands`); anything else opens
the window.
``attnviz FILE`` opens a checkpoint or a saved session in the window; a path that is not a regular file is
one line on stderr and exit code 2, or, with ``--open PATH`` (the desktop entry), a message in the window.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from attnviz import i18n
from attnviz.argparse_text import take_language_option, translate_argparse
from attnviz.i18n import tr
from attnviz.unopenable import is_model_folder, looks_like_a_path, why_unopenable

QUIT_WAIT_S = 1.5  # at quit, how long a running background job may hold the process


def _is_file(path: Path) -> bool:
    """Path.is_file() that says False for names the OS refuses (too long, a symlink loop …)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _gui_parser() -> argparse.ArgumentParser:
    from attnviz.cli import COMMANDS

    parser = argparse.ArgumentParser(
        prog="attnviz", description=tr("See attention. Without a command, opens the desktop app."),
        epilog=tr("commands (attnviz COMMAND --help): {commands}").format(commands=", ".join(COMMANDS)))
    parser.add_argument("--checkpoint", type=Path, help=tr("checkpoint to open (default: the shipped Transformer)"))
    parser.add_argument("--text", help=tr("sentence to decode on start"))
    parser.add_argument("--session", type=Path, help=tr("a saved session to open (File ▸ Save session)"))
    parser.add_argument("--device", help=tr("auto, cpu, cuda, cuda:N or mps"))
    parser.add_argument("--lang", metavar="CODE", help=tr(
        "the interface's language: en or zh_CN (any command takes it too; default: View ▸ Language's choice, "
        "else the system's)"))
    parser.add_argument("--open", nargs="?", metavar="FILE",
                        help=tr("a checkpoint or saved session, as the desktop entry passes it: a path that cannot "
                                "be opened is explained in the window"))
    parser.add_argument("--settings", type=Path, help=argparse.SUPPRESS)  # tests keep their own settings file
    parser.add_argument("--log", type=Path, help=tr("log file (default: attnviz.log in the app's data folder)"))
    parser.add_argument("--quit-after", type=int, help=argparse.SUPPRESS)  # ms; for tests and benchmarks
    parser.add_argument("--report-first-paint", action="store_true", help=argparse.SUPPRESS)  # bench/
    parser.add_argument("--quit-when-decoded", action="store_true", help=argparse.SUPPRESS)  # tests, bench/
    return parser


def _after_first_paint(window, then: Callable[[], None], report: bool):
    """Call ``then`` once ``window`` has painted for the first time (optionally printing
    ``first-paint <time.monotonic()>`` on stdout, for bench/app_bench.py)."""
    import time

    from PySide6 import QtCore

    class FirstPaint(QtCore.QObject):
        def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
            if event.type() == QtCore.QEvent.Type.Paint:
                watched.removeEventFilter(self)
                if report:
                    print(f"first-paint {time.monotonic():.6f}", flush=True)
                QtCore.QTimer.singleShot(0, then)
            return False

    watcher = FirstPaint(window)
    window.installEventFilter(watcher)
    return watcher


def _display_problem() -> str | None:
    """On Linux without X11, Wayland or a chosen Qt platform, Qt would abort: say why instead."""
    if not sys.platform.startswith("linux"):
        return None
    if any(os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")):
        return None
    return tr("no display found (DISPLAY and WAYLAND_DISPLAY are unset): run attnviz on a desktop, under xvfb-run, "
              "or use a command such as 'attnviz export' (attnviz --help)")


def open_at_start(window, args: argparse.Namespace) -> None:
    """What the window opens first: the --session, else the --checkpoint (else the last one, else the shipped
    Transformer) with the --text. A checkpoint refused here (from the settings or a session) leaves the
    shipped Transformer open instead, with a message saying why: never a window with no model."""
    from attnviz import paths

    if _is_file(paths.DEFAULT_CHECKPOINT):
        window.session.fallback = paths.DEFAULT_CHECKPOINT
    checkpoint = args.checkpoint  # a path the user names is always tried: a problem with it is shown
    if checkpoint is None:
        last = window.settings.last_checkpoint
        remembered = Path(last) if last else None
        checkpoint = remembered if remembered is not None and _is_file(remembered) else paths.DEFAULT_CHECKPOINT
    if args.session is not None:
        window.build_docks()
        if window.open_session(args.session):
            return
    if _is_file(checkpoint) or args.checkpoint is not None:
        window.load(checkpoint, fall_back=True)  # a missing device at start-up: say so, use another
    else:
        window.statusBar().showMessage(tr("Open a checkpoint (Ctrl+O) to begin."))
    window.build_docks()
    window.set_sentence(args.text if args.text is not None else paths.EXAMPLE_SENTENCE, run=True)


def _take_open(args: argparse.Namespace) -> str | None:
    """--open FILE as --session (.json) or --checkpoint; or, when FILE cannot be opened, why not (the
    window says so once it is up)."""
    if args.open is None:
        return None
    if problem := why_unopenable(args.open):
        return problem
    if args.open.lower().endswith(".json"):
        args.session = args.session or Path(args.open)
    else:
        args.checkpoint = args.checkpoint or Path(args.open)
    return None


def run_gui(args: argparse.Namespace) -> int:
    if problem := _display_problem():
        print(tr("attnviz: error: {problem}").format(problem=problem), file=sys.stderr)
        return 2
    from PySide6 import QtCore, QtWidgets

    from attnviz.gui.errors import configure_logging, default_log_path, install_excepthooks, route_qt_messages
    from attnviz.gui.main_window import MainWindow, Poster
    from attnviz.gui.settings import Settings
    from attnviz.session import ThreadRunner

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    app.setApplicationName("attnviz")
    app.setOrganizationName("attnviz")
    log_path = configure_logging(args.log or default_log_path())
    route_qt_messages()
    poster = Poster()
    runner = ThreadRunner(poster.post)
    settings = Settings(args.settings)
    from attnviz.gui.language import install_language, saved_choice

    install_language(app, getattr(args, "lang", None) or saved_choice(settings.qsettings))
    not_opened = _take_open(args)  # (in the window's language: said once the window is up)
    window = MainWindow(settings, runner, defer_docks=True, device=args.device)
    stop_showing_errors = install_excepthooks(window.error, poster.post, log_path)

    def start() -> None:  # after the first paint: torch loads on the worker, pyqtgraph here
        if not_opened:  # once start() is done: the dialog waits for the user, the window ready behind it
            QtCore.QTimer.singleShot(0, lambda: window.error(not_opened))
        open_at_start(window, args)

    _watcher = _after_first_paint(window, start, args.report_first_paint)
    window.statusBar().showMessage(tr("Starting…"))
    window.show()
    if args.quit_after:
        QtCore.QTimer.singleShot(args.quit_after, window.close)
    if args.quit_when_decoded:  # once the start-up sentence is translated (the model loaded and ran)
        poll = QtCore.QTimer(window, interval=50)
        poll.timeout.connect(lambda: window.session.state.finished and window.close())
        poll.start()
    code = app.exec()
    stop_showing_errors()  # the window is closed: no dialog may block the way out
    if not runner.shutdown(timeout=QUIT_WAIT_S):  # a job still running (a huge load, say): leave without it
        window.settings.sync()
        logging.getLogger(__name__).warning(tr("quitting while a background job still runs"))
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    QtCore.QCoreApplication.processEvents()
    window.deleteLater()
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    return code


def _ensure_standard_streams() -> None:
    """A windowed build (or a launcher without a terminal) may start with no stdout/stderr: writes
    to them would raise; send them nowhere instead (the log file still gets everything)."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 (for the process's life)
    # A terminal whose encoding cannot write a character (LANG=en_US.ISO-8859-1 and the help's "▸", GB2312 and
    # a "…") gets a stand-in for it, never a UnicodeEncodeError
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    _ensure_standard_streams()
    args, language = take_language_option(list(sys.argv[1:] if argv is None else argv))
    try:
        i18n.set_language(language)  # None: the system's (the window may then apply View ▸ Language's choice)
    except ValueError as error:
        print(tr("attnviz: error: {problem}").format(problem=f"--lang: {error}"), file=sys.stderr)
        return 2
    translate_argparse()
    from attnviz import cli
    from attnviz.commands.shared import shown

    if args and not args[0].startswith("-") and args[0] not in cli.COMMANDS:
        if _is_file(Path(args[0])) or is_model_folder(args[0]):  # a checkpoint, a saved session, a model folder
            args = ["--session" if args[0].lower().endswith(".json") else "--checkpoint", *args]
        elif looks_like_a_path(args[0]):  # a folder, a pipe, a device, a missing file: say which, not "COMMAND"
            print(tr("attnviz: error: {problem}").format(problem=shown(why_unopenable(args[0]))), file=sys.stderr)
            return 2
    if args and not args[0].startswith("-"):  # a command (argparse names the valid ones if it is not)
        try:
            return cli.main(args)
        except SystemExit as exit_:  # argparse's usage errors and --help
            return exit_.code if isinstance(exit_.code, int) else 2
    gui_args = _gui_parser().parse_args(args)
    gui_args.lang = language
    return run_gui(gui_args)
