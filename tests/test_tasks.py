"""The generated tasks are what they say: each target token is the source token(s) its gold alignment names,
held-out inputs never appear in training, and an input of another task is refused."""

from __future__ import annotations

import pytest

from attnviz.core.learning.tasks import MONTHS, TASKS, is_held_out, task_named


@pytest.mark.parametrize("name", ["copy", "reverse", "sort"])
def test_each_digit_task_target_token_is_the_source_token_its_gold_alignment_points_to(name):
    task = task_named(name)
    for example in task.examples(300, seed=1):
        assert len(example.gold) == len(example.tgt)
        for token, positions in zip(example.tgt, example.gold, strict=True):
            assert positions and all(example.src[p] == token for p in positions)
        if name == "copy":
            assert example.tgt == example.src and [min(g) for g in example.gold] == list(range(len(example.src)))
        if name == "reverse":
            assert example.tgt == example.src[::-1]
            assert [min(g) for g in example.gold] == list(range(len(example.src)))[::-1]
        if name == "sort":
            assert list(example.tgt) == sorted(example.src)
            # a repeated digit may come from any of its copies, and from nowhere else
            for token, positions in zip(example.tgt, example.gold, strict=True):
                assert positions == {i for i, d in enumerate(example.src) if d == token}


def test_reverse_is_the_issue_example():
    example = task_named("reverse").solve(("3", "1", "4", "1", "5"))
    assert example.tgt == ("5", "1", "4", "1", "3")
    assert [set(g) for g in example.gold] == [{4}, {3}, {2}, {1}, {0}]  # positions, not equal digits


def test_dates_cross_their_alignment_year_month_day():
    task = task_named("dates")
    example = task.solve(("march", "3", "2021"))
    assert example.tgt == ("2021", "03", "03")
    assert [set(g) for g in example.gold] == [{2}, {0}, {1}]
    for example in task.examples(500, seed=2):
        month, day, year = example.src
        assert example.tgt == (year, f"{MONTHS.index(month) + 1:02d}", f"{int(day):02d}")
        assert [example.src[min(g)] for g in example.gold] == [year, month, day]
    assert task.solve(("february", "29", "2021")) is None  # not a date
    assert task.solve(("february", "29", "2020")) is not None


def test_held_out_inputs_are_never_trained_on_and_differ_by_seed():
    for task in TASKS.values():
        train = task.examples(2000, seed=0)
        held = task.examples(200, seed=0, held_out=True)
        assert not {e.src for e in train} & {e.src for e in held}
        assert all(is_held_out(e.src) for e in held) and not any(is_held_out(e.src) for e in train)
        assert task.examples(50, seed=0) == task.examples(50, seed=0)
        assert task.examples(50, seed=0) != task.examples(50, seed=1)


def test_every_generated_token_is_in_the_task_vocabulary():
    for task in TASKS.values():
        src_vocab, tgt_vocab = task.vocabularies()
        for example in task.examples(500, seed=3):
            assert all(t in src_vocab for t in example.src) and all(t in tgt_vocab for t in example.tgt)


def test_an_input_of_another_task_is_refused():
    assert task_named("copy").solve(("march", "3", "2021")) is None
    assert task_named("dates").solve(("3", "1", "4")) is None
    with pytest.raises(KeyError, match="known: copy, reverse, sort, dates"):
        task_named("translate")


def test_a_stored_architecture_gives_back_the_size_it_was_made_from():
    from attnviz.core.models.kinds import arch_for, size_of

    for kind, size in (("rnn-dot", (48, 2, 1)), ("transformer", (64, 3, 4)), ("decoder-only", (32, 2, 2))):
        assert size_of(kind, arch_for(kind, *size)) == size
    for hostile in (None, [], {"num_hiddens": "64"}, {"num_hiddens": True, "num_layers": 1}, {"num_hiddens": 64}):
        assert size_of("rnn-additive", hostile) is None


def test_the_kinds_that_learn_tasks_are_the_registrys_records_with_sizes():
    """The Train dock, ``attnviz train --task`` and live training read one list: the kinds whose registry record
    says how to size them; a kind without sizes is refused by name."""
    from attnviz.core.models.kinds import KINDS, SIZE_PRESETS, model_size, preset_arch, task_kinds
    from attnviz.gui.panels.train import FAMILIES, KERNEL_TASK
    from attnviz.training.live import LIVE_KINDS

    assert LIVE_KINDS == ("rnn-additive", "rnn-dot", "transformer", "decoder-only")  # (the text tasks' trainer)
    assert task_kinds() == (*LIVE_KINDS, "vit")  # (the image task's: its record names it)
    assert (*task_kinds(), KERNEL_TASK) == FAMILIES
    assert all(KINDS[kind].trainable and not KINDS[kind].hugging_face for kind in LIVE_KINDS)
    assert model_size("transformer", "small") == (64, 2, 4) and model_size("rnn-dot", "tiny") == (32, 1, 1)
    assert preset_arch("decoder-only", "tiny") == {"num_hiddens": 32, "dropout": 0.0, "num_decoder_layers": 2,
                                                   "ffn_hiddens": 64, "num_heads": 2}
    assert set(SIZE_PRESETS) == {"tiny", "small"}
    with pytest.raises(ValueError, match="encoder-only cannot be trained on a task; choose one of rnn-additive, "
                                         "rnn-dot, transformer, decoder-only"):
        model_size("encoder-only", "tiny")
