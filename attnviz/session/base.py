"""The machinery every session request uses: the state it publishes, the jobs it runs and names (``busy``),
and how errors reach the listener. :class:`attnviz.session.Session` adds the requests themselves."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from attnviz.figures.attention import fit_view
from attnviz.i18n import tr
from attnviz.session.latest import Latest, Ticket
from attnviz.session.runners import InlineRunner, Runner, ThreadRunner
from attnviz.session.state import SessionListener, SessionState, changed

if TYPE_CHECKING:  # torch-backed modules are imported by the jobs, on the worker thread
    from attnviz.core.models.loaded import LoadedModel

log = logging.getLogger(__name__)
Result = TypeVar("Result")
SENTENCES_KEPT = 1000  # sentences_seen: a long class's worth (the Heads dock maps them in a minute or two)


class SessionBase:
    """A listener, a runner and the state published to the listener after every change (on the thread the
    runner delivers to). Requests come from that thread; their work runs as jobs on the runner."""

    def __init__(self, listener: SessionListener, runner: Runner | None = None, *, device: str = "auto",
                 beam_size: int = 1):
        self.listener = listener
        self.runner: Runner = runner or InlineRunner()
        # File jobs (exports, saved sessions): off the GUI thread and off the model's worker, where they can wait
        self.files: Runner = self.runner.for_files() if isinstance(self.runner, ThreadRunner) else InlineRunner()
        self.loaded: LoadedModel | None = None
        self._state = SessionState(device=device or "auto", beam_size=max(1, int(beam_size)))
        self._latest = Latest()  # which results are still wanted (latest request wins), one job per purpose
        self._loading: Path | None = None  # the checkpoint being loaded now
        self.fallback: Path | None = None  # loaded instead of a refused checkpoint while no model is (start-up)
        self._jobs: dict[int, str] = {}  # jobs in flight: id -> what it does
        self._sentences: dict[str, None] = {}  # the sentences encoded, oldest first (see sentences_seen)
        self._job_ids = 0

    @property
    def state(self) -> SessionState:
        return self._state

    @property
    def sentences_seen(self) -> list[str]:
        """The sentences encoded in this session, each once, oldest first (the Heads dock's own corpus): the last
        SENTENCES_KEPT of them (a window left open for days keeps no more)."""
        return list(self._sentences)

    def _saw(self, text: str) -> None:
        """``text`` was encoded: one of sentences_seen (the oldest dropped beyond SENTENCES_KEPT)."""
        if text.strip() and text not in self._sentences:
            self._sentences[text] = None
            while len(self._sentences) > SENTENCES_KEPT:
                del self._sentences[next(iter(self._sentences))]

    def _publish(self, **changes: Any) -> None:
        old = self._state
        new = _view_fitted(old, replace(old, **changes, busy=next(reversed(self._jobs.values()), "")))
        if changed(old, new, *(f.name for f in fields(SessionState))):
            self._state = new
            self.listener.state_changed(old, new)

    def file_job(self, what: str, job: Callable[[], Any], done: Callable[[Any], None],
                   failed: Callable[[BaseException], None]) -> None:
        """Run a file job (writing an export, a session) off the GUI thread: ``busy`` names it (the window's
        busy indicator) until its result comes back, on the thread results come to; then ``done`` or ``failed``
        handles it (after the indicator is gone, so that a message they show stays)."""

        def idle_then(callback: Callable[[Any], None]) -> Callable[[Any], None]:
            def handle(value: Any) -> None:
                self._publish()
                callback(value)

            return handle

        self._submit(what, job, idle_then(done), idle_then(failed), self.files)

    def _submit(self, what: str, job: Callable[[], Any], done: Callable[[Any], None],
                failed: Callable[[BaseException], None], runner: Runner | None = None, *, one_of: str = "") -> None:
        """Run ``job`` on the runner; ``busy`` names it until its result (or error) has been handled.
        one_of: the purpose it was started for by ``Latest.one_at_a_time`` (its next request starts then)."""
        self._job_ids += 1
        job_id = self._job_ids
        self._jobs[job_id] = what
        self._publish()

        def finish(callback: Callable[[Any], None]) -> Callable[[Any], None]:
            def deliver(value: Any) -> None:
                self._jobs.pop(job_id, None)
                callback(value)
                if one_of:
                    self._latest.finished(one_of)
                self._publish()  # busy may have changed even if the result was dropped

            return deliver

        (runner or self.runner).submit(job, finish(done), finish(failed))

    def compute_view(self, key: str, what: str, job: Callable[[], Result], done: Callable[[Result], None]) -> None:
        """Run a view's numpy work (``job``: the rollout of a long sentence, the colours of every head) on the
        worker and hand its result to ``done`` on the listener's thread, so the window never waits for it.
        Requests for the same ``key`` made while one runs replace each other: only the latest is computed next,
        and a result is delivered only if no newer request for ``key`` was made since (latest request wins)."""

        def start(ticket: Ticket) -> bool:
            def finish(result: Result) -> None:
                if self._latest.is_latest(ticket):  # asked again meanwhile: that request's result is the one to show
                    done(result)

            self._submit(what, job, finish, self._report, one_of=ticket.purpose)
            return True

        self._latest.one_at_a_time(f"view {key}", start)

    def _hooks_on_show(self) -> tuple[Any, ...]:
        """The handles of the hooks on the model on show (heads switched off, heads patched) that a copy of it made
        for a job of its own must not keep (each request class adds its own)."""
        return ()

    def _decoded_model(self, loaded: LoadedModel) -> LoadedModel:
        """(On the worker.) The model a new decoding steps: ``loaded`` itself, unless heads are patched into it
        (:mod:`attnviz.session.patching`)."""
        return loaded

    def _report(self, error: BaseException, then: str = "") -> None:
        """Tell the listener about ``error`` in one message (``then``: what happens next, a sentence appended)."""
        from attnviz.core.checkpoints.checkpoint import CheckpointError
        from attnviz.core.device import DeviceUnavailableError

        if isinstance(error, CheckpointError | DeviceUnavailableError | ValueError):
            message = str(error)
        else:
            log.exception("unexpected error", exc_info=error)
            message = tr("Unexpected error: {kind}: {error}").format(kind=type(error).__name__, error=error)
        self.listener.error(tr("{message}. {then}").format(message=message.rstrip(".。"), then=then) if then
                            else message)


def _view_fitted(old: SessionState, new: SessionState) -> SessionState:
    """``new`` with its view options fitted to the source on show (a kind it has, a layer and head it has;
    kept while there is none), and the very same options object when they did not change."""
    view, source = new.view, new.shown_source
    if source is not None and changed(old, new, "view", "shown_source", "step"):
        view = fit_view(view, source, new.step)
    if view == old.view:
        view = old.view
    return new if view is new.view else replace(new, view=view)


def copy_without(model: Any, handles: tuple[Any, ...]) -> Any:
    """A deep copy of ``model`` without the hooks of ``handles`` (``model`` keeps them): copied with the model in one
    deep copy, the copies name the copy's hook dictionaries, and removing them leaves the copy as the model was
    before they were added."""
    import copy

    model_copy, copied = copy.deepcopy((model, handles))
    for handle in copied:
        handle.remove()
    return model_copy
