"""attnviz's head patching against TransformerLens's ``get_act_patch_attn_head_out_all_pos`` on the same random
GPT-2-small-shaped weights (12 layers × 12 heads, width 768, 50,257 outputs): the same values, and the time of each.

    .venv/bin/python bench/patch_vs_transformerlens.py [--pairs 100] [--all-pairs N] [--threads 2] [--quick]

Three rows, one run, the same pairs (7 tokens each), ``torch.set_num_threads(--threads)`` for all:

- attnviz ``--measures denoise``: :func:`~attnviz.core.patching.corpus.patch_corpus` over the pairs (groups of 16,
  batched passes, the blocks below the patched layer replayed), every head's denoising patch — TransformerLens's one
  measure;
- attnviz with every measure (denoise, noise, pattern, values, atp and the residual grid) over the first
  ``--all-pairs`` pairs (default: all of them; each is about five times the work of denoising alone);
- TransformerLens: ``get_act_patch_attn_head_out_all_pos`` on all pairs at once (its metric: the pairs' mean logit
  difference), one forward pass per head. Its values are compared with the pairs' mean of attnviz's ``denoise``
  metric, head by head.

Each row prints its wall seconds, its CPU seconds (all threads), CPU seconds per pair, TransformerLens's CPU seconds per
pair over its own (above 1: less work than TransformerLens) and the 1-minute load average when it started and ended
(on a shared machine the wall clock measures the others' load; CPU seconds over the threads estimate the wall time on
idle cores).
TransformerLens is never a dependency of attnviz: the comparison runs where ``transformer_lens`` imports (a separate
venv that also sees attnviz's packages, e.g. ``python -m venv /work/tlvenv`` and ``pip install transformer_lens``),
and otherwise attnviz's rows alone are printed.
--quick: a two-layer width-32 folder and 4 pairs (the smoke test's run).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SIZES = {"gpt2": dict(n_embd=768, n_layer=12, n_head=12, vocab_size=50257, n_positions=1024),
         "quick": dict(n_embd=32, n_layer=2, n_head=2, vocab_size=400, n_positions=256)}
NOUNS = ("house", "car", "dog", "cat", "garden", "city", "river", "table", "book", "road", "tree", "room", "train",
         "school", "street", "bird", "horse", "window", "door", "field")
ADJECTIVES = ("big", "small")


def make_folder(size: str, folder: Path, lines: list[str]) -> Path:
    """A save_pretrained GPT-2 folder of ``size`` (random weights, seed 0) with a byte-level tokenizer trained on
    ``lines`` (every word of them one token)."""
    import torch
    import transformers
    from tokenizers.implementations import ByteLevelBPETokenizer

    trained = ByteLevelBPETokenizer()
    trained.train_from_iterator(lines * 3, vocab_size=400, special_tokens=["<|endoftext|>"])
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer, eos_token="<|endoftext|>",
                                                     bos_token="<|endoftext|>", pad_token="<|endoftext|>")
    torch.manual_seed(0)
    net = transformers.GPT2LMHeadModel(transformers.GPT2Config(**SIZES[size], bos_token_id=0, eos_token_id=0))
    net.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def pair_texts(count: int) -> list[tuple[str, str]]:
    """``count`` (clean, corrupt) prompts of one template: the first noun differs."""
    out = []
    for i in range(count):
        a, b, c = NOUNS[i % len(NOUNS)], NOUNS[(i * 7 + 3) % len(NOUNS)], NOUNS[(i * 3 + 1) % len(NOUNS)]
        if a == b:
            b = NOUNS[(i * 7 + 4) % len(NOUNS)]
        out.append((f"the {a} near the {c} is very", f"the {b} near the {c} is very"))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--all-pairs", type=int, help="pairs for the every-measure row (default: --pairs)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"
    import numpy as np
    import torch

    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.patching.corpus import patch_corpus
    from attnviz.core.patching.engine import CHOICES
    from attnviz.core.patching.pairs import MinimalPair

    torch.set_num_threads(args.threads)
    count = 4 if args.quick else args.pairs
    every = min(count, args.all_pairs or count)
    texts = pair_texts(count)
    print(f"torch threads: {torch.get_num_threads()}")
    print("| implementation | heads | pairs | what | seconds | CPU seconds | CPU s per pair | TransformerLens's CPU s "
          "per pair over this row's | load at start → end | max abs difference from attnviz denoise |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |", flush=True)
    rows: list[Row] = []

    def load() -> float:
        return os.getloadavg()[0]

    with tempfile.TemporaryDirectory() as tmp:
        lines = [t for pair in texts for t in pair] + [f"the {n} is {a} ." for n in NOUNS for a in ADJECTIVES]
        folder = make_folder("quick" if args.quick else "gpt2", Path(tmp) / "gpt2", lines)
        loaded = load_checkpoint(folder)
        pairs = [MinimalPair(clean, corrupt, "big", "small", n + 1) for n, (clean, corrupt) in enumerate(texts)]
        begun, started, cpu = load(), time.perf_counter(), time.process_time()
        denoised = patch_corpus(loaded, pairs, measures=("denoise",))
        rows.append(Row("attnviz patch --measures denoise", len(denoised.results), "denoise",
                        time.perf_counter() - started, time.process_time() - cpu, (begun, load()), "0"))
        kind = denoised.layout.kinds[0]
        heads = kind.layers * kind.heads
        ours = np.mean([r.metrics["denoise"][kind.kind] for r in denoised.results], axis=0)  # (L, H)
        theirs_row = _transformer_lens(folder, loaded, pairs, ours, load)
        if theirs_row is not None:
            rows.append(theirs_row)
        theirs_per_pair = None if theirs_row is None else theirs_row.cpu / theirs_row.pairs
        for row in rows:
            row.print(heads, theirs_per_pair)
        begun, started, cpu = load(), time.perf_counter(), time.process_time()
        whole = patch_corpus(loaded, pairs[:every], measures=CHOICES)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        same = np.mean([r.metrics["denoise"][kind.kind] for r in whole.results], axis=0)
        mine = np.mean([r.metrics["denoise"][kind.kind] for r in denoised.results[:every]], axis=0)
        Row("attnviz patch (every measure)", len(whole.results), ", ".join(CHOICES), seconds, cpu, (begun, load()),
            f"{float(np.abs(same - mine).max()):.2e}").print(heads, theirs_per_pair)
        if theirs_row is None:
            print("(TransformerLens not importable here: attnviz's rows alone)")
    return 0


@dataclass
class Row:
    """One implementation's run: wall and CPU seconds (the process's, over all its threads: on a shared machine the
    wall clock measures the others' load, CPU seconds over the threads estimate the wall time on idle cores), the
    1-minute load average at its start and end, its values' largest difference from attnviz's denoising."""

    name: str
    pairs: int
    what: str
    seconds: float
    cpu: float
    load: tuple[float, float]
    difference: str

    def print(self, heads: int, theirs_per_pair: float | None) -> None:
        """The row in Markdown; ``theirs_per_pair``: TransformerLens's CPU seconds per pair (None: not run)."""
        ratio = f"{theirs_per_pair / (self.cpu / self.pairs):.2f}" if theirs_per_pair is not None else "n/a"
        print(f"| {self.name} | {heads} | {self.pairs} | {self.what} | {self.seconds:.1f} | {self.cpu:.1f} | "
              f"{self.cpu / self.pairs:.2f} | {ratio} | {self.load[0]:.1f} → {self.load[1]:.1f} | "
              f"{self.difference} |", flush=True)


def _transformer_lens(folder: Path, loaded: Any, pairs: list[Any], ours: Any, load: Any) -> Row | None:
    """TransformerLens's row on the same folder and pairs (None where it does not import)."""
    import numpy as np
    import torch

    try:
        from transformer_lens import patching
        from transformer_lens.model_bridge import TransformerBridge
    except ImportError:
        return None
    import transformers

    from attnviz.core.patching.engine import Patcher

    with Patcher(loaded) as patcher:
        prepared = patcher.reader.prepare(pairs)
    hf = transformers.AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    bridge = TransformerBridge.boot_transformers(str(folder), hf_model=hf, tokenizer=tokenizer, device="cpu")
    clean = torch.cat([p.clean[0] for p in prepared])  # (P, S): every pair reads as the same length
    corrupt = torch.cat([p.corrupt[0] for p in prepared])
    answer, alternative = prepared[0].answer_id, prepared[0].alternative_id

    def metric(logits: torch.Tensor) -> torch.Tensor:
        return (logits[:, -1, answer] - logits[:, -1, alternative]).mean()

    begun, started, cpu = load(), time.perf_counter(), time.process_time()
    with torch.no_grad():
        _, cache = bridge.run_with_cache(clean)
        theirs = patching.get_act_patch_attn_head_out_all_pos(bridge, corrupt, cache, metric)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    difference = float(np.abs(theirs.double().numpy() - ours).max())
    return Row("TransformerLens get_act_patch_attn_head_out_all_pos", len(prepared), "denoise", seconds, cpu,
               (begun, load()), f"{difference:.2e}")


if __name__ == "__main__":
    raise SystemExit(main())
