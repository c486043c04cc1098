"""What the CLI says when a signal stops it is what happened: a signal held through the final move of a complete
output says the output is complete (exit 0); SIGHUP (a closed terminal) unwinds as SIGTERM does, leaving no
hidden staging folder; a second signal while the first unwinds changes nothing."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import pytest

from attnviz.core import replace
from attnviz.render import figure_files
from tests.helpers import run_cli

TRANSFORMER = Path(__file__).resolve().parents[1] / "models" / "transformer.safetensors"
EXPORT = ("export", "--checkpoint", str(TRANSFORMER), "--text", "i am here .", "--format", "csv")


def to_main_thread(number: int) -> None:
    """Send signal ``number`` to this process's main thread (its handler runs before the next bytecode)."""
    signal.pthread_kill(threading.main_thread().ident or 0, number)


@pytest.fixture(autouse=True)
def _application(qapp):
    """The CLI makes a QGuiApplication to render if none exists; later tests in this process need widgets."""


@pytest.fixture(autouse=True)
def _hangup_as_in_a_terminal():
    """SIGHUP at its default, as in a terminal (a suite started under nohup inherits it ignored)."""
    previous = signal.signal(signal.SIGHUP, signal.SIG_DFL)
    yield
    signal.signal(signal.SIGHUP, previous)


def _contents(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir()}


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_held_through_the_final_move_says_the_output_is_complete(capsys, monkeypatch, tmp_path, number,
                                                                          ctrl_c_raises):
    out = tmp_path / "out"
    moved: list[str] = []

    def step(what: str, name: str = "") -> None:
        if what == "in":
            moved.append(name)
            if len(moved) == 2:
                to_main_thread(number)  # half-way through the renames: held until the last is done

    monkeypatch.setattr(replace, "_step", step)
    code, _stdout, stderr = run_cli(capsys, *EXPORT, "--out", str(out))
    assert code == 0, stderr
    assert stderr.strip() == (f"attnviz: {signal.Signals(number).name} came as the output was being moved into place; "
                              f"the move was finished first, so {out} is complete")
    sidecar = (out / figure_files.SIDECAR).read_text(encoding="utf-8")
    assert len(moved) > 2 and sorted(p.name for p in out.iterdir()) == sorted(moved)  # every file, no staging
    assert all(name in sidecar for name in moved if name != figure_files.SIDECAR)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL and signal.getsignal(signal.SIGHUP) is signal.SIG_DFL


def test_sighup_mid_export_unwinds_and_leaves_no_staging_folder(capsys, monkeypatch, tmp_path):
    out = tmp_path / "out"
    code, _, stderr = run_cli(capsys, *EXPORT, "--out", str(out))
    assert code == 0, stderr
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    earlier = _contents(out)
    real_write = figure_files.WRITERS["csv"]
    written: list[Path] = []

    def write_then_hang_up(spec, path):
        real_write(spec, path)
        written.append(path)
        if len(written) == 2:
            to_main_thread(signal.SIGHUP)  # the terminal closes while the new files are written
            to_main_thread(signal.SIGTERM)  # and something else asks too, as it unwinds: said once

    monkeypatch.setattr(figure_files, "WRITERS", {**figure_files.WRITERS, "csv": write_then_hang_up})
    code, _, stderr = run_cli(capsys, "export", "--checkpoint", str(TRANSFORMER), "--text", "he is tall .",
                              "--format", "csv", "--out", str(out), "--force")
    assert code == 128 + signal.SIGHUP
    assert stderr == "attnviz: hung up (the terminal closed); no output was left half-written\n"
    assert _contents(out) == earlier  # nothing lost, nothing new, no hidden .attnviz-export-* folder
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_DFL


def test_an_ignored_sighup_stays_ignored(capsys, tmp_path):
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    try:
        code, _, stderr = run_cli(capsys, *EXPORT, "--out", str(tmp_path / "out"))
        assert code == 0, stderr
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_right_after_the_staging_folder_appears_leaves_no_hidden_folder(capsys, monkeypatch, tmp_path,
                                                                                  number, ctrl_c_raises):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    made: list[Path] = []

    def signal_at_mkdir(staging: Path) -> None:
        made.append(staging)
        to_main_thread(number)  # the instant the folder exists, before it has an owner or a cleanup

    monkeypatch.setattr(replace, "_made", signal_at_mkdir)
    code, _, stderr = run_cli(capsys, *EXPORT, "--out", str(out))
    assert code == 128 + number
    assert stderr.endswith("no output was left half-written\n")
    assert len(made) == 1 and made[0].name.startswith(replace.STAGING_PREFIX)
    assert _contents(out) == {"notes.txt": b"mine"}  # no empty hidden .attnviz-export-* folder
