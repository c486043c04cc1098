"""`attnviz heads --documents` on a Hugging Face folder of real size against the plain loop a user would write with
transformers: ``output_attentions=True``, one sentence at a time, the same per-head statistics in numpy.

The folder (random weights, ``save_pretrained`` from a config, built once into a temporary folder, no download):
GPT-2 small's shape (12 layers, width 768, 12 heads, vocabulary 50,257, 1,024 positions: 124 M parameters), or with
``--model llama1b`` a 1 B Llama shape (16 layers, width 2,048, 32 query heads over 8 key/value heads, FFN 8,192,
vocabulary 32,000). Its tokenizer is a byte-level BPE trained on the sentences (its ids are a small part of the
vocabulary; the cost of a forward pass does not depend on which ids it reads).

Each repeat runs both commands in turn, each in a fresh process (A B A B …), and the table gives their medians:
the whole process (start-up, imports and loading included) and the work alone (attnviz: the seconds it reports in
attnviz-export.json; the loop: from its first sentence to its last), the peak resident memory, and the largest
difference between the loop's statistics and heads.csv's (entropy, confidence, previous, same, next, sink_first,
distance: the means over every row of every sentence).

    .venv/bin/python bench/hf_corpus.py                    # GPT-2 small shape, 200 sentences, 3 repeats, 2 threads
    .venv/bin/python bench/hf_corpus.py --model llama1b --sentences 40
    .venv/bin/python bench/hf_corpus.py --quick            # a tiny GPT-2, the app's example sentences, 1 thread

Sentences: the English side of ``../shared/data/fra-eng/fra.txt`` (distinct, spread over the file: read at run time,
never stored here); with --quick or without that file, the app's example sentences.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "fra-eng" / "fra.txt"
EXAMPLES = ROOT / "resources" / "examples.txt"
SIZES = {
    "gpt2": dict(n_embd=768, n_layer=12, n_head=12, vocab_size=50257, n_positions=1024),
    "llama1b": dict(hidden_size=2048, num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8,
                    intermediate_size=8192, vocab_size=32000, max_position_embeddings=4096),
    "quick": dict(n_embd=32, n_layer=2, n_head=2, vocab_size=400, n_positions=256),
}
COMPARED = ("entropy", "confidence", "previous", "same", "next", "sink_first", "distance")
CAP_S = 3600

LOOP = r'''
import json, resource, sys, time
import numpy as np, torch, transformers
folder, data, threads, out = sys.argv[1:5]
torch.set_num_threads(int(threads))
tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
model = transformers.AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
sentences = [line.rstrip("\n") for line in open(data, encoding="utf-8") if line.strip()]
names = ("entropy", "confidence", "previous", "same", "next", "sink_first", "distance")
sums, rows = None, 0
started = time.perf_counter()
for sentence in sentences:
    ids = tokenizer(sentence, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        attentions = model(input_ids=ids, output_attentions=True).attentions
    w = torch.stack(attentions, 1)[0].double().numpy()  # (L, H, n, n)
    n = w.shape[-1]
    q = np.arange(n)
    logs = np.log(np.where(w > 0, w, 1.0))
    previous = np.zeros(w.shape[:3]); previous[..., 1:] = w[..., q[1:], q[1:] - 1]
    following = np.zeros(w.shape[:3]); following[..., :-1] = w[..., q[:-1], q[:-1] + 1]
    stats = np.stack([-(w * logs).sum(-1), w.max(-1), previous, w[..., q, q], following, w[..., 0],
                      (w * np.abs(q[:, None] - q[None, :])).sum(-1)]).sum(-1)  # (7, L, H)
    sums = stats if sums is None else sums + stats
    rows += n
seconds = time.perf_counter() - started
json.dump({"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "means": (sums / rows).tolist(), "names": names, "rows": rows}, open(out, "w"))
'''

LOOP_EXPLAIN = r"""
import json, resource, sys, time
import numpy as np, torch, transformers
from captum.attr import IntegratedGradients, Occlusion
folder, data, threads, out, steps = sys.argv[1:6]
torch.set_num_threads(int(threads))
tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
model = transformers.AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
embedding = model.get_input_embeddings()
pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
unk = tokenizer.unk_token_id if tokenizer.unk_token_id is not None else tokenizer.eos_token_id
sentences = [line.rstrip("\n") for line in open(data, encoding="utf-8") if line.strip()]

def tau(x, y):  # Kendall's tau-b
    i, j = np.triu_indices(len(x), 1)
    sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    d = np.sqrt((sx * sx).sum() * (sy * sy).sum())
    return float((sx * sy).sum() / d) if d > 0 else float("nan")

pairs = {"attention,ig": [], "attention,occlusion": [], "ig,occlusion": []}
rows = []
started = time.perf_counter()
for sentence in sentences:
    prompt = tokenizer(sentence, return_tensors="pt")["input_ids"]
    answer = model.generate(prompt, do_sample=False, num_beams=1, pad_token_id=pad)[0, prompt.shape[1]:].tolist()
    for t, token in enumerate(answer):
        ids = torch.cat([prompt, torch.tensor([answer[:t]], dtype=torch.long)], 1)
        with torch.no_grad():
            attention = model(input_ids=ids, output_attentions=True).attentions[-1][0, :, -1, : prompt.shape[1]]
        attention = attention.mean(0).double().numpy()  # the last layer, heads averaged, over the prompt
        fixed = embedding(torch.tensor([answer[:t]], dtype=torch.long)).detach()

        def f(prompt_embeds):
            full = torch.cat([prompt_embeds, fixed.expand(prompt_embeds.shape[0], -1, -1)], 1)
            return torch.log_softmax(model(inputs_embeds=full).logits[:, -1], -1)[:, token]

        inputs = embedding(prompt).detach()
        baseline = embedding(torch.full_like(prompt, pad)).detach()
        ig = IntegratedGradients(f).attribute(inputs, baselines=baseline, n_steps=int(steps))[0].sum(-1)
        unk_row = embedding(torch.tensor([unk])).detach()[0]
        with torch.no_grad():
            occlusion = Occlusion(f).attribute(inputs, sliding_window_shapes=(1, inputs.shape[-1]),
                                               baselines=unk_row)[0, :, 0]
        ig, occlusion = ig.detach().double().numpy(), occlusion.double().numpy()
        for name, (a, b) in {"attention,ig": (attention, ig), "attention,occlusion": (attention, occlusion),
                             "ig,occlusion": (ig, occlusion)}.items():
            pairs[name].append(tau(a, b))
        rows.append({"attention": attention.tolist(), "ig": ig.tolist(), "occlusion": occlusion.tolist()})
seconds = time.perf_counter() - started
means = {k: float(np.nanmean(v)) for k, v in pairs.items()}
json.dump({"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "tau_means": means, "rows": rows, "tokens": len(rows)}, open(out, "w"))
"""

ATTNVIZ = r'''
import resource, runpy, sys
out = sys.argv.pop(1)
sys.argv[0] = "attnviz"
try:
    runpy.run_module("attnviz", run_name="__main__")
except SystemExit as done:
    code = done.code
open(out, "w").write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
sys.exit(code)
'''


def sentences(count: int, quick: bool) -> list[str]:
    """``count`` distinct English sentences spread over fra.txt (the examples with --quick or without it)."""
    if quick or not DATA.exists():
        lines = [line.strip() for line in EXAMPLES.read_text(encoding="utf-8").splitlines() if line.strip()]
        return (lines * (count // max(1, len(lines)) + 1))[:count]
    english = list(dict.fromkeys(line.split("\t")[0] for line in DATA.read_text(encoding="utf-8").splitlines()
                                 if line.strip()))
    step = max(1, len(english) // count)
    return english[::step][:count]


def make_folder(model: str, folder: Path, lines: list[str], new_tokens: int | None = None) -> tuple[Path, float]:
    """A save_pretrained folder of ``model``'s shape (random weights, seed 0) and its parameters in millions;
    new_tokens: the folder's own limit of new tokens a continuation (generation_config.max_new_tokens)."""
    import torch
    import transformers
    from tokenizers.implementations import ByteLevelBPETokenizer

    trained = ByteLevelBPETokenizer()
    trained.train_from_iterator(lines * 3, vocab_size=2000, special_tokens=["<|endoftext|>"])
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer,
                                                     eos_token="<|endoftext|>", bos_token="<|endoftext|>",
                                                     pad_token="<|endoftext|>")
    torch.manual_seed(0)
    if model == "llama1b":
        net = transformers.LlamaForCausalLM(transformers.LlamaConfig(**SIZES[model], bos_token_id=0, eos_token_id=0,
                                                                     pad_token_id=0))
    else:
        net = transformers.GPT2LMHeadModel(transformers.GPT2Config(**SIZES[model], bos_token_id=0, eos_token_id=0))
    if new_tokens is not None:
        net.generation_config.max_new_tokens = new_tokens
    net.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder, sum(p.numel() for p in net.parameters()) / 1e6


def run(command: list[str], threads: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": str(threads)}
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=CAP_S)
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{done.stderr[-3000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU_SECONDS.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return time.perf_counter() - started


CPU_SECONDS: list[float] = []  # each run()'s process: user + system CPU seconds (the whole process)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", choices=("gpt2", "llama1b"), default="gpt2")
    parser.add_argument("--sentences", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, help="torch threads of each command (default 2; --quick: 1, a smoke "
                        "run beside the test suite's other worker)")
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument("--command", choices=("heads", "explain"), default="heads",
                        help="heads --documents (default), or explain (every token of a greedy continuation)")
    parser.add_argument("--ig-steps", type=int, default=32, help="explain: integrated gradients' steps")
    parser.add_argument("--new-tokens", type=int, default=8, help="explain: new tokens a continuation")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.threads is None:
        args.threads = 1 if args.quick else 2
    if args.command == "explain" or args.quick:
        code = explain_bench(args)
        if args.command == "explain":
            return code
    model = "quick" if args.quick else args.model
    count = 12 if args.quick else args.sentences
    repeats = 1 if args.quick else args.repeats
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        lines = sentences(count, args.quick)
        data = tmp / "sentences.txt"
        data.write_text("\n".join(lines) + "\n", encoding="utf-8")
        folder, millions = make_folder("gpt2" if model == "quick" else model, tmp / "model", lines) \
            if model != "quick" else _quick(tmp / "model", lines)
        loop = tmp / "loop.py"
        loop.write_text(LOOP, encoding="utf-8")
        wrapper = tmp / "attnviz_rss.py"
        wrapper.write_text(ATTNVIZ, encoding="utf-8")
        results: dict[str, list[tuple[float, float, float]]] = {"attnviz": [], "loop": []}
        worst = 0.0
        for repeat in range(repeats):
            out = tmp / f"out{repeat}"
            rss = tmp / f"rss{repeat}"
            wall = run([sys.executable, str(wrapper), str(rss), "heads", "--checkpoint", str(folder), "--data",
                        str(data), "--out", str(out), "--documents", "--no-pruning", "--format", "csv",
                        "--threads", str(args.threads), "--batch-size", str(args.batch_size)], args.threads)
            work = json.loads((out / "attnviz-export.json").read_text())["seconds"]
            results["attnviz"].append((wall, float(work), float(rss.read_text())))
            numbers = tmp / f"loop{repeat}.json"
            wall = run([sys.executable, str(loop), str(folder), str(data), str(args.threads), str(numbers)],
                       args.threads)
            plain = json.loads(numbers.read_text())
            results["loop"].append((wall, plain["seconds"], plain["peak_mb"]))
            with open(out / "heads.csv", encoding="utf-8") as handle:
                heads = list(csv.DictReader(handle))
            for index, name in enumerate(COMPARED):
                for row in heads:
                    theirs = plain["means"][index][int(row["layer"]) - 1][int(row["head"]) - 1]
                    worst = max(worst, abs(float(row[name]) - theirs))
        label = {"gpt2": "GPT-2 small shape", "llama1b": "Llama 1 B shape", "quick": "tiny GPT-2"}[model]
        print(f"{label}: {millions:.1f} M parameters, {count} sentences ({plain['rows']:,} tokens), "
              f"{args.threads} threads, {repeats} repeats (medians)")
        print("| command | whole process, s | work, s | sentences/s (work) | peak RSS, MB |")
        print("| --- | --- | --- | --- | --- |")
        for name, rows in results.items():
            wall, work, peak = (statistics.median(column) for column in zip(*rows, strict=True))
            what = (f"attnviz heads --documents --batch-size {args.batch_size}" if name == "attnviz" else
                    "transformers loop, output_attentions=True, one sentence at a time")
            rate = f"{count / work:.1f}" if work > 0 else "under 0.1 s of work"  # (attnviz's seconds: 0.1 s steps)
            print(f"| {what} | {wall:.1f} | {work:.1f} | {rate} | {peak:.0f} |")
        print(f"largest difference of the statistics ({', '.join(COMPARED)}): {worst:.1e}")
    return 0


def explain_bench(args: argparse.Namespace) -> int:
    """``attnviz explain`` (batched) against the transformers + Captum loop, side by side, on the same folder."""
    model = "quick" if args.quick else args.model
    count, repeats = (2, 1) if args.quick else (args.sentences, args.repeats)
    steps, new = (4, 3) if args.quick else (args.ig_steps, args.new_tokens)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        lines = sentences(count, args.quick)
        data = tmp / "sentences.txt"
        data.write_text("\n".join(lines) + "\n", encoding="utf-8")
        folder, millions = _quick(tmp / "model", lines, new) if model == "quick" else \
            make_folder(model, tmp / "model", lines, new)
        loop = tmp / "loop_explain.py"
        loop.write_text(LOOP_EXPLAIN, encoding="utf-8")
        wrapper = tmp / "attnviz_rss.py"
        wrapper.write_text(ATTNVIZ, encoding="utf-8")
        results: dict[str, list[tuple[float, float, float]]] = {"attnviz": [], "three": [], "loop": []}
        cpu: dict[str, list[float]] = {"attnviz": [], "three": [], "loop": []}
        worst_mean = 0.0
        for repeat in range(repeats):
            out, rss = tmp / f"explained{repeat}", tmp / f"explain_rss{repeat}"
            wall = run([sys.executable, str(wrapper), str(rss), "explain", "--checkpoint", str(folder), "--data",
                        str(data), "--out", str(out), "--format", "csv", "--threads", str(args.threads),
                        "--ig-steps", str(steps), "--batch-size", str(args.batch_size)], args.threads)
            sidecar = json.loads((out / "attnviz-export.json").read_text())
            results["attnviz"].append((wall, float(sidecar["seconds"]), float(rss.read_text())))
            cpu["attnviz"].append(CPU_SECONDS[-1])
            three = tmp / f"explained_three{repeat}"
            wall = run([sys.executable, str(wrapper), str(rss), "explain", "--checkpoint", str(folder), "--data",
                        str(data), "--out", str(three), "--format", "csv", "--threads", str(args.threads),
                        "--ig-steps", str(steps), "--batch-size", str(args.batch_size), "--methods",
                        "attention,ig,occlusion"], args.threads)
            seconds = float(json.loads((three / "attnviz-export.json").read_text())["seconds"])
            results["three"].append((wall, seconds, float(rss.read_text())))
            cpu["three"].append(CPU_SECONDS[-1])
            numbers = tmp / f"explain_loop{repeat}.json"
            wall = run([sys.executable, str(loop), str(folder), str(data), str(args.threads), str(numbers),
                        str(steps)], args.threads)
            plain = json.loads(numbers.read_text())
            results["loop"].append((wall, plain["seconds"], plain["peak_mb"]))
            cpu["loop"].append(CPU_SECONDS[-1])
            with open(out / "agreement.csv", encoding="utf-8") as handle:
                means = {(r["method_a"], r["method_b"]): float(r["tau_mean"]) for r in csv.DictReader(handle)}
            for pair, mean in plain["tau_means"].items():
                worst_mean = max(worst_mean, abs(means[tuple(pair.split(","))] - mean))
        worst_rows, worst_tau, checked = _explained_rows_against_loop(folder, lines[:2], plain["rows"], steps,
                                                                      args.threads)
        label = {"gpt2": "GPT-2 small shape", "llama1b": "Llama 1 B shape", "quick": "tiny GPT-2"}[model]
        print(f"{label}: {millions:.1f} M parameters, {count} sentences, {sidecar['tokens']} explained tokens "
              f"({new} new tokens a sentence), integrated gradients {steps} steps, {args.threads} threads, "
              f"{repeats} repeats (medians)")
        print("| command | whole process, s | work, s | sentences/s (work) | peak RSS, MB | CPU, s (whole process) |")
        print("| --- | --- | --- | --- | --- | --- |")
        for name, rows in results.items():
            wall, work, peak = (statistics.median(column) for column in zip(*rows, strict=True))
            what = {"attnviz": f"attnviz explain --batch-size {args.batch_size} (ten methods)",
                    "three": f"attnviz explain --batch-size {args.batch_size} --methods attention,ig,occlusion",
                    "loop": "transformers + Captum loop: attention, IntegratedGradients, Occlusion, one sentence at a "
                            "time"}[name]
            rate = f"{count / work:.3g}" if work > 0 else "under 0.1 s of work"  # (attnviz's seconds: 0.1 s steps)
            print(f"| {what} | {wall:.1f} | {work:.1f} | {rate} | {peak:.0f} | {statistics.median(cpu[name]):.1f} |")
        print("work per repeat, s (ten methods / three / loop): " + ", ".join(
            f"{a[1]:.1f} / {b[1]:.1f} / {c[1]:.1f}"
            for a, b, c in zip(results["attnviz"], results["three"], results["loop"], strict=True)))
        print(f"largest difference, the loop against attnviz's core on {checked} tokens: attention, ig and occlusion "
              f"rows {worst_rows:.1e}, their τ per token {worst_tau:.1e}; the loop's τ means against agreement.csv "
              f"(4 decimals) {worst_mean:.1e}")
    return 0


def _explained_rows_against_loop(folder: Path, lines: list[str], rows: list[dict], steps: int, threads: int
                                 ) -> tuple[float, float, int]:
    """attnviz's core (:func:`explain_continuation`, in this process) on the first sentences against the loop's rows
    of the same tokens: the largest differences of the rows and of the per-token τ of their three pairs."""
    import torch

    sys.path.insert(0, str(ROOT))
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.beam_search import translate
    from attnviz.core.explain import kendall_tau
    from attnviz.core.explain.causal import explain_continuation
    from attnviz.core.text import source_words

    torch.set_num_threads(threads)
    loaded = load_checkpoint(folder)
    vocab = loaded.src_vocab
    worst_rows = worst_tau = 0.0
    at = 0
    for line in lines:
        split = source_words(line, vocab, loaded.config.max_src_len)
        output = translate(loaded.model, [split], vocab, loaded.tgt_vocab, torch.device("cpu"), beam_size=1)[0]
        tokens = [*output, vocab.tokens[vocab.eos_id]] if len(output) < loaded.config.max_tgt_len else output
        for explanation in explain_continuation(loaded, list(split.ids or ()), split.words, tokens, ig_steps=steps):
            theirs = rows[at]
            at += 1
            for name in ("attention", "ig", "occlusion"):
                worst_rows = max(worst_rows, float(abs(explanation.row(name) - theirs[name]).max()))
            for a, b in (("attention", "ig"), ("attention", "occlusion"), ("ig", "occlusion")):
                mine = explanation.kendall[explanation.methods.index(a), explanation.methods.index(b)]
                other = kendall_tau(theirs[a], theirs[b])
                if mine == mine or other == other:  # (both NaN: no order in either)
                    worst_tau = max(worst_tau, abs(mine - other))
    return worst_rows, worst_tau, at


def _quick(folder: Path, lines: list[str], new_tokens: int | None = None) -> tuple[Path, float]:
    import torch
    import transformers
    from tokenizers.implementations import ByteLevelBPETokenizer

    trained = ByteLevelBPETokenizer()
    trained.train_from_iterator(lines, vocab_size=300, special_tokens=["<|endoftext|>"])
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer,
                                                     eos_token="<|endoftext|>", bos_token="<|endoftext|>",
                                                     pad_token="<|endoftext|>")
    torch.manual_seed(0)
    net = transformers.GPT2LMHeadModel(transformers.GPT2Config(**SIZES["quick"], bos_token_id=0, eos_token_id=0))
    if new_tokens is not None:
        net.generation_config.max_new_tokens = new_tokens
    net.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder, sum(p.numel() for p in net.parameters()) / 1e6


if __name__ == "__main__":
    sys.exit(main())
