"""A file job runs on a thread of its own, but what it holds is let go of on the GUI thread: a job made there
may hold Qt objects (a progress dialog), and deleting one from another thread can deadlock the window
(CI once hung for good in a flip-book test this way)."""

from __future__ import annotations

import queue
import threading

from attnviz.session.runners import FileRunner
from tests.helpers import WAIT_MS

deleted_on: list[str] = []  # the threads Tracked objects were deleted on


class Tracked:
    """Notes the thread it is deleted on."""

    def __del__(self) -> None:
        deleted_on.append(threading.current_thread().name)


def test_a_file_jobs_closure_is_let_go_of_on_the_thread_that_posts_its_result():
    posted: queue.Queue = queue.Queue()
    runner = FileRunner(posted.put)
    results: list[str] = []
    held = Tracked()
    runner.submit(lambda held=held: "written", results.append, lambda error: results.append(repr(error)))
    del held
    for _ in range(2):  # the result, then the release of what the job held
        callback = posted.get(timeout=WAIT_MS / 1000)
        assert deleted_on == []  # (not on the file thread)
        callback()
    assert results == ["written"]
    assert deleted_on == [threading.current_thread().name]  # here, where the window lives
