"""The app as a user meets it: launch time, one decoding step with every visible panel redrawn, memory.

    .venv/bin/python bench/app_bench.py [--launches 7] [--steps 60] [--checkpoint models/transformer.safetensors]
    .venv/bin/python bench/app_bench.py --quick    # the smoke run the test suite makes (no figure to report)

1. Launch to first painted window: ``main.py`` in a fresh process, from just before the process is
   started to the window's first paint event (the model is still loading then), and to the end of
   the start-up translation (model loaded, example sentence decoded and drawn). Medians of --launches.
2. One decoding step, every visible panel redrawn: the real main window (offscreen), the session
   run synchronously; each sample is Step (compute + the step's numpy results + every visible
   panel's update) followed by ``processEvents()``, in which Qt lays out and paints what changed.
   Median over --steps steps (the sentence is re-decoded from the start when it ends).
   ``bench/step_redraw.py`` measures the same beside another checkout, and a forced full repaint.
3. Resident memory (VmRSS) of one process holding the window and every shipped model at once.
   ``--memory-stages`` prints, instead of all this, what each stage of such a process adds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SENTENCE = "i think that we should go home before it rains tonight ."


def launch_times(checkpoint: Path, launches: int, program: list[str] | None = None) -> tuple[float, float]:
    """Median seconds from process start to first paint, and to the start-up translation's end.
    program: the command that starts attnviz (default: this Python running main.py)."""
    first_paint, decoded = [], []
    program = program or [sys.executable, str(ROOT / "main.py")]
    with tempfile.TemporaryDirectory() as folder:
        for i in range(launches):
            started = time.monotonic()
            done = subprocess.run(
                [*program, "--checkpoint", str(checkpoint), "--report-first-paint",
                 "--quit-when-decoded", "--settings", f"{folder}/s{i}.ini", "--log", f"{folder}/log"],
                capture_output=True, text=True, timeout=300, env=os.environ)
            ended = time.monotonic()
            if done.returncode != 0:
                raise SystemExit(f"main.py failed: {done.stderr.strip()}")
            stamp = next(line for line in done.stdout.splitlines() if line.startswith("first-paint"))
            first_paint.append(float(stamp.split()[1]) - started)
            decoded.append(ended - started)
    return statistics.median(first_paint), statistics.median(decoded)


def step_redraw_ms(checkpoint: Path, steps: int) -> tuple[float, float, int]:
    """Median ms of Step + full window repaint; median ms of the step's compute alone; samples."""
    from PySide6 import QtWidgets

    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings
    from attnviz.session import InlineRunner

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    with tempfile.TemporaryDirectory() as folder:
        window = MainWindow(Settings(Path(folder) / "s.ini"), InlineRunner())
        window.resize(1600, 1000)
        window.show()
        window.load(checkpoint)
        window.set_sentence(SENTENCE)
        app.processEvents()
        samples, compute = [], []
        while len(samples) < steps:
            if window.session.state.finished:
                window.reset_action.trigger()
                app.processEvents()
            started = time.perf_counter()
            window.step_action.trigger()
            app.processEvents()  # what changed is laid out and painted
            samples.append((time.perf_counter() - started) * 1000)
            compute.append(window.session.state.steps[-1].seconds * 1000)
        window.close()
        window.deleteLater()
        app.processEvents()
    return statistics.median(samples[3:]), statistics.median(compute[3:]), len(samples) - 3


def resident_mb_with_every_model() -> tuple[float, int]:
    """VmRSS (MB) of a fresh process with the window and every shipped model loaded at once."""
    code = f"""
import os, sys
sys.path.insert(0, {str(ROOT)!r})
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from pathlib import Path
from PySide6 import QtWidgets
from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.session import InlineRunner
from attnviz.paths import shipped_models
app = QtWidgets.QApplication([])
window = MainWindow(Settings(Path({tempfile.gettempdir()!r}) / "attnviz-bench.ini"), InlineRunner())
window.show()
held = []
for path in sorted(shipped_models(), key=lambda p: p.stem == "transformer"):  # each kept alive; the Transformer last
    window.load(path)
    held.append(window.session.loaded)
window.set_sentence({SENTENCE!r}, run=True)
app.processEvents()
rss = next(l for l in open("/proc/self/status") if l.startswith("VmRSS"))
print(int(rss.split()[1]) / 1024, len({{id(m) for m in held if m is not None}}), flush=True)
os._exit(0)  # measured; skip teardown
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=os.environ)
    if done.returncode != 0:
        raise SystemExit(f"memory probe failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    mb, count = done.stdout.split()[-2:]
    return float(mb), int(count)


STAGES = f"""
import os, sys
sys.path.insert(0, {str(ROOT)!r})
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
def mark(stage):
    status = dict(line.split(":", 1) for line in open("/proc/self/status"))
    print(stage, *(int(status[key].split()[0]) / 1024 for key in ("VmRSS", "RssFile")), sep="\\t", flush=True)
mark("Python")
import numpy
mark("numpy")
from pathlib import Path
from PySide6 import QtWidgets
app = QtWidgets.QApplication([])
mark("Qt (QtWidgets, the QApplication)")
import attnviz.gui, pyqtgraph
mark("pyqtgraph")
from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.session import InlineRunner
from attnviz.paths import shipped_models
window = MainWindow(Settings(Path({tempfile.gettempdir()!r}) / "attnviz-bench.ini"), InlineRunner())
window.show()
app.processEvents()
mark("attnviz's GUI and the window with its docks")
import torch
mark("import torch")
held = []
for path in sorted(shipped_models(), key=lambda p: p.stem == "transformer"):  # (the Transformer last)
    window.load(path)
    held.append(window.session.loaded)
    mark("load " + path.stem)
window.set_sentence({SENTENCE!r}, run=True)
app.processEvents()
mark("decoding the sentence")
os._exit(0)
"""


def memory_stages() -> list[tuple[str, float, float]]:
    """(stage, VmRSS MB after it, file-backed MB of that) in a fresh process that does what
    :func:`resident_mb_with_every_model` measures, one stage at a time."""
    done = subprocess.run([sys.executable, "-c", STAGES], capture_output=True, text=True, timeout=300, env=os.environ)
    if done.returncode != 0:
        raise SystemExit(f"memory stages failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    rows = [line.split("\t") for line in done.stdout.splitlines() if line.count("\t") == 2]
    return [(stage, float(rss), float(file)) for stage, rss, file in rows]


def print_memory_stages() -> None:
    print("| stage | RSS after | added | of which file-backed |\n| --- | --- | --- | --- |")
    before = file_before = 0.0
    for stage, rss, file in memory_stages():
        print(f"| {stage} | {rss:.0f} MB | {rss - before:.0f} MB | {file - file_before:.0f} MB |")
        before, file_before = rss, file


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", type=Path, default=ROOT / "models" / "transformer.safetensors")
    parser.add_argument("--launches", type=int, default=7)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--quick", action="store_true",
                        help="a seconds-long smoke run (tests/test_bench.py): 1 launch, 5 steps")
    parser.add_argument("--memory-stages", action="store_true",
                        help="only print what each stage of the memory probe adds (bench/RESULTS.md, Memory)")
    args = parser.parse_args()
    if args.memory_stages:
        print_memory_stages()
        return 0
    if args.quick:
        args.launches, args.steps = 1, 5
    import torch

    print(f"{os.cpu_count()} CPUs, torch {torch.__version__} ({torch.get_num_threads()} threads), "
          f"QT_QPA_PLATFORM={os.environ['QT_QPA_PLATFORM']}; checkpoint {args.checkpoint.name}")
    paint, decoded = launch_times(args.checkpoint, args.launches)
    print(f"launch -> first painted window:        {paint * 1000:7.0f} ms (median of {args.launches})")
    print(f"launch -> start-up sentence decoded:    {decoded * 1000:7.0f} ms (model loaded, translated, drawn)")
    redraw, compute, samples = step_redraw_ms(args.checkpoint, args.steps)
    print(f"step + every visible panel redrawn:     {redraw:7.2f} ms (median of {samples}; "
          f"the step's compute alone {compute:.2f} ms)")
    mb, count = resident_mb_with_every_model()
    print(f"resident memory, window + {count} models:  {mb:7.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
