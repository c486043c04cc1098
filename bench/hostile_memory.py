"""Issue 60 §1–2's cases, each command in a fresh process: its peak resident memory (``os.wait4``'s ``ru_maxrss``
for that child alone: model and imports included), its wall time, its exit status and the last line it wrote.

* ``heads`` over N decoded long prompts of a Llama folder of 4,096 positions (8 layers × 8 heads, width 256; prompts
  cut to 448 tokens, 64 new tokens): the peak must not grow with N;
* a 13 MB Llama whose heads are 4,096 wide (width 32, 2 layers, 4 query heads over 2 key/value heads, 8,192
  positions): ``heads --documents`` over 10 short documents, and ``export --prompt-map`` at 8,192 tokens; the same
  shape with heads 8,000 wide (its store 3.1 GB): refused in one sentence before the pass where its buffers would
  pass MAX_QUERY_KEY_BYTES.

    .venv/bin/python bench/hostile_memory.py                   # N = 4, 16, 32
    .venv/bin/python bench/hostile_memory.py --prompts 4 16    # fewer
    .venv/bin/python bench/hostile_memory.py --quick           # tiny folders, seconds

Folders are random weights built from a config into a temporary folder (no download); prompts and documents are
random words of the test folders' tokenizer.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
WORDS = ["the", "house", "is", "big", "houses", "are", "i", "am", "at", "home", "he", "was", "there"]


def words(seed: int, count: int) -> str:
    return " ".join(random.Random(seed).choices(WORDS, k=count))


def measured(args: list[str], where: Path) -> tuple[float, float, int, str]:
    """(peak resident MB, wall seconds, exit status, last line of stdout or stderr) of ``python -m attnviz args``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    where.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with open(where / "stdout", "wb") as out, open(where / "stderr", "wb") as err:
        child = subprocess.Popen([sys.executable, "-m", "attnviz", *args], stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    lines = [*(where / "stderr").read_text(encoding="utf-8").splitlines(),
             *(where / "stdout").read_text(encoding="utf-8").splitlines()]
    last = next((line for line in reversed(lines) if "error" in line or "wrote" in line), lines[-1] if lines else "")
    return usage.ru_maxrss / 1024, seconds, os.waitstatus_to_exitcode(status), last


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prompts", type=int, nargs="*", default=[4, 16, 32],
                        help="how many prompts each heads run reads (none: only the wide-head cases)")
    parser.add_argument("--quick", action="store_true", help="tiny folders and 2 prompts (tests/test_bench.py)")
    args = parser.parse_args()
    from tests.hf_folders import make_long_llama_folder

    quick = args.quick
    with tempfile.TemporaryDirectory() as temporary:
        tmp = Path(temporary)
        long = make_long_llama_folder(tmp / "long", positions=1024 if quick else 4096, heads=2 if quick else 8,
                                      layers=2 if quick else 8, width=16 if quick else 256,
                                      new_tokens=2 if quick else None)
        rows = []
        for count in ([2] if quick else args.prompts):
            data = tmp / f"prompts{count}.txt"
            data.write_text("".join(words(i, 600) + "\n" for i in range(count)), encoding="utf-8")
            rows.append((f"heads, {count} prompts of 448 tokens", measured(
                ["heads", "--checkpoint", str(long), "--data", str(data), "--out", str(tmp / f"out{count}"),
                 "--no-pruning", "--format", "csv"], tmp / f"run{count}")))
        documents = tmp / "documents.txt"
        documents.write_text("".join(words(100 + i, 8) + "\n" for i in range(10)), encoding="utf-8")
        tokens = 600 if quick else 9000
        for head_width in ([256] if quick else [4096, 8000]):
            wide = make_long_llama_folder(tmp / f"wide{head_width}", positions=8192, heads=4, width=32,
                                          head_dim=head_width, new_tokens=None)
            if head_width == 4096 or quick:
                rows.append((f"heads --documents, head_dim {head_width}, 10 documents", measured(
                    ["heads", "--documents", "--checkpoint", str(wide), "--data", str(documents),
                     "--out", str(tmp / f"docs{head_width}"), "--format", "csv"], tmp / f"docs{head_width}run")))
            rows.append((f"export --prompt-map, head_dim {head_width}, {min(tokens, 8192):,} tokens", measured(
                ["export", "--prompt-map", "--checkpoint", str(wide), "--text", words(7, tokens),
                 "--out", str(tmp / f"map{head_width}"), "--format", "csv"], tmp / f"map{head_width}run")))
    print("| case | peak RSS, MB | wall, s | exit | last line |")
    print("|---|---|---|---|---|")
    for case, (peak, seconds, code, last) in rows:
        print(f"| {case} | {peak:,.0f} | {seconds:.0f} | {code} | {last[:160]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
