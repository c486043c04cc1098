"""The window's event loop while the Heads and Explain docks compute: the longest gap between two ticks.

    .venv/bin/python bench/analysis_window.py --data pairs.tsv --limit 200     # a file of source<TAB>reference
    .venv/bin/python bench/analysis_window.py                                   # five sentences of its own
    .venv/bin/python bench/analysis_window.py --quick                           # two of them (a smoke run)

The real main window (offscreen), jobs on the app's threads (ThreadRunner), the shipped Transformer. A 5 ms timer
ticks on the GUI thread; each phase reports its wall time, the longest gap between ticks and the 99th percentile:

- "atlas + pruning": the Heads dock maps the heads over the corpus and draws the pruning curve (its own thread);
- "explain, stepping": Step, then the Explain dock's every method for that step (integrated gradients 32 steps),
  ten steps in turn;
- "idle": the window doing nothing, for the machine's own noise.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OWN = ("i'm home .\tje suis à la maison .", "he is tall .\til est grand .", "we are late .\tnous sommes en retard .",
       "she likes cats .\telle aime les chats .", "i want to go home .\tje veux rentrer à la maison .")
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, help="source<TAB>reference lines (default: five of its own)")
    parser.add_argument("--quick", action="store_true", help="two sentences, two explained steps (a smoke test)")
    parser.add_argument("--limit", type=int, default=200, help="the first N lines of --data")
    parser.add_argument("--checkpoint", type=Path, default=ROOT / "models" / "transformer.safetensors")
    args = parser.parse_args()

    from PySide6 import QtCore, QtWidgets

    from attnviz.core.device import set_threads
    from attnviz.gui import collector
    from attnviz.gui.main_window import MainWindow, Poster
    from attnviz.gui.settings import Settings
    from attnviz.session import ThreadRunner
    from bench._window import wait_until

    set_threads()
    collections: list[float] = []  # ms of each collection the GUI thread's collector ran (a gap's likely cause)
    collect = collector.GuiThreadCollector.collect

    def timed_collect(self) -> None:
        started = time.perf_counter()
        collect(self)
        collections.append((time.perf_counter() - started) * 1000)

    collector.GuiThreadCollector.collect = timed_collect  # type: ignore[method-assign]
    app = QtWidgets.QApplication([])
    folder = Path(tempfile.mkdtemp())
    corpus = folder / "corpus.tsv"
    lines = (args.data.read_text(encoding="utf-8").splitlines() if args.data else list(OWN))[
        : 2 if args.quick else args.limit]
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    window = MainWindow(Settings(folder / "s.ini"), ThreadRunner(Poster().post))
    window.resize(1280, 800)
    window.show()
    window.load(args.checkpoint)
    wait_until(app, window, lambda: window.session.state.model is not None)
    ticks: list[float] = []
    timer = QtCore.QTimer(interval=5)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))

    def measure(name: str, start, done) -> None:
        ticks.clear()
        collections.clear()
        timer.start()
        began = time.perf_counter()
        start()
        while not done():
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.WaitForMoreEvents)  # (sleeps until the timer's tick
            # at most: a loop given a time limit instead spun, taking a CPU from the worker it measured)
        wall = time.perf_counter() - began
        timer.stop()
        gaps = sorted((b - a) * 1000 for a, b in itertools.pairwise(ticks))
        p99 = gaps[int(0.99 * (len(gaps) - 1))] if gaps else float("nan")
        print(f"| {name} | {wall:.1f} | {max(gaps, default=0):.1f} | {p99:.1f} | "
              f"{statistics.median(gaps) if gaps else 0:.1f} | {max(collections, default=0):.1f} |", flush=True)

    heads = window.panels.panels["heads"]
    window.docks["heads"].show()
    window.docks["heads"].raise_()
    print(f"{len(lines)} sentences, {args.checkpoint.name}; a 5 ms timer on the GUI thread")
    print("| phase | seconds | longest event-loop gap, ms | 99th percentile, ms | median, ms | longest GC pass, ms |")
    print("| --- | --- | --- | --- | --- | --- |")
    idle_until = [0.0]
    measure("idle", lambda: idle_until.__setitem__(0, time.perf_counter() + (0.5 if args.quick else 3)),
            lambda: time.perf_counter() > idle_until[0])

    state = window.session
    measure("atlas", lambda: heads.map_heads(corpus),
            lambda: state.state.atlas is not None and state.state.atlas_progress is None)
    measure("pruning", lambda: state.compute_pruning(seeds=1 if args.quick else 3),
            lambda: state.state.pruning is not None and state.state.atlas_progress is None)
    window.docks["explain"].show()
    window.docks["explain"].raise_()
    window.set_sentence("i think that we should go home before it rains tonight .")
    explained = [0]

    def step_and_explain() -> None:
        window.session.step()

    def next_done() -> bool:
        current = window.session.state
        if current.explanation is not None and current.step is not None and \
                current.explanation.token == current.step.token and not current.busy:
            explained[0] += 1
            if explained[0] >= (2 if args.quick else 10) or current.finished:
                return True
            window.session.step()
        return False

    measure("explain, stepping", step_and_explain, next_done)
    return 0


if __name__ == "__main__":
    sys.exit(main())
