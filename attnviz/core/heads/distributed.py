"""Adding sums across processes: one process alone, or every process of a ``torchrun`` job.

Under ``torchrun`` (its environment: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) :func:`reducer_from_environment`
joins the job's process group (gloo on the CPU, NCCL on CUDA) and every :meth:`Reducer.sum` is an all-reduce
(:meth:`Reducer.gather`: every process's picklable object, in rank order); alone, a sum is the array itself.
Integer sums (BLEU counts) stay integers, so they add exactly.
"""

from __future__ import annotations

import contextlib
import datetime
import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

TIMEOUT_ENV = "ATTNVIZ_HEADS_TIMEOUT"  # seconds a process waits for the others (default 600): never a hang


class Reducer:
    """Sums across processes: this is one process alone (rank 0 of 1)."""

    rank = 0
    world = 1

    def sum(self, array: np.ndarray) -> np.ndarray:
        """The element-wise sum of ``array`` over every process (float64 or int64)."""
        return np.array(array, copy=True)

    def gather(self, value: Any) -> list[Any]:
        """Every process's ``value`` (picklable), in rank order, on every process: alone, ``[value]``."""
        return [value]

    def agree(self) -> None:
        """Wait until every process is here (nothing to wait for alone)."""


class TorchReducer(Reducer):
    """Sums with ``torch.distributed.all_reduce`` over the default process group."""

    def __init__(self, device: torch.device):
        import torch.distributed as dist

        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.device = device

    def sum(self, array: np.ndarray) -> np.ndarray:
        import torch.distributed as dist

        values = np.asarray(array)
        dtype = torch.int64 if np.issubdtype(values.dtype, np.integer) else torch.float64
        tensor = torch.as_tensor(values, dtype=dtype).to(self.device)
        dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
        return tensor.cpu().numpy().astype(np.int64 if dtype == torch.int64 else np.float64)

    def gather(self, value: Any) -> list[Any]:
        import torch.distributed as dist

        out: list[Any] = [None] * self.world
        dist.all_gather_object(out, value)  # (on NCCL through the GPU set by reducer_from_environment)
        return out

    def agree(self) -> None:
        self.sum(np.zeros(1))


def launched_by_torchrun() -> bool:
    """Whether this process is one of a torchrun job of two or more processes."""
    return int(os.environ.get("WORLD_SIZE", "1") or 1) > 1


def timeout_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get(TIMEOUT_ENV, "600")))
    except ValueError:
        return 600.0


@contextlib.contextmanager
def reducer_from_environment(device: torch.device) -> Iterator[Reducer]:
    """The reducer of this process: a process group joined for the block (and left after it) under torchrun,
    else the one-process reducer. A process that waits longer than ATTNVIZ_HEADS_TIMEOUT seconds for the others
    (one died) fails instead of hanging."""
    if not launched_by_torchrun():
        yield Reducer()
        return
    import torch.distributed as dist

    backend = "nccl" if device.type == "cuda" else "gloo"
    if device.type == "cuda":
        torch.cuda.set_device(device)
    dist.init_process_group(backend, timeout=datetime.timedelta(seconds=timeout_seconds()))
    try:
        yield TorchReducer(device)
    finally:
        dist.destroy_process_group()


def device_for_rank(device: torch.device) -> torch.device:
    """Under torchrun on CUDA, each process takes the GPU of its LOCAL_RANK; elsewhere ``device`` itself."""
    if device.type == "cuda" and launched_by_torchrun() and device.index is None:
        local_rank, gpus = int(os.environ.get("LOCAL_RANK", "0")), torch.cuda.device_count()
        if local_rank >= gpus:  # (NCCL refuses two processes on one GPU: say so before anyone waits for them)
            from attnviz.core.device import DeviceUnavailableError
            from attnviz.i18n import tr

            raise DeviceUnavailableError(tr(
                "torchrun started {processes} processes on this machine, which has {gpus} GPU(s): start one process "
                "per GPU (--nproc-per-node {gpus}), or run on the CPU (--device cpu)").format(
                processes=os.environ.get("LOCAL_WORLD_SIZE", local_rank + 1), gpus=gpus))
        return torch.device("cuda", local_rank)
    return device
