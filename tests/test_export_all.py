"""File ▸ Export all runs on the file runner: the figures are made, drawn and encoded by a file job (progress,
Cancel), then written by a second one; the GUI thread only starts them. Cancelling or failing leaves the folder
as it was, and the files are those the GUI thread used to draw, byte for byte."""

from __future__ import annotations

import errno
import re
import threading
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets

from attnviz.figures.attention import attention_figures, attention_sidecar
from attnviz.gui import export_actions
from attnviz.render import figure_files
from attnviz.render.figure_files import SIDECAR, render_batch
from tests import test_file_targets
from tests.helpers import WAIT_MS, HeldRunner

threaded_window = test_file_targets.threaded_window  # (the fixture: the window on the app's worker threads)
FORMATS = ["png", "svg", "pdf", "csv", "npy"]


def _noted(monkeypatch: pytest.MonkeyPatch, calls: list[threading.Thread]) -> None:
    """Note the thread of every figure made (attention_figures) and every file encoded (figure_files.encode)."""
    making, encoding = export_actions.attention_figures, figure_files.encode

    def made(*args, **kw):
        calls.append(threading.current_thread())
        return making(*args, **kw)

    def encoded(*args, **kw):
        calls.append(threading.current_thread())
        return encoding(*args, **kw)

    monkeypatch.setattr(export_actions, "attention_figures", made)
    monkeypatch.setattr(figure_files, "encode", encoded)


def _held(window) -> HeldRunner:
    window.set_sentence("a b c", run=True)
    runner = HeldRunner()
    window.session.files = runner
    return runner


def _progress_dialog(window) -> QtWidgets.QProgressDialog:
    dialogs = [d for d in window.findChildren(QtWidgets.QProgressDialog) if d.windowTitle() == "Export all"]
    assert len(dialogs) == 1
    return dialogs[0]


def _cancel(window) -> None:
    _progress_dialog(window).findChild(QtWidgets.QPushButton).click()


def test_export_all_is_made_drawn_and_written_by_file_jobs(window, tmp_path, monkeypatch):
    runner = _held(window)
    calls: list[threading.Thread] = []
    _noted(monkeypatch, calls)
    out = tmp_path / "all"
    assert window.exports.export_all(out, ["png", "csv"]) == []  # returned at once: the work is a file job's
    assert calls == [] and not out.exists()  # no figure made, nothing drawn on the GUI thread
    assert window.session.state.busy == "Drawing attention maps…"
    assert _progress_dialog(window).labelText() == "Drawing attention maps…"
    runner.run_all()  # the drawing job, then the writing job it starts
    assert len(calls) == 1 + 3 * 2 * 4 * 2  # the figures once, then every map in two formats
    assert len(list(out.iterdir())) == 3 * 2 * 4 * 2 + 1 and (out / SIDECAR).is_file()
    assert window.statusBar().full_message == f"Exported 48 files and {SIDECAR} into {out}"
    assert not window.session.state.busy and not _progress_dialog(window).isVisible()  # closed (deleted later)


def test_cancelling_export_all_half_way_leaves_the_folder_as_it_was(window, tmp_path, monkeypatch, errors):
    runner = _held(window)
    out = tmp_path / "all"
    out.mkdir()
    (out / "notes.txt").write_text("the user's own file")
    encoding, encoded = figure_files.encode, []

    def cancel_at_the_fifth(*args, **kw):
        encoded.append(1)
        if len(encoded) == 5:
            _cancel(window)  # (the held runner runs the job here, on the GUI thread: the click lands at once)
        return encoding(*args, **kw)

    monkeypatch.setattr(figure_files, "encode", cancel_at_the_fifth)
    window.exports.export_all(out, FORMATS)
    runner.run_all()
    assert len(encoded) == 5  # stopped at the next file
    assert errors[-1] == "Export cancelled: nothing was written."
    assert [p.name for p in out.iterdir()] == ["notes.txt"]  # no file, no staging folder
    assert not window.session.state.busy and runner.queue == []


def test_cancelling_before_the_first_file_leaves_no_folder(window, tmp_path, errors):
    runner = _held(window)
    window.exports.export_all(tmp_path / "new" / "all", ["csv"])
    _cancel(window)
    runner.run_all()
    assert errors[-1] == "Export cancelled: nothing was written." and not (tmp_path / "new").exists()


@pytest.mark.parametrize("where", ["drawing", "writing"])
def test_a_failure_in_either_job_leaves_the_folder_as_it_was(window, tmp_path, monkeypatch, errors, where):
    runner = _held(window)
    out = tmp_path / "all"
    figure_files.export_batch(attention_figures(window.session.state.shown_source, [window.session.state.step],
                                                window.attention.view(), "earlier")[:2], out, ["csv"], sidecar={})
    earlier = {path.name: path.read_bytes() for path in out.iterdir()}
    calls = []
    name = "encode" if where == "drawing" else "_save"
    original = getattr(figure_files, name)

    def full_at_the_fifth(*args, **kw):
        calls.append(1)
        if len(calls) == 5:
            raise OSError(errno.ENOSPC, "No space left on device")
        return original(*args, **kw)

    monkeypatch.setattr(figure_files, name, full_at_the_fifth)
    monkeypatch.setattr(export_actions.ExportActions, "_agree_to_replace", lambda *_args: True)
    window.exports.export_all(out, ["csv", "npy"])
    runner.run_all()
    assert errors[-1].startswith("Cannot write") and errors[-1].endswith("the disk is full")
    assert {path.name: path.read_bytes() for path in out.iterdir()} == earlier  # as it was: no file, no staging


def _pdf_without_its_stamps(data: bytes) -> bytes:
    """A PDF's bytes without its creation time and document IDs (Qt writes new ones into every PDF)."""
    data = re.sub(rb"D:\d{14}Z?", b"D:", data)
    data = re.sub(rb"/ID \[[^\]]*\]", b"/ID", data)
    data = re.sub(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[+-]\d\d:\d\d|Z)?", b"T", data)
    return re.sub(rb"uuid:[0-9a-fA-F-]{36}", b"uuid:", data)


def _loaded(window, qtbot, checkpoint: Path, sentence: str) -> None:
    state = lambda: window.session.state  # noqa: E731
    window.load(checkpoint)
    qtbot.waitUntil(lambda: state().model is not None and not state().busy, timeout=WAIT_MS)
    window.set_sentence(sentence, run=True)
    qtbot.waitUntil(lambda: bool(state().steps) and state().steps[-1].finished and not state().busy,
                    timeout=WAIT_MS)


def test_export_all_leaves_the_gui_thread_free_and_writes_what_it_used_to(threaded_window, qtbot, tiny_models,
                                                                         tmp_path, monkeypatch):
    """With the app's worker threads: while the job draws, the GUI thread runs its event loop (a timer fires,
    progress comes back through it); the figures are made and drawn on a file thread; and the files are, byte
    for byte, those the GUI thread drew before Export all moved off it (render_batch on the GUI thread)."""
    window = threaded_window
    _loaded(window, qtbot, tiny_models["transformer"][0], "a b c")
    calls: list[threading.Thread] = []
    _noted(monkeypatch, calls)
    release, drawing = threading.Event(), threading.Event()
    encode = figure_files.encode  # (the noting one)

    def held_at_the_tenth(*args, **kw):
        if threading.current_thread() is threading.main_thread():
            raise AssertionError("a file was drawn on the GUI thread")
        if len(calls) == 11:  # the figures, then ten files
            drawing.set()
            release.wait()
        return encode(*args, **kw)

    monkeypatch.setattr(figure_files, "encode", held_at_the_tenth)
    window.settings.export_scale = 1.0
    out = tmp_path / "all"
    assert window.exports.export_all(out, FORMATS, all_steps=True) == []
    qtbot.waitUntil(drawing.is_set, timeout=WAIT_MS)
    ticked: list[bool] = []
    QtCore.QTimer.singleShot(0, lambda: ticked.append(True))
    qtbot.waitUntil(lambda: bool(ticked), timeout=WAIT_MS)  # the GUI thread runs its event loop meanwhile
    dialog = _progress_dialog(window)
    qtbot.waitUntil(lambda: dialog.value() == 10, timeout=WAIT_MS)  # progress, delivered through that loop
    assert window.session.state.busy == "Drawing attention maps…" and not out.exists()
    release.set()
    qtbot.waitUntil(lambda: window.statusBar().full_message.startswith("Exported ") and not window.session.state.busy,
                    timeout=WAIT_MS)
    assert calls and threading.main_thread() not in calls

    monkeypatch.undo()  # (drawn here below: the GUI thread's drawing before the change)
    state, model = window.session.state, window.session.state.model
    view, steps = window.attention.view(), list(window.session.state.steps)
    figures = attention_figures(state.shown_source, steps, view, model.name)
    before = render_batch(figures, FORMATS, 1.0, attention_sidecar(state.shown_source, steps, view, model.name,
                                                                   model.kind, str(model.path), model.device))
    assert sorted(p.name for p in out.iterdir()) == sorted(before)
    assert len(before) > 3 * 2 * 4 * len(FORMATS)  # every step's maps
    for name, data in before.items():
        written = (out / name).read_bytes()
        if name.endswith(".pdf"):
            written, data = _pdf_without_its_stamps(written), _pdf_without_its_stamps(data)
        assert written == data, name
    assert window.statusBar().full_message == f"Exported {len(before) - 1} files and {SIDECAR} into {out}"


def test_cancel_on_the_app_threads_leaves_nothing(threaded_window, qtbot, tiny_models, tmp_path, monkeypatch,
                                                 errors):
    window = threaded_window
    _loaded(window, qtbot, tiny_models["transformer"][0], "a b c")
    release, drawing = threading.Event(), threading.Event()
    encode, encoded = figure_files.encode, []

    def held_at_the_third(*args, **kw):
        if threading.current_thread() is threading.main_thread():
            raise AssertionError("a file was drawn on the GUI thread")
        encoded.append(threading.current_thread())
        if len(encoded) == 3:
            drawing.set()
            release.wait()
        return encode(*args, **kw)

    monkeypatch.setattr(figure_files, "encode", held_at_the_third)
    out = tmp_path / "all"
    window.exports.export_all(out, ["png", "csv"])
    qtbot.waitUntil(drawing.is_set, timeout=WAIT_MS)
    _cancel(window)  # on the GUI thread, while the file thread draws
    release.set()
    qtbot.waitUntil(lambda: bool(errors) and not window.session.state.busy, timeout=WAIT_MS)
    assert errors[-1] == "Export cancelled: nothing was written."
    assert len(encoded) == 3 and threading.main_thread() not in encoded
    assert not out.exists()  # (the staging folder would have been inside it)
