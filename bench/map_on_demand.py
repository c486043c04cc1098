"""One map on demand at today's models' head shapes (issue 57 §4): ``QueryKeyStore.map`` of a global (causal) layer and
a sliding-window layer against the plain formula computed whole, wall time and CPU time side by side in one process.

    .venv/bin/python bench/map_on_demand.py                 # 4,096 tokens, 1 and 2 threads, 7 repeats
    .venv/bin/python bench/map_on_demand.py --quick         # 256 tokens, 1 repeat (tests/test_bench.py)

The maps the Attention dock shows after a long prompt's pass (``core/decoding/long_prompt.py`` ``prompt_map``): one
head's (S, S) float32 weights from the kept queries (S, D) and keys (S, D) of random numbers (the cost of a map does not
depend on their values), with the causal mask, or a causal band of 512 (Gemma 3's sliding layers):

* ``map``: ``QueryKeyStore.map`` (each tile of query rows computed in the result's own rows, over the keys its rows
  see);
* ``plain``: ``softmax(q·kᵀ · scale + additive mask)`` in float32 over the whole matrix at once, as eager attention
  computes it (the bench fails unless the two agree to 1e-6).

Each row: the median wall time and the median CPU time of the process (all its threads: what the map costs whatever
else the machine runs; on an idle machine the wall time of one thread is about its CPU time) of ``--repeats``, the two
interleaved, and the 1-minute load average at the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # (as attnviz sets it when imported, before torch starts)

import numpy as np
import torch

from attnviz.core.attention.on_demand import LayerQueryKeys, QueryKeyStore

SHAPES = {  # name: (head width D, sliding window or None)
    "Gemma-3-270M global layer (D 256)": (256, None),
    "Gemma-3-270M sliding layer (D 256, window 512)": (256, 512),
    "Qwen3-0.6B layer (D 128)": (128, None),
}


def _store(tokens: int, width: int, window: int | None) -> tuple[QueryKeyStore, torch.Tensor]:
    """A one-layer, one-head store of random queries and keys (1, 1, S, D) and its additive mask (S, S)."""
    generator = torch.Generator().manual_seed(0)
    queries = torch.randn(1, 1, tokens, width, generator=generator)
    keys = torch.randn(1, 1, tokens, width, generator=generator)
    position = torch.arange(tokens)
    hidden = position[None, :] > position[:, None]  # (S, S) causal: a key after the query is hidden
    if window is not None:
        hidden = hidden | (position[None, :] <= position[:, None] - window)
    additive = torch.zeros(tokens, tokens).masked_fill(hidden, torch.finfo(torch.float32).min)
    layer = LayerQueryKeys(queries, keys, width**-0.5, hidden[None], window=None if window is None else (window, False))
    return QueryKeyStore([layer]), additive


def _plain(store: QueryKeyStore, additive: torch.Tensor) -> np.ndarray:
    layer = store.layers[0]
    query, key = layer.queries[0, 0], layer.keys[0, 0]
    return torch.softmax(query @ key.T * layer.scale + additive, dim=-1, dtype=torch.float32).numpy()


def _timed(work) -> tuple[float, float, np.ndarray]:  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    out = work()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--quick", action="store_true", help="256 tokens, 1 repeat, 1 thread")
    args = parser.parse_args()
    tokens, repeats, threads = (256, 1, [1]) if args.quick else (args.tokens, args.repeats, args.threads)
    print(f"{tokens:,} tokens, {os.cpu_count()} CPUs, medians of {repeats}; load: the 1-minute load average at the "
          f"row's end (the machine may be shared)")
    print("| head | threads | map: wall, ms | map: CPU, ms | plain: wall, ms | plain: CPU, ms | wall ratio | load |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, (width, window) in SHAPES.items():
        store, additive = _store(tokens, width, window)
        for count in threads:
            torch.set_num_threads(count)
            times: dict[str, list[tuple[float, float]]] = {"map": [], "plain": []}
            for _ in range(repeats):
                wall, cpu, ours = _timed(lambda: store.map(0, 0))  # noqa: B023
                times["map"].append((wall, cpu))
                wall, cpu, theirs = _timed(lambda: _plain(store, additive))  # noqa: B023
                times["plain"].append((wall, cpu))
                if not np.allclose(ours, theirs, atol=1e-6, rtol=0):
                    raise SystemExit(f"{name}: the map and the plain formula differ by "
                                     f"{np.abs(ours - theirs).max():.1e}")
            (map_wall, map_cpu), (plain_wall, plain_cpu) = (
                tuple(statistics.median(column) * 1000 for column in zip(*times[key], strict=True))
                for key in ("map", "plain"))
            print(f"| {name} | {count} | {map_wall:.0f} | {map_cpu:.0f} | {plain_wall:.0f} | {plain_cpu:.0f} | "
                  f"{plain_wall / map_wall:.1f} | {os.getloadavg()[0]:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
