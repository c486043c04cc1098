"""Latency of one decoding step, cached (incremental) vs recomputing the prefix.

    .venv/bin/python bench/decode_latency.py [CHECKPOINT ...] [--device cpu|cuda] [--repeats N]

Without checkpoints it measures every translation model in models/. For each model it reports the
median time of one cached step at a 10-token source (over a greedy decode), and of one step at a
50-token prefix, cached vs the decoder recomputing the whole prefix (the encoder's output kept in
both), with their ratio. Medians over --repeats runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint  # noqa: E402
from attnviz.core.decoding.beam_search import encode_batch  # noqa: E402
from attnviz.core.device import pick_device  # noqa: E402
from attnviz.core.layout import Capability  # noqa: E402

QUICK_MODELS = ("rnn-additive.safetensors", "transformer.safetensors")  # --quick: one of each branch of step_uncached
SOURCE = "i think that we should go home before it rains tonight ."  # 11 tokens


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def median_ms(fn, device: torch.device, repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        _sync(device)
        t0 = time.perf_counter()
        fn()
        _sync(device)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def step_uncached(model, prefix: torch.Tensor, encoded) -> torch.Tensor:
    """Next-token log-probabilities after ``prefix`` (B, t, starting with <bos>) with the decoder recomputed
    over the whole prefix from the encoder's state ``encoded``: what a step costs without a cache."""
    if hasattr(model, "decode"):  # the Transformer decodes a whole prefix in one call
        logits, _, _ = model.decode(prefix, encoded)
        return torch.log_softmax(logits[:, -1].float(), dim=-1)
    state, log_probs = encoded, None
    for t in range(prefix.shape[1]):  # an RNN must re-run its recurrence token by token
        log_probs, state, _ = model.step(prefix[:, t], state)
    assert log_probs is not None
    return log_probs


def measure(path: Path, device: torch.device, repeats: int) -> dict[str, float] | None:
    loaded = load_checkpoint(path, device)  # outside inference mode, as the app loads it
    if not loaded.offers(Capability.DECODER):
        return None
    return _measure_loaded(loaded, device, repeats)


@torch.inference_mode()
def _measure_loaded(loaded, device: torch.device, repeats: int) -> dict[str, float]:
    model, tgt = loaded.model, loaded.tgt_vocab
    assert loaded.src_vocab is not None and tgt is not None
    src, valid = encode_batch([SOURCE.split()[:10]], loaded.src_vocab)
    src, valid = src.to(device), valid.to(device)
    bos = torch.full((1,), tgt.bos_id, device=device)

    def state_after(prefix_len: int):
        state, _ = model.start(src, valid)
        tokens = bos
        for _ in range(prefix_len):
            log_probs, state, _ = model.step(tokens, state)
            tokens = log_probs.argmax(-1)
        return state, tokens

    state10, tok10 = state_after(5)
    cached_short = median_ms(lambda: model.step(tok10, state10, need_attention=True), device, repeats)
    state50, tok50 = state_after(49)
    prefix = torch.randint(4, len(tgt), (1, 50), device=device)
    prefix[0, 0] = tgt.bos_id
    cached_long = median_ms(lambda: model.step(tok50, state50), device, repeats)
    encoded, _ = model.start(src, valid)  # the baseline keeps the encoder's output too: only the decoder recomputes
    recompute_long = median_ms(lambda: step_uncached(model, prefix, encoded), device, repeats)
    return {"cached_10src_ms": cached_short, "cached_50prefix_ms": cached_long,
            "recompute_50prefix_ms": recompute_long, "speedup": recompute_long / cached_long}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkpoints", nargs="*", type=Path)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0 = torch's default)")
    parser.add_argument("--quick", action="store_true",
                        help="a seconds-long smoke run (tests/test_bench.py): 3 repeats, and without checkpoints "
                             "two models (a Transformer and an RNN: both ways of recomputing a prefix)")
    args = parser.parse_args()
    if args.quick:
        args.repeats = 3
    if args.threads:
        torch.set_num_threads(args.threads)
    device = pick_device(args.device)
    paths = args.checkpoints or sorted((ROOT / "models").glob("*.safetensors"))
    if args.quick and not args.checkpoints:
        paths = [ROOT / "models" / name for name in QUICK_MODELS]
    print(f"device {device}, torch {torch.__version__}, {torch.get_num_threads()} CPU threads, "
          f"medians of {args.repeats}")
    print(f"{'model':<28} {'step @10 src':>13} {'@50 cached':>11} {'@50 recompute':>14} {'ratio':>6}")
    for path in paths:
        try:
            result = measure(path, device, args.repeats)
        except CheckpointError as error:
            print(f"{path.name}: {error}", file=sys.stderr)
            continue
        if result:
            print(f"{path.name:<28} {result['cached_10src_ms']:>10.2f} ms {result['cached_50prefix_ms']:>8.2f} ms "
                  f"{result['recompute_50prefix_ms']:>11.2f} ms {result['speedup']:>5.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
