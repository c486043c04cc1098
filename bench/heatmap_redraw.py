"""Heatmap redraw time: attnviz's Heatmap widget against matplotlib, measured side by side in one run.

    .venv/bin/python bench/heatmap_redraw.py [--sizes 16,64,256,1024] [--repeats 30]

Every contender draws the same picture at the same pixel size (800 × 700): an N × N matrix of
softmax weights with token labels on both axes (thinned to what fits) and a colour bar fixed at
[0, 1]. A redraw is "new weights arrive → pixels are painted":

- attnviz: ``Heatmap.show_figure`` (same labels) then a synchronous repaint of the widget (offscreen Qt);
- matplotlib, persistent figure (the strong baseline): ``AxesImage.set_data`` then ``canvas.draw()`` (Agg);
- matplotlib, a new figure per call (what d2l's ``show_heatmaps`` does): figure, imshow, colour bar,
  ticks, draw, close.

Reports medians and the ratios matplotlib / attnviz. Needs matplotlib (``pip install matplotlib``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WIDTH, HEIGHT, DPI = 800, 700, 100


def weights(rng: np.random.Generator, n: int) -> np.ndarray:
    scores = rng.normal(size=(n, n)).astype(np.float32) * 2
    exp = np.exp(scores - scores.max(axis=1, keepdims=True))
    return exp / exp.sum(axis=1, keepdims=True)


def median_ms(fn: Callable[[int], None], repeats: int) -> float:
    fn(0)  # warm-up
    times = []
    for i in range(1, repeats + 1):
        start = time.perf_counter()
        fn(i)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def tick_every(n: int, pixels: float, text_px: float = 14.0) -> int:
    return max(1, int(np.ceil(text_px / (pixels / n))))


def bench_attnviz(frames: list[np.ndarray], labels: tuple[str, ...], repeats: int) -> float:
    from PySide6 import QtWidgets

    from attnviz.figures.spec import FigureSpec
    from attnviz.gui.heatmap import Heatmap

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    heatmap = Heatmap()
    heatmap.resize(WIDTH, HEIGHT)
    heatmap.show()
    heatmap.show_figure(FigureSpec(frames[0], tuple(labels), tuple(labels), "cross-attention"))
    app.processEvents()

    def redraw(i: int) -> None:
        heatmap.show_figure(FigureSpec(frames[i % len(frames)], tuple(labels), tuple(labels), "cross-attention"))
        heatmap.repaint()

    result = median_ms(redraw, repeats)
    close_widget(heatmap)
    return result


def close_widget(widget) -> None:
    """Delete a widget now, while the QApplication lives (pyqtgraph objects left to the interpreter's
    final garbage collection can crash it after Qt is gone)."""
    import gc

    from PySide6 import QtCore

    widget.close()
    widget.deleteLater()
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    gc.collect()


def _matplotlib_figure(values: np.ndarray, labels: tuple[str, ...]):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI)
    canvas = FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    image = axes.imshow(values, cmap="viridis", vmin=0, vmax=1, interpolation="nearest")
    figure.colorbar(image, ax=axes)
    every = tick_every(len(labels), 0.7 * HEIGHT)
    ticks = list(range(0, len(labels), every))
    axes.set_xticks(ticks, [labels[i] for i in ticks], rotation=90)
    axes.set_yticks(ticks, [labels[i] for i in ticks])
    axes.set_title("cross-attention")
    return figure, canvas, image


def bench_matplotlib_persistent(frames: list[np.ndarray], labels: tuple[str, ...], repeats: int) -> float:
    _figure, canvas, image = _matplotlib_figure(frames[0], labels)
    canvas.draw()

    def redraw(i: int) -> None:
        image.set_data(frames[i % len(frames)])
        canvas.draw()

    return median_ms(redraw, repeats)


def bench_matplotlib_new_figure(frames: list[np.ndarray], labels: tuple[str, ...], repeats: int) -> float:
    def redraw(i: int) -> None:
        figure, canvas, _image = _matplotlib_figure(frames[i % len(frames)], labels)
        canvas.draw()
        figure.clear()

    return median_ms(redraw, repeats)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="16,64,256,1024")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--quick", action="store_true",
                        help="a seconds-long smoke run (tests/test_bench.py): sizes 16 and 64, 2 repeats")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.repeats = "16,64", 2
    import matplotlib
    import pyqtgraph
    import PySide6

    print(f"{WIDTH}x{HEIGHT} px; PySide6 {PySide6.__version__}, pyqtgraph {pyqtgraph.__version__}, "
          f"matplotlib {matplotlib.__version__} (Agg); medians of {args.repeats} redraws")
    print(f"{'N x N':>11} {'attnviz':>10} {'mpl persistent':>15} {'ratio':>7} {'mpl new figure':>15} {'ratio':>7}")
    rng = np.random.default_rng(0)
    for n in (int(s) for s in args.sizes.split(",")):
        frames = [weights(rng, n) for _ in range(4)]
        labels = tuple(f"tok{i}" for i in range(n))
        repeats = args.repeats if n < 1024 else max(5, args.repeats // 3)
        ours = bench_attnviz(frames, labels, repeats)
        persistent = bench_matplotlib_persistent(frames, labels, repeats)
        fresh = bench_matplotlib_new_figure(frames, labels, max(2 if n < 1024 else 5, repeats // 2))
        print(f"{f'{n}x{n}':>11} {ours:>7.2f} ms {persistent:>12.2f} ms {persistent / ours:>6.1f}x "
              f"{fresh:>12.2f} ms {fresh / ours:>6.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
