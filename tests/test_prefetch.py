"""Decoding ahead: while a step is on screen the app decodes the next one in the background, so Step shows
it without waiting for the model. What the user sees must not change: the same steps, the same numbers,
forced tokens and new sentences act as before, and nothing is published until Step."""

import contextlib
import gc
import queue
import time

import numpy as np
import pytest

from attnviz.core.checkpoint import load_checkpoint
from attnviz.core.stepping import DecodeSession
from attnviz.session import Session, ThreadRunner
from tests.helpers import WAIT_MS, HeldRunner
from tests.test_session import Recorder

KINDS = ("transformer", "decoder-only", "rnn-additive", "rnn-dot")


def _same_steps(ours, theirs) -> None:
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        assert (a.index, a.token, a.forced, a.finished, a.output_tokens) == (b.index, b.token, b.forced, b.finished,
                                                                             b.output_tokens)
        assert [beam.tokens for beam in a.beams] == [beam.tokens for beam in b.beams]
        np.testing.assert_array_equal(a.cross_weights, b.cross_weights)
        np.testing.assert_array_equal(a.topk_probs, b.topk_probs)


def _decoding(tiny_models, kind, beam):
    decoding = DecodeSession(load_checkpoint(tiny_models[kind][0]), beam_size=beam)
    decoding.encode("a b c d")
    return decoding


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("beam", [1, 3])
def test_steps_decoded_ahead_are_the_steps_decoded_on_demand(tiny_models, kind, beam):
    plain = _decoding(tiny_models, kind, beam)
    plain.run()
    ahead = _decoding(tiny_models, kind, beam)
    while not ahead.finished:
        before = list(ahead.steps)
        ahead.prefetch()
        ahead.prefetch()  # a second call keeps the step already decoded
        assert ahead.steps == before and ahead.forced_tokens == [None] * len(before)  # nothing recorded yet
        ahead.step()
    ahead.prefetch()  # finished: nothing to do
    _same_steps(ahead.steps, plain.steps)


@pytest.mark.parametrize("beam", [1, 3])
def test_a_token_forced_where_a_step_was_decoded_ahead_is_taken(tiny_models, beam):
    plain = _decoding(tiny_models, "transformer", beam)
    plain.step()
    plain.step("ax")
    plain.run()
    ahead = _decoding(tiny_models, "transformer", beam)
    ahead.step()
    ahead.prefetch()  # the model's own second step ("cx")…
    with pytest.raises(ValueError, match="'maison'"):
        ahead.step("maison")  # …survives a refused token,
    forced = ahead.step("ax")  # …and gives way to the forced one, after the same first step
    assert forced.token == "ax" and forced.forced and ahead.forced_tokens == [None, "ax"]
    assert forced.output_tokens == ("dx", "ax") and forced.beams[0].tokens[:2] == ("dx", "ax")
    _same_steps(ahead.steps, plain.steps[:2])
    ahead.prefetch()
    ahead.rewind(1)  # a rewind drops what was decoded ahead, too
    ahead.step("ax")
    ahead.run()
    _same_steps(ahead.steps, plain.steps)


def test_a_changed_length_limit_decodes_the_step_again(tiny_models):
    decoding = _decoding(tiny_models, "transformer", 1)
    decoding.prefetch()
    decoding.max_tgt_len = 1
    first = decoding.step()  # decoded ahead under the old limit, it would not have ended here
    assert first.finished and first.output_tokens == ("dx",) and decoding.finished


def test_a_first_token_forced_after_decoding_ahead_replaces_the_first_step(tiny_models):
    decoding = _decoding(tiny_models, "transformer", 1)
    decoding.prefetch()
    forced = decoding.step("ax")
    assert forced.output_tokens == ("ax",) and forced.index == 0 and decoding.forced_tokens == ["ax"]


def test_a_failed_decoding_ahead_leaves_the_search_as_it_was(tiny_models, monkeypatch):
    plain = _decoding(tiny_models, "transformer", 1)
    plain.run()
    decoding = _decoding(tiny_models, "transformer", 1)
    decoding.step()
    search = decoding._search
    real_step = type(search).step

    def half_a_step(self, force=None):  # the search moves on, then fails (say, out of memory)
        real_step(self, force)
        raise RuntimeError("out of memory")

    monkeypatch.setattr(type(search), "step", half_a_step)
    with pytest.raises(RuntimeError, match="out of memory"):
        decoding.prefetch()
    monkeypatch.setattr(type(search), "step", real_step)
    decoding.run()
    _same_steps(decoding.steps, plain.steps)


def test_the_session_decodes_ahead_only_when_idle_and_publishes_nothing(tiny_models):
    runner, listener = HeldRunner(), Recorder()
    session = Session(listener, runner)
    session.load(tiny_models["transformer"][0])
    session.encode("a b c d")
    runner.run_all()
    session.step()
    session.prefetch()  # a Step is on its way: no prefetch beside it
    assert len(runner.queue) == 1
    runner.run_all()
    published = len(listener.states)
    session.prefetch()
    assert len(runner.queue) == 1
    runner.run_all()
    assert len(listener.states) == published and len(session.state.steps) == 1
    session.step()
    runner.run_all()
    assert [s.token for s in session.state.steps] == ["dx", "cx"]


def test_the_window_decodes_the_next_step_once_one_is_on_screen(window, qtbot, tiny_models):
    window.session.runner.background = True  # as with the app's worker (here the jobs still run inline)
    window.set_sentence("a b c d")
    decoding = window.session._decoding
    qtbot.waitUntil(lambda: decoding._ahead is not None, timeout=WAIT_MS)
    window.step_action.trigger()
    qtbot.waitUntil(lambda: decoding._ahead is not None, timeout=WAIT_MS)
    assert decoding._ahead[0].index == 1 and len(window.session.state.steps) == 1
    window.step_action.trigger()
    assert window.output.text() == "dx cx"
    window.decoding_area.force_field.setText("dx ax")
    window.decoding_area.force_button.click()
    assert window.output.text().startswith("dx ax")


def test_decoding_ahead_on_the_real_worker_thread(tiny_models):
    """As in the app: requests and results on this thread, jobs (and the decoding ahead) on the worker."""
    gc.collect()  # the Qt objects earlier tests left must not be collected on the worker (see gui/collector.py)
    collecting = gc.isenabled()
    gc.disable()
    try:
        _decode_ahead_on_a_worker(tiny_models)
    finally:
        if collecting:
            gc.enable()


def _decode_ahead_on_a_worker(tiny_models) -> None:
    posted: queue.SimpleQueue = queue.SimpleQueue()
    listener = Recorder()
    session = Session(listener, ThreadRunner(posted.put))

    def settle(condition) -> None:  # run what the worker hands back until the condition holds
        deadline = time.monotonic() + WAIT_MS / 1000
        while not condition():
            assert time.monotonic() < deadline, "the worker did not deliver"
            with contextlib.suppress(queue.Empty):
                posted.get(timeout=0.05)()

    session.load(tiny_models["transformer"][0])
    session.encode("a b c d")
    settle(lambda: session.state.source is not None and not session.state.busy)
    session.prefetch()
    settle(lambda: session._decoding._ahead is not None)
    session.force("ax")  # the first token, where the model's own first step was decoded ahead
    settle(lambda: not session.state.busy and len(session.state.steps) == 1)
    for count in (2, 3):
        session.prefetch()
        settle(lambda: session._decoding._ahead is not None)
        session.step()
        settle(lambda count=count: not session.state.busy and len(session.state.steps) == count)
    session.runner.shutdown()  # type: ignore[attr-defined]
    plain = _decoding(tiny_models, "transformer", 1)
    plain.step("ax")
    plain.step()
    plain.step()
    _same_steps(session.state.steps, plain.steps)
    assert listener.errors == []
