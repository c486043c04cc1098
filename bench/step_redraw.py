"""One decoding step with every visible panel redrawn, for this checkout and others side by side.

    .venv/bin/python bench/step_redraw.py                         # this checkout
    .venv/bin/python bench/step_redraw.py --code ../before        # and another checkout, interleaved
    .venv/bin/python bench/step_redraw.py --raise computation,rollout   # also with those docks on top
    .venv/bin/python bench/step_redraw.py --random decoder-only   # a random model of that kind's shipped size

The real main window (offscreen, 1600 × 1000, the default docks), the session run synchronously,
the shipped Transformer. Two ways of timing a step, both medians over --steps steps per round:

- "event loop": Step, then ``processEvents()`` until Qt has laid out and painted what changed —
  what a user waits for between a key press and the finished picture;
- "full repaint": Step, then a synchronous repaint of the whole window (every widget, changed or not).

Each checkout runs in its own process; rounds alternate between the checkouts so that a busy
shared machine slows each of them alike. "compute" is the model's part of a step (DecodeStep.seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SENTENCE = "i think that we should go home before it rains tonight ."

PROBE = r"""
import json, os, statistics, sys, tempfile, time
from pathlib import Path
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6 import QtCore, QtWidgets
from attnviz.gui.main_window import MainWindow, Poster
from attnviz.gui.settings import Settings
from attnviz.session import InlineRunner, ThreadRunner
checkpoint, sentence, steps = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
raised = [name for name in sys.argv[4].split(",") if name]
threaded = sys.argv[5] == "app"
width, height = (int(v) for v in sys.argv[6].split("x"))
app = QtWidgets.QApplication([])
poster = Poster()
runner = ThreadRunner(poster.post) if threaded else InlineRunner()
window = MainWindow(Settings(Path(tempfile.mkdtemp()) / "s.ini"), runner)
window.resize(width, height)
window.show()


def wait(condition):  # the event loop, asleep in Qt (as in the app) until the condition holds
    while not condition():
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.WaitForMoreEvents)


window.load(checkpoint)
wait(lambda: window.session.state.model is not None and not window.session.state.busy)
window.set_sentence(sentence)
wait(lambda: window.session.state.source is not None and not window.session.state.busy)
for name in raised:
    window.docks[name].show()
    window.docks[name].raise_()
app.processEvents()
out = {}
for mode in (("app",) if threaded else ("event loop", "full repaint")):
    total, compute = [], []
    while len(total) < steps + 3:
        state = window.session.state
        if state.finished:
            window.reset_action.trigger()
            wait(lambda: not window.session.state.steps and not window.session.state.busy)
            app.processEvents()
        count = len(window.session.state.steps)
        if threaded:
            pause = QtCore.QEventLoop()  # a user's pace: the window idles 50 ms between two presses of Step
            QtCore.QTimer.singleShot(50, pause.quit)
            pause.exec()
        started = time.perf_counter()
        window.step_action.trigger()
        if threaded:
            wait(lambda: len(window.session.state.steps) > count and not window.session.state.busy)
        app.processEvents() if mode != "full repaint" else window.repaint()
        total.append((time.perf_counter() - started) * 1000)
        compute.append(window.session.state.steps[-1].seconds * 1000)
    out[mode] = (total[3:], compute[3:])
print(json.dumps(out), flush=True)
os._exit(0)
"""


def probe(code: Path, checkpoint: Path, steps: int, raised: str = "", runner: str = "inline",
          size: str = "1600x1000", sentence: str = SENTENCE) -> dict[str, tuple[list[float], list[float]]]:
    env = {**os.environ, "PYTHONPATH": str(code), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", PROBE, str(checkpoint), sentence, str(steps), raised, runner, size],
                          cwd=code, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"{code}: probe failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--code", type=Path, action="append", default=[],
                        help="another checkout to measure beside this one")
    parser.add_argument("--checkpoint", type=Path, default=ROOT / "models" / "transformer.safetensors")
    parser.add_argument("--random", metavar="KIND",
                        help="instead of --checkpoint, a random-weight model of KIND at its standard size "
                             "(bench/_random_models.py), e.g. decoder-only before it is trained")
    parser.add_argument("--text", default=SENTENCE,
                        help="the sentence stepped through (an encoder-only model: one with [MASK]s to fill)")
    parser.add_argument("--steps", type=int, default=40, help="steps per round and mode")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--size", default="1600x1000", help="window size, WIDTHxHEIGHT (the first window: 1280x800)")
    parser.add_argument("--raise", dest="raised", default="",
                        help="also measure this checkout with these docks raised (comma-separated names)")
    parser.add_argument("--quick", action="store_true",
                        help="a seconds-long smoke run (tests/test_bench.py): 1 round of 3 steps")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.steps = 1, 3
    if args.random:
        import tempfile

        sys.path.insert(0, str(ROOT))
        from bench._random_models import random_checkpoint
        args.checkpoint = random_checkpoint(args.random, Path(tempfile.mkdtemp()))
    runs: list[tuple[Path, str]] = [(ROOT, ""), *((c.resolve(), "") for c in args.code)]
    if args.raised:
        runs.append((ROOT, args.raised))
    modes = ("event loop", "full repaint", "app")
    samples = {run: {mode: ([], []) for mode in modes} for run in runs}
    for _ in range(args.rounds):
        for run in runs:
            for runner in ("inline", "app"):
                measured = probe(run[0], args.checkpoint.resolve(), args.steps, run[1], runner, args.size,
                                 args.text)
                for mode, (total, compute) in measured.items():
                    samples[run][mode][0].extend(total)
                    samples[run][mode][1].extend(compute)
    print(f"{os.cpu_count()} CPUs; {args.checkpoint.name}; {args.size.replace('x', ' × ')} offscreen; medians of "
          f"{args.rounds} × {args.steps} steps per mode")
    print("| code | step + redraw, event loop | step + full repaint | compute of the step "
          "| the app: Step → picture (worker thread) |")
    print("| --- | --- | --- | --- | --- |")
    for run in runs:
        loop, full, threaded = (samples[run][mode] for mode in modes)
        code, raised = run
        name = ("this checkout" if code == ROOT else str(code)) + (f", {raised} raised" if raised else "")
        print(f"| {name} | {statistics.median(loop[0]):.2f} ms | {statistics.median(full[0]):.2f} ms | "
              f"{statistics.median(loop[1] + full[1]):.2f} ms | {statistics.median(threaded[0]):.2f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
