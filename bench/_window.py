"""The real window's event loop, run until something has happened (for benchmarks; not one itself)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def wait_until(app: Any, window: Any, condition: Callable[[], bool], limit_s: float = 600.0) -> float:
    """Run ``app``'s event loop until ``condition()`` holds and ``window``'s session is idle, then until nothing
    is left to paint; the seconds taken (SystemExit after ``limit_s``).

    The loop sleeps until an event comes, as the app's does (a 5 ms timer wakes it to check ``condition``): it never
    spins, which would take a CPU from the worker thread it waits for (and from a test suite's other worker)."""
    from PySide6 import QtCore

    started = time.perf_counter()
    wake = QtCore.QTimer(interval=5)
    wake.start()
    try:
        while not (condition() and not window.session.state.busy):
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
            if time.perf_counter() - started > limit_s:
                raise SystemExit("timed out")
    finally:
        wake.stop()
    for _ in range(3):
        app.processEvents()
    return time.perf_counter() - started
