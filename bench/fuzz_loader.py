"""Fuzz the checkpoint loader at length: thousands of seeded hostile variants of real checkpoints.

    .venv/bin/python bench/fuzz_loader.py --cases 3000

For each case: CheckpointError, or a load whose weights are bit-identical to the original's (for the
shipped checkpoints, written before the tensor digest existed, any load counts as loaded). Prints the
counts, the median and slowest case and the process's peak memory; exits 1 on any other outcome.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=3000, help="cases in all (split over the sources)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true",
                        help="a seconds-long smoke run (tests/test_bench.py): 30 cases")
    args = parser.parse_args()
    if args.quick:
        args.cases = 30

    import torch

    from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint
    from tests.fuzz_checkpoints import variants
    from tests.test_loader_fuzz import small_checkpoints

    with tempfile.TemporaryDirectory() as folder:
        sources = {name: (path, state) for name, (path, state) in small_checkpoints(Path(folder)).items()}
        sources["shipped kernel-regression"] = (ROOT / "models" / "kernel-regression.safetensors", None)
        per_source = max(1, args.cases // len(sources))
        counts = {"refused": 0, "loaded": 0}
        times: list[float] = []
        slowest = (0.0, "")
        for offset, (name, (path, original)) in enumerate(sources.items()):
            data = path.read_bytes()
            for label, variant in variants(data, args.seed + offset, per_source):
                case = Path(folder) / "case.safetensors"
                case.write_bytes(variant)
                started = time.perf_counter()
                try:
                    model = load_checkpoint(case).model
                    outcome = "loaded"
                    if original is not None:
                        state = model.state_dict()
                        if not all(torch.equal(state[k], v) for k, v in original.items()):
                            print(f"FAIL {name}: {label}: loaded other weights")
                            return 1
                except CheckpointError:
                    outcome = "refused"
                seconds = time.perf_counter() - started
                times.append(seconds)
                slowest = max(slowest, (seconds, f"{name}: {label}"))
                counts[outcome] += 1
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{sum(counts.values())} cases from {len(sources)} checkpoints: {counts['refused']} refused with "
          f"CheckpointError, {counts['loaded']} loaded bit-identical weights, 0 other outcomes")
    print(f"per case: median {statistics.median(times) * 1000:.1f} ms, slowest {slowest[0] * 1000:.0f} ms "
          f"({slowest[1]}); peak RSS {peak_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
