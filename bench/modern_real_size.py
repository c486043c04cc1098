"""Today's models at their real size (issue 57 §4): a Gemma-3-270M-shaped and a Qwen3-0.6B-shaped folder — opening
it, one decoding step, the map on show after a 4,096-token prompt's pass, and ``attnviz heads --documents`` over 100
documents against the plain transformers loop.

    .venv/bin/python bench/modern_real_size.py                          # both shapes, 2 torch threads, 3 repeats
    .venv/bin/python bench/modern_real_size.py --model gemma3 --tokens 4096 --documents 100 --repeats 3
    .venv/bin/python bench/modern_real_size.py --quick                  # a tiny Gemma 3 (tests/test_bench.py)

The folders (random weights, ``save_pretrained`` from the library's config classes into a temporary folder, no
download), each with a byte-level BPE tokenizer trained on the documents (its ids are a small part of the vocabulary;
the cost of a forward pass does not depend on which ids it reads):

* ``gemma3``: Gemma-3-270M's shape from ``Gemma3TextConfig`` — 18 layers, hidden 640, 4 query heads over 1 key/value
  head of width 256, FFN 2,048, vocabulary 262,144, layers five sliding (window 512, RoPE base 10,000) to one global
  (base 1,000,000), QK-norm, 32,768 positions: 268 M parameters (tied embedding), 1.07 GB in float32;
* ``qwen3``: Qwen3-0.6B's shape from ``Qwen3Config`` — 28 layers, hidden 1,024, 16 query heads over 8 key/value heads
  of width 128, FFN 3,072, vocabulary 151,936, QK-norm, RoPE base 1,000,000, 40,960 positions: 596 M parameters
  (tied embedding), 2.38 GB in float32.

Measured, each phase in a fresh process (its peak resident memory, VmHWM, is that phase's alone), medians of
``--repeats``:

* **open**: ``load_checkpoint(folder)`` as the window and every command open a folder (transformers imported
  before the clock starts: the bench measures the folder, not the import);
* **one decoding step**: ``DecodeSession.step()`` after ``encode()`` of a 13-token prompt and its first step (the
  window's ▶ Step: one token, every layer × head's row recorded; the first step hands out the prompt pass's own
  prediction, no forward pass, and is not timed); the median of ``--repeats`` steps on 1 thread (the app's default,
  ``core/device.py``) and on ``--threads``;
* **4,096-token prompt**: ``query_keys`` of ``core/decoding/long_prompt.py`` (the window's path beyond its 448-token
  decoding cap: one forward pass keeping queries and keys), then ``prompt_map`` of the map the Attention dock shows
  first (the last layer, head 1) and of further random layers × heads (their median); peak RSS against the weights;
* **heads --documents**: ``attnviz heads --documents --format csv`` over ``--documents`` documents (the English side
  of ``../shared/data/fra-eng/fra.txt``, as bench/hf_corpus.py reads it; the app's examples without it) against
  the loop a user would write (bench/hf_corpus.py's: ``output_attentions=True`` with eager attention, one document
  at a time, the same seven per-head statistics in numpy). The bench fails unless every statistic agrees to 1e-5.

The machine may be shared: each row carries the 1-minute load average read when its process ended. Every process
runs with ``OMP_WAIT_POLICY=PASSIVE`` (what attnviz sets when it is imported; the transformers loop gets it too).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from hf_corpus import ATTNVIZ, COMPARED, LOOP, sentences  # noqa: E402  (the same loop, statistics and documents)

GEMMA3_TYPES = (["sliding_attention"] * 5 + ["full_attention"]) * 3
SIZES: dict[str, dict[str, Any]] = {
    "gemma3": dict(hidden_size=640, num_hidden_layers=18, num_attention_heads=4, num_key_value_heads=1, head_dim=256,
                   intermediate_size=2048, vocab_size=262144, sliding_window=512, layer_types=GEMMA3_TYPES,
                   max_position_embeddings=32768, query_pre_attn_scalar=256),
    "qwen3": dict(hidden_size=1024, num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8, head_dim=128,
                  intermediate_size=3072, vocab_size=151936, max_position_embeddings=40960, tie_word_embeddings=True,
                  rope_parameters={"rope_type": "default", "rope_theta": 1000000.0}),
    "quick-gemma3": dict(hidden_size=32, num_hidden_layers=6, num_attention_heads=4, num_key_value_heads=1,
                         head_dim=8, intermediate_size=64, vocab_size=1000, sliding_window=16,
                         layer_types=["sliding_attention"] * 5 + ["full_attention"], max_position_embeddings=512,
                         query_pre_attn_scalar=8),
    "quick-qwen3": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                        intermediate_size=64, vocab_size=1000, max_position_embeddings=512, tie_word_embeddings=True),
}
PROMPT = "the house is big and the houses are big too ."
CAP_S = 3600


def make_folder(model: str, folder: Path, lines: list[str], sizes: dict[str, Any]) -> float:
    """A ``save_pretrained`` folder of ``model`` (gemma3, qwen3) of ``sizes`` with random weights (seed 0) and a
    byte-level BPE tokenizer trained on ``lines``; its parameters in millions."""
    import torch
    import transformers
    from tokenizers.implementations import ByteLevelBPETokenizer

    trained = ByteLevelBPETokenizer()
    trained.train_from_iterator(lines * 3, vocab_size=min(2000, int(sizes["vocab_size"])),
                                special_tokens=["<|endoftext|>"])
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer,
                                                     eos_token="<|endoftext|>", bos_token="<|endoftext|>",
                                                     pad_token="<|endoftext|>")
    torch.manual_seed(0)
    ids = dict(bos_token_id=0, eos_token_id=0, pad_token_id=0)
    if model == "gemma3":
        net = transformers.Gemma3ForCausalLM(transformers.Gemma3TextConfig(**sizes, **ids))
    else:
        net = transformers.Qwen3ForCausalLM(transformers.Qwen3Config(**sizes, **ids))
    net.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return sum(p.numel() for p in net.parameters()) / 1e6


def _vm_hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _load() -> float:
    return os.getloadavg()[0]


def child(folder: str, tokens: int, maps: int, steps: int, threads: int) -> dict[str, float]:
    """Open ``folder``, ``steps`` decoding steps, then a ``tokens``-long prompt's pass and ``1 + maps`` maps, in this
    process: their times (s), memory (MB) and the load average."""
    import torch
    import transformers  # noqa: F401  (imported before the clock: the bench times the folder, not the import)

    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.long_prompt import prompt_map, query_keys, read_long_input
    from attnviz.core.decoding.stepping import DecodeSession

    torch.set_num_threads(threads)
    started = time.perf_counter()
    loaded = load_checkpoint(folder)
    open_s = time.perf_counter() - started
    open_load = _load()
    model_mb = sum(p.numel() * p.element_size() for p in loaded.model.parameters()) / 1e6
    opened_mb = _vm_hwm_mb()
    step_times: dict[int, list[float]] = {1: [], threads: []}
    for step_threads in step_times:  # (the app's one thread, then ``threads``)
        torch.set_num_threads(step_threads)
        session = DecodeSession(loaded, "cpu")
        session.encode(PROMPT)
        session.step()  # (the first answer token is the prompt pass's: no forward pass, not timed)
        for _ in range(steps):
            started = time.perf_counter()
            session.step()
            step_times[step_threads].append(time.perf_counter() - started)
        del session
    torch.set_num_threads(threads)
    step_load = _load()

    words = PROMPT.split()
    text = " ".join(words[i % len(words)] for i in range(2 * tokens))  # (more than ``tokens`` tokens: cut below)
    read = read_long_input(loaded, text)
    assert len(read.ids) >= tokens, (len(read.ids), tokens)
    read = dataclasses.replace(read, tokens=read.tokens[:tokens], ids=read.ids[:tokens])
    started = time.perf_counter()
    store = next(iter(query_keys(loaded, read).values()))
    forward_s = time.perf_counter() - started
    shown = (store.num_layers - 1, 0)  # (the Attention dock's first map: the last layer, head 1)
    rng = random.Random(tokens)
    asked = [shown] + [(rng.randrange(store.num_layers), rng.randrange(store.heads)) for _ in range(maps)]
    map_times = []
    for layer, head in asked:
        started = time.perf_counter()
        weights, hidden = prompt_map(store, layer, head, scores=False)
        map_times.append(time.perf_counter() - started)
        assert weights.shape == hidden.shape == (tokens, tokens)
    return dict(open_s=open_s, open_load=open_load, opened_mb=opened_mb, model_mb=model_mb,
                step_s=statistics.median(step_times[threads]), step_one_thread_s=statistics.median(step_times[1]),
                step_load=step_load, tokens=tokens, forward_s=forward_s,
                first_map_s=map_times[0], further_map_s=statistics.median(map_times[1:]) if maps else float("nan"),
                store_mb=store.nbytes / 1e6, peak_mb=_vm_hwm_mb(), maps_load=_load())


def _run(command: list[str], threads: int) -> tuple[float, str]:
    # (both commands' OpenMP threads wait passively, as attnviz sets them when it is imported: on a shared machine
    # spinning threads slow a 2-thread process down several-fold, whichever program it is)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": str(threads), "OMP_WAIT_POLICY": "PASSIVE"}
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=CAP_S, check=False)
    if done.returncode:
        raise SystemExit(f"failed: {' '.join(command)}\n{done.stderr[-3000:]}")
    return time.perf_counter() - started, done.stdout


def _described(model: str, sizes: dict[str, Any], millions: float) -> str:
    name = {"gemma3": "Gemma-3-270M shape", "qwen3": "Qwen3-0.6B shape"}.get(model, f"tiny {model}")
    return (f"{name}: {sizes['num_hidden_layers']} layers, hidden {sizes['hidden_size']}, "
            f"{sizes['num_attention_heads']} heads over {sizes['num_key_value_heads']} key/value heads of width "
            f"{sizes['head_dim']}, FFN {sizes['intermediate_size']}, vocabulary {sizes['vocab_size']}"
            + (f", window {sizes['sliding_window']} (five sliding layers to one global)" if "sliding_window" in sizes
               else "") + f": {millions:.1f} M parameters")


def bench(model: str, sizes: dict[str, Any], tokens: int, documents: int, repeats: int, maps: int,
          threads: int, quick: bool, phases: set[str]) -> None:
    """Build ``model``'s folder, run the phases (``repeats`` times each, fresh processes), print their tables."""
    with tempfile.TemporaryDirectory() as temporary:
        tmp = Path(temporary)
        lines = sentences(documents, quick)
        data = tmp / "documents.txt"
        data.write_text("\n".join(lines) + "\n", encoding="utf-8")
        folder = tmp / model
        millions = make_folder(model.removeprefix("quick-"), folder, lines, sizes)
        print(f"{_described(model, sizes, millions)}; {os.cpu_count()} CPUs, torch threads {threads}; "
              f"{repeats} repeats (medians); load: the 1-minute load average as each measurement ended "
              f"(the machine is shared)", flush=True)
        if "maps" in phases:
            rows = [child(str(folder), tokens, maps, 1, threads)] if quick else []  # (quick: in this process)
            for _ in range(0 if quick else repeats):
                _, out = _run([sys.executable, __file__, "--child", str(folder), str(tokens), "--maps", str(maps),
                               "--steps", str(repeats), "--threads", str(threads)], threads)
                rows += [json.loads(line) for line in out.splitlines() if line.startswith("{")]
                _said(rows[-1])

            def med(key: str) -> float:
                return statistics.median(r[key] for r in rows)

            print(f"| model | open (load_checkpoint) | one decoding step, 1 / {threads} threads | forward pass, "
                  f"{tokens:,}-token prompt | map on show | further map | store | model | peak RSS | peak − model |")
            print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
            print(f"| {model} | {med('open_s'):.2f} s (load {med('open_load'):.1f}) | "
                  f"{med('step_one_thread_s') * 1000:.0f} / {med('step_s') * 1000:.0f} ms "
                  f"(load {med('step_load'):.1f}) | {med('forward_s'):.1f} s | {med('first_map_s') * 1000:.0f} ms "
                  f"(load {med('maps_load'):.1f}) | {med('further_map_s') * 1000:.0f} ms | {med('store_mb'):.0f} MB "
                  f"| {med('model_mb'):.0f} MB | {med('peak_mb'):.0f} MB | {med('peak_mb') - med('model_mb'):.0f} MB |")
        if "heads" in phases:
            _heads(tmp, folder, data, model, documents, repeats, threads)


def _said(r: dict[str, float]) -> None:
    """One repeat's figures, printed as soon as its process ends (a long run shows its progress)."""
    print(f"repeat: open {r['open_s']:.2f} s, step {r['step_one_thread_s'] * 1000:.0f} / {r['step_s'] * 1000:.0f} ms "
          f"(1 / the threads), forward {r['forward_s']:.1f} s, map on "
          f"show {r['first_map_s'] * 1000:.0f} ms, further {r['further_map_s'] * 1000:.0f} ms, peak {r['peak_mb']:.0f} "
          f"MB, load {r['open_load']:.1f} / {r['step_load']:.1f} / {r['maps_load']:.1f}", flush=True)


def _heads(tmp: Path, folder: Path, data: Path, model: str, documents: int, repeats: int, threads: int) -> None:
    """``attnviz heads --documents`` and the transformers loop in turn (A B A B …); SystemExit unless they agree."""
    loop = tmp / "loop.py"
    loop.write_text(LOOP, encoding="utf-8")
    wrapper = tmp / "attnviz_rss.py"
    wrapper.write_text(ATTNVIZ, encoding="utf-8")
    results: dict[str, list[tuple[float, float, float, float]]] = {"attnviz": [], "loop": []}
    worst = 0.0
    for repeat in range(repeats):
        out, rss = tmp / f"heads{repeat}", tmp / f"rss{repeat}"
        wall, _ = _run([sys.executable, str(wrapper), str(rss), "heads", "--checkpoint", str(folder), "--data",
                        str(data), "--out", str(out), "--documents", "--no-pruning", "--format", "csv",
                        "--threads", str(threads)], threads)
        work = float(json.loads((out / "attnviz-export.json").read_text())["seconds"])
        results["attnviz"].append((wall, work, float(rss.read_text()), _load()))
        numbers = tmp / f"loop{repeat}.json"
        wall, _ = _run([sys.executable, str(loop), str(folder), str(data), str(threads), str(numbers)], threads)
        plain = json.loads(numbers.read_text())
        results["loop"].append((wall, plain["seconds"], plain["peak_mb"], _load()))
        with open(out / "heads.csv", encoding="utf-8") as handle:
            heads = list(csv.DictReader(handle))
        for index, name in enumerate(COMPARED):
            for row in heads:
                theirs = plain["means"][index][int(row["layer"]) - 1][int(row["head"]) - 1]
                worst = max(worst, abs(float(row[name]) - theirs))
        print(f"repeat: heads work {results['attnviz'][-1][1]:.1f} s (whole {results['attnviz'][-1][0]:.1f} s, load "
              f"{results['attnviz'][-1][3]:.1f}), loop work {results['loop'][-1][1]:.1f} s (whole "
              f"{results['loop'][-1][0]:.1f} s, load {results['loop'][-1][3]:.1f}), largest difference {worst:.1e}",
              flush=True)
    if worst > 1e-5:
        raise SystemExit(f"heads.csv and the transformers loop differ by {worst:.1e} (more than 1e-5)")
    print(f"heads over {documents} documents ({plain['rows']:,} tokens)")
    print("| command | whole process, s | work, s | documents/s (work) | peak RSS, MB | load |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, rows in results.items():
        wall, work, peak, load = (statistics.median(column) for column in zip(*rows, strict=True))
        what = ("attnviz heads --documents" if name == "attnviz" else
                "transformers loop, output_attentions=True (eager), one document at a time")
        rate = f"{documents / work:.1f}" if work > 0 else "under 0.1 s of work"  # (attnviz's seconds: 0.1 s steps)
        print(f"| {what} | {wall:.1f} | {work:.1f} | {rate} | {peak:.0f} | {load:.1f} |")
    print("work per repeat, s (attnviz / loop): " + ", ".join(
        f"{a[1]:.1f} / {b[1]:.1f}" for a, b in zip(results["attnviz"], results["loop"], strict=True)))
    print(f"largest difference of the statistics ({', '.join(COMPARED)}): {worst:.1e} (at most 1e-5, checked)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", choices=("gemma3", "qwen3"), nargs="+", default=["gemma3", "qwen3"])
    parser.add_argument("--tokens", type=int, default=4096, help="the long prompt's tokens")
    parser.add_argument("--documents", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--maps", type=int, default=5, help="further maps after the one on show (their median)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--phases", choices=("maps", "heads"), nargs="+", default=["maps", "heads"])
    parser.add_argument("--quick", action="store_true", help="a tiny Gemma 3 (five sliding layers, one global), "
                        "64 tokens, 6 documents, its maps in this process")
    parser.add_argument("--child", nargs=2, metavar=("FOLDER", "TOKENS"), help=argparse.SUPPRESS)
    parser.add_argument("--steps", type=int, default=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]), args.maps, args.steps, args.threads)))
        return 0
    if args.quick:  # (the smoke run of tests/test_bench.py: the shape with both kinds of layer)
        bench("quick-gemma3", SIZES["quick-gemma3"], 64, 6, 1, 2, 1, True, set(args.phases))
        return 0
    for model in args.model:
        bench(model, SIZES[model], args.tokens, args.documents, args.repeats, args.maps, args.threads, False,
              set(args.phases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
