"""Seeded hostile variants of a checkpoint file, for the loader's fuzz test and ``bench/fuzz_loader.py``.

Each variant is one of: the file truncated, a bit flipped in the header or in the tensor data, a
metadata entry replaced with junk, or one config field set to a value of the wrong type or range.
"""

from __future__ import annotations

import json
import random
import struct
from collections.abc import Iterator

JUNK_VALUES: list[object] = [0, -1, 1, 10**9, 2**63, 3 * 10**6, -(10**9), 1.5, float("nan"), float("inf"), "4", "",
                             None, True, [], {}, [1, 2], {"a": 1}, "x" * 10_000]


def _split(data: bytes) -> tuple[int, dict]:
    (length,) = struct.unpack("<Q", data[:8])
    return length, json.loads(data[8:8 + length])


def _join(header: dict, body: bytes) -> bytes:
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw + body


def variants(data: bytes, seed: int, count: int) -> Iterator[tuple[str, bytes]]:
    """``count`` (label, bytes) variants of the safetensors file ``data``, reproducible from ``seed``."""
    rng = random.Random(seed)
    length, header = _split(data)
    body = data[8 + length:]
    metadata = header.get("__metadata__", {})
    config = json.loads(metadata.get("config", "{}"))
    for _ in range(count):
        kind = rng.choice(["truncate", "flip-header", "flip-data", "metadata", "config", "config", "config"])
        if kind == "truncate":
            cut = rng.randrange(len(data))
            yield f"truncated at {cut}", data[:cut]
        elif kind == "flip-header":
            at = rng.randrange(8 + length)
            yield f"bit flip in header byte {at}", _flipped(data, at, rng)
        elif kind == "flip-data":
            at = 8 + length + rng.randrange(max(len(body), 1))
            yield f"bit flip in data byte {at}", _flipped(data, min(at, len(data) - 1), rng)
        elif kind == "metadata" and metadata:
            key = rng.choice(sorted(metadata))
            junk = rng.choice(['{"', "[]", "null", "[" * 2000, json.dumps(rng.choice(JUNK_VALUES[:12])), "é\x00"])
            changed = {**header, "__metadata__": {**metadata, key: junk}}
            yield f"metadata {key} = {junk[:20]!r}", _join(changed, body)
        elif config:
            key = rng.choice(sorted(config))
            value = rng.choice(JUNK_VALUES)
            changed_config = {**config, key: value}
            changed = {**header, "__metadata__": {**metadata, "config": json.dumps(changed_config)}}
            yield f"config {key} = {str(value)[:20]!r}", _join(changed, body)


def _flipped(data: bytes, at: int, rng: random.Random) -> bytes:
    out = bytearray(data)
    out[at] ^= 1 << rng.randrange(8)
    return bytes(out)
