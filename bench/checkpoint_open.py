"""Opening a shipped checkpoint: ``load_checkpoint`` against the plain PyTorch way, CPU time side by side, one process.

    .venv/bin/python bench/checkpoint_open.py              # every shipped model in models/, 9 repeats
    .venv/bin/python bench/checkpoint_open.py --quick      # the shipped Transformer, 1 repeat (tests/test_bench.py)

* ``attnviz``: ``load_checkpoint`` — the header, config, vocabularies and every tensor checked (finite, within
  ±1e6, the checksum), the model built without drawing random weights the file then overwrites, its tensors copied in;
* ``plain``: ``build_model(config)`` (random weights drawn, as ``nn.Module`` constructors do) and
  ``load_state_dict(safetensors.torch.load_file(path), strict=False)``, no check at all — what a PyTorch user writes.

The figures: median CPU seconds of the process (``time.process_time``: what opening costs whatever else the machine
runs) of ``--repeats``, the two interleaved, one torch thread (as the app opens a model); the load average at the end.
The two models must hold the same weights (the bench fails otherwise).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # (as attnviz sets it when imported, before torch starts)

import torch
from safetensors.torch import load_file

from attnviz.core.checkpoints.checkpoint import build_model, load_checkpoint

MODELS = Path(__file__).resolve().parent.parent / "models"


def plain(path: Path, config: object) -> torch.nn.Module:
    model = build_model(config)
    model.load_state_dict(load_file(str(path)), strict=False)
    return model.eval()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    paths = [MODELS / "transformer.safetensors"] if args.quick else sorted(MODELS.glob("*.safetensors"))
    repeats = 1 if args.quick else args.repeats
    print("| model | attnviz load_checkpoint, ms CPU | plain build + load_state_dict, ms CPU | ratio |")
    print("| --- | --- | --- | --- |")
    for path in paths:
        ours, theirs = [], []
        for _ in range(repeats + 1):  # (the first of each: files paged in, kernels warmed; not counted)
            start = time.process_time()
            loaded = load_checkpoint(path)
            ours.append(time.process_time() - start)
            start = time.process_time()
            reference = plain(path, loaded.config)
            theirs.append(time.process_time() - start)
        for name, tensor in reference.state_dict().items():
            if not torch.equal(loaded.model.state_dict()[name].float(), tensor.float()):
                raise SystemExit(f"{path.name}: {name} differs between the two")
        a, b = statistics.median(ours[1:] or ours) * 1e3, statistics.median(theirs[1:] or theirs) * 1e3
        print(f"| {path.stem} | {a:.0f} | {b:.0f} | {b / a:.2f} |")
    print(f"load average (1 min) at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
