"""Replacing a set of files in a folder as one transaction: afterwards every new file is in place, or
every old file is back — never neither, whatever stops the process and wherever it stops.

The new files are first written into a hidden staging folder inside the destination
(``.attnviz-export-*``, so every move is a rename within one filesystem). :func:`commit` then writes a
journal (which names, which of them had an old file) *before* it moves anything, and moves each old
file aside into the staging folder before the new one takes its place. The state of every name can
therefore be read off the disk at any instant, and :func:`roll_back` puts the old files back from
there; it is idempotent, so a rollback that is itself interrupted can be run again.

- An exception during the commit rolls it back at once. SIGINT, SIGTERM and SIGHUP are held for the
  few renames of the commit and its rollback and delivered after them, so no signal cuts either short;
  one delivered after a whole commit says so (``completed_output`` on its exception).
- SIGKILL (or a power cut) leaves the staging folder with its journal: :func:`recover` — run by the
  next export into that folder — finishes the rollback (or only cleans up after a commit that had
  completed).

Qt-free: the window's exports and the CLI's ``figures`` / ``export`` use it alike.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

STAGING_PREFIX = ".attnviz-export-"
JOURNAL = ".journal.json"  # written before the first move: the names and which had an old file
COMMITTED = ".committed"  # the journal's name once every new file is in place
OWNER = ".owner"  # the process id of the export (a live owner's staging folder is not recovered)
PREVIOUS = ".previous-"  # an old file moved aside: staging/.previous-NAME
HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def _step(_what: str, _name: str = "") -> None:
    """Called before every change on disk during a commit (tests replace it to interrupt there)."""


def _made(_staging: Path) -> None:
    """Called right after a staging folder is made, before it has an owner (tests send a signal here)."""


def new_staging(folder: Path) -> Path:
    """A new hidden staging folder inside ``folder`` (which must exist), owned by this process; removed again
    when writing its owner fails (a full disk), so that it is returned whole or not made at all."""
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=folder))
    try:
        _made(staging)
        (staging / OWNER).write_text(str(os.getpid()), encoding="ascii")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM/SIGHUP until the block ends, then deliver them to their own handlers.

    Python runs signal handlers on the main thread whichever thread the OS picked, so a thread's
    signal mask is not enough: on the main thread the handlers themselves are swapped for one that
    only records the signal. (On another thread there is nothing to hold: a signal interrupts only
    the main thread.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    held = {number: signal.getsignal(number) for number in HELD_SIGNALS}
    held = {number: handler for number, handler in held.items() if handler is not None}  # (set outside Python)
    for number in held:
        signal.signal(number, lambda received, _frame: pending.append(received))
    try:
        yield
    finally:
        for number, handler in held.items():
            signal.signal(number, handler)
        for received in dict.fromkeys(pending):
            signal.raise_signal(received)  # now: Ctrl+C raises KeyboardInterrupt, SIGTERM ends the process


def _write_journal(staging: Path, names: Sequence[str], had_old: Sequence[str]) -> None:
    """The journal, durably: a temporary file, fsync, rename (it exists whole or not at all)."""
    tmp = staging / f"{JOURNAL}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump({"names": list(names), "had_old": list(had_old)}, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, staging / JOURNAL)


def commit(staging: Path, folder: Path, names: Sequence[str]) -> list[Path]:
    """Move ``staging/NAME`` to ``folder/NAME`` for every name as one transaction; returns the new paths.

    Old files of those names are replaced (the caller has checked that they are regular files the
    user agreed to replace). On any exception the folder is rolled back and the exception re-raised.

    A signal held during the commit is delivered once it is whole: the exception it raises (KeyboardInterrupt,
    the CLI's Terminated) then carries ``completed_output`` (the folder, whose new files are all in place), so
    that what reports it can say the output is complete rather than "nothing was written"."""
    completed = False
    try:
        with _signals_held():
            had_old = [name for name in names if os.path.lexists(folder / name)]
            try:
                _step("journal")
                _write_journal(staging, names, had_old)
                for name in names:
                    target = folder / name
                    if name in had_old:
                        _step("aside", name)
                        os.replace(target, staging / f"{PREVIOUS}{name}")
                    _step("in", name)
                    os.replace(staging / name, target)
                _step("committed")
                os.replace(staging / JOURNAL, staging / COMMITTED)
            except BaseException:
                roll_back(staging, folder)
                raise
            completed = True
            try:
                _step("clean")
            finally:
                shutil.rmtree(staging, ignore_errors=True)  # the old files only: the commit is whole
    except BaseException as error:
        if completed:
            error.completed_output = folder  # type: ignore[attr-defined]
        raise
    return [folder / name for name in names]


def roll_back(staging: Path, folder: Path) -> None:
    """Undo an unfinished commit from what is on disk, then delete ``staging`` (idempotent).

    Per name of the journal: an old file moved aside goes back to its place (replacing the new file
    if that had moved in); a new file that moved in where there was no old one is removed. A commit
    that had completed (``.committed``) is left as it is. Without a journal nothing had moved."""
    with _signals_held():
        journal = staging / JOURNAL
        if journal.is_file():
            plan = json.loads(journal.read_text(encoding="utf-8"))
            for name in plan["names"]:
                target, previous = folder / name, staging / f"{PREVIOUS}{name}"
                if name in plan["had_old"]:
                    if os.path.lexists(previous):
                        os.replace(previous, target)
                elif not os.path.lexists(staging / name):  # it moved in, and nothing was there before
                    with contextlib.suppress(FileNotFoundError):
                        target.unlink()
        shutil.rmtree(staging, ignore_errors=True)


def _owner_alive(staging: Path) -> bool:
    try:
        pid = int((staging / OWNER).read_text(encoding="ascii"))
    except (OSError, ValueError):
        return False
    if pid == os.getpid():
        return _is_ours_in_flight(staging)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    return True


_in_flight: set[Path] = set()  # staging folders this process is using now (a window may export twice)
_in_flight_lock = threading.Lock()


def _is_ours_in_flight(staging: Path) -> bool:
    with _in_flight_lock:
        return staging in _in_flight


@contextlib.contextmanager
def staging_in(folder: Path) -> Iterator[Path]:
    """A staging folder in ``folder`` for one export, deleted (rolled back if need be) when it ends.

    SIGINT/SIGTERM/SIGHUP are held from the folder's mkdir until it is registered here, so a signal that comes
    right after it appears (before its owner is written, or before this block can clean it up) unwinds through
    the cleanup below instead of leaving an empty hidden ``.attnviz-export-*`` folder behind."""
    staging: Path | None = None
    try:
        with _signals_held():  # a held signal is raised as this block ends, inside the try: cleaned up below
            staging = new_staging(folder)
            with _in_flight_lock:
                _in_flight.add(staging)
        yield staging
    except BaseException:
        if staging is not None:
            roll_back(staging, folder)
        raise
    finally:
        if staging is not None:
            with _in_flight_lock:
                _in_flight.discard(staging)
            shutil.rmtree(staging, ignore_errors=True)


def recover(folder: Path) -> list[Path]:
    """Finish what an export killed in ``folder`` left behind (roll back, or clean up after a completed
    commit); staging folders of a live export are left alone. Returns the staging folders handled."""
    handled: list[Path] = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return handled
    for staging in entries:
        if staging.name.startswith(STAGING_PREFIX) and staging.is_dir() and not staging.is_symlink() \
                and not _owner_alive(staging):
            roll_back(staging, folder)
            handled.append(staging)
    return handled
