"""The Qt-free session with jobs held back, as a worker thread would deliver them: stale results
are dropped, early requests are kept, the right sentence is decoded."""

import threading
from collections.abc import Callable

import pytest

from attnviz.session import Session, ThreadRunner
from tests.helpers import HeldRunner
from tests.tiny import reversal_of


class Recorder:
    """A SessionListener that keeps what each published state changed."""

    def __init__(self):
        self.sources, self.steps, self.errors, self.models, self.fits, self.states = [], [], [], [], [], []

    def state_changed(self, old, new):
        self.states.append(new)
        if new.model is not old.model:
            self.models.append(new.model.kind)
            self.steps_before_load = len(self.steps)
        if new.kernel is not old.kernel:
            self.fits.append(new.kernel)
        if new.source is not old.source and new.source is not None:
            self.sources.append(new.source.tokens)
        if new.step is not old.step:
            self.steps.append(new.step)

    def error(self, message):
        self.errors.append(message)


@pytest.fixture
def held(tiny_models):
    runner, listener = HeldRunner(), Recorder()
    session = Session(listener, runner)
    session.load(tiny_models["transformer"][0])
    runner.run_all()
    return session, runner, listener


def test_step_pressed_while_the_sentence_is_encoding_decodes_the_new_sentence(held):
    session, runner, listener = held
    session.encode("a b c", run=True)
    runner.run_all()
    assert session.state.translation() == reversal_of("a b c")
    session.encode("d e")  # typed, then Step at once: the encode job has not run yet
    session.step()
    session.step()
    runner.run_all()
    assert listener.sources[-1] == ("d", "e")
    assert len(session.state.steps) == 2 and session.state.translation() == reversal_of("d e")


def test_results_of_an_older_sentence_are_dropped(held):
    session, runner, _ = held
    session.encode("a b c d")
    runner.run_all()
    session.run_to_end()  # queued for "a b c d" …
    session.encode("e f")  # … but the user typed on before it ran
    runner.run_all()
    assert session.state.steps == () and session.state.text == "e f"


def test_a_load_drops_decoding_of_the_previous_model(held, tiny_models):
    session, runner, listener = held
    session.encode("a b c")
    runner.run_all()
    session.run_to_end()
    session.load(tiny_models["rnn-dot"][0])
    runner.queue.reverse()  # the load finishes first; the Transformer's decoding arrives after it
    runner.run_all()
    assert listener.models[-1] == "rnn-dot"
    session.step()
    runner.run_all()
    shown_after_load = [s for s in listener.steps[listener.steps_before_load:] if s is not None]
    assert shown_after_load and list(session.state.steps) == shown_after_load
    assert all(s.cross_weights.shape[:2] == (1, 1) for s in shown_after_load)  # no Transformer step slipped in


def test_run_requested_before_any_model_waits_for_the_model(tiny_models):
    runner, listener = HeldRunner(), Recorder()
    session = Session(listener, runner)
    session.encode("a b", run=True)  # the app asks this at start-up, before the model has loaded
    session.load(tiny_models["rnn-additive"][0])
    runner.run_all()
    assert session.state.finished and session.state.translation() == reversal_of("a b")


def test_thread_runner_delivers_through_post_and_nothing_after_shutdown():
    posted: list[Callable[[], None]] = []
    runner = ThreadRunner(posted.append)
    results: list[int] = []
    runner.submit(lambda: 6 * 7, results.append, lambda error: results.append(-1))
    runner.submit(lambda: 1 / 0, results.append, lambda error: results.append(type(error).__name__))
    while len(posted) < 2:  # both results are on their way to the GUI thread …
        threading.Event().wait(0.01)
    runner.shutdown()  # … when the window closes
    for deliver in posted:
        deliver()  # dropped: the window they were for has closed
    assert results == []
    runner.submit(lambda: 1, results.append, results.append)  # ignored after shutdown
    assert len(posted) == 2


def test_thread_runner_runs_jobs_off_the_calling_thread_in_order():
    posted: list[Callable[[], None]] = []
    runner = ThreadRunner(posted.append)
    seen: list[tuple[str, int]] = []
    for i in range(3):
        runner.submit(lambda i=i: (threading.current_thread().name, i), seen.append, seen.append)
    while len(posted) < 3:
        threading.Event().wait(0.01)
    for deliver in posted:
        deliver()
    runner.shutdown()
    assert [i for _, i in seen] == [0, 1, 2] and all(name.startswith("attnviz-worker") for name, _ in seen)


def test_shutdown_does_not_wait_for_an_abandoned_job():
    """Closing the window while a job runs (say a load that takes minutes) returns at once; the job
    queued behind it never starts and nothing is delivered."""
    posted: list[Callable[[], None]] = []
    runner = ThreadRunner(posted.append)
    release, started, second_ran = threading.Event(), threading.Event(), []
    runner.submit(lambda: (started.set(), release.wait(30)), print, print)
    runner.submit(lambda: second_ran.append(1), print, print)
    assert started.wait(60)
    assert runner.shutdown(timeout=0.2) is False  # returned although the job still runs
    release.set()
    runner._thread.join(60)  # the worker ends after the abandoned job: the queued one was dropped
    assert not runner._thread.is_alive()
    assert second_ran == [] and all(deliver() is None for deliver in posted)


def test_dragging_the_kernel_query_fits_the_newest_position_only(tmp_path):
    from attnviz.training.train import train_kernel_regression

    path = tmp_path / "kr.safetensors"
    train_kernel_regression(path)
    runner, listener = HeldRunner(), Recorder()
    session = Session(listener, runner)
    session.load(path)
    runner.run_all()
    listener.fits.clear()  # the fit the load itself published
    for x in (1.0, 1.5, 2.0, 2.5):  # four mouse moves while the first fit runs
        session.fit_kernel("gaussian", 0.5, x)
    assert len(runner.queue) == 1
    runner.run_all()
    assert [fit.query for fit in listener.fits] == [1.0, 2.5]  # the first and the newest, not every one
