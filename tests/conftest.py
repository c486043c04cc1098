"""Shared fixtures. Core tests need no Qt; GUI tests force the offscreen platform."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
import torch

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    # pytest-xdist runs one worker per CPU: each computes on one thread, and so does every process a test starts
    # (bench scripts, the CLI, torchrun's ranks inherit OMP_NUM_THREADS). Two workers of torch's default thread
    # count each (one per CPU) leave threads waiting on each other: a bench smoke run took 24 s instead of 3.
    os.environ["OMP_NUM_THREADS"] = "1"
    torch.set_num_threads(1)
# The suite reads English whatever the machine's locale (tests that want Chinese ask for it); the CLI
# subprocesses the tests start inherit this too.
os.environ["LANGUAGE"] = "en"

DEVICES = [
    "cpu",
    pytest.param("cuda", marks=pytest.mark.skipif(
        not torch.cuda.is_available(), reason="CUDA is not available on this machine")),
]


# The test modules that take longest on one worker (seconds of --durations=0 summed per module, 2-core machine), in
# that order: they start first, so that no long module is handed out last while the other worker idles
# (longest-first scheduling; scripts/test.sh passes --no-loadscope-reorder so that pytest-xdist keeps this order).
# Order only: every collected test runs; a module not listed keeps its place after these.
SLOWEST_MODULES_FIRST = (
    "test_bench.py", "test_gallery.py", "test_hf_decoding.py", "test_train_dock.py", "test_heads_torchrun.py",
    "test_processes.py", "test_heads_hf.py", "test_train_task_cli.py", "test_gui_monkey.py",
    "test_explain_torchrun.py", "test_gui.py",
    "test_heads_task.py", "test_hf_window.py", "test_live_training.py", "test_lecture.py", "test_first_hour.py",
    "test_export_all.py", "test_presentation.py", "test_encoder_only_family.py", "test_cli.py",
)


# Modules whose tests share no module fixture and each take long (a benchmark's smoke run, fresh processes): under
# --dist loadfile each of their tests is a work unit of its own, handed to whichever worker is free, instead of the
# whole module to one worker (one module of 27 bench runs held one worker for minutes while the other had finished).
# A module listed here must keep no module- or class-scoped fixture (each worker would build it again).
ONE_UNIT_PER_TEST = ("test_bench.py", "test_processes.py", "test_heads_torchrun.py", "test_explain_torchrun.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slowest modules first (:data:`SLOWEST_MODULES_FIRST`), the rest in collection order (a stable sort)."""
    rank = {name: place for place, name in enumerate(SLOWEST_MODULES_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """--dist loadfile, but the tests of :data:`ONE_UNIT_PER_TEST` handed out one at a time (pytest-xdist only)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LoadFileSplittingSlowModules(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return nodeid if Path(module).name in ONE_UNIT_PER_TEST else module

    return LoadFileSplittingSlowModules(config, log)


@pytest.fixture(params=DEVICES)
def device(request: pytest.FixtureRequest) -> torch.device:
    """Each test that takes ``device`` runs on the CPU and, where present, on CUDA."""
    return torch.device(request.param)


@pytest.fixture(autouse=True)
def _seeded() -> None:
    torch.manual_seed(0)


@pytest.fixture(scope="session", autouse=True)
def _widgets_possible(request: pytest.FixtureRequest) -> None:
    """A QApplication before any test: a command run in this process makes a QGuiApplication when none runs, and
    the window tests after it (whatever order the tests run in) could then make no widget. (Without pytest-qt,
    as on a GPU machine that runs only the core's tests on CUDA, there is no window to make.)"""
    if importlib.util.find_spec("pytestqt") is not None:
        request.getfixturevalue("qapp")


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One tiny model of each translation kind, trained once per test run on a reversal task.

    Returns {kind: (checkpoint path, training info)} plus "data": the TSV used. Under pytest-xdist the
    workers share one set (see :func:`_tiny_models_shared`).
    """
    import io

    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.device import set_threads
    from attnviz.training.train import train_translation
    from tests.tiny import TINY_ARCH, TINY_OPTIONS, write_reversal_data

    # ATTNVIZ_TINY_MODELS=DIR reuses tiny models trained by an earlier run (a developer's shortcut;
    # CI always trains them afresh).
    cache = os.environ.get("ATTNVIZ_TINY_MODELS")
    if not cache and os.environ.get("PYTEST_XDIST_WORKER"):
        return _tiny_models_shared(tmp_path_factory)
    folder = Path(cache) if cache else tmp_path_factory.mktemp("tiny")
    folder.mkdir(parents=True, exist_ok=True)
    data = write_reversal_data(folder / "reverse.tsv")
    models: dict = {"data": data}
    set_threads()  # one thread, as the app and the CLI run: quicker for models this small
    for kind, arch in TINY_ARCH.items():
        out = folder / f"{kind}.safetensors"
        if cache and out.is_file():  # reused only if it was trained with today's tiny settings
            cached = load_checkpoint(out)
            if cached.training.get("options") == vars(TINY_OPTIONS) and all(
                    getattr(cached.config, key) == value for key, value in arch.items()):
                models[kind] = (out, cached.training)
                continue
        info = train_translation(kind, data, out, torch.device("cpu"), TINY_OPTIONS, arch, log=io.StringIO())
        models[kind] = (out, info)
    return models


def _tiny_models_shared(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """:func:`tiny_models` for a pytest-xdist worker: each model is trained once for all workers of the run, in a
    folder beside the workers' own temporary folders. A worker trains the models no other worker is training
    (a file lock per model; two workers that ask at once train two models each), then waits for the rest.
    A model is trained under a name of its own and renamed into place when done, so a worker never reads half
    of one; its training info is the one saved in it (what ``train_translation`` returned)."""
    import io

    from filelock import FileLock, Timeout

    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.device import set_threads
    from attnviz.training.train import train_translation
    from tests.tiny import TINY_ARCH, TINY_OPTIONS, write_reversal_data

    # Each worker writes the data itself (the same lines: the seed is fixed), so no worker reads a file
    # another is writing
    data = write_reversal_data(tmp_path_factory.mktemp("tiny-data") / "reverse.tsv")
    folder = tmp_path_factory.getbasetemp().parent / "tiny-models"
    folder.mkdir(exist_ok=True)
    set_threads()  # one thread, as the app and the CLI run: quicker for models this small
    models: dict = {"data": data}
    for wait in (False, True):  # first the models nobody is training, then wait for the others
        for kind, arch in TINY_ARCH.items():
            if kind in models:
                continue
            out = folder / f"{kind}.safetensors"
            try:
                lock = FileLock(str(folder / f"{kind}.lock")).acquire(timeout=-1 if wait else 0)
            except Timeout:
                continue
            with lock:
                if not out.is_file():
                    partial = folder / f"{kind}.{os.getpid()}.partial.safetensors"
                    train_translation(kind, data, partial, torch.device("cpu"), TINY_OPTIONS, arch, log=io.StringIO())
                    partial.replace(out)
            models[kind] = (out, load_checkpoint(out).training)
    return {"data": data, **{kind: models[kind] for kind in TINY_ARCH}}


@pytest.fixture
def errors(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The messages the window would show in warning boxes (collected instead of shown)."""
    from attnviz.gui import errors as gui_errors

    shown: list[str] = []
    monkeypatch.setattr(gui_errors, "warn", lambda _parent, text: shown.append(text))
    return shown


@pytest.fixture
def window(qtbot, tmp_path: Path, tiny_models: dict, errors: list[str]):
    """The real main window (synchronous session, its own settings file) with the tiny Transformer."""
    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings
    from attnviz.session import InlineRunner

    win = MainWindow(Settings(tmp_path / "settings.ini"), InlineRunner())
    qtbot.addWidget(win)
    win.show()
    win.load(tiny_models["transformer"][0])
    return win


def pytest_unconfigure(config: pytest.Config) -> None:
    """Collect garbage while the QApplication still exists: pyqtgraph objects left to the
    interpreter's final garbage collection (say, held by a failed test's traceback) can crash it.
    (Widgets are closed and deleted by pytest-qt; deleting them again here would crash.)"""
    import gc
    import sys

    if "PySide6.QtWidgets" not in sys.modules:
        return
    from PySide6 import QtCore, QtWidgets

    app = QtWidgets.QApplication.instance()
    if app is None:
        return
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    gc.collect()


@pytest.fixture
def small_disk(tmp_path: Path):
    """A real 64 KiB filesystem (a tmpfs; needs root), for tests that fill it (helpers.fill_disk)."""
    import os
    import subprocess

    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                      capture_output=True, check=False).returncode != 0:
        pytest.skip("this machine does not allow mounting a tmpfs")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


@pytest.fixture
def ctrl_c_raises():
    """SIGINT raises KeyboardInterrupt, as in a terminal. A suite started in the background (``cmd &``, some
    CI runners) inherits SIGINT ignored, and Python then installs no handler of its own for it."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
