"""Helpers shared by the test modules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6 import QtGui, QtWidgets

# How long a test waits for an event (a signal, a worker's result, a timer) before it gives up. Generous on
# purpose: a test waits for the event itself, and a loaded 2-core CI machine may take seconds to deliver it.
WAIT_MS = 60_000
# What a test gives a child process (a CLI run, a fresh interpreter) before calling it hung. A cap, not a wait:
# the test waits for the child to exit, and a loaded 2-core CI machine may take minutes over a second's work.
CHILD_CAP_S = 900


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``attnviz ARGS`` in this process (as ``attnviz.app.main`` runs it): (exit code, stdout, stderr)."""
    from attnviz.app import main

    capsys.readouterr()  # drop what earlier steps printed
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def pixels(source) -> np.ndarray:
    """RGB32 pixels (rows, bytes per line) of an image file path, a QImage or a widget's grab."""
    if hasattr(source, "grab"):
        image = source.grab().toImage()
    elif isinstance(source, QtGui.QImage):
        image = source
    else:
        image = QtGui.QImage(str(source))
    image = image.convertToFormat(QtGui.QImage.Format.Format_RGB32)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 4].copy()


def colour_count(picture: np.ndarray) -> int:
    """How many distinct colours :func:`pixels` found (one 32-bit word per pixel: quick on a big picture)."""
    return len(np.unique(np.ascontiguousarray(picture).view(np.uint32)))


class HeldRunner:
    """Queues jobs; ``run_all`` runs them in order and delivers their results, like the worker."""

    background = True

    def __init__(self):
        self.queue: list[tuple[Callable[[], Any], Callable[[Any], None], Callable[[BaseException], None]]] = []

    def submit(self, job, done, failed) -> None:
        self.queue.append((job, done, failed))

    def run_all(self) -> None:
        while self.queue:
            job, done, failed = self.queue.pop(0)
            try:
                result = job()
            except Exception as error:
                failed(error)
                continue
            done(result)


def fill_disk(folder: Path) -> None:
    """Fill the filesystem of ``folder`` with ``folder/filler`` until a write fails."""
    with open(folder / "filler", "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"x" * 1024)
        except OSError:
            pass


def settle(window: QtWidgets.QWidget, rounds: int = 100) -> None:
    """Deliver posted events (layout requests, zero-delay timers) until the window's geometry stops changing.

    Waits on the layout itself, not on a clock: after ``resize`` or ``raise_`` the docks are laid out in
    several passes of posted events, which a busy machine may deliver late but always delivers."""
    app = QtWidgets.QApplication.instance()
    assert app is not None

    def geometry() -> tuple:
        widgets = [window, *window.findChildren(QtWidgets.QWidget)]
        return tuple((w.geometry().getRect(), w.isVisible()) for w in widgets)

    last, unchanged = None, 0
    for _ in range(rounds):
        app.sendPostedEvents()
        app.processEvents()
        now = geometry()
        unchanged = unchanged + 1 if now == last else 0
        if unchanged >= 2:
            return
        last = now
    raise AssertionError(f"the layout of {window!r} did not settle in {rounds} rounds of events")


def raised(window, name: str):
    """Raise the window's dock ``name`` and bring its panel up to date (a hidden panel is not drawn); the panel."""
    window.docks[name].show()
    window.docks[name].raise_()
    window.panels.ensure_current(name)
    return window.panels.panels[name]


def open_window(qtbot, tmp_path, checkpoint, size: tuple[int, int]):
    """The real main window (synchronous session, its own settings file) at ``size``, shown, with ``checkpoint``
    loaded (a shipped model, say)."""
    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings
    from attnviz.session import InlineRunner

    window = MainWindow(Settings(tmp_path / "settings.ini"), InlineRunner())
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    window.load(checkpoint)
    return window


TORCHRUN_CAP_S = 300  # a torchrun job that takes longer is called hung (the tests' work takes seconds)


def free_port() -> int:
    """A TCP port free on this machine now (a torchrun job's rendezvous)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# Tries of a torchrun job whose rendezvous port another process took between free_port() and torchrun's own
# bind (other test processes, pytest-xdist workers, pick ports at the same time)
TORCHRUN_PORT_ATTEMPTS = 3


def _port_taken(stderr: str) -> bool:
    """Whether torchrun failed because its rendezvous port was in use (torch's c10d store says EADDRINUSE)."""
    return "EADDRINUSE" in stderr or "address already in use" in stderr.lower()


def torchrun(command: str, *args: str):
    """``attnviz COMMAND ARGS`` as a 2-process torchrun job on this machine (gloo, one thread each); the finished
    process (a test failure, not a hang, past TORCHRUN_CAP_S)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root), "OMP_NUM_THREADS": "1", "QT_QPA_PLATFORM": "offscreen",
           "ATTNVIZ_HEADS_TIMEOUT": "120"}
    for _attempt in range(TORCHRUN_PORT_ATTEMPTS):
        launch = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-addr",
                  "127.0.0.1", "--master-port", str(free_port()), "-m", "attnviz", command, *args]
        try:
            done = subprocess.run(launch, env=env, cwd=root, capture_output=True, text=True,
                                  timeout=TORCHRUN_CAP_S, check=False)
        except subprocess.TimeoutExpired as expired:
            pytest.fail(f"torchrun did not finish in {TORCHRUN_CAP_S} s: {expired.stderr!r}")
        if done.returncode == 0 or not _port_taken(done.stderr):
            return done
    return done


def pairs_file(tiny_models: dict, tmp_path: Path, count: int = 40) -> Path:
    """The first ``count`` lines of the tiny models' source<TAB>reference data, as a file of their own."""
    lines = Path(tiny_models["data"]).read_text(encoding="utf-8").splitlines()[:count]
    path = tmp_path / "pairs.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def csv_rows(path: Path) -> list[dict[str, str]]:
    import csv

    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def assert_same_atlas(one: Path, two: Path) -> None:
    """Two ``attnviz heads`` folders hold the same heads.csv and sinks_by_position.csv (every number to 1e-6, the rows
    counted exactly) and the same pruning.csv."""
    first, second = csv_rows(one / "heads.csv"), csv_rows(two / "heads.csv")
    assert [(r["kind"], r["layer"], r["head"]) for r in first] == [(r["kind"], r["layer"], r["head"]) for r in second]
    for a, b in zip(first, second, strict=True):
        for column, value in a.items():
            if column in ("kind", "layer", "head"):
                continue
            try:
                number = float(value)
            except ValueError:  # words: n/a, yes/no, an offset — the same word
                assert b[column] == value, (a["kind"], column)
                continue
            assert float(b[column]) == pytest.approx(number, abs=1e-6), (a["kind"], column)
    assert csv_rows(one / "pruning.csv") == csv_rows(two / "pruning.csv")  # BLEU exactly
    first_sinks, second_sinks = csv_rows(one / "sinks_by_position.csv"), csv_rows(two / "sinks_by_position.csv")
    assert first_sinks, "no sinks_by_position.csv"
    words = ("kind", "layer", "head", "queries", "key", "rows")
    assert [[r[w] for w in words] for r in first_sinks] == [[r[w] for w in words] for r in second_sinks]
    for a, b in zip(first_sinks, second_sinks, strict=True):  # (the sinks by the query's position: to 1e-6 too)
        for column in ("weight_share", "norm_share"):
            if a[column] == "n/a":
                assert b[column] == "n/a", a
            else:
                assert float(b[column]) == pytest.approx(float(a[column]), abs=1e-6), (a, column)


def one_error_line(stderr: str) -> str:
    """The one ``attnviz: error:`` line a failed command printed (asserting there is exactly one)."""
    said = [line for line in stderr.splitlines() if line.startswith("attnviz: error:")]
    assert len(said) == 1, stderr[-3000:]
    return said[0]


def assert_files_explain_themselves(out: Path, files: tuple[str, ...]) -> None:
    """Every CSV of ``files`` in ``out`` has no empty cell and only columns that the COLUMNS.md beside it
    describes (each as a row of its table)."""
    import csv as _csv

    described = (out / "COLUMNS.md").read_text(encoding="utf-8")
    for name in files:
        with (out / name).open(encoding="utf-8", newline="") as handle:
            rows = list(_csv.reader(handle))
        assert f"### {name}" in described, name
        section = described.split(f"### {name}", 1)[1].split("\n### ", 1)[0]
        for column in rows[0]:
            assert f"| `{column}` |" in section, (name, column)
        empty = [(name, i, rows[0][j]) for i, row in enumerate(rows[1:], 2) for j, cell in enumerate(row)
                 if not cell.strip()]
        assert not empty, empty[:5]
