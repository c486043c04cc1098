"""The real window's event loop, run until something has happened (for benchmarks; not one itself)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def wait_until(app: Any, window: Any, condition: Callable[[], bool], limit_s: float = 600.0) -> float:
    """Run ``app``'s event loop until ``condition()`` holds and ``window``'s session is idle, then until nothing
    is left to paint; the seconds taken (SystemExit after ``limit_s``)."""
    from PySide6 import QtCore

    started = time.perf_counter()
    while not (condition() and not window.session.state.busy):
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
        if time.perf_counter() - started > limit_s:
            raise SystemExit("timed out")
    for _ in range(3):
        app.processEvents()
    return time.perf_counter() - started
