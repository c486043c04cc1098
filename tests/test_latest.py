"""The session's one "latest request wins" channel (attnviz.session.latest), by itself: which results are
still wanted, and which job runs next. No model, no Qt: jobs are closures held in a list, as a busy worker
would hold them."""

from collections.abc import Callable

from attnviz.session.latest import Latest, Ticket


def test_a_newer_request_makes_the_older_tickets_of_its_purpose_stale_and_no_other():
    latest = Latest()
    first = latest.ask("sentence")
    load = latest.ask("load")
    step = latest.current("sentence")  # a step of the sentence being encoded serves that request
    assert latest.wins(first) and latest.wins(step) and latest.wins(load)
    second = latest.ask("sentence")  # the user typed on
    assert not latest.wins(first) and not latest.wins(step)
    assert latest.wins(second) and latest.wins(load)
    assert latest.current("sentence") == second and latest.wins(latest.current("never asked"))


def test_loading_another_model_makes_every_earlier_ticket_lose_but_keeps_it_the_latest():
    latest = Latest()
    compare, fit = latest.ask("compared model"), latest.current("load")
    latest.model_loaded()
    assert not latest.wins(compare) and not latest.wins(fit)
    assert latest.is_latest(compare) and not latest.for_loaded_model(compare)  # (still the model chosen last)
    assert latest.wins(latest.current("load")) and latest.wins(latest.ask("sentence"))


class Held:
    """Jobs started by one_at_a_time, held until ``finish`` runs the oldest (its result handled)."""

    def __init__(self, latest: Latest):
        self.latest, self.running, self.started = latest, [], []

    def start(self, name: str, starts: bool = True) -> Callable[[Ticket], bool]:
        def start(ticket: Ticket) -> bool:
            if starts:
                self.started.append(name)
                self.running.append((name, ticket))
            return starts

        return start

    def finish(self) -> tuple[str, bool]:
        """Finish the oldest running job: its name and whether its result is still the one to show."""
        name, ticket = self.running.pop(0)
        wanted = self.latest.is_latest(ticket)
        self.latest.finished(ticket.purpose)
        return name, wanted


def test_one_job_at_a_time_and_only_the_latest_waiting_request_runs_next():
    latest = Latest()
    held = Held(latest)
    for position in ("x=1", "x=2", "x=3", "x=4"):  # a slider dragged while the first fit runs
        latest.one_at_a_time("kernel fit", held.start(position))
    latest.one_at_a_time("query", held.start("q"))  # another purpose runs beside it
    assert held.started == ["x=1", "q"]
    assert held.finish() == ("x=1", False)  # superseded: x=4 is the one to show …
    assert held.started == ["x=1", "q", "x=4"]  # … and the only one computed next (x=2 and x=3 never)
    assert held.finish() == ("q", True)
    assert held.finish() == ("x=4", True)
    latest.one_at_a_time("kernel fit", held.start("x=5"))  # nothing runs: it starts at once
    assert held.started[-1] == "x=5"


def test_a_request_that_starts_nothing_leaves_the_purpose_free():
    latest = Latest()
    held = Held(latest)
    latest.one_at_a_time("query", held.start("not for this step", starts=False))
    latest.one_at_a_time("query", held.start("q"))
    assert held.started == ["q"]


def test_a_job_finished_inside_its_start_leaves_the_purpose_free():
    latest, done = Latest(), []

    def inline(ticket: Ticket) -> bool:  # an inline runner: the result is handled before start returns
        done.append(latest.is_latest(ticket))
        latest.finished(ticket.purpose)
        return True

    latest.one_at_a_time("view all-heads", inline)
    latest.one_at_a_time("view all-heads", inline)
    assert done == [True, True]


def test_a_waiting_request_for_a_model_no_longer_loaded_is_never_started():
    latest = Latest()
    held = Held(latest)
    latest.one_at_a_time("kernel fit", held.start("old model, x=1"))
    latest.one_at_a_time("kernel fit", held.start("old model, x=2"))
    latest.model_loaded()
    assert held.finish() == ("old model, x=1", False)
    assert held.started == ["old model, x=1"] and held.running == []
    latest.one_at_a_time("kernel fit", held.start("new model"))
    assert held.started[-1] == "new model"
