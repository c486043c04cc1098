"""An image read by the shipped ViT with every visible panel redrawn: from opening the file to the painted window.

    .venv/bin/python bench/image_redraw.py                  # 1280 × 800, 5 rounds of the 10 shipped samples
    .venv/bin/python bench/image_redraw.py --size 1024x768 --rounds 3 --raise rollout,positional
    .venv/bin/python bench/image_redraw.py --quick          # a smoke run (tests/test_bench.py)

The real main window (offscreen), the session run synchronously (the model's work on the spot, as the worker
thread does it in the app), models/vit.safetensors. For each shipped sample image in turn, three timings, medians
over every image of every round:

- "read": the model alone — the file decoded, the picture prepared, the forward pass with every layer's maps
  (``encode_image_file``), outside the window;
- "event loop": File ▸ Open image's request, then ``processEvents()`` until Qt has laid out and painted what
  changed — what a user waits for between choosing an image and the finished picture;
- "full repaint": the same request, then a synchronous repaint of the whole window (every widget, changed or not).

The issue's target: image → all maps painted ≤ 50 ms on 2 cores.
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

PROBE = r"""
import json, os, sys, tempfile, time
from pathlib import Path
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6 import QtCore, QtWidgets
from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.session import InlineRunner
from attnviz.session.images import sample_images
from attnviz.core.models.image_reading import encode_image_file
rounds, raised = int(sys.argv[1]), [name for name in sys.argv[2].split(",") if name]
width, height = (int(v) for v in sys.argv[3].split("x"))
app = QtWidgets.QApplication([])
window = MainWindow(Settings(Path(tempfile.mkdtemp()) / "s.ini"), InlineRunner())
window.resize(width, height)
window.show()
window.load(Path("models/vit.safetensors"))
for name in raised:
    window.docks[name].show()
    window.docks[name].raise_()
app.processEvents()
images = sample_images()
loaded = window.session.loaded
out = {"read": [], "event loop": [], "full repaint": []}
for _ in range(rounds):
    for path in images:
        started = time.perf_counter()
        encode_image_file(loaded, path, "cpu")
        out["read"].append(time.perf_counter() - started)
    for mode in ("event loop", "full repaint"):
        for path in images:
            app.processEvents()
            started = time.perf_counter()
            window.session.open_image(path)
            if mode == "event loop":
                app.processEvents()
            else:
                window.repaint()
            out[mode].append(time.perf_counter() - started)
            assert window.session.state.shown_source.text == path.name
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--size", default="1280x800", help="window size, WIDTHxHEIGHT")
    parser.add_argument("--raise", dest="raised", default="", help="docks raised besides the defaults, comma-separated")
    parser.add_argument("--quick", action="store_true", help="one round: a smoke run, no figure to read")
    args = parser.parse_args()
    rounds = 1 if args.quick else args.rounds
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE, str(rounds), args.raised, args.size], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"probe failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    times = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"window {args.size}, {rounds} round(s) of the 10 shipped samples, models/vit.safetensors")
    print("| what | median | min | max | images |")
    print("|---|---|---|---|---|")
    for name, values in times.items():
        ms = [1000 * v for v in values]
        print(f"| {name} | {statistics.median(ms):.1f} ms | {min(ms):.1f} ms | {max(ms):.1f} ms | {len(ms)} |")


if __name__ == "__main__":
    main()
