"""Maps on demand over long prompts (issue 49 §1): a Llama-shaped folder's forward pass that keeps queries and keys,
then any layer × head map computed when asked for — times and peak memory at 512 … 4,096 tokens.

    .venv/bin/python bench/long_maps.py                      # 512, 1,024, 2,048, 4,096 tokens; 2 torch threads
    .venv/bin/python bench/long_maps.py --tokens 4096 --maps 9
    .venv/bin/python bench/long_maps.py --quick              # a tiny Llama, 64 and 128 tokens (tests/test_bench.py)

The folder (random weights, ``save_pretrained`` from a ``LlamaConfig``, built once into a temporary folder, no
download): hidden 1,024, 16 layers, 16 query heads over 4 key/value heads (width 64), FFN 2,816 (Llama's ratio),
vocabulary 32,000, 4,096 positions — 246 M parameters, 984 MB in float32. Each length runs in a fresh process
(its peak resident memory, VmHWM, is that length's alone): it opens the folder as attnviz does a decoder-only one
(``HFCausal``, attnviz's registered attention), runs ``HFCausal.query_keys`` over random ids once (the forward pass
with recording), then computes maps of random layers × heads with ``QueryKeyStore.map``: the first, and the median
of the further ones. "store" is what the store holds (queries, keys, the mask); "all maps" what recording every
map would take (weights only, float32: the 1 GB cap of ``core/limits.py`` refuses more).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = {
    "llama": dict(hidden_size=1024, num_hidden_layers=16, num_attention_heads=16, num_key_value_heads=4,
                  intermediate_size=2816, vocab_size=32000, max_position_embeddings=4096),
    "quick": dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                  intermediate_size=128, vocab_size=1000, max_position_embeddings=256),
}


def make_folder(folder: Path, sizes: dict[str, int]) -> int:
    """A random Llama folder of ``sizes`` saved in ``folder``; its parameter count."""
    import torch
    import transformers

    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**sizes, bos_token_id=1, eos_token_id=2,
                                                                   pad_token_id=0))
    model.save_pretrained(folder)
    return sum(p.numel() for p in model.parameters())


def _vm_hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(folder: str, tokens: int, maps: int, threads: int) -> None:
    """One length in this process: print a JSON line of its times and memory."""
    import random

    import torch
    import transformers

    from attnviz.core.hf.causal import HFCausal

    torch.set_num_threads(threads)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder)
    causal = HFCausal(model, model.config, pad_id=0)
    model_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    loaded_mb = _vm_hwm_mb()
    ids = torch.randint(3, model.config.vocab_size, (1, tokens), generator=torch.Generator().manual_seed(tokens))
    started = time.perf_counter()
    store = causal.query_keys(ids, torch.tensor([tokens]))
    forward_s = time.perf_counter() - started
    rng = random.Random(tokens)
    times = []
    for _ in range(1 + maps):
        layer, head = rng.randrange(store.num_layers), rng.randrange(store.heads)
        started = time.perf_counter()
        weights = store.map(layer, head)
        times.append(time.perf_counter() - started)
        assert weights.shape == (tokens, tokens)
    cells = store.num_layers * store.heads * tokens * tokens
    print(json.dumps(dict(tokens=tokens, forward_s=forward_s, first_s=times[0], further_s=statistics.median(times[1:]),
                          peak_mb=_vm_hwm_mb(), loaded_mb=loaded_mb, model_mb=model_bytes / 1e6,
                          store_mb=store.nbytes / 1e6, all_maps_gb=4 * cells / 1e9)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, nargs="+", default=[512, 1024, 2048, 4096])
    parser.add_argument("--maps", type=int, default=5, help="further maps after the first (their median is shown)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="a tiny Llama, 64 and 128 tokens, 1 thread")
    parser.add_argument("--child", nargs=2, metavar=("FOLDER", "TOKENS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.maps, args.threads)
        return 0
    if args.quick:
        args.tokens, args.maps, args.threads = [64, 128], 2, 1
    sizes = SIZES["quick" if args.quick else "llama"]
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / "llama"
        parameters = make_folder(folder, sizes)
        rows = []
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        for tokens in args.tokens:
            done = subprocess.run([sys.executable, __file__, "--child", str(folder), str(tokens), "--maps",
                                   str(args.maps), "--threads", str(args.threads)], capture_output=True, text=True,
                                  env=env, check=False)
            if done.returncode:
                print(done.stderr[-3000:], file=sys.stderr)
                return 1
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"{os.cpu_count()} CPUs, torch threads {args.threads}; random Llama: hidden {sizes['hidden_size']}, "
          f"{sizes['num_hidden_layers']} layers, {sizes['num_attention_heads']} query heads over "
          f"{sizes['num_key_value_heads']} key/value heads, FFN {sizes['intermediate_size']}, vocabulary "
          f"{sizes['vocab_size']}: {parameters / 1e6:.0f} M parameters; one process per length; maps: the first, "
          f"then the median of {args.maps}")
    print("| tokens | forward pass with recording | first map | further map | store | all maps would be "
          "| model | peak RSS | peak − model |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['tokens']:,} | {r['forward_s']:.2f} s | {r['first_s'] * 1000:.0f} ms | "
              f"{r['further_s'] * 1000:.0f} ms | {r['store_mb']:.0f} MB | {r['all_maps_gb']:.2f} GB | "
              f"{r['model_mb']:.0f} MB | {r['peak_mb']:.0f} MB | {r['peak_mb'] - r['model_mb']:.0f} MB |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
