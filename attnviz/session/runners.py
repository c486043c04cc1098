"""Where a session's jobs run, and how their results come back.

:class:`InlineRunner` runs a job at once on the calling thread (tests, the CLI); :class:`ThreadRunner` runs
them one at a time on a worker thread (the app), and :class:`FileRunner` gives each file job a thread of its
own. The threaded runners hand every result back through ``post`` (the window's ``Poster``: a queued signal
to the GUI thread), so results are handled on the thread the requests come from.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, Protocol

log = logging.getLogger(__name__)
UNWINDING = (KeyboardInterrupt, SystemExit, GeneratorExit)  # a job's end that is not its failure: passed on


def _failure(error: BaseException) -> BaseException:
    """``error`` when a job's ``failed`` is to handle it: any error but an interrupt or an exit — a library's
    panic (pyo3's PanicException) is a BaseException, and a job that raised one must still end."""
    if isinstance(error, UNWINDING):
        raise error
    return error


class Runner(Protocol):
    background: bool  # jobs run beside the caller (a worker thread), not in the submit call

    def submit(self, job: Callable[[], Any], done: Callable[[Any], None],
               failed: Callable[[BaseException], None]) -> None: ...


class InlineRunner:
    """Runs every job at once on the calling thread (tests, CLI)."""

    background = False

    def submit(self, job: Callable[[], Any], done: Callable[[Any], None],
               failed: Callable[[BaseException], None]) -> None:
        try:
            result = job()
        except BaseException as error:  # delivered to the listener as a message (an interrupt passes on)
            failed(_failure(error))
            return
        done(result)


def _delivering(job: Callable[[], Any], done: Callable[[Any], None], failed: Callable[[BaseException], None],
                post: Callable[[Callable[[], None]], None], closed: Callable[[], bool]) -> Callable[[], None]:
    """``job`` as a task for another thread: its result goes to ``done`` (its error to ``failed``) through
    ``post``, on the GUI thread, unless the runner has ``closed`` by the time it arrives."""

    def deliver(callback: Callable[[], None]) -> None:
        post(lambda: None if closed() else callback())

    def task() -> None:
        try:
            result = job()
        except BaseException as error:
            caught = _failure(error)
            deliver(lambda: failed(caught))
            return
        deliver(lambda: done(result))

    return task


class ThreadRunner:
    """Runs jobs one at a time on a worker thread; ``post`` hands callbacks back to the GUI thread.

    After :meth:`shutdown` new jobs are ignored, queued ones dropped and results still in flight are
    not delivered: the window they would update is gone. The worker is a daemon thread, so a job the
    user abandoned (closing the window mid-way) never holds the process open.
    """

    background = True

    def __init__(self, post: Callable[[Callable[[], None]], None]):
        self._post = post
        self._queue: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._closed = False
        self._files: FileRunner | None = None
        self._thread = threading.Thread(target=self._work, name="attnviz-worker", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while (task := self._queue.get()) is not None:
            if not self._closed:
                try:
                    task()
                except BaseException:  # (a job's own errors are delivered; this is anything beyond them)
                    log.exception("a background job ended abnormally")

    def submit(self, job: Callable[[], Any], done: Callable[[Any], None],
               failed: Callable[[BaseException], None]) -> None:
        if not self._closed:
            self._queue.put(_delivering(job, done, failed, self._post, lambda: self._closed))

    def post(self, callback: Callable[[], None]) -> None:
        """Hand ``callback`` to the GUI thread (a thread of the caller's own delivering, e.g. a training run)."""
        self._post(callback)

    @property
    def closed(self) -> bool:
        return self._closed

    def shutdown(self, timeout: float = 2.0) -> bool:
        """Drop queued jobs and deliver nothing more; wait up to ``timeout`` s for the running job.
        Returns whether the worker has stopped (False: a job is still running; the process may exit)."""
        self._closed = True
        self._queue.put(None)
        self._thread.join(timeout)
        if self._files is not None:
            self._files.shutdown()
        return not self._thread.is_alive()

    def for_files(self) -> FileRunner:
        """A runner for file jobs that delivers as this one does (and stops with it)."""
        if self._files is None:
            self._files = FileRunner(self._post)
        return self._files


class FileRunner:
    """Runs each file job on a thread of its own, results handed back through ``post``.

    A write can wait for good (a hung network mount, a FIFO no one reads): on its own daemon thread it
    holds up neither the window nor the model's worker nor the next file job, and never the process's exit.
    """

    background = True

    def __init__(self, post: Callable[[Callable[[], None]], None]):
        self._post = post
        self._closed = False

    def submit(self, job: Callable[[], Any], done: Callable[[Any], None],
               failed: Callable[[BaseException], None]) -> None:
        if not self._closed:
            held = [_delivering(job, done, failed, self._post, lambda: self._closed)]

            def run() -> None:
                held[0]()  # (no local name for it: the list is its only reference once it returns)
                # A file job made on the GUI thread may hold Qt objects (a progress dialog): its last reference
                # is let go of there, never here, where deleting a widget can deadlock against the window.
                self._post(held.clear)

            threading.Thread(target=run, name="attnviz-file", daemon=True).start()

    def shutdown(self) -> None:
        """Deliver nothing more (a write still running finishes, or not, by itself)."""
        self._closed = True
