"""Choosing the torch device a model runs on."""

from __future__ import annotations

import torch

from attnviz.i18n import tr

#: CPU threads torch uses when nobody says otherwise (bench/translate_throughput.py measured the choice).
DEFAULT_THREADS = 1


MAX_THREADS = 256


def set_threads(requested: int | None = None) -> int:
    """Set torch's intra-op CPU threads to ``requested`` (None: DEFAULT_THREADS); returns the number set.

    attnviz's matrices are small: one thread loses little on an idle machine, and on a machine whose
    cores are busy with other work it avoids the many-fold slowdown of threads waiting on each other.
    """
    threads = DEFAULT_THREADS if requested is None else int(requested)
    if not 1 <= threads <= MAX_THREADS:
        raise ValueError(tr("the number of threads must be from 1 to {most}, got {threads}").format(
            most=MAX_THREADS, threads=threads))
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return threads


def out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` says the device ran out of memory (CUDA's OutOfMemoryError, a RuntimeError "out of
    memory" of another backend, or on the CPU a MemoryError or torch's "can't allocate memory"): work that can be
    redone in smaller batches."""
    return isinstance(error, MemoryError) or (isinstance(error, RuntimeError) and (
        "out of memory" in str(error) or "can't allocate memory" in str(error)))  # (the last: torch's CPU allocator)


class DeviceUnavailableError(RuntimeError):
    """The device a user asked for does not exist on this machine."""


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def available_devices() -> list[str]:
    """Names of the devices usable here, best first, always ending with ``"cpu"``."""
    names = [f"cuda:{i}" if torch.cuda.device_count() > 1 else "cuda"
             for i in range(torch.cuda.device_count())] if torch.cuda.is_available() else []
    if _mps_available():
        names.append("mps")
    return [*names, "cpu"]


def pick_device(preference: str = "auto") -> torch.device:
    """The device to run on.

    preference: ``"auto"`` (CUDA when available, then Apple MPS, else CPU), ``"cpu"``, ``"cuda"``,
    ``"cuda:N"`` or ``"mps"``. An explicit choice that is not available raises
    :class:`DeviceUnavailableError` with a message that says what is available instead.
    """
    choice = (preference or "auto").strip().lower()
    if choice == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if _mps_available():
            return torch.device("mps")
        return torch.device("cpu")
    try:
        device = torch.device(choice)
    except RuntimeError:
        raise DeviceUnavailableError(
            tr("unknown device {device!r}; use auto, cpu, cuda, cuda:N or mps").format(device=preference)) from None
    ok = {
        "cpu": lambda: True,
        "cuda": lambda: torch.cuda.is_available()
        and (device.index is None or device.index < torch.cuda.device_count()),
        "mps": _mps_available,
    }.get(device.type, lambda: False)()
    if not ok:
        raise DeviceUnavailableError(tr("device {device!r} is not available here; available: {available}").format(
            device=preference, available=", ".join(available_devices())))
    return device
