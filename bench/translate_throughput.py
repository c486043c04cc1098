"""`attnviz translate` throughput on 1,000 English sentences, idle and beside a competing CPU load.

Runs the real CLI in a fresh process (what a user runs), feeding the sentences on stdin, and counts
translated lines per second. The competing load is N busy Python processes (one per core hogs the
machine the way a parallel build or a second training run does). A run that is slower than
``--cap`` seconds is stopped and its rate computed from the lines it finished.

    .venv/bin/python bench/translate_throughput.py                       # this checkout
    .venv/bin/python bench/translate_throughput.py --code ../baseline    # another checkout, same venv

Needs ``../shared/data/fra-eng/fra.txt`` (the sentences are read at run time, never stored here).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "fra-eng" / "fra.txt"


def _busy(stop: mp.synchronize.Event) -> None:  # type: ignore[name-defined]
    x = 0
    while not stop.is_set():
        for i in range(100_000):
            x += i * i


def sentences(count: int) -> list[str]:
    """``count`` distinct English sentences spread over the corpus (deterministic)."""
    lines = DATA.read_text(encoding="utf-8").splitlines()
    seen: dict[str, None] = {}
    stride = max(1, len(lines) // (count * 2))
    for line in lines[::stride]:
        english = line.split("\t", 1)[0].strip()
        if english:
            seen.setdefault(english, None)
        if len(seen) == count:
            break
    return list(seen)


def example_sentences(count: int) -> list[str]:
    """``count`` sentences cycled from the app's own examples (the quick run needs no corpus)."""
    from attnviz.paths import example_sentences as examples

    pool = examples()
    return [pool[i % len(pool)] for i in range(count)]


def run_translate(code: Path, checkpoint: Path, text: str, extra: list[str], cap: float) -> tuple[int, float]:
    """(lines translated, seconds) for one `attnviz translate` process reading ``text`` on stdin."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    with tempfile.TemporaryFile("w+", encoding="utf-8") as source, \
            tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        source.write(text)
        source.seek(0)
        command = [sys.executable, "-m", "attnviz", "translate", "--checkpoint", str(checkpoint), *extra]
        started = time.perf_counter()
        process = subprocess.Popen(command, stdin=source, stdout=out, stderr=subprocess.DEVNULL, cwd=code, env=env)
        try:
            process.wait(timeout=cap)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        seconds = time.perf_counter() - started
        out.seek(0)
        return len(out.read().splitlines()), seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout whose attnviz to run (default: this one)")
    parser.add_argument("--checkpoint", type=Path, default=ROOT / "models" / "transformer.safetensors")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--loads", default="0,2", help="competing busy processes per run, comma-separated")
    parser.add_argument("--cap", type=float, default=240.0, help="stop a run after this many seconds")
    parser.add_argument("--extra", default="", help="more translate arguments, e.g. '--beam 1'")
    parser.add_argument("--quick", action="store_true",
                        help="a seconds-long smoke run (tests/test_bench.py): 20 example sentences, no load, no corpus")
    args = parser.parse_args()
    if args.quick:
        args.count, args.loads, args.cap = 20, "0", 300.0
        text = "\n".join(example_sentences(args.count)) + "\n"
    else:
        text = "\n".join(sentences(args.count)) + "\n"
    code = args.code.resolve()
    print(f"code {code}, {args.count} sentences, translate {args.extra or '(defaults)'}; {os.cpu_count()} cores")
    print("| competing busy processes | lines | seconds | lines/s |")
    print("| --- | --- | --- | --- |")
    for load in (int(n) for n in args.loads.split(",")):
        stop = mp.Event()
        hogs = [mp.Process(target=_busy, args=(stop,), daemon=True) for _ in range(load)]
        for hog in hogs:
            hog.start()
        try:
            lines, seconds = run_translate(code, args.checkpoint.resolve(), text, args.extra.split(), args.cap)
        finally:
            stop.set()
            for hog in hogs:
                hog.join()
        capped = " (stopped at the cap)" if lines < args.count else ""
        print(f"| {load} | {lines}{capped} | {seconds:.1f} | {lines / seconds:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
