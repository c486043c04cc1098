"""The session's one "latest request wins" channel: which results are still wanted, and which job runs next.

Every request takes a :class:`Ticket` for its purpose (:data:`SENTENCE`, :data:`LOAD`, a view's key, …). A
newer request for the same purpose makes the tickets handed out before it stale, and loading another model
(:meth:`Latest.model_loaded`) makes every ticket asked before it stale: a result is used only while its ticket
:meth:`~Latest.wins`. A job that serves a request rather than being one (a step of the sentence the latest
encoding is for, a kernel fit for the latest load) carries that request's ticket (:meth:`Latest.current`).
:meth:`Latest.one_at_a_time` runs one job of a purpose at a time: requests made meanwhile replace each other,
and only the latest is started once the running one has finished (a dragged slider costs one job at a time,
and its last position is always computed). ndv's request/response and ``_cancel_futures`` are the model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

SENTENCE = "sentence"  # encode; the steps, forced tokens, replays, comparisons and queries of that encoding
LOAD = "load"  # load a checkpoint; the kernel fits of the model it loads
COMPARED_MODEL = "compared model"  # compare_with: the second model's load
KERNEL = "kernel fit"  # fit_kernel, one at a time
QUERY = "query"  # inspect_query, one at a time
BATCH = "batch"  # decode_together
BOOK = "book figure"  # show_book_figure


@dataclass(frozen=True)
class Ticket:
    """One request: its purpose, its number among that purpose's requests, and the model loaded when asked
    (the count of models loaded before it)."""

    purpose: str
    number: int
    model: int


class Latest:
    """Tickets per purpose, the count of models loaded, and the one job per purpose that runs (see the module)."""

    def __init__(self) -> None:
        self._asked: dict[str, int] = {}  # purpose -> requests so far
        self._models = 0  # models loaded so far
        self._running: set[str] = set()  # purposes whose one-at-a-time job runs now
        self._waiting: dict[str, tuple[Ticket, Callable[[Ticket], bool]]] = {}  # the latest request made meanwhile

    def ask(self, purpose: str) -> Ticket:
        """A new request for ``purpose``: the tickets handed out for it before are no longer the latest."""
        self._asked[purpose] = self._asked.get(purpose, 0) + 1
        return self.current(purpose)

    def current(self, purpose: str) -> Ticket:
        """The ticket of the latest request for ``purpose``, for a job that serves it (nothing new is asked)."""
        return Ticket(purpose, self._asked.get(purpose, 0), self._models)

    def is_latest(self, ticket: Ticket) -> bool:
        """No newer request for the ticket's purpose has been made."""
        return ticket.number == self._asked.get(ticket.purpose, 0)

    def for_loaded_model(self, ticket: Ticket) -> bool:
        """The model loaded when the ticket was asked is still the one loaded."""
        return ticket.model == self._models

    def wins(self, ticket: Ticket) -> bool:
        """The ticket's result is still wanted: it is the latest for its purpose, for the model loaded now."""
        return self.is_latest(ticket) and self.for_loaded_model(ticket)

    def model_loaded(self) -> None:
        """Another model is loaded: every ticket asked before is for a model no longer loaded."""
        self._models += 1

    def one_at_a_time(self, purpose: str, start: Callable[[Ticket], bool]) -> Ticket:
        """Ask for ``purpose`` and call ``start`` with its ticket now if no job of ``purpose`` runs, else once
        the running one has :meth:`finished` (unless a newer request has replaced this one by then, or another
        model was loaded: a request for a model no longer loaded is never started). ``start`` returns whether
        it started a job; :meth:`finished` must follow once that job's result has been handled."""
        ticket = self.ask(purpose)
        self._waiting[purpose] = (ticket, start)
        if purpose not in self._running:
            self._start_waiting(purpose)
        return ticket

    def finished(self, purpose: str) -> None:
        """The running job of ``purpose`` is over (its result handled or dropped): start the waiting request."""
        self._running.discard(purpose)
        self._start_waiting(purpose)

    def _start_waiting(self, purpose: str) -> None:
        ticket, start = self._waiting.pop(purpose, (None, None))
        if ticket is None or start is None or not self.for_loaded_model(ticket):
            return
        self._running.add(purpose)  # before start: an inline runner finishes the job inside it
        if not start(ticket):
            self._running.discard(purpose)
