"""Maps on demand over long inputs (issue 49 §1): a Hugging Face folder's forward pass that keeps queries and keys,
then any layer × head map computed when asked for — times and peak memory at 512 … 4,096 tokens.

    .venv/bin/python bench/long_maps.py                      # Llama: 512, 1,024, 2,048, 4,096 tokens; 2 torch threads
    .venv/bin/python bench/long_maps.py --tokens 4096 --maps 9
    .venv/bin/python bench/long_maps.py --model bert         # BERT-base shape: 512, 1,024, 2,048 tokens
    .venv/bin/python bench/long_maps.py --model marian       # Marian opus-mt shape: 1,024 source + 1,024 target
    .venv/bin/python bench/long_maps.py --quick              # tiny models, in this process (tests/test_bench.py)

The folders (random weights, ``save_pretrained`` from a config, built once into a temporary folder, no download):

* ``llama``: hidden 1,024, 16 layers, 16 query heads over 4 key/value heads (width 64), FFN 2,816 (Llama's ratio),
  vocabulary 32,000, 4,096 positions — 246 M parameters, 984 MB in float32;
* ``bert``: BERT-base's shape (hidden 768, 12 layers, 12 heads, FFN 3,072, vocabulary 30,522) with 2,048 positions
  — 111 M parameters with its masked-language-model head (the pass runs the base model: no S × V logits);
* ``marian``: opus-mt's shape (hidden 512, 6 + 6 layers, 8 heads, FFN 2,048, vocabulary 58,101) with 1,024
  positions — 74 M parameters; the source and the target (teacher-forced) each ``--tokens`` long.

Each length runs in a fresh process (its peak resident memory, VmHWM, is that length's alone): it opens the folder
as attnviz does (``HFCausal``, ``HFEncoder``, ``HFEncoderDecoder``: attnviz's registered attention), runs the model's
``query_keys`` over random ids once (the forward pass with recording), then computes maps of random layers × heads
with ``QueryKeyStore.map``: the first, and the median of the further ones (for Marian, of each kind: encoder self,
decoder self, cross). "store" is what the stores hold (queries, keys, the masks); "all maps" what recording every map
would take (weights only, float32: the 1 GB cap of ``core/limits.py`` refuses more).
"""

from __future__ import annotations

import argparse
import contextlib
import io
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
    "quick-llama": dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                        intermediate_size=128, vocab_size=1000, max_position_embeddings=256),
    "bert": dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
                 vocab_size=30522, max_position_embeddings=2048),
    "quick-bert": dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                       vocab_size=1000, max_position_embeddings=128),
    "marian": dict(d_model=512, encoder_layers=6, decoder_layers=6, encoder_attention_heads=8,
                   decoder_attention_heads=8, encoder_ffn_dim=2048, decoder_ffn_dim=2048, vocab_size=58101,
                   max_position_embeddings=1024),
    "quick-marian": dict(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                         decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, vocab_size=1000,
                         max_position_embeddings=128),
}
TOKENS = {"llama": [512, 1024, 2048, 4096], "bert": [512, 1024, 2048], "marian": [1024]}
QUICK_TOKENS = {"llama": [128], "bert": [96], "marian": [64]}


def make_folder(folder: Path, model: str, sizes: dict[str, int]) -> int:
    """A random ``model`` folder (llama, bert, marian) of ``sizes`` saved in ``folder``; its parameter count."""
    import torch
    import transformers

    torch.manual_seed(0)
    if model == "bert":
        made = transformers.BertForMaskedLM(transformers.BertConfig(**sizes, pad_token_id=0))
    elif model == "marian":
        made = transformers.MarianMTModel(transformers.MarianConfig(**sizes, pad_token_id=0, eos_token_id=1,
                                                                    decoder_start_token_id=0))
    else:
        made = transformers.LlamaForCausalLM(transformers.LlamaConfig(**sizes, bos_token_id=1, eos_token_id=2,
                                                                      pad_token_id=0))
    made.save_pretrained(folder)
    return sum(p.numel() for p in made.parameters())


def _vm_hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _opened(folder: str) -> tuple[object, object]:
    """The folder's transformers model and attnviz's wrapper of it (its registered attention)."""
    import transformers

    model_type = transformers.AutoConfig.from_pretrained(folder).model_type
    if model_type == "bert":
        from attnviz.core.hf.encoder import HFEncoder

        model = transformers.BertForMaskedLM.from_pretrained(folder)
        return model, HFEncoder(model, model.config)
    if model_type == "marian":
        from attnviz.core.hf.seq2seq import HFEncoderDecoder

        model = transformers.MarianMTModel.from_pretrained(folder)
        return model, HFEncoderDecoder(model, model.config)
    from attnviz.core.hf.causal import HFCausal

    model = transformers.AutoModelForCausalLM.from_pretrained(folder)
    return model, HFCausal(model, model.config, pad_id=0)


def child(folder: str, tokens: int, maps: int, threads: int) -> None:
    """One length in this process: print a JSON line per kind of its times and memory."""
    import random

    import torch

    torch.set_num_threads(threads)
    model, wrapper = _opened(folder)
    model_bytes = sum(p.numel() * p.element_size() for p in model.parameters())  # type: ignore[attr-defined]
    loaded_mb = _vm_hwm_mb()
    vocab = model.config.vocab_size  # type: ignore[attr-defined]
    ids = torch.randint(3, vocab, (1, tokens), generator=torch.Generator().manual_seed(tokens))
    seq2seq = model.config.model_type == "marian"  # type: ignore[attr-defined]
    started = time.perf_counter()
    if seq2seq:  # the source and a teacher-forced target, each ``tokens`` long
        target = torch.randint(3, vocab, (1, tokens), generator=torch.Generator().manual_seed(tokens + 1))
        target[0, 0] = 0
        stores = dict(wrapper.query_keys(ids, torch.tensor([tokens]), target))  # type: ignore[attr-defined]
    else:
        stores = {"self": wrapper.query_keys(ids, torch.tensor([tokens]))}  # type: ignore[attr-defined]
    forward_s = time.perf_counter() - started
    rng = random.Random(tokens)
    rows = []
    for kind, store in stores.items():
        times = []
        for _ in range(1 + maps):
            layer, head = rng.randrange(store.num_layers), rng.randrange(store.heads)
            started = time.perf_counter()
            weights = store.map(layer, head)
            times.append(time.perf_counter() - started)
            assert weights.shape == (store.positions, store.key_positions)
        rows.append(dict(kind=getattr(kind, "name", kind), first_s=times[0], further_s=statistics.median(times[1:]),
                         cells=store.num_layers * store.heads * store.positions * store.key_positions))
    store_mb = sum(store.nbytes for store in stores.values()) / 1e6
    for row in rows:
        print(json.dumps(dict(row, tokens=tokens, seq2seq=seq2seq, forward_s=forward_s, peak_mb=_vm_hwm_mb(),
                              loaded_mb=loaded_mb, model_mb=model_bytes / 1e6, store_mb=store_mb,
                              all_maps_gb=4 * sum(r["cells"] for r in rows) / 1e9)))


def _described(model: str, sizes: dict[str, int], parameters: int) -> str:
    if model == "bert":
        return (f"random BERT: hidden {sizes['hidden_size']}, {sizes['num_hidden_layers']} layers, "
                f"{sizes['num_attention_heads']} heads, FFN {sizes['intermediate_size']}, vocabulary "
                f"{sizes['vocab_size']}, {sizes['max_position_embeddings']} positions: {parameters / 1e6:.0f} M "
                f"parameters (with its masked-language-model head)")
    if model == "marian":
        return (f"random Marian: hidden {sizes['d_model']}, {sizes['encoder_layers']} + {sizes['decoder_layers']} "
                f"layers, {sizes['encoder_attention_heads']} heads, FFN {sizes['encoder_ffn_dim']}, vocabulary "
                f"{sizes['vocab_size']}, {sizes['max_position_embeddings']} positions: {parameters / 1e6:.0f} M "
                f"parameters; source and target each as long as the row says")
    return (f"random Llama: hidden {sizes['hidden_size']}, {sizes['num_hidden_layers']} layers, "
            f"{sizes['num_attention_heads']} query heads over {sizes['num_key_value_heads']} key/value heads, FFN "
            f"{sizes['intermediate_size']}, vocabulary {sizes['vocab_size']}: {parameters / 1e6:.0f} M parameters")


def bench(model: str, sizes: dict[str, int], tokens: list[int], maps: int, threads: int,
          in_process: bool = False) -> int:
    """Build ``model``'s folder, run each length in its own process (in_process: in this one, for a smoke run whose
    figures nobody reads: no process to start that imports torch and transformers again), print the table."""
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / model
        parameters = make_folder(folder, model, sizes)
        rows = []
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        for length in tokens:
            if in_process:
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    child(str(folder), length, maps, threads)
                rows += [json.loads(line) for line in printed.getvalue().splitlines() if line.startswith("{")]
                continue
            done = subprocess.run([sys.executable, __file__, "--child", str(folder), str(length), "--maps",
                                   str(maps), "--threads", str(threads)], capture_output=True, text=True,
                                  env=env, check=False)
            if done.returncode:
                print(done.stderr[-3000:], file=sys.stderr)
                return 1
            rows += [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    where = "every length in this process" if in_process else "one process per length"
    print(f"{os.cpu_count()} CPUs, torch threads {threads}; {_described(model, sizes, parameters)}; {where}; "
          f"maps: the first, then the median of {maps}")
    print("| tokens | forward pass with recording | first map | further map | store | all maps would be "
          "| model | peak RSS | peak − model |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    kinds = {"ENCODER_SELF": "encoder self", "DECODER_SELF": "decoder self", "CROSS": "cross"}
    for r in rows:
        length = f"{r['tokens']:,} + {r['tokens']:,}, {kinds[r['kind']]}" if r["seq2seq"] else f"{r['tokens']:,}"
        print(f"| {length} | {r['forward_s']:.2f} s | {r['first_s'] * 1000:.0f} ms | "
              f"{r['further_s'] * 1000:.0f} ms | {r['store_mb']:.0f} MB | {r['all_maps_gb']:.2f} GB | "
              f"{r['model_mb']:.0f} MB | {r['peak_mb']:.0f} MB | {r['peak_mb'] - r['model_mb']:.0f} MB |")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", choices=["llama", "bert", "marian"], default="llama")
    parser.add_argument("--tokens", type=int, nargs="+", help="lengths (default: the model's row set; Marian: the "
                        "source's and the target's each)")
    parser.add_argument("--maps", type=int, default=5, help="further maps after the first (their median is shown)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="tiny Llama, BERT and Marian, short inputs, 1 thread, "
                        "in this process")
    parser.add_argument("--child", nargs=2, metavar=("FOLDER", "TOKENS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.maps, args.threads)
        return 0
    if args.quick:
        return max(bench(model, SIZES[f"quick-{model}"], QUICK_TOKENS[model], 2, 1, in_process=True)
                   for model in QUICK_TOKENS)
    return bench(args.model, SIZES[args.model], args.tokens or TOKENS[args.model], args.maps, args.threads)


if __name__ == "__main__":
    sys.exit(main())
