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


def make_checkpoint(folder: Path, tokens: int, heads: int) -> tuple[Path, list[str]]:
    import torch

    from attnviz.core.checkpoint import save_checkpoint
    from attnviz.core.text import RESERVED, Vocab
    from attnviz.core.transformer import Transformer, TransformerConfig

    words = [f"w{i}" for i in range(400)]
    vocab = Vocab((*RESERVED, *words))
    torch.manual_seed(0)
    config = TransformerConfig(len(vocab), len(vocab), num_hiddens=256, ffn_hiddens=512, num_heads=heads,
                               num_encoder_layers=2, num_decoder_layers=2, dropout=0.0, max_src_len=tokens,
                               max_tgt_len=16)
    path = save_checkpoint(folder / "long.safetensors", Transformer(config), src_vocab=vocab, tgt_vocab=vocab)
    rng = random.Random(0)
    return path, [rng.choice(words) for _ in range(tokens)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--quick", action="store_true",
                        help="a seconds-long smoke run (tests/test_bench.py): a 48-token source, 2 heads")
    args = parser.parse_args()
    if args.quick:
        args.tokens, args.heads = 48, 2

    from PySide6 import QtCore, QtWidgets

    from attnviz.gui.main_window import MainWindow, Poster
    from attnviz.gui.settings import Settings
    from attnviz.session import ThreadRunner

    app = QtWidgets.QApplication(sys.argv[:1])
    folder = Path(tempfile.mkdtemp())
    checkpoint, words = make_checkpoint(folder, args.tokens, args.heads)
    poster = Poster()
    runner = ThreadRunner(poster.post)
    window = MainWindow(Settings(folder / "settings.ini"), runner)
    window.resize(1600, 1000)
    window.show()

    ticks: list[float] = []
    timer = QtCore.QTimer(interval=1)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()

    def wait(condition, limit_s: float = 600.0) -> float:
        """Run the event loop until ``condition()``, then until it is idle; seconds taken."""
        started = time.perf_counter()
        while not condition():
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
            if time.perf_counter() - started > limit_s:
                raise SystemExit("timed out")
        for _ in range(3):
            app.processEvents()
        return time.perf_counter() - started

    state = lambda: window.session.state  # noqa: E731
    results: list[tuple[str, float]] = []
    window.load(checkpoint)
    results.append(("load the checkpoint", wait(lambda: state().model is not None and not state().busy)))
    started = time.perf_counter()
    window.set_sentence(" ".join(words))
    wait(lambda: state().source is not None and len(state().source.tokens) == args.tokens and not state().busy)
    results.append((f"encode {args.tokens} tokens + draw", time.perf_counter() - started))
    for number in range(1, 5):
        started = time.perf_counter()
        window.step_action.trigger()
        wait(lambda n=number: len(state().steps) == n and not state().busy)
        results.append((f"step {number} + redraw", time.perf_counter() - started))
    started = time.perf_counter()
    window.attention.all_heads.setChecked(True)
    wait(lambda: True)
    results.append((f"All heads on ({args.heads} heads × 2 layers)", time.perf_counter() - started))
    window.attention.all_heads.setChecked(False)
    wait(lambda: True)
    started = time.perf_counter()
    window.docks["rollout"].show()
    window.docks["rollout"].raise_()
    wait(lambda: True)
    results.append(("raise Rollout (encoder rollout + attribution)", time.perf_counter() - started))
    window.docks["attention"].raise_()
    wait(lambda: True)
    started = time.perf_counter()
    window.attention.heatmap.clicked.emit(2, 0)
    wait(lambda: state().computation is not None and not state().busy)
    results.append(("click a row: Computation of that query", time.perf_counter() - started))
    timer.stop()
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    print(f"{os.cpu_count()} CPUs; random-weight Transformer, {args.heads} heads, 2+2 layers; "
          f"{args.tokens}-token source; 1600 × 1000 offscreen; worker thread as in the app")
    print("| action | time until drawn |")
    print("| --- | --- |")
    for name, seconds in results:
        print(f"| {name} | {seconds * 1000:.0f} ms |")
    print(f"longest event-loop gap over the run: {max(gaps) * 1000:.0f} ms "
          f"(median tick interval {sorted(gaps)[len(gaps) // 2] * 1000:.1f} ms)")
    window.close()
    runner.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
