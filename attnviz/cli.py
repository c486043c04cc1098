"""Command-line interface: ``attnviz COMMAND …``, its parser assembled from :mod:`attnviz.commands` (a module per
command, and what they share). Needs no window; only the commands that write figures load Qt, to paint them
offscreen.

Errors reach the user as one line on stderr and exit code 2 (a bug: exit code 1), never as a traceback; Ctrl+C,
SIGTERM and SIGHUP unwind alike and say truthfully what they left behind.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence

from attnviz.commands import classify, demo, explain, export, figures, fill_mask, heads, patch, to_hf, train, translate
from attnviz.commands import eval as eval_command
from attnviz.commands.shared import EXIT_INTERNAL, EXIT_USAGE, CliError, Terminated, shown
from attnviz.i18n import tr

COMMANDS = ("demo", "train", "translate", "fill-mask", "classify", "eval", "export", "figures", "to-hf", "heads",
            "explain", "patch")
PARSER_ORDER = (demo, train, translate, eval_command, fill_mask, classify, export, to_hf, figures, heads,
                explain, patch)  # as --help


def build_parser() -> argparse.ArgumentParser:
    """``attnviz``'s parser: each command module adds its sub-parser, in the order ``attnviz --help`` lists them."""
    parser = argparse.ArgumentParser(prog="attnviz", description=tr("See attention."))
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in PARSER_ORDER:
        command.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one CLI command; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # (a job's launcher starts its processes with it)
    run: Callable[[argparse.Namespace], int] = args.run
    with _sigterm_unwinds():
        return _run_reporting(run, args)


@contextlib.contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Terminated` (once: a second one while the first unwinds is ignored); SIGHUP
    only where it is not ignored already (``nohup attnviz …`` keeps running when the terminal closes)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    raised: list[int] = []

    def terminate(signum: int, _frame: object) -> None:
        if not raised:
            raised.append(signum)
            raise Terminated(signum)

    caught = [signal.SIGTERM, *([signal.SIGHUP] if signal.getsignal(signal.SIGHUP) is signal.SIG_DFL else [])]
    previous = {number: signal.signal(number, terminate) for number in caught}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _report_stop(stopped: BaseException) -> int:
    """Say what Ctrl+C, SIGTERM or SIGHUP left behind, truthfully, and return the exit code: 0 when the signal came
    while the output was being moved into place (held until the move was whole: the output is complete), else
    128 + the signal's number (nothing was left half-written)."""
    import signal

    signum = stopped.signum if isinstance(stopped, Terminated) else signal.SIGINT
    if (folder := getattr(stopped, "completed_output", None)) is not None:
        print(tr("attnviz: {signal} came as the output was being moved into place; the move was finished first, so "
                 "{folder} is complete").format(signal=signal.Signals(signum).name, folder=shown(folder)),
              file=sys.stderr)
        return 0
    said = {int(signal.SIGINT): tr("attnviz: interrupted; no output was left half-written"),
            int(signal.SIGHUP): tr("attnviz: hung up (the terminal closed); no output was left half-written")}
    print(said.get(int(signum), tr("attnviz: terminated; no output was left half-written")), file=sys.stderr)
    return 128 + signum


def _run_reporting(run: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``run(args)``, every problem reported in one line on stderr and turned into the exit code."""
    try:
        return run(args)
    except CliError as error:
        print(tr("attnviz: error: {message}").format(message=shown(error)), file=sys.stderr)
        return EXIT_USAGE
    except (KeyboardInterrupt, Terminated) as stopped:
        return _report_stop(stopped)
    except (OSError, ValueError) as error:  # unreadable files, bad values: still no traceback
        print(tr("attnviz: error: {message}").format(message=shown(error)), file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # a bug: one line for the user, exit 1 (not a usage problem)
        if os.environ.get("ATTNVIZ_DEBUG"):
            raise
        print(tr("attnviz: internal error: {kind}: {error} (set ATTNVIZ_DEBUG=1 to see where)").format(
            kind=type(error).__name__, error=error), file=sys.stderr)
        return EXIT_INTERNAL
