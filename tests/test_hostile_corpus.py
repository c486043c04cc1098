"""Hostile input to the corpus commands (``heads``, ``explain``, ``fill-mask``, ``translate``): every request that
cannot be met is refused in one line before any work starts, and memory stays bounded whatever the input."""

from __future__ import annotations

import pytest

from tests.helpers import one_error_line, run_cli

MISSING = "/nonexistent/model.safetensors"  # a refusal that names this checkpoint came after the model's loading


def test_a_task_limit_beyond_its_distinct_inputs_is_refused_before_anything_is_generated(capsys, tmp_path):
    out = tmp_path / "atlas"
    for limit, said in (("4000", "the dates task has 3,635 distinct held-out inputs (of 36,525 in all)"),
                        ("1000000000", "at most 100,000 held-out inputs (the reverse task has about 11,111,100 of "
                                       "111,111,000 distinct inputs)")):
        task = "dates" if limit == "4000" else "reverse"
        code, _, stderr = run_cli(capsys, "heads", "--checkpoint", MISSING, "--task", task, "--limit", limit,
                                  "--out", str(out))
        assert code == 2 and said in one_error_line(stderr), stderr
        assert not out.exists()


def test_every_distinct_held_out_date_can_be_had_and_no_more() -> None:
    from attnviz.core.heads.alignment import task_examples
    from attnviz.core.tasks import is_held_out, task_named

    dates = task_named("dates")
    assert dates.held_out_inputs() == 3635 and dates.distinct_inputs() == 36525
    examples, corpus = task_examples(dates, 3635)
    assert len({e.src for e in examples}) == len(corpus) == 3635 and all(is_held_out(e.src) for e in examples)
    with pytest.raises(ValueError, match="3,635"):
        task_examples(dates, 3636)
    assert task_named("reverse").held_out_inputs() is None and task_named("reverse").distinct_inputs() == 111_111_000
