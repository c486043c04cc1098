"""Replacing files as one transaction (attnviz.core.replace): interrupted at every step — by an
exception, by a real signal, by a kill — the folder ends with every new file or every old one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from attnviz.core import replace

ROOT = Path(__file__).resolve().parent.parent
OLD = {"a.csv": "old a", "b.png": "old b", "c.svg": "old c", "notes.txt": "the user's own notes"}
NEW = {"a.csv": "new a", "b.png": "new b", "c.svg": "new c", "d.json": "new d"}  # d.json had no old file


def _prepared(folder: Path) -> Path:
    """``folder`` with the old files, and a staging folder holding the new ones."""
    folder.mkdir()
    for name, text in OLD.items():
        (folder / name).write_text(text)
    staging = replace.new_staging(folder)
    for name, text in NEW.items():
        (staging / name).write_text(text)
    return staging


def _contents(folder: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in folder.iterdir()}


ALL_OLD = OLD
ALL_NEW = {**OLD, **NEW}


def _steps() -> int:
    """How many changes on disk one commit of the prepared files makes."""
    calls: list[str] = []
    original = replace._step
    replace._step = lambda what, name="": calls.append(what)  # type: ignore[assignment]
    try:
        folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"attnviz-steps-{os.getpid()}"
        staging = _prepared(folder)
        replace.commit(staging, folder, list(NEW))
    finally:
        replace._step = original  # type: ignore[assignment]
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
    return len(calls)


STEPS = _steps()


def test_a_commit_replaces_every_file_and_leaves_no_staging_folder(tmp_path):
    folder = tmp_path / "out"
    staging = _prepared(folder)
    written = replace.commit(staging, folder, list(NEW))
    assert _contents(folder) == ALL_NEW and [p.name for p in written] == list(NEW)
    assert STEPS == 10  # journal, 3 old files aside, 4 moved in, committed, clean


@pytest.mark.parametrize("at", range(STEPS))
def test_an_exception_at_any_step_leaves_every_old_file_or_every_new_one(tmp_path, monkeypatch, at):
    folder = tmp_path / "out"
    staging = _prepared(folder)
    calls = iter(range(STEPS))

    def interrupt(_what: str, _name: str = "") -> None:
        if next(calls) == at:
            raise KeyboardInterrupt

    monkeypatch.setattr(replace, "_step", interrupt)
    with pytest.raises(KeyboardInterrupt):
        replace.commit(staging, folder, list(NEW))
    assert _contents(folder) == (ALL_NEW if at == STEPS - 1 else ALL_OLD)  # (the last step only cleans up)


@pytest.mark.parametrize("at", range(STEPS))
def test_a_real_sigint_at_any_step_is_held_until_the_commit_is_whole(tmp_path, monkeypatch, ctrl_c_raises, at):
    folder = tmp_path / "out"
    staging = _prepared(folder)
    calls = iter(range(STEPS))

    def signal_self(_what: str, _name: str = "") -> None:
        if next(calls) == at:
            # the user presses Ctrl+C here (sent to this thread: os.kill could reach another one, later)
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    monkeypatch.setattr(replace, "_step", signal_self)
    with pytest.raises(KeyboardInterrupt):  # delivered once the signals are released …
        replace.commit(staging, folder, list(NEW))
    assert _contents(folder) == ALL_NEW  # … after every new file is in place


KILLED = """
import os, sys
from pathlib import Path
from attnviz.core import replace
folder, at = Path(sys.argv[1]), int(sys.argv[2])
calls = iter(range(100))
def die(_what, _name=""):
    if next(calls) == at:
        os._exit(137)  # as SIGKILL: no handler, no cleanup
replace._step = die
replace.commit(Path(sys.argv[3]), folder, sys.argv[4:])
"""


@pytest.mark.parametrize("at", range(STEPS))
def test_after_a_kill_at_any_step_the_next_run_restores_the_folder(tmp_path, at):
    folder = tmp_path / "out"
    staging = _prepared(folder)
    (staging / replace.OWNER).write_text("999999999")  # the killed process (no such pid is alive)
    done = subprocess.run([sys.executable, "-c", KILLED, str(folder), str(at), str(staging), *NEW],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 137, done.stderr
    assert replace.recover(folder) == [staging]
    assert _contents(folder) == (ALL_NEW if at == STEPS - 1 else ALL_OLD)  # committed, or rolled back


def test_recovery_leaves_the_staging_folder_of_a_live_export_alone(tmp_path):
    folder = tmp_path / "out"
    staging = _prepared(folder)
    (staging / replace.OWNER).write_text(str(os.getppid()))  # a live process (this one's parent)
    assert replace.recover(folder) == [] and staging.is_dir()
