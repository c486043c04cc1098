"""`attnviz heads`' statistics and importance pass with 1 and with 2 processes (torchrun, one thread each), and
the peak memory of each process for N and 10 N sentences.

The 1-process and 2-process runs alternate, ``--repeats`` times, in one run of this script (medians side by side:
the ratio compares like with like). Each process times :func:`attnviz.core.heads.compute_atlas` between two
barriers and reports its peak resident memory (``getrusage``: the whole process, model and imports included).
Throughput: the first N held-out sentences of the shipped Transformer (``attnviz eval --heldout``'s split, with
their references). Memory: N and 10 N English sentences spread over the corpus (10 N is more than the held-out
set has), with their references.

    .venv/bin/python bench/heads.py                  # N = 1,000, 3 repeats
    .venv/bin/python bench/heads.py --quick          # the app's example sentences, no corpus needed

Needs ``../shared/data/fra-eng/fra.txt`` except with --quick (its lines are read at run time, never stored here).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "fra-eng" / "fra.txt"
CHECKPOINT = ROOT / "models" / "transformer.safetensors"
MEMORY_WORDS = 10  # the memory runs' longest sentence
CAP_S = 1800  # a child that takes longer is stopped (the bench fails loudly, never hangs)


def worker(data: Path, out: Path) -> None:
    """One process of a run: the atlas's decoding, statistics and importance over its share of ``data``."""
    import torch

    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.heads import compute_atlas, read_corpus
    from attnviz.core.heads.distributed import reducer_from_environment

    torch.set_num_threads(1)
    loaded = load_checkpoint(CHECKPOINT)
    corpus = read_corpus(data)
    with reducer_from_environment(torch.device("cpu")) as reducer:
        reducer.agree()
        started = time.perf_counter()
        atlas = compute_atlas(loaded, corpus, None, "cpu", reducer=reducer)
        reducer.agree()
        seconds = time.perf_counter() - started
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        (out / f"rank{reducer.rank}.json").write_text(json.dumps(
            {"rank": reducer.rank, "seconds": seconds, "peak_mb": peak_mb, "sentences": atlas.sentences}))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run(data: Path, processes: int) -> tuple[float, list[float], int]:
    """(seconds of the slowest process, each process's peak MB, sentences) of one run."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory() as folder:
        me = [str(Path(__file__).resolve()), "--worker", str(data), folder]
        command = [sys.executable, *me] if processes == 1 else [
            sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(processes), "--master-addr",
            "127.0.0.1", "--master-port", str(_free_port()), *me]
        subprocess.run(command, env=env, cwd=ROOT, check=True, timeout=CAP_S, capture_output=True)
        reports = [json.loads(p.read_text()) for p in sorted(Path(folder).glob("rank*.json"))]
    assert len(reports) == processes
    return max(r["seconds"] for r in reports), [r["peak_mb"] for r in reports], reports[0]["sentences"]


def heldout_pairs(count: int) -> list[str]:
    """The first ``count`` held-out sources of the shipped Transformer, each with its references (source<TAB>ref)."""
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.training.data import group_references, training_split

    options = load_checkpoint(CHECKPOINT).training["options"]
    _, pairs = training_split(DATA, options.get("max_src_tokens"), options.get("max_tgt_tokens"),
                              int(options.get("val_sources", 0)), int(options.get("seed", 0)))
    refs = group_references(pairs)
    return [f"{' '.join(s)}\t{' '.join(r)}" for s in list(refs)[:count] for r in refs[s]]


def spread_pairs(count: int) -> list[str]:
    """``count`` distinct English sentences of at most ten words with a translation of at most twenty (as the
    held-out set's), spread over the corpus: N and 10 N sentences of the same lengths, only their number differs."""
    lines = DATA.read_text(encoding="utf-8").splitlines()
    seen: dict[str, str] = {}
    for line in lines[:: max(1, len(lines) // (count * 2))]:
        english, _, french = line.partition("\t")
        if english.strip() and french.strip() and len(english.split()) <= MEMORY_WORDS \
                and len(french.split("\t")[0].split()) <= 2 * MEMORY_WORDS:
            seen.setdefault(english.strip(), french.split("\t")[0].strip())
        if len(seen) == count:
            break
    return [f"{e}\t{f}" for e, f in seen.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="the app's example sentences, 1 repeat, no memory table")
    parser.add_argument("--memory-only", action="store_true", help="only the memory table")
    parser.add_argument("--worker", nargs=2, metavar=("DATA", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(Path(args.worker[0]), Path(args.worker[1]))
        return
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder, "throughput.tsv")
        if args.quick:
            from attnviz.paths import example_sentences

            data.write_text("\n".join(example_sentences()[:20]) + "\n", encoding="utf-8")
            repeats = 1
        else:
            data.write_text("\n".join(heldout_pairs(args.sentences)) + "\n", encoding="utf-8")
            repeats = args.repeats
        if args.memory_only:
            memory_table(args.sentences, Path(folder))
            return
        times: dict[int, list[float]] = {1: [], 2: []}
        peaks: dict[int, list[float]] = {1: [], 2: []}
        count = 0
        for _ in range(repeats):
            for processes in (1, 2):
                seconds, peak, count = run(data, processes)
                times[processes].append(seconds)
                peaks[processes].append(max(peak))
        one, two = statistics.median(times[1]), statistics.median(times[2])
        print(f"statistics + importance, shipped Transformer, {count:,} sentences, medians of {repeats}")
        print("| processes | seconds | sentences/s | speed-up | peak RSS per process |")
        print("| --- | --- | --- | --- | --- |")
        for processes, median in ((1, one), (2, two)):
            print(f"| {processes} | {median:.1f} | {count / median:.1f} | {one / median:.2f}× | "
                  f"{statistics.median(peaks[processes]):.0f} MB |")
        if args.quick:
            return
        print()
        memory_table(args.sentences, Path(folder))


def memory_table(sentences: int, folder: Path) -> None:
    """Peak resident memory of each process for N and 10 N sentences, 1 and 2 processes."""
    print("| processes | sentences | peak RSS per process (MB) |")
    print("| --- | --- | --- |")
    for size in (sentences, 10 * sentences):
        corpus = folder / f"memory{size}.tsv"
        corpus.write_text("\n".join(spread_pairs(size)) + "\n", encoding="utf-8")
        for processes in (1, 2):
            _, peak, count = run(corpus, processes)
            print(f"| {processes} | {count:,} | {' / '.join(f'{p:.0f}' for p in peak)} |", flush=True)


if __name__ == "__main__":
    main()
