"""A 512-token sentence in the real window: redraw times and the longest event-loop gap.

    .venv/bin/python bench/long_input.py [--tokens 512] [--heads 8]

Builds a Transformer made for this benchmark (random weights, 8 heads, 2+2 layers, width 256,
max_src_len 512) in a temporary folder, opens it in the real main window (offscreen, 1600 × 1000,
the worker thread as in the app), types a 512-word sentence and then, one after another: decodes 4
steps, turns on All heads, raises the Rollout dock, and clicks a row of the attention heatmap (the
Computation dock recomputes that query). For each action it reports the time until the window has
drawn the result, and over the whole run the longest gap between two ticks of a 1 ms timer on the
GUI thread: how long the window was ever unresponsive.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def make_checkpoint(folder: Path, tokens: int, heads: int, kind: str = "transformer") -> tuple[Path, list[str]]:
    """A random model of ``kind`` for a ``tokens``-long source: the Transformer with 2 + 2 layers, or a
    decoder-only model with 4 (the same number of attention layers over a ``tokens``-long prompt)."""
    import torch

    from attnviz.core.checkpoints.checkpoint import build_model, save_checkpoint
    from attnviz.core.models.kinds import kind_named
    from attnviz.core.text import RESERVED, Vocab

    words = [f"w{i}" for i in range(400)]
    vocab = Vocab((*RESERVED, *words))
    torch.manual_seed(0)
    layers = {"num_encoder_layers": 2, "num_decoder_layers": 2} if kind == "transformer" else \
        {"num_decoder_layers": 4}
    config = kind_named(kind).make_config(src_vocab_size=len(vocab), tgt_vocab_size=len(vocab), num_hiddens=256,
                                          ffn_hiddens=512, num_heads=heads, dropout=0.0, max_src_len=tokens,
                                          max_tgt_len=16, **layers)
    path = save_checkpoint(folder / "long.safetensors", build_model(config), src_vocab=vocab, tgt_vocab=vocab)
    rng = random.Random(0)
    return path, [rng.choice(words) for _ in range(tokens)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--kind", default="transformer", choices=("transformer", "decoder-only"),
                        help="the model: a Transformer (2 + 2 layers) or a decoder-only model (4 layers)")
    parser.add_argument("--quick", action="store_true",
                        help="a seconds-long smoke run (tests/test_bench.py): a 48-token source, 2 heads")
    args = parser.parse_args()
    if args.quick:
        args.tokens, args.heads = 48, 2

    from PySide6 import QtCore, QtWidgets

    from attnviz.gui.main_window import MainWindow, Poster
    from attnviz.gui.panels.rollout import COMPUTING
    from attnviz.gui.settings import Settings
    from attnviz.session import ThreadRunner
    from bench._window import wait_until

    app = QtWidgets.QApplication(sys.argv[:1])
    folder = Path(tempfile.mkdtemp())
    checkpoint, words = make_checkpoint(folder, args.tokens, args.heads, args.kind)
    poster = Poster()
    runner = ThreadRunner(poster.post)
    window = MainWindow(Settings(folder / "settings.ini"), runner)
    window.resize(1600, 1000)
    window.show()

    ticks: list[tuple[float, float]] = []  # (wall clock, the GUI thread's CPU time) at each tick
    timer = QtCore.QTimer(interval=1)
    timer.timeout.connect(lambda: ticks.append((time.perf_counter(), time.thread_time())))
    timer.start()

    def wait(condition, limit_s: float = 600.0) -> float:
        return wait_until(app, window, condition, limit_s)

    state = lambda: window.session.state  # noqa: E731
    results: list[tuple[str, float, float, float]] = []  # action, seconds, longest gap, GUI CPU in it

    def measure(name: str, act, condition) -> None:
        first = len(ticks)
        started, cpu_started = time.perf_counter(), time.thread_time()
        act()
        seconds = wait(condition)
        window_ticks = [(started, cpu_started), *ticks[first:]]
        gap, cpu = max(((b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(window_ticks)), default=(0, 0))
        results.append((name, seconds, gap, cpu))

    rollout = window.panels.panels["rollout"]
    drawn = lambda heatmap: heatmap.spec.title not in ("", COMPUTING)  # noqa: E731
    measure("load the checkpoint", lambda: window.load(checkpoint), lambda: state().model is not None)
    measure(f"encode {args.tokens} tokens + draw", lambda: window.set_sentence(" ".join(words)),
            lambda: state().source is not None and len(state().source.tokens) == args.tokens)
    for number in range(1, 5):
        measure(f"step {number} + redraw", window.step_action.trigger, lambda n=number: len(state().steps) == n)
    layers = 2 if args.kind == "transformer" else 4
    measure(f"All heads on ({args.heads} heads × {layers} layers)", lambda: window.attention.all_heads.setChecked(True),
            lambda: window.attention.grid.spec is not None)
    window.attention.all_heads.setChecked(False)
    wait(lambda: True)

    def raise_rollout() -> None:
        window.docks["rollout"].show()
        window.docks["rollout"].raise_()

    measure("raise Rollout (encoder rollout + attribution)", raise_rollout,
            lambda: drawn(rollout.encoder) and drawn(rollout.attribution))
    window.docks["attention"].raise_()
    wait(lambda: True)
    measure("click a row: Computation of that query", lambda: window.attention.heatmap.clicked.emit(2, 0),
            lambda: state().computation is not None)
    timer.stop()
    gaps = [(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(ticks)]
    print(f"{os.cpu_count()} CPUs; random-weight {args.kind}, {args.heads} heads, "
          f"{'2+2' if args.kind == 'transformer' else '4'} layers; "
          f"{args.tokens}-token source; 1600 × 1000 offscreen; worker thread as in the app")
    print("| action | time until drawn | longest event-loop gap | GUI thread's CPU in that gap |")
    print("| --- | --- | --- | --- |")
    for name, seconds, gap, cpu in results:
        print(f"| {name} | {seconds * 1000:.0f} ms | {gap * 1000:.0f} ms | {cpu * 1000:.0f} ms |")
    longest = max(gaps)
    print(f"longest event-loop gap over the run: {longest[0] * 1000:.0f} ms, the GUI thread's CPU time in it "
          f"{longest[1] * 1000:.0f} ms (median tick interval {sorted(gaps)[len(gaps) // 2][0] * 1000:.1f} ms; "
          f"longest GUI-thread CPU between two ticks {max(cpu for _, cpu in gaps) * 1000:.0f} ms)")
    window.close()
    runner.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
