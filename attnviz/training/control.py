"""Pausing and stopping a training run from another thread (torch-free: the window holds one)."""

from __future__ import annotations

import threading
import time


class Control:
    """Pause, resume and stop a run from another thread (the window's buttons, a terminal's Ctrl-C)."""

    def __init__(self) -> None:
        self._running = threading.Event()
        self._running.set()
        self.stopped = False

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()

    def stop(self) -> None:
        self.stopped = True
        self._running.set()

    def wait_while_paused(self) -> float:
        """Block while paused; returns the seconds spent waiting."""
        started = time.perf_counter()
        self._running.wait()
        return time.perf_counter() - started
