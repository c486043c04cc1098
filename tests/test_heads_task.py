"""``attnviz heads --task``: each cross-attention head's agreement with a generated task's true alignment, against
a direct count; bad input is one line, exit 2, nothing written."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import torch

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.heads.alignment import (
    agreeing,
    alignment_agreement,
    cross_attention,
    gold_mask,
    head_agreement,
    task_examples,
)
from attnviz.core.learning.tasks import Example, task_named
from attnviz.training.live import LiveSettings, LiveTraining, preset_arch, task_data
from tests.helpers import run_cli


def test_a_head_agrees_where_its_strongest_attention_falls_on_a_right_source_position() -> None:
    rng = np.random.default_rng(0)
    examples = [Example(("1", "2", "3"), ("3", "2", "1"), (frozenset({2}), frozenset({1}), frozenset({0}))),
                Example(("4", "4"), ("4", "4"), (frozenset({0, 1}), frozenset({0, 1})))]
    cross = torch.tensor(rng.random((2, 4, 2, 3, 3)))  # (B, T, L, H, S): T = 3 tokens + <eos>
    gold = gold_mask(examples, 3, 4)
    hits, counted = agreeing(cross, gold)
    expected = np.zeros((2, 3))
    tokens = 0
    for b, example in enumerate(examples):
        for t, right in enumerate(example.gold):
            tokens += 1
            for layer in range(2):
                for head in range(3):
                    expected[layer, head] += int(np.argmax(cross[b, t, layer, head].numpy())) in right
    assert int(counted) == tokens == 5
    np.testing.assert_allclose(hits.numpy(), expected, atol=1e-12)
    np.testing.assert_allclose(head_agreement(cross, gold).numpy(), expected / tokens, atol=1e-7)


@pytest.fixture(scope="module")
def reverse_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Transformer trained on the reverse task (a few seconds)."""
    settings = LiveSettings(epochs=15, snapshots=2, train_size=1024, heldout_size=64, batch_size=32, warmup_steps=20,
                            lr=3e-3)
    trained = LiveTraining("transformer", task_data("reverse", settings), preset_arch("transformer", "tiny"),
                           settings).run()
    return trained.save(tmp_path_factory.mktemp("task") / "reverse.safetensors")


def test_heads_task_writes_each_cross_heads_agreement_with_the_true_alignment(capsys, reverse_model, tmp_path):
    out = tmp_path / "atlas"
    code, _stdout, stderr = run_cli(capsys, "heads", "--checkpoint", str(reverse_model), "--task", "reverse",
                                    "--limit", "48", "--seeds", "1", "--format", "png", "--out", str(out))
    assert code == 0, stderr
    with open(out / "heads.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    cross = {(int(r["layer"]) - 1, int(r["head"]) - 1): float(r["alignment"]) for r in rows if r["kind"] == "cross"}
    assert cross and all(r["alignment"] == "n/a" for r in rows if r["kind"] != "cross")
    # the same count, made directly: every held-out example teacher-forced at once, each head's argmax
    loaded = load_checkpoint(reverse_model)
    examples, corpus = task_examples(task_named("reverse"), 48)
    assert len(corpus) == len(examples) == 48 and (out / "pruning.csv").is_file()
    src = torch.nn.utils.rnn.pad_sequence([torch.tensor(loaded.src_vocab.ids(e.src)) for e in examples],
                                          batch_first=True, padding_value=loaded.src_vocab.pad_id)
    valid = torch.tensor([len(e.src) for e in examples])
    feed = torch.nn.utils.rnn.pad_sequence(
        [torch.tensor([loaded.tgt_vocab.bos_id, *loaded.tgt_vocab.ids(e.tgt)]) for e in examples], batch_first=True,
        padding_value=loaded.tgt_vocab.pad_id)
    maps = cross_attention(loaded.model.eval(), src, valid, feed)  # (B, T, L, H, S)
    total = 0
    direct = np.zeros((maps.shape[2], maps.shape[3]))
    for b, example in enumerate(examples):
        for t, positions in enumerate(example.gold):
            total += 1
            direct += np.isin(maps[b, t].argmax(-1).numpy(), list(positions))
    for (layer, head), value in cross.items():
        assert value == pytest.approx(direct[layer, head] / total, abs=1e-12)
    assert max(cross.values()) > 0.5  # a model that learned to reverse has a head on the anti-diagonal
    np.testing.assert_allclose(alignment_agreement(loaded, examples, "cpu"), direct / total, atol=1e-12)


def test_bad_task_input_is_one_line_and_writes_nothing(capsys, reverse_model, tiny_models, tmp_path):
    out = tmp_path / "atlas"
    cases = [
        (("--checkpoint", str(reverse_model), "--task", "nope"), "unknown task 'nope'"),
        (("--checkpoint", str(tiny_models["transformer"][0]), "--task", "reverse"), "does not know the reverse task"),
        (("--checkpoint", str(reverse_model), "--task", "reverse", "--data", str(tiny_models["data"])), "one of them"),
        (("--checkpoint", str(reverse_model)), "--task NAME"),
    ]
    for args, words in cases:
        code, _stdout, stderr = run_cli(capsys, "heads", *args, "--out", str(out))
        assert code == 2 and words in stderr and len(stderr.strip().splitlines()) == 1, (args, stderr)
        assert not out.exists()


def test_two_processes_give_one_process_agreement(capsys, reverse_model, tmp_path) -> None:
    from tests.helpers import assert_same_atlas, torchrun

    common = ["--checkpoint", str(reverse_model), "--task", "reverse", "--limit", "40", "--seeds", "1", "--format",
              "png"]
    code, _, stderr = run_cli(capsys, "heads", *common, "--out", str(tmp_path / "one"))
    assert code == 0, stderr
    done = torchrun("heads", *common, "--out", str(tmp_path / "two"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 processes" in done.stderr
    assert_same_atlas(tmp_path / "one", tmp_path / "two")  # the alignment column too, to 1e-6
