"""How far a long command has got, on stderr: at every new tenth of the work, and whenever ``every`` seconds
(10) pass without a line, so a terminal is never silent for long whatever one step costs (a long sentence, a big
batch, reading a 200,000-line corpus before the first batch). Qt-free and torch-free.

The clock is injectable (tests pass a fake one and call :meth:`Heartbeat.tick` themselves); used as a context
manager, a daemon thread calls :meth:`~Heartbeat.tick` about once a second.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from attnviz.i18n import tr

EVERY_S = 10.0  # at most this many seconds between two lines
WAKE_S = 1.0  # how often the thread looks at the clock


def _elapsed(seconds: float) -> str:
    """'42 s', '3 min 05 s', '2 h 01 min'."""
    whole = int(seconds)
    if whole < 60:
        return tr("{s} s").format(s=whole)
    if whole < 3600:
        return tr("{m} min {s:02d} s").format(m=whole // 60, s=whole % 60)
    return tr("{h} h {m:02d} min").format(h=whole // 3600, m=whole // 60 % 60)


class Heartbeat:
    """Progress lines ``PREFIX: STAGE 40 % (14 of 35)`` on ``stream``, each tenth once, and ``…, 1 min 10 s so far``
    when ``every`` seconds pass without a line. ``stage(what)`` starts a new part of the work (its tenths counted
    afresh); calling the object (``done``, ``total``) is a progress callback (returns True: it never cancels).
    ``enabled`` False (a torchrun process other than rank 0) prints nothing."""

    def __init__(self, prefix: str, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic,
                 every: float = EVERY_S, enabled: bool = True, unit: str = ""):
        self.prefix, self.every, self.enabled, self.unit = prefix, every, enabled, unit
        self._stream = stream
        self._clock = clock
        self._lock = threading.Lock()
        self._started = self._last = clock()
        self._what = ""
        self._done: int | None = None
        self._total = 0
        self._tenths: set[int] = set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def stage(self, what: str) -> None:
        """A new part of the work begins: said with its first tenth, or when ``every`` seconds pass without a line
        (not at once: a command refused at its start says its one error line and nothing else)."""
        with self._lock:
            self._what, self._done, self._total, self._tenths = what, None, 0, set()

    def __call__(self, done: int, total: int) -> bool:
        with self._lock:
            self._done, self._total = done, total
            tenth = 10 * done // max(total, 1)
            if tenth not in self._tenths and (tenth or done == total):
                self._tenths.add(tenth)
                self._say(self._where())
        return True

    def tick(self) -> None:
        """Say where the work is if ``every`` seconds passed since the last line."""
        with self._lock:
            now = self._clock()
            if now - self._last >= self.every:
                self._say(tr("{where}, {elapsed} so far").format(where=self._where(),
                                                                 elapsed=_elapsed(now - self._started)))

    def _where(self) -> str:
        if self._done is None:
            return self._what
        counted = tr("{done:,} of {total:,} {unit}").format(done=self._done, total=self._total, unit=self.unit) \
            if self.unit else tr("{done:,} of {total:,}").format(done=self._done, total=self._total)
        return tr("{what} {percent} % ({counted})").format(what=self._what, counted=counted,
                                                             percent=100 * self._done // max(self._total, 1))

    def _say(self, text: str) -> None:
        self._last = self._clock()
        if self.enabled:
            stream = self._stream or sys.stderr
            print(f"{self.prefix}: {text}", file=stream, flush=True)

    def __enter__(self) -> Heartbeat:
        if self.enabled:
            self._thread = threading.Thread(target=self._beat, name="attnviz-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _beat(self) -> None:
        while not self._stop.wait(WAKE_S):
            self.tick()
