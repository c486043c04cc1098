"""Lean memory for a model loaded to decode (never for training): the same numbers in less memory.

Two changes, both exact:

- The output projection's weight (V, D), tied to the target embedding, is laid out column-major, i.e.
  stored as the contiguous (D, V) matrix that :func:`attnviz.core.models.projection.project` multiplies by.
  Before, the projection kept a transposed copy beside the weight: 12.9 MB per shipped model decoded.
  An embedding lookup reads its rows just as fast from this layout.
- The source embedding, when the checkpoint stored it as float16 (the shipped models do), stays float16
  and its rows are widened to float32 as they are looked up: float16 -> float32 is exact, so the encoder
  sees the very same numbers. It is only read once per sentence. 4.6 MB per shipped model.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

import torch
from torch import Tensor, nn


def lay_out_for_projection(linear: nn.Linear) -> None:
    """Store ``linear.weight`` (V, D) column-major: its transpose (D, V) is then contiguous. In place
    (a tied embedding shares it); the old row-major storage is freed."""
    weight = linear.weight
    if weight.dim() == 2 and not weight.t().is_contiguous():
        with torch.no_grad():
            weight.data = weight.data.t().contiguous().t()


def _widened(_module: nn.Module, _inputs: tuple, output: Tensor) -> Tensor:
    return output.float()


def keep_half(embedding: nn.Embedding) -> None:
    """Hold ``embedding``'s table as float16 (its values must be float16 numbers already: exact) and
    return float32 rows from it."""
    with torch.no_grad():
        embedding.weight.data = embedding.weight.data.half()
    embedding.register_forward_hook(_widened)


def compact(model: nn.Module, stored_half: set[str]) -> None:
    """Apply both changes to a translation model in eval mode. stored_half: the names of the tensors the
    checkpoint held as float16 (only those can be kept half without changing a number)."""
    output = getattr(model, "output", None)
    if isinstance(output, nn.Linear):
        lay_out_for_projection(output)
    source = getattr(model, "src_embedding", None)
    tied = isinstance(output, nn.Linear) and source is not None and source.weight is output.weight
    if isinstance(source, nn.Embedding) and "src_embedding.weight" in stored_half and not tied:
        keep_half(source)


def release_freed_memory() -> None:
    """Give the memory freed so far back to the system where the C library can (glibc's ``malloc_trim``:
    freed blocks otherwise stay in the process, e.g. the float16 tensors read while loading). A no-op
    elsewhere."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):
        return None
