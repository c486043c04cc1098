"""Peak memory of ``attnviz export --flipbook``: the PDF and the GIF of a whole decoding.

    .venv/bin/python bench/flipbook_memory.py [--runs 3] [--quick]

Each case runs the real CLI in a fresh process and reports that process's peak resident memory (VmHWM from
/proc/self/status): over the whole run, before the flip-book is written (the model and the decoding's
recorded maps), and while it is written (the peak reset at its start); the GIF's size and frame count, the
seconds taken, and the CLI's note:

* the shipped Transformer, a long sentence, ``--all-heads`` at ``--scale 2`` and ``--scale 8``;
* a 600-step decoding: a random-weight Transformer (max_tgt_len 600, its end-of-sentence never chosen)
  built in a temporary folder, one head at the default scale (2).

The target is at most 1 GB each, or a refusal with a message (the GIF's pixel budget, FLIPBOOK_PIXELS).
--quick: one tiny case (a 6-step decoding of a small random model, ``--all-heads --scale 8``), seconds, for
tests/test_bench.py (which checks that the script runs, not its figures).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SENTENCE = " ".join(["i think that we should go home now because it is late and the weather is cold ."] * 3)


def make_checkpoint(folder: Path, steps: int, width: int) -> Path:
    """A random Transformer whose greedy decoding runs ``steps`` steps: max_tgt_len ``steps`` and the
    end-of-sentence logit held at 0 (the decoder's output is layer-normed, so a constant row gives 0) while
    the 400 other words' logits are random: some is always larger."""
    import torch

    from attnviz.core.checkpoints.checkpoint import save_checkpoint
    from attnviz.core.models.transformer import Transformer, TransformerConfig
    from attnviz.core.text import RESERVED, Vocab

    vocab = Vocab((*RESERVED, *(f"w{i}" for i in range(400))))
    torch.manual_seed(0)
    config = TransformerConfig(len(vocab), len(vocab), num_hiddens=width, ffn_hiddens=2 * width, num_heads=1,
                               num_encoder_layers=1, num_decoder_layers=1, dropout=0.0, max_src_len=32,
                               max_tgt_len=steps)
    model = Transformer(config)
    with torch.no_grad():
        model.output.weight[vocab.eos_id] = 1.0
    return save_checkpoint(folder / "long_decoding.safetensors", model, src_vocab=vocab, tgt_vocab=vocab)


def _status(field: str) -> float:
    """A VmXXX line of /proc/self/status, in MB."""
    status = Path("/proc/self/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith(field + ":"))) / 1024


def child(argv: list[str]) -> int:
    """Run the CLI in this process; print the peak resident memory (MB) before the flip-book is written (the
    model, the decoding's recorded maps), then reset the peak (/proc/self/clear_refs) and print the peak
    while it is written, and over the whole run."""
    from attnviz.app import main
    from attnviz.render import flipbook

    write = flipbook.write_flipbook
    before = [float("nan")]

    def measured(*args, **kwargs):
        before[0] = _status("VmHWM")
        Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current resident size
        return write(*args, **kwargs)

    flipbook.write_flipbook = measured
    code = main(argv)
    during = _status("VmHWM")
    print(f"PEAK_MB {max(before[0], during):.0f} {before[0]:.0f} {during:.0f}", flush=True)
    return code


def run_case(argv: list[str], out: Path) -> tuple[list[float], float, str, str]:
    """Peak MB (whole run, before the flip-book, while it is written), seconds, the GIF (size × frames) and
    the CLI's note or error, of one fresh process."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--child", *argv, "--out", str(out), "--force"],
                          capture_output=True, text=True, env=env, cwd=ROOT)
    seconds = time.perf_counter() - start
    lines = [line.split()[1:] for line in done.stdout.splitlines() if line.startswith("PEAK_MB")]
    peak = [float(value) for value in lines[0]] if lines else [float("nan")] * 3
    said = done.stderr.strip().splitlines()
    note = said[-1].replace("attnviz: ", "") if said else ""
    gifs = sorted(out.glob("*.gif"))
    if done.returncode == 0 and gifs:
        from PIL import Image

        with Image.open(gifs[0]) as image:
            gif = f"{image.size[0]}×{image.size[1]} × {getattr(image, 'n_frames', 1)}"
    else:
        gif = f"none (exit {done.returncode})"
    return peak, seconds, gif, note


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per case; the median is reported")
    parser.add_argument("--quick", action="store_true", help="one tiny case, seconds (tests/test_bench.py)")
    args, rest = parser.parse_known_args()
    if rest[:1] == ["--child"]:
        return child(rest[1:])
    folder = Path(tempfile.mkdtemp())
    if args.quick:
        args.runs = 1
        tiny = make_checkpoint(folder, 6, 32)
        cases = [("random model, 6 steps, --all-heads --scale 8",
                  ["--checkpoint", str(tiny), "--text", "w1 w2 w3", "--all-heads", "--scale", "8"])]
    else:
        long = make_checkpoint(folder, 600, 64)
        cases = [("shipped Transformer, long sentence, --all-heads --scale 2",
                  ["--text", SENTENCE, "--all-heads", "--scale", "2"]),
                 ("shipped Transformer, long sentence, --all-heads --scale 8",
                  ["--text", SENTENCE, "--all-heads", "--scale", "8"]),
                 ("600-step decoding (random model), --scale 2",
                  ["--checkpoint", str(long), "--text", "w1 w2 w3 w4 w5", "--scale", "2"])]
    print(f"| case | peak resident memory, MB: whole run / before the flip-book / while it is written (median of "
          f"{args.runs}) | seconds | GIF (pixels × frames) | note |")
    print("|---|---|---|---|---|")
    for number, (name, argv) in enumerate(cases):
        runs = [run_case(["export", "--flipbook", *argv], folder / f"out{number}_{run}") for run in range(args.runs)]
        peaks = " / ".join(f"{statistics.median(r[0][i] for r in runs):.0f}" for i in range(3))
        seconds = statistics.median(r[1] for r in runs)
        print(f"| {name} | {peaks} | {seconds:.1f} | {runs[-1][2]} | {runs[-1][3]} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
