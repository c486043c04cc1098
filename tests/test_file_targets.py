"""The window never blocks on a file: names that are not regular files (a FIFO, a device, a folder, a file
of /proc) are refused with one message before anything is written, and files are written off the GUI
thread, so a write that waits (a hung mount, a pipe no one reads) never freezes the window."""

from __future__ import annotations

import gc
import os
import stat
import threading
from pathlib import Path

import numpy as np
import pytest

from attnviz.core import safe_output as files
from attnviz.figures.spec import FigureSpec, NamedFigure
from attnviz.render import figure_files
from attnviz.render.figure_files import ExportError, export_batch, export_figure

SPEC = FigureSpec(np.array([[0.25, 0.75], [0.5, 0.5]], np.float32), ("q1", "q2"), ("k1", "k2"), "made up")


@pytest.fixture
def fifo(tmp_path: Path):
    """A FIFO with its reading end held open (non-blocking): a write to it would not block the test, and
    ``fifo.written()`` tells whether anything was written."""
    path = tmp_path / "pipe.png"
    os.mkfifo(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)

    class Fifo(type(path)):  # type: ignore[misc]
        def written(self) -> bytes:
            try:
                return os.read(reader, 1 << 16)
            except BlockingIOError:
                return b""

    yield Fifo(path)
    os.close(reader)


def test_a_fifo_is_refused_by_name_without_being_opened(qapp, fifo):
    with pytest.raises(files.UnsafeTarget, match=r"named pipe \(FIFO\), not a regular file"):
        files.check_target(fifo)
    with pytest.raises(ExportError, match=rf"Cannot write {fifo}: it is a named pipe \(FIFO\)"):
        export_figure(SPEC, fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and fifo.written() == b""


@pytest.mark.skipif(not Path("/proc/self/mountinfo").exists(), reason="no /proc here")
def test_proc_is_not_a_folder_to_write_into(tmp_path):
    for target in (Path("/proc/cross.png"), Path("/proc/version")):  # a new name there, and an existing file
        with pytest.raises(files.UnsafeTarget, match=r"/proc is a kernel interface \(proc\), not a folder on disk"):
            files.check_target(target)
    with pytest.raises(ExportError, match="kernel interface"):
        export_batch([NamedFigure("x", SPEC)], "/proc/attnviz-export", ["csv"], sidecar={})
    with pytest.raises(files.UnsafeTarget):
        files.check_folder("/proc/attnviz/new/folder")  # (a folder to be made there)
    files.check_target(tmp_path / "new.png")  # a new name in a real folder is fine
    files.check_folder(tmp_path / "new" / "folder")


def test_devices_folders_and_links_are_refused(tmp_path):
    (tmp_path / "folder").mkdir()
    (tmp_path / "link.png").symlink_to(tmp_path / "elsewhere.png")
    for target, kind in ((Path("/dev/null"), "character device"), (tmp_path / "folder", "folder"),
                         (tmp_path / "link.png", "symbolic link")):
        with pytest.raises(files.UnsafeTarget, match=f"it is a {kind}"):
            files.check_target(target)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        files.check_target(tmp_path / "missing" / "x.png")
    assert not (tmp_path / "elsewhere.png").exists()


def test_saving_a_session_to_a_fifo_is_refused_and_leaves_the_fifo(window, fifo, errors):
    window.set_sentence("a b", run=True)
    assert window.save_session(fifo) is None
    assert "named pipe (FIFO)" in errors[-1]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and fifo.written() == b""  # not replaced by a file


def test_a_flip_book_onto_a_fifo_is_refused(window, tmp_path, errors):
    window.set_sentence("a b c", run=True)
    os.mkfifo(tmp_path / "book.gif")
    assert window.exports.export_flipbook(tmp_path / "book.pdf") == []
    assert "book.gif exists and is not a regular file (it is a named pipe (FIFO))" in errors[-1]
    assert not (tmp_path / "book.pdf").exists() and stat.S_ISFIFO(os.lstat(tmp_path / "book.gif").st_mode)


@pytest.fixture
def threaded_window(qtbot, tmp_path, errors):
    """The main window as the app runs it: jobs on the worker thread, results posted back."""
    from attnviz.gui.main_window import MainWindow, Poster
    from attnviz.gui.settings import Settings
    from attnviz.session import ThreadRunner

    gc.collect()  # the Qt objects earlier tests left must not be collected on a worker (gui/collector.py)
    poster = Poster()
    runner = ThreadRunner(poster.post)
    window = MainWindow(Settings(tmp_path / "settings.ini"), runner)
    qtbot.addWidget(window)
    window.show()
    yield window
    runner.shutdown()


def test_export_to_a_fifo_on_the_real_worker_gets_a_message(threaded_window, qtbot, fifo, errors):
    exports = threaded_window.exports
    assert exports.export_figure(NamedFigure("x", SPEC), fifo) is None  # returned at once: written elsewhere
    qtbot.waitUntil(lambda: bool(errors), timeout=30000)  # delivered through the GUI thread's event loop
    assert "named pipe (FIFO)" in errors[-1] and fifo.written() == b""
    qtbot.waitUntil(lambda: not threaded_window.session.state.busy, timeout=30000)


def test_a_write_that_waits_never_blocks_the_window(threaded_window, qtbot, tmp_path, monkeypatch):
    """A write held up (as on a hung mount) runs beside the window: the window goes on, shows that it is
    busy, and says so when the write is done."""
    from PySide6 import QtCore

    release, writing = threading.Event(), threading.Event()
    threads: list[threading.Thread] = []
    saving = figure_files._save

    def slow_save(path: Path, data: bytes) -> None:
        threads.append(threading.current_thread())
        if threading.current_thread() is threading.main_thread():
            raise AssertionError("a file was written on the GUI thread")
        writing.set()
        release.wait()
        saving(path, data)

    monkeypatch.setattr(figure_files, "_save", slow_save)
    target = tmp_path / "slow.png"
    assert threaded_window.exports.export_figure(NamedFigure("x", SPEC), target) is None
    qtbot.waitUntil(writing.is_set, timeout=30000)
    ticked: list[bool] = []
    QtCore.QTimer.singleShot(0, lambda: ticked.append(True))
    qtbot.waitUntil(lambda: bool(ticked), timeout=30000)  # the GUI thread runs its event loop meanwhile
    assert threaded_window.session.state.busy == "Writing slow.png…" and not target.exists()
    qtbot.waitUntil(threaded_window.status.busy_bar.isVisible, timeout=30000)  # the busy indicator
    release.set()
    qtbot.waitUntil(lambda: target.exists() and not threaded_window.session.state.busy, timeout=30000)
    assert threads and threads[0] is not threading.main_thread()
    assert threaded_window.statusBar().full_message == f"Exported {target}"


def test_the_file_dialogs_never_read_the_files_they_list(qapp, tmp_path, fifo):
    """Qt's default icon provider sniffs a file's first bytes for its type, on the GUI thread: a dialog
    showing /proc read /proc/kmsg and froze the window. Ours names types from the file name only."""
    from PySide6 import QtCore, QtGui, QtWidgets

    from attnviz.gui import file_dialogs

    picture = tmp_path / "picture"  # PNG bytes under a name that says nothing
    picture.write_bytes(QtCore.QByteArray.fromBase64(
        b"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==").data())
    sniffing = QtWidgets.QFileIconProvider()
    assert "PNG" in sniffing.type(QtCore.QFileInfo(str(picture)))  # (what the default does: it read the file)
    ours = file_dialogs.NameOnlyIconProvider()
    assert "PNG" not in ours.type(QtCore.QFileInfo(str(picture)))
    (tmp_path / "cross.png").write_bytes(b"")
    assert "PNG" in ours.type(QtCore.QFileInfo(str(tmp_path / "cross.png")))  # named by its name
    assert ours.type(QtCore.QFileInfo(str(fifo))) == "Special file" and fifo.written() == b""
    assert not ours.icon(QtCore.QFileInfo(str(picture))).isNull()
    assert not ours.icon(QtGui.QAbstractFileIconProvider.IconType.Folder).isNull()
    dialog = file_dialogs._dialog(None, "Export", str(tmp_path), "", QtWidgets.QFileDialog.FileMode.AnyFile)
    assert dialog.iconProvider() is not None and dialog.iconProvider().type(
        QtCore.QFileInfo(str(picture))) == ours.type(QtCore.QFileInfo(str(picture)))
    dialog.deleteLater()
