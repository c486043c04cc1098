"""Entry point of ``attnviz``, ``python -m attnviz`` and ``main.py``.

``attnviz COMMAND …`` runs a CLI command (see :mod:`attnviz.cli`); anything else opens the window.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def _gui_parser() -> argparse.ArgumentParser:
    from attnviz.cli import COMMANDS

    parser = argparse.ArgumentParser(
        prog="attnviz", description="See attention. Without a command, opens the desktop app.",
        epilog=f"commands (attnviz COMMAND --help): {', '.join(COMMANDS)}")
    parser.add_argument("--checkpoint", type=Path, help="checkpoint to open (default: the shipped Transformer)")
    parser.add_argument("--text", help="sentence to decode on start")
    parser.add_argument("--device", help="auto, cpu, cuda, cuda:N or mps")
    parser.add_argument("--settings", type=Path, help=argparse.SUPPRESS)  # tests keep their own settings file
    parser.add_argument("--log", type=Path, help="log file (default: attnviz.log in the app's data folder)")
    parser.add_argument("--quit-after", type=int, help=argparse.SUPPRESS)  # ms; for tests and benchmarks
    return parser


def run_gui(args: argparse.Namespace) -> int:
    from PySide6 import QtCore, QtWidgets

    from attnviz import paths
    from attnviz.core.device import DeviceUnavailableError, pick_device
    from attnviz.gui.errors import configure_logging, default_log_path, install_excepthooks
    from attnviz.gui.main_window import MainWindow, Poster
    from attnviz.gui.settings import Settings
    from attnviz.session import ThreadRunner

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    app.setApplicationName("attnviz")
    app.setOrganizationName("attnviz")
    log_path = configure_logging(args.log or default_log_path())
    poster = Poster()
    runner = ThreadRunner(poster.post)
    settings = Settings(args.settings)
    device_problem = None
    if args.device:
        try:
            pick_device(args.device)
            settings.device = args.device
        except DeviceUnavailableError as error:
            device_problem = f"{error}. Using the best available device instead."
            settings.device = "auto"
    window = MainWindow(settings, runner)
    install_excepthooks(window.error, poster.post, log_path)
    window.show()
    checkpoint = args.checkpoint  # a path the user names is always tried: a problem with it is shown
    if checkpoint is None:
        remembered = Path(settings.last_checkpoint) if settings.last_checkpoint else None
        checkpoint = remembered if remembered is not None and remembered.is_file() else paths.DEFAULT_CHECKPOINT
    text = args.text if args.text is not None else paths.EXAMPLE_SENTENCE

    def start() -> None:
        if device_problem:
            window.error(device_problem)
        window.set_sentence(text, run=True)
        if checkpoint.is_file() or args.checkpoint is not None:
            window.load(checkpoint)
        else:
            window.statusBar().showMessage("Open a checkpoint (Ctrl+O) to begin.")

    QtCore.QTimer.singleShot(0, start)
    if args.quit_after:
        QtCore.QTimer.singleShot(args.quit_after, window.close)
    code = app.exec()
    runner.shutdown()
    QtCore.QCoreApplication.processEvents()
    window.deleteLater()
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from attnviz import cli

    if args and not args[0].startswith("-"):  # a command (argparse names the valid ones if it is not)
        try:
            return cli.main(args)
        except SystemExit as exit_:  # argparse's usage errors and --help
            return exit_.code if isinstance(exit_.code, int) else 2
    return run_gui(_gui_parser().parse_args(args))
