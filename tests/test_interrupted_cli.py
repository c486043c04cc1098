"""The CLI stopped half-way (Ctrl+C, SIGTERM) leaves every earlier file as it was and says so; what it
prints about the user's paths is escaped."""

from __future__ import annotations

import signal
import threading

import pytest

from attnviz.render import figure_files
from tests.helpers import run_cli


def to_main_thread(number: int) -> None:
    """Send signal ``number`` to this process's main thread itself: its handler's flag is set before this
    returns. (``os.kill`` lets the OS pick any thread, which a busy machine may run only later.)"""
    signal.pthread_kill(threading.main_thread().ident or 0, number)


@pytest.fixture(autouse=True)
def _application(qapp):
    """The CLI makes a QGuiApplication to render if none exists; later tests in this process need widgets."""


@pytest.fixture
def earlier_export(capsys, tmp_path, tiny_models):
    """An export folder made by an earlier run, plus a file of the user's own."""
    out = tmp_path / "out"
    code, _out, err = run_cli(capsys, "export", "--checkpoint", str(tiny_models["transformer"][0]), "--text", "a b",
                              "--format", "csv", "--out", str(out))
    assert code == 0, err
    (out / "notes.txt").write_text("mine")
    return out, {path.name: path.read_bytes() for path in out.iterdir()}


@pytest.mark.parametrize(("number", "code", "word"), [(signal.SIGTERM, 143, "terminated"),
                                                     (signal.SIGINT, 130, "interrupted")])
def test_a_signal_mid_export_restores_the_folder_and_says_so(capsys, monkeypatch, tiny_models, earlier_export,
                                                             ctrl_c_raises, number, code, word):
    out, earlier = earlier_export
    real_write = figure_files.WRITERS["csv"]
    written = []

    def write_then_signal(spec, path):
        real_write(spec, path)
        written.append(path)
        if len(written) == 3:
            to_main_thread(number)  # the signal arrives while the new files are being written

    monkeypatch.setitem(figure_files.WRITERS, "csv", write_then_signal)
    got, _out, err = run_cli(capsys, "export", "--checkpoint", str(tiny_models["transformer"][0]),
                             "--text", "b a", "--format", "csv", "--out", str(out), "--force")
    assert got == code and err == f"attnviz: {word}; no output was left half-written\n"
    assert {path.name: path.read_bytes() for path in out.iterdir()} == earlier  # no staging folder, nothing lost
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the CLI's handler is gone again


def test_sigterm_before_an_export_folder_is_filled_removes_the_folder_it_made(capsys, monkeypatch, tiny_models,
                                                                           tmp_path):
    monkeypatch.setitem(figure_files.WRITERS, "csv", lambda spec, path: to_main_thread(signal.SIGTERM))
    out = tmp_path / "new-folder"
    got, _out, _err = run_cli(capsys, "export", "--checkpoint", str(tiny_models["transformer"][0]),
                              "--text", "a b", "--format", "csv", "--out", str(out))
    assert got == 143 and not out.exists()


def test_the_written_folder_is_printed_escaped(capsys, tiny_models, tmp_path):
    out = tmp_path / "evil\x1b]0;pwned\x07"
    code, printed, _err = run_cli(capsys, "export", "--checkpoint", str(tiny_models["transformer"][0]),
                                  "--text", "a b", "--format", "csv", "--out", str(out))
    assert code == 0 and "\x1b" not in printed and "\x07" not in printed and "evil\\x1b]0;pwned\\x07" in printed


@pytest.mark.parametrize(("number", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_while_a_flipbook_frame_is_painted_ends_in_one_line(capsys, monkeypatch, tiny_models, tmp_path,
                                                                    ctrl_c_raises, number, code):
    """The painter is ended before its image goes, whatever stops the painting (it died with SIGSEGV,
    "QPaintDevice: Cannot destroy paint device that is being painted")."""
    from attnviz.render import flipbook

    real = flipbook.paint_figure
    painted = []

    def paint_then_signal(painter, spec, **kwargs):
        painted.append(spec)
        if len(painted) == 5:
            to_main_thread(number)  # arrives while this frame is being painted
        real(painter, spec, **kwargs)

    monkeypatch.setattr(flipbook, "paint_figure", paint_then_signal)
    out = tmp_path / "book"
    got, _out, err = run_cli(capsys, "export", "--checkpoint", str(tiny_models["transformer"][0]), "--text",
                             "a b c d", "--flipbook", "--all-heads", "--out", str(out))
    assert got == code and err.endswith("no output was left half-written\n") and err.count("\n") == 1
    assert not out.exists()
