"""Hugging Face models of real size in the real window: open time, step + redraw, and the longest event-loop gap.

    .venv/bin/python bench/hf_models.py                  # both models, 20 steps each, a 256-token input
    .venv/bin/python bench/hf_models.py --model marian   # one of them

Builds, in a temporary folder with ``save_pretrained``, random-weight models of the size of
``Helsinki-NLP/opus-mt-en-fr`` (Marian: d_model 512, 6 + 6 layers, 8 heads, FFN 2,048, vocabulary 59,514) and of
GPT-2 small (124 M parameters: 12 layers, width 768, 12 heads, vocabulary 50,257), each with a tokenizer trained
here (a step's cost depends on the model's size, not on its weights or its tokenizer). Then, in the real main
window (offscreen, 1600 × 1000, the worker thread as in the app):

- open: File ▸ Open of the folder until the model is shown (the first open also imports transformers);
- step + redraw: Step until the window has drawn the new step, default docks (Attention, Masks); medians of
  --steps steps, both decoded on the spot and as the app does (the next step decoded ahead while the user reads);
- a 256-token input: encode + draw, four steps, and the longest gap between two ticks of a 1 ms timer on the GUI
  thread over all of it (how long the window was ever unresponsive).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SENTENCE = ("the house is big and the garden is green ; we walk to the old town every day with our friends , "
            "then eat bread and drink water near the river .")
WORDS = tuple(SENTENCE.split())
SIZES = {  # (the real models' sizes; --quick: small ones)
    "marian": dict(d_model=512, encoder_layers=6, decoder_layers=6, encoder_attention_heads=8,
                   decoder_attention_heads=8, encoder_ffn_dim=2048, decoder_ffn_dim=2048, vocab_size=59514,
                   max_position_embeddings=512),
    "gpt2": dict(n_embd=768, n_layer=12, n_head=12, vocab_size=50257, n_positions=1024),
}
QUICK = {"marian": dict(d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, vocab_size=400,
                        max_position_embeddings=512),
         "gpt2": dict(n_embd=32, n_layer=1, n_head=2, vocab_size=400, n_positions=1024)}
LABEL = {"marian": "Marian, opus-mt-en-fr size", "gpt2": "GPT-2 small size"}


def make_folder(family: str, folder: Path, sizes: dict) -> Path:
    """A ``save_pretrained`` folder of ``family`` with random weights and a small trained tokenizer."""
    import torch
    import transformers
    from tokenizers import SentencePieceBPETokenizer
    from tokenizers.implementations import ByteLevelBPETokenizer
    from tokenizers.processors import TemplateProcessing

    lines = [" ".join(WORDS)] * 20
    torch.manual_seed(0)
    if family == "marian":
        trained = SentencePieceBPETokenizer()
        trained.train_from_iterator(lines, vocab_size=200, special_tokens=["</s>", "<unk>", "<pad>"])
        trained._tokenizer.post_processor = TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 0)])
        tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer, eos_token="</s>",
                                                         unk_token="<unk>", pad_token="<pad>")
        model = transformers.MarianMTModel(transformers.MarianConfig(
            **sizes, pad_token_id=2, eos_token_id=0, decoder_start_token_id=2, forced_eos_token_id=0))
        model.generation_config.bad_words_ids = [[2]]  # as opus-mt-en-fr's
    else:
        trained = ByteLevelBPETokenizer()
        trained.train_from_iterator(lines, vocab_size=300, special_tokens=["<|endoftext|>"])
        tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer,
                                                         eos_token="<|endoftext|>", bos_token="<|endoftext|>")
        model = transformers.GPT2LMHeadModel(transformers.GPT2Config(**sizes, bos_token_id=0, eos_token_id=0))
    model.generation_config.eos_token_id = None  # never ends early: every step is a full step
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def text_of_tokens(folder: Path, tokens: int) -> str:
    """Words of WORDS, repeated, until the folder's tokenizer reads ``tokens`` tokens (its own special ones
    included) — the long input."""
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    words: list[str] = []
    for word in itertools.cycle(WORDS):
        if len(tokenizer(" ".join([*words, word]))["input_ids"]) > tokens:
            return " ".join(words)
        words.append(word)
    return ""


def measure(family: str, folder: Path, steps: int, long_text: str) -> dict:
    from PySide6 import QtCore, QtWidgets

    from attnviz.gui.main_window import MainWindow, Poster
    from attnviz.gui.settings import Settings
    from attnviz.session import ThreadRunner
    from bench._window import wait_until

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    poster = Poster()
    runner = ThreadRunner(poster.post)
    window = MainWindow(Settings(Path(tempfile.mkdtemp()) / "settings.ini"), runner)
    window.resize(1600, 1000)
    window.show()
    ticks: list[float] = []
    timer = QtCore.QTimer(interval=1)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    state = lambda: window.session.state  # noqa: E731

    def wait(condition, limit_s: float = 900.0) -> float:
        return wait_until(app, window, condition, limit_s)

    def pause(ms: int) -> None:
        loop = QtCore.QEventLoop()
        QtCore.QTimer.singleShot(ms, loop.quit)
        loop.exec()

    out: dict = {}
    opened = []
    for _ in range(2):  # the first open imports transformers; the second is what every later open costs
        window.load(ROOT / "models" / "transformer.safetensors")
        wait(lambda: state().model is not None and state().model.kind == "transformer")
        started = time.perf_counter()
        window.load(folder)
        wait(lambda: state().model is not None and state().model.kind.startswith("hf-"))
        opened.append(time.perf_counter() - started)
    out["open"] = opened
    out["parameters"] = state().model.parameters
    window.set_sentence(" ".join(WORDS[:8]))
    wait(lambda: state().source is not None)
    on_the_spot, ahead = [], []
    delay = window.prefetch_timer.interval()
    for mode, into in (("spot", on_the_spot), ("app", ahead)):
        # on the spot: no step decoded ahead; the app: decoded ahead while the user reads (200 ms per step)
        window.prefetch_timer.setInterval(10**9 if mode == "spot" else delay)
        window.reset_action.trigger()
        wait(lambda: not state().steps)
        while len(into) < steps + 2:
            count = len(state().steps)
            pause(200 if mode == "app" else 1)
            started = time.perf_counter()
            window.step_action.trigger()
            wait(lambda c=count: len(state().steps) > c)
            into.append((time.perf_counter() - started) * 1000)
    out["step"] = (on_the_spot[2:], ahead[2:], [s.seconds * 1000 for s in state().steps[2:]])
    timer.start()
    first = len(ticks)
    started = time.perf_counter()
    window.set_sentence(long_text)
    wait(lambda: state().source is not None and state().source.text == long_text)
    encoded = time.perf_counter() - started
    for number in range(1, 5):
        window.step_action.trigger()
        wait(lambda n=number: len(state().steps) == n)
    timer.stop()
    gaps = [b - a for a, b in itertools.pairwise(ticks[first:])]
    out["long"] = (len(state().source.tokens), encoded, max(gaps) if gaps else 0.0)
    window.close()
    runner.shutdown()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", choices=("marian", "gpt2"), action="append")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--tokens", type=int, default=256, help="the long input's length in the model's tokens")
    parser.add_argument("--measure", nargs=3, metavar=("FAMILY", "FOLDER", "TEXT_FILE"), help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true",
                        help="a seconds-long smoke run (tests/test_bench.py): small models, 3 steps, 48 words")
    args = parser.parse_args()
    families = args.model or ["marian", "gpt2"]
    if args.quick:
        args.steps, args.tokens = 3, 48
    if args.measure:  # (the child process: a fresh interpreter, so that the first open imports transformers)
        family, folder, text_file = args.measure
        print(json.dumps(measure(family, Path(folder), args.steps, Path(text_file).read_text())))
        return 0
    rows = []
    for family in families:
        folder = make_folder(family, Path(tempfile.mkdtemp()) / f"random-{family}",
                             (QUICK if args.quick else SIZES)[family])
        text_file = folder.parent / "long.txt"
        text_file.write_text(text_of_tokens(folder, args.tokens))
        if args.quick:  # (a smoke run measures in this process: no figure of it is reported)
            rows.append((family, measure(family, folder, args.steps, text_file.read_text())))
            continue
        child = subprocess.run([sys.executable, __file__, "--measure", family, str(folder), str(text_file),
                                "--steps", str(args.steps)], capture_output=True, text=True, check=False)
        if child.returncode != 0:
            raise SystemExit(f"{family}: the measuring process failed: {child.stderr.strip()[-2000:]}")
        rows.append((family, json.loads(child.stdout.strip().splitlines()[-1])))
    print(f"{os.cpu_count()} CPUs; random weights; 1600 × 1000 offscreen; worker thread as in the app; "
          f"medians of {args.steps} steps")
    print("| model | parameters | open (first: imports transformers) | open again | step + redraw, on the spot "
          "| the app: Step → picture | compute of a step | long input: tokens, encode + draw, longest gap |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for family, out in rows:
        spot, ahead, compute = out["step"]
        tokens, encoded, gap = out["long"]
        print(f"| {LABEL[family]} | {out['parameters'] / 1e6:.1f} M | {out['open'][0]:.2f} s | {out['open'][1]:.2f} s "
              f"| {statistics.median(spot):.1f} ms | {statistics.median(ahead):.1f} ms | "
              f"{statistics.median(compute):.1f} ms | {tokens}, {encoded * 1000:.0f} ms, {gap * 1000:.0f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
