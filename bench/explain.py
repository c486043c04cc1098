"""Per-step cost of each explanation method (attnviz.core.explain) for the shipped Transformer.

    .venv/bin/python bench/explain.py [--checkpoint PATH] [--threads N ...] [--repeats N] [--quick]

For each of a few sentences it decodes greedily and, at every step, times each method on its own: the
attention-based ones (raw attention + rollout + attention flow + norm-based attention, as ``explain_step``
computes them with one teacher-forced pass; flow at one layer, the dock's), gradient × input, integrated
gradients (32 steps, one batch) and occlusion (<unk> and leave-one-out, one batch each), and all of them
together. Prints the median per step (ms) for each torch thread count. Targets (issue 38, 2 cores):
rollout + flow + norm ≤ 20 ms, integrated gradients (32) ≤ 300 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from attnviz.core.checkpoints.checkpoint import load_checkpoint  # noqa: E402
from attnviz.core.decoding.beam_search import translate  # noqa: E402
from attnviz.core.explain import explain_step  # noqa: E402
from attnviz.core.text import source_words  # noqa: E402

SENTENCES = ["i think that we should go home before it rains tonight .", "she is very happy to see you .",
             "tom gave me a book about french history .", "we are not afraid of the dark ."]
CASES = {  # what is timed: the methods explain_step is asked for
    "rollout + flow + norm (+ raw)": ("attention", "rollout", "flow", "norm"),
    "gradient × input": ("grad_x_input",),
    "integrated gradients (32 steps)": ("ig",),
    "occlusion + leave-one-out": ("occlusion", "leave_one_out"),
    "all eight methods": None,
}


def steps(loaded, sentences: list[str]) -> list[tuple[tuple[str, ...], list[str], str]]:
    """(source tokens, target prefix, token) of every greedily decoded step."""
    splits = [source_words(s, loaded.src_vocab, loaded.config.max_src_len) for s in sentences]
    outputs = translate(loaded.model, splits, loaded.src_vocab, loaded.tgt_vocab, torch.device("cpu"), beam_size=1)
    return [(split.words, output[:t], token) for split, output in zip(splits, outputs, strict=True)
            for t, token in enumerate(output)]


def median_ms(loaded, cases: list, methods: tuple[str, ...] | None, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        for source, prefix, token in cases:
            kwargs = {} if methods is None else {"methods": methods}
            start = time.perf_counter()
            explain_step(loaded, source, prefix, token=token, ig_steps=32, **kwargs)
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=str(ROOT / "models" / "transformer.safetensors"))
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true",
                        help="three steps of one sentence, one repeat, one thread count (smoke test)")
    args = parser.parse_args()
    loaded = load_checkpoint(args.checkpoint)
    sentences, repeats, threads = (SENTENCES[:1], 1, args.threads[:1]) if args.quick else \
        (SENTENCES, args.repeats, args.threads)
    cases = steps(loaded, sentences)[: 3 if args.quick else None]  # (--quick: its first three steps)
    explain_step(loaded, *cases[0][:2], token=cases[0][2])  # warm-up (first calls load kernels)
    print(f"{loaded.name}: {len(cases)} decoded steps of {len(sentences)} sentence(s), medians per step (ms)")
    print("| method | " + " | ".join(f"{n} thread(s)" for n in threads) + " |")
    print("| --- |" + " --- |" * len(threads))
    rows = {name: [] for name in CASES}
    for count in threads:
        torch.set_num_threads(count)
        for name, methods in CASES.items():
            rows[name].append(median_ms(loaded, cases, methods, repeats))
    for name, values in rows.items():
        print(f"| {name} | " + " | ".join(f"{v:.1f}" for v in values) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
