"""One decoding step with every visible panel redrawn, for this checkout and others side by side.

    .venv/bin/python bench/step_redraw.py                         # this checkout
    .venv/bin/python bench/step_redraw.py --code ../before        # and another checkout, interleaved
    .venv/bin/python bench/step_redraw.py --raise computation,rollout   # also with those docks on top

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
from PySide6 import QtWidgets
from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.session import InlineRunner
checkpoint, sentence, steps = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
raised = [name for name in sys.argv[4].split(",") if name]
app = QtWidgets.QApplication([])
window = MainWindow(Settings(Path(tempfile.mkdtemp()) / "s.ini"), InlineRunner())
window.resize(1600, 1000)
window.show()
window.load(checkpoint)
window.set_sentence(sentence)
for name in raised:
    window.docks[name].show()
    window.docks[name].raise_()
app.processEvents()
out = {}
for mode in ("event loop", "full repaint"):
    total, compute = [], []
    while len(total) < steps + 3:
        if window.session.state.finished:
            window.reset_action.trigger()
            app.processEvents()
        started = time.perf_counter()
        window.step_action.trigger()
        app.processEvents() if mode == "event loop" else window.repaint()
        total.append((time.perf_counter() - started) * 1000)
        compute.append(window.session.state.steps[-1].seconds * 1000)
    out[mode] = (total[3:], compute[3:])
print(json.dumps(out), flush=True)
os._exit(0)
"""


def probe(code: Path, checkpoint: Path, steps: int, raised: str = "") -> dict[str, tuple[list[float], list[float]]]:
    env = {**os.environ, "PYTHONPATH": str(code), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", PROBE, str(checkpoint), SENTENCE, str(steps), raised], cwd=code,
                          env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"{code}: probe failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--code", type=Path, action="append", default=[],
                        help="another checkout to measure beside this one")
    parser.add_argument("--checkpoint", type=Path, default=ROOT / "models" / "transformer.safetensors")
    parser.add_argument("--steps", type=int, default=40, help="steps per round and mode")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--raise", dest="raised", default="",
                        help="also measure this checkout with these docks raised (comma-separated names)")
    args = parser.parse_args()
    runs: list[tuple[Path, str]] = [(ROOT, ""), *((c.resolve(), "") for c in args.code)]
    if args.raised:
        runs.append((ROOT, args.raised))
    samples = {run: {"event loop": ([], []), "full repaint": ([], [])} for run in runs}
    for _ in range(args.rounds):
        for run in runs:
            for mode, (total, compute) in probe(run[0], args.checkpoint.resolve(), args.steps, run[1]).items():
                samples[run][mode][0].extend(total)
                samples[run][mode][1].extend(compute)
    print(f"{os.cpu_count()} CPUs; {args.checkpoint.name}; 1600 × 1000 offscreen; medians of "
          f"{args.rounds} × {args.steps} steps per mode")
    print("| code | step + redraw, event loop | step + full repaint | compute of the step |")
    print("| --- | --- | --- | --- |")
    for run in runs:
        loop, full = samples[run]["event loop"], samples[run]["full repaint"]
        code, raised = run
        name = ("this checkout" if code == ROOT else str(code)) + (f", {raised} raised" if raised else "")
        print(f"| {name} | {statistics.median(loop[0]):.2f} ms | {statistics.median(full[0]):.2f} ms | "
              f"{statistics.median(loop[1] + full[1]):.2f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
