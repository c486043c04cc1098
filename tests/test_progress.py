"""Progress of the long commands on stderr: every tenth of each part of the work, and a line whenever 10 s pass
without one (the clock is a fake one here: no test waits on wall time)."""

from __future__ import annotations

import io

from attnviz.progress import Heartbeat
from tests.helpers import run_cli


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_each_tenth_is_said_once_and_silence_is_broken_every_ten_seconds() -> None:
    clock, out = Clock(), io.StringIO()
    beat = Heartbeat("attnviz heads", out, clock, unit="batches")
    beat.stage("statistics")
    for done in range(1, 21):
        beat(done, 20)
    lines = out.getvalue().splitlines()
    assert lines[0] == "attnviz heads: statistics 10 % (2 of 20 batches)"
    assert [line.split("(")[1] for line in lines] == [f"{2 * k} of 20 batches)" for k in range(1, 11)]
    out.truncate(0), out.seek(0)
    beat.stage("pruning")  # a new part: its tenths counted afresh
    beat(3, 200)  # 1 %: not a tenth yet
    clock.now = 9.9
    beat.tick()
    assert out.getvalue() == ""
    clock.now = 10.0  # ten seconds without a line
    beat.tick()
    clock.now = 15.0
    beat.tick()  # (five seconds since the last line: nothing)
    clock.now = 75.0
    beat.tick()
    assert out.getvalue().splitlines() == ["attnviz heads: pruning 1 % (3 of 200 batches), 10 s so far",
                                           "attnviz heads: pruning 1 % (3 of 200 batches), 1 min 15 s so far"]


def test_a_part_with_no_count_yet_still_says_it_is_alive_and_other_processes_say_nothing() -> None:
    clock, out = Clock(), io.StringIO()
    beat = Heartbeat("attnviz explain", out, clock)
    beat.stage("reading the sentences")
    clock.now = 3725.0
    beat.tick()
    assert out.getvalue().splitlines() == ["attnviz explain: reading the sentences, 1 h 02 min so far"]
    quiet = io.StringIO()
    other = Heartbeat("attnviz explain", quiet, clock, enabled=False)
    other.stage("explaining")
    other(5, 10)
    clock.now += 100
    other.tick()
    assert quiet.getvalue() == ""


def test_the_figures_command_says_how_far_it_has_got(capsys, tmp_path) -> None:
    code, _, stderr = run_cli(capsys, "figures", "--only", "11.1", "--format", "csv", "--out", str(tmp_path / "f"))
    assert code == 0, stderr
    lines = stderr.splitlines()
    assert "attnviz figures: computing the figures 100 % (1 of 1)" in lines
    assert any(line.startswith("attnviz figures: drawing the files 100 % (") for line in lines)
