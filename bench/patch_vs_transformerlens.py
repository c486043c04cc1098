"""attnviz's head patching against TransformerLens's ``get_act_patch_attn_head_out_all_pos`` on the same random
GPT-2-small-shaped weights (12 layers × 12 heads, width 768, 50,257 outputs): the same values, and the time of each.

    .venv/bin/python bench/patch_vs_transformerlens.py [--pairs 100] [--quick]

attnviz's row is one ``Patcher`` over the pairs: for every pair, every head's denoising, noising, pattern-only and
values-only patch (one batched pass per layer), the attribution estimate (one forward and one backward pass) and the
residual grid — more than TransformerLens's one measure. TransformerLens's row is
``get_act_patch_attn_head_out_all_pos`` on all pairs at once (its metric: the pairs' mean logit difference), one
forward pass per head. Its values are compared with the pairs' mean of attnviz's ``denoise`` metric, head by head.
TransformerLens is never a dependency of attnviz: the comparison runs where ``transformer_lens`` imports (a separate
venv that also sees attnviz's packages, e.g. ``python -m venv /work/tlvenv`` and ``pip install transformer_lens``),
and otherwise attnviz's row alone is printed.
--quick: a two-layer width-32 folder and 4 pairs (the smoke test's run). Threads: 1 (``torch.set_num_threads``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

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
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"
    import numpy as np
    import torch

    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.patching.engine import Patcher
    from attnviz.core.patching.pairs import MinimalPair

    torch.set_num_threads(1)
    count = 4 if args.quick else args.pairs
    texts = pair_texts(count)
    with tempfile.TemporaryDirectory() as tmp:
        lines = [t for pair in texts for t in pair] + [f"the {n} is {a} ." for n in NOUNS for a in ADJECTIVES]
        folder = make_folder("quick" if args.quick else "gpt2", Path(tmp) / "gpt2", lines)
        loaded = load_checkpoint(folder)
        pairs = [MinimalPair(clean, corrupt, "big", "small", n + 1) for n, (clean, corrupt) in enumerate(texts)]
        started = time.perf_counter()
        with Patcher(loaded) as patcher:
            prepared = patcher.reader.prepare(pairs)
            results = [patcher.patch_pair(p) for p in prepared]
        ours_s = time.perf_counter() - started
        kind = patcher.layout.kinds[0]
        ours = np.mean([r.metrics["denoise"][kind.kind] for r in results], axis=0)  # (L, H)
        print("| implementation | heads | pairs | what | seconds | max abs difference from attnviz |")
        print("| --- | --- | --- | --- | --- | --- |")
        heads = kind.layers * kind.heads
        print(f"| attnviz Patcher | {heads} | {len(results)} | denoise, noise, pattern, values, atp, residual | "
              f"{ours_s:.1f} | 0 |")
        try:
            from transformer_lens import patching
            from transformer_lens.model_bridge import TransformerBridge
        except ImportError as error:
            print(f"(TransformerLens not importable here: {error}; attnviz's row alone)")
            return 0
        import transformers

        hf = transformers.AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
        tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
        bridge = TransformerBridge.boot_transformers(str(folder), hf_model=hf, tokenizer=tokenizer, device="cpu")
        clean = torch.cat([p.clean[0] for p in prepared])  # (P, S): every pair reads as the same length
        corrupt = torch.cat([p.corrupt[0] for p in prepared])
        answer, alternative = prepared[0].answer_id, prepared[0].alternative_id

        def metric(logits: torch.Tensor) -> torch.Tensor:
            return (logits[:, -1, answer] - logits[:, -1, alternative]).mean()

        started = time.perf_counter()
        with torch.no_grad():
            _, cache = bridge.run_with_cache(clean)
            theirs = patching.get_act_patch_attn_head_out_all_pos(bridge, corrupt, cache, metric)
        theirs_s = time.perf_counter() - started
        difference = float(np.abs(theirs.double().numpy() - ours).max())
        print(f"| TransformerLens get_act_patch_attn_head_out_all_pos | {heads} | {len(results)} | denoise | "
              f"{theirs_s:.1f} | {difference:.2e} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
