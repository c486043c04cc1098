"""Watch attention learn: how fast the tasks are learned on this machine's CPU, and what watching costs.

Part 1 (no window): RNN + additive attention on **dates** and the Transformer on **reverse** (the "small"
preset, the Train dock's defaults), trained with 2 torch threads; a snapshot every epoch scores exact match
on 256 freshly generated held-out inputs (never trained on) and the alignment agreement. Reports the time to
≥ 95 % exact match with ≥ 90 % agreement, and the curves. The Nadaraya–Watson regression's 5 epochs, timed.

Part 3 (the command a reader types): ``attnviz train KIND --task NAME`` as a whole process with its defaults
(the small preset, one thread, stopping once held-out exact match is ≥ 99 % at 3 evaluations in a row), against
the same command with ``--learned 0`` (every one of the 20 epochs): wall-clock seconds, median of the repeats.

Part 2 (the real window, offscreen, its threaded session): a Transformer run in the Train dock while a 1 ms
timer ticks on the GUI thread: the longest event-loop gap; and the run's steps per second with the window
redrawing every snapshot against the same run with no window at all (same settings, same thread count).

    python bench/train_tasks.py [--repeats 3]
    python bench/train_tasks.py --quick     # the smoke run the test suite makes (no figure to report)
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGET_SCORE, TARGET_AGREEMENT = 95.0, 0.90


QUICK_EXAMPLES = 512  # --quick: examples per epoch (a smoke run; the full runs train on the tasks' 8,192)


def learn(kind: str, task: str, epochs: int, quick: bool = False) -> dict:
    import torch

    from attnviz.training.live import LiveSettings, LiveTraining, preset_arch, task_data

    torch.set_num_threads(1 if quick else 2)  # (--quick: a smoke run beside the test suite's other worker)
    settings = LiveSettings(epochs=epochs, snapshots=epochs, **({"train_size": QUICK_EXAMPLES} if quick else {}))
    run = LiveTraining(kind, task_data(task, settings), preset_arch(kind, "small"), settings)
    history = run.run().history
    reached = next((s for s in history.snapshots if s.score >= TARGET_SCORE and (s.agreement or 0) >= TARGET_AGREEMENT),
                   None)
    return {"reached_s": None if reached is None else reached.seconds, "reached_step": reached and reached.step,
            "final": history.snapshots[-1], "curve": [(s.step, round(s.seconds, 1), round(s.score, 1),
                                                       round(100 * (s.agreement or 0))) for s in history.snapshots]}


def kernel_seconds() -> float:
    from attnviz.training.live_kernel import KernelTraining

    started = time.perf_counter()
    KernelTraining().run()
    return time.perf_counter() - started


def watched(epochs: int, tick: bool, quick: bool = False) -> dict:
    """A Transformer reverse run in the Train dock: its steps per second and (``tick``: with a 1 ms timer on the
    GUI thread, which itself slows the run: every tick takes Python's lock from the training thread) the GUI
    thread's longest gap."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import torch
    from PySide6 import QtCore, QtWidgets

    from attnviz.gui.main_window import MainWindow, Poster
    from attnviz.gui.settings import Settings
    from attnviz.session import ThreadRunner

    torch.set_num_threads(1)  # the app's setting (attnviz.core.device.DEFAULT_THREADS)
    _app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])  # (kept alive)
    folder = tempfile.mkdtemp(prefix="attnviz-bench-")
    poster = Poster()
    runner = ThreadRunner(poster.post)
    window = MainWindow(Settings(Path(folder) / "settings.ini"), runner)
    window.resize(1280, 800)
    window.show()
    panel = window.panels.panels["train"]
    panel.trained_folder = Path(folder) / "trained"
    window.docks["train"].raise_()
    panel.family_box.setCurrentIndex(panel.family_box.findData("transformer"))
    panel.task_box.setCurrentIndex(panel.task_box.findData("reverse"))
    panel.epochs_box.setValue(epochs)
    if quick:  # (a smoke run: the tiny model, whose epoch takes seconds)
        panel.size_box.setCurrentIndex(panel.size_box.findData("tiny"))
    ticks: list[float] = []
    timer = QtCore.QTimer()
    timer.setInterval(1)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    if tick:
        timer.start()
    panel.start()
    def opened() -> bool:
        model = window.session.state.model
        return not panel.run.running and model is not None and model.path.parent == panel.trained_folder

    # The event loop as the app runs it: asleep between events (a loop calling processEvents would spin, and
    # take Python's lock from the training thread all the time)
    loop = QtCore.QEventLoop()
    check = QtCore.QTimer()
    check.setInterval(100)
    check.timeout.connect(lambda: loop.quit() if opened() else None)
    check.start()
    loop.exec()
    check.stop()
    timer.stop()
    last = panel.history.snapshots[-1]
    gaps = [b - a for a, b in itertools.pairwise(ticks)] or [0.0]
    window.close()
    runner.shutdown()
    return {"steps_per_s": last.step / last.seconds, "gap_ms": 1000 * max(gaps), "gap_p99_ms":
            1000 * sorted(gaps)[int(0.99 * len(gaps))]}


def unwatched(epochs: int, quick: bool = False) -> float:
    import torch

    from attnviz.training.live import LiveSettings, LiveTraining, preset_arch, task_data

    torch.set_num_threads(1)
    settings = LiveSettings(epochs=epochs, **({"train_size": QUICK_EXAMPLES} if quick else {}))
    size = "tiny" if quick else "small"  # (the size the dock trained)
    run = LiveTraining("transformer", task_data("reverse", settings), preset_arch("transformer", size), settings)
    last = run.run().history.snapshots[-1]
    return last.step / last.seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=10, help="epochs of the watched/unwatched comparison")
    parser.add_argument("--quick", action="store_true", help="one short run of each (the test suite's smoke run)")
    parser.add_argument("--only", choices=["learn", "watch", "cli"], help="one part alone (default all)")
    args = parser.parse_args()
    if args.quick:
        args.repeats, args.epochs = 1, 1
    print(f"# {os.cpu_count()} CPUs; torch threads 2 (part 1), 1 (part 2, the app's)\n")
    if args.only in (None, "learn"):
        learning(args)
    if args.only in (None, "watch"):
        watching(args)
    if args.only in (None, "cli"):
        command_line(args)
    return 0


def cli_seconds(kind: str, task: str, extra: list[str]) -> tuple[float, str]:
    """Wall-clock seconds of ``attnviz train KIND --task TASK`` in a fresh process, and its last stderr line
    before the result."""
    import subprocess

    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "attnviz", "train", kind, "--task", task, "--out",
                   str(Path(folder) / "m.safetensors"), *extra]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        seconds = time.perf_counter() - started
    return seconds, (done.stderr.strip().splitlines() or [""])[-1]


def command_line(args: argparse.Namespace) -> None:
    print("\n| `attnviz train` (whole process, 2 cores) | stops when learned (default) | every epoch "
          "(`--learned 0`) |")
    print("| --- | --- | --- |")
    runs = (("rnn-additive", "dates"),) if args.quick else (("rnn-additive", "dates"), ("transformer", "reverse"))
    for kind, task in runs:
        extra = ["--epochs", "1", "--snapshots", "2"] if args.quick else []
        learned = [cli_seconds(kind, task, extra) for _ in range(args.repeats)]
        # (--quick: one epoch is all either run trains, so one process stands for both columns)
        full = [s for s, _ in learned] if args.quick else [
            cli_seconds(kind, task, [*extra, "--learned", "0"])[0] for _ in range(args.repeats)]
        print(f"| {kind} --task {task} | {statistics.median(s for s, _ in learned):.1f} s | "
              f"{statistics.median(full):.1f} s |", flush=True)
        print(f"<!-- {learned[0][1]} -->")


def learning(args: argparse.Namespace) -> None:
    print("| model · task | to ≥ 95 % exact match and ≥ 90 % agreement (median of runs) | final exact match, "
          "agreement | runs |")
    print("| --- | --- | --- | --- |")
    for kind, task, epochs in (("rnn-additive", "dates", 10), ("transformer", "reverse", 20)):
        epochs = 1 if args.quick else epochs
        results = [learn(kind, task, epochs, args.quick) for _ in range(args.repeats)]
        times = [r["reached_s"] for r in results if r["reached_s"] is not None]
        final = results[0]["final"]
        shown = f"{statistics.median(times):.0f} s (step {results[0]['reached_step']})" if times else "not reached"
        print(f"| {kind} · {task} | {shown} | {final.score:.1f} %, {100 * final.agreement:.1f} % | "
              f"{len(times)}/{len(results)} reached |", flush=True)
        print(f"<!-- curve (step, s, exact match %, agreement %): {results[0]['curve']} -->")
    kernel = [kernel_seconds() for _ in range(args.repeats)]
    print(f"| kernel regression (5 epochs, the book's) | {statistics.median(kernel) * 1000:.0f} ms in all | | |\n")


def watching(args: argparse.Namespace) -> None:
    ticked, seen, alone = [], [], []
    for _ in range(args.repeats):  # interleaved: a slow minute of the machine falls on all three alike
        ticked.append(watched(args.epochs, tick=True, quick=args.quick))
        # (--quick: one run in the dock stands for both rows: a smoke run reports no figure)
        seen.append(ticked[-1]["steps_per_s"] if args.quick else watched(args.epochs, tick=False)["steps_per_s"])
        alone.append(unwatched(args.epochs, args.quick))
    watched_rate, alone_rate = statistics.median(seen), statistics.median(alone)
    print("| Transformer · reverse, 1 thread | steps/s | longest event-loop gap | 99th percentile gap |")
    print("| --- | --- | --- | --- |")
    ticked_rate = statistics.median(s["steps_per_s"] for s in ticked)
    print(f"| trained in the Train dock, a 1 ms timer ticking | {ticked_rate:.1f} "
          f"| {statistics.median(s['gap_ms'] for s in ticked):.0f} ms | "
          f"{statistics.median(s['gap_p99_ms'] for s in ticked):.1f} ms |")
    print(f"| trained in the Train dock (redrawn every snapshot) | {watched_rate:.1f} | | |")
    print(f"| trained with no window | {alone_rate:.1f} | | |")
    print(f"\nwatching costs {100 * (1 - watched_rate / alone_rate):.1f} % of the training speed (median of "
          f"{args.repeats})")


if __name__ == "__main__":
    sys.exit(main())
