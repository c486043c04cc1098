"""The window's event loop while hostile image files are opened (issue 60.5): the longest gap between two ticks of a
1 ms QTimer from File ▸ Open image until the window has drawn the image (or its one-sentence refusal).

    .venv/bin/python bench/image_gaps.py            # a 48 KB 50,000,000 × 1 PNG, a 7,000² RGBA PNG, a 8,000² JPEG
    .venv/bin/python bench/image_gaps.py --quick    # smaller files (a smoke run)

The real main window (offscreen, 1280 × 800), its worker thread as in the app, models/vit.safetensors. A gap is time
the GUI thread could not run: Pillow steps that hold Python's lock on the worker stall it (the issue: 2.0–2.3 s and
0.9–1.2 s before). Run it on a quiet machine: other processes' load lengthens every gap.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def make_files(folder: Path, quick: bool) -> list[Path]:
    """The hostile files: a strip, a large transparent PNG, a large JPEG (random noise: the decoder's worst case)."""
    import numpy as np
    from PIL import Image

    side, strip = (2_000, 5_000_000) if quick else (7_000, 50_000_000)
    paths = [folder / "strip.png", folder / "rgba.png", folder / "photo.jpg"]
    Image.new("L", (strip, 1), 0).save(paths[0])
    rgba = np.zeros((side, side, 4), np.uint8)
    rgba[::7, ::5] = 255
    rgba[..., 3] = 200
    Image.fromarray(rgba, "RGBA").save(paths[1], compress_level=9)
    noise = np.random.default_rng(0).integers(0, 256, (side * 6 // 7, side * 8 // 7, 3), dtype=np.uint8)
    Image.fromarray(noise, "RGB").save(paths[2], quality=80)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller files: a seconds-long smoke run")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6 import QtCore, QtWidgets

    from attnviz.gui import errors as gui_errors
    from attnviz.gui.main_window import MainWindow, Poster
    from attnviz.gui.settings import Settings
    from attnviz.session import ThreadRunner
    from bench._window import wait_until

    app = QtWidgets.QApplication(sys.argv[:1])
    folder = Path(tempfile.mkdtemp())
    files = make_files(folder, args.quick)
    errors: list[str] = []
    gui_errors.warn = lambda _parent, text: errors.append(text)  # (the warning box's text, not a modal box)
    window = MainWindow(Settings(folder / "settings.ini"), ThreadRunner(Poster().post))
    window.resize(1280, 800)
    window.show()
    window.load(ROOT / "models" / "vit.safetensors")
    wait_until(app, window, lambda: window.session.state.shown_source is not None)
    ticks: list[float] = []
    timer = QtCore.QTimer(interval=1)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    print(f"{os.cpu_count()} CPUs; models/vit.safetensors; 1280 × 800 offscreen; worker thread as in the app")
    print("| file | bytes | time until drawn or refused | longest event-loop gap | what the user reads |")
    print("| --- | --- | --- | --- | --- |")
    for path in files:
        first, said = len(ticks), len(errors)
        started = time.perf_counter()
        window.session.open_image(path)
        seconds = wait_until(app, window, lambda p=path, n=said: len(errors) > n or (
            window.session.state.shown_source is not None and window.session.state.shown_source.text == p.name))
        gap = max((b - a for a, b in itertools.pairwise([started, *ticks[first:]])), default=0.0)
        shown = errors[said] if len(errors) > said else f"the image, as {window.session.state.shown_source.text}"
        print(f"| {path.name} | {path.stat().st_size:,} | {seconds:.2f} s | {gap:.3f} s | {shown} |")
    timer.stop()
    window.close()


if __name__ == "__main__":
    main()
