"""``attnviz train`` on a user's own files and options: it trains, or refuses with one line on stderr and
exit code 2 before anything is written, and never writes a checkpoint that loading would refuse.

Run in-process (as ``attnviz.app.main`` runs it) on a few dozen generated pairs with a tiny model.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tracemalloc
from pathlib import Path

import pytest

from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint
from tests.helpers import fill_disk, run_cli
from tests.tiny import write_reversal_data

TINY_RNN = json.dumps({"num_hiddens": 8, "embed_size": 8, "num_layers": 1})
TINY_TRANSFORMER = json.dumps({"num_hiddens": 8, "ffn_hiddens": 8, "num_heads": 2, "num_encoder_layers": 1,
                               "num_decoder_layers": 1})


@pytest.fixture
def train(capsys):
    """``train(*args)`` -> (exit code, stdout, stderr) of ``attnviz train ARGS``."""
    return lambda *args: run_cli(capsys, "train", *args)


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    return write_reversal_data(tmp_path / "pairs.tsv", n=40)


def one_error_line(err: str) -> str:
    """The single line of ``err`` (asserting there is exactly one, the CLI's error line)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attnviz: error: "), err
    return lines[0]


def final_error_line(err: str) -> str:
    """The CLI's error line after training's progress lines: the last line, the only error, no traceback."""
    lines = err.strip().splitlines()
    assert lines[-1].startswith("attnviz: error: ") and err.count("attnviz:") == 1 and "Traceback" not in err, err
    return lines[-1]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_a_file_too_small_for_a_validation_split_trains_on_its_pairs(train, tmp_path, n):
    data = tmp_path / "small.tsv"
    data.write_text("".join(f"a b {'c ' * i}\tx{i} y\n" for i in range(n)), encoding="utf-8")
    out = tmp_path / "small.safetensors"
    code, stdout, err = train("transformer", "--data", str(data), "--out", str(out), "--epochs", "1",
                              "--arch", TINY_TRANSFORMER)
    assert code == 0, err
    assert f"note: {n} distinct source sentences are too few to hold out a validation split" in err
    assert stdout.startswith(f"wrote {out}: training BLEU ") and "too few sentences for a validation split" in stdout
    training = load_checkpoint(out).training
    assert training["val_bleu"] is None and training["bleu_scored_on"] == "training" and training["val_pairs"] == 0


def test_train_help_shows_every_options_default():
    import argparse

    from attnviz.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    train = sub.choices["train"]
    options = [a for a in train._actions if a.option_strings
               and a.dest not in {"help", "out", "data"}]  # (the two it needs)
    assert {a.dest for a in options} >= {"epochs", "seed", "batch_size", "lr", "threads", "arch", "minutes"}
    assert [a.dest for a in options if "default" not in (a.help or "")] == []
    text = " ".join(train.format_help().split())
    assert "(default 10; kernel-regression 5)" in text and "(default 128)" in text and "(default 0)" in text


@pytest.mark.parametrize(("args", "message"), [
    (["--epochs", "0"], "--epochs: epochs = 0 is outside 1..100000"),
    (["--epochs", "-1"], "--epochs: epochs = -1 is outside 1..100000"),
    (["--batch-size", "0"], "--batch-size: batch_size = 0 is outside 1..4096"),
    (["--lr", "inf"], "--lr: lr must be a finite number, not inf"),
    (["--lr", "nan"], "--lr: lr must be a finite number, not nan"),
    (["--minutes", "-5"], "--minutes: minutes = -5.0 is outside 0.01..1e+06"),
    (["--seed", "-1"], "--seed: seed = -1 is outside 0..4294967295"),
    (["--epochs", "2", "--stop-after", "3"], "--stop-after 3 is past the last epoch (--epochs 2)"),
    (["--arch", '{"num_heads": 0}'], "--arch: num_heads = 0 is outside 1..64"),
    (["--arch", '{"num_hiddens": "8"}'], "--arch: num_hiddens must be a whole number, not '8'"),
    (["--arch", '{"num_hiddens": {"num_hiddens": 8}}'], "--arch: num_hiddens must be a whole number"),
    (["--arch", '{"x": ' * 5000 + "1" + "}" * 5000], "--arch is nested too deeply"),
    (["--arch", '{"num_hiddens": 100000}'], "--arch: num_hiddens = 100000 is outside 1..4096"),
    (["--arch", '{"num_encoder_layers": 1000000}'], "--arch: num_encoder_layers = 1000000 is outside 1..24"),
    (["--arch", '{"max_tgt_len": 5000}'], "--arch: max_tgt_len = 5000 is outside 1..1024"),
    (["--arch", '{"max_src_len": 0}'], "--arch: max_src_len = 0 is outside 1..1024"),
    (["--arch", '{"num_heads": 3}'], "--arch: num_heads = 3 does not divide num_hiddens = 256"),
], ids=["epochs-0", "epochs-negative", "batch-0", "lr-inf", "lr-nan", "minutes-negative", "seed-negative",
        "stop-after-past-epochs", "heads-0", "hiddens-text", "hiddens-object", "arch-deep", "hiddens-huge",
        "layers-huge", "tgt-len-huge", "src-len-0", "heads-not-dividing"])
def test_options_outside_the_loaders_limits_are_refused_before_training(train, pairs, tmp_path, args, message):
    out = tmp_path / "model.safetensors"
    code, stdout, err = train("transformer", "--data", str(pairs), "--out", str(out), *args)
    assert code == 2 and stdout == ""
    assert message in one_error_line(err)
    assert "epoch" not in err.split("error: ")[0]  # refused before the first step: no progress line
    assert sorted(os.listdir(tmp_path)) == ["pairs.tsv"]  # nothing written, no temporary file left


@pytest.mark.parametrize("force", [[], ["--force"]])
@pytest.mark.parametrize("kind", ["rnn-dot", "kernel-regression"])
@pytest.mark.parametrize(("name", "make"), [
    ("the data file", lambda tmp, data: data),
    ("notes", lambda tmp, data: (tmp / "notes.txt").write_text("my notes\n") and tmp / "notes.txt"),
    ("a safetensors file not from attnviz", lambda tmp, data: _foreign_safetensors(tmp / "other.safetensors")),
])
def test_out_never_replaces_a_file_that_is_not_a_checkpoint(train, pairs, tmp_path, kind, name, make, force):
    target = make(tmp_path, pairs)
    before = target.read_bytes()
    data = ["--data", str(pairs), "--arch", TINY_RNN] if kind == "rnn-dot" else []
    code, _, err = train(kind, *data, "--out", str(target), "--epochs", "1", *force)
    assert code == 2, name
    assert f"--out {target}: exists and is not an attnviz checkpoint" in one_error_line(err)
    assert target.read_bytes() == before


def _foreign_safetensors(path: Path) -> Path:
    import torch
    from safetensors.torch import save_file

    save_file({"w": torch.zeros(2)}, str(path), metadata={"author": "someone else"})
    return path


def test_out_refuses_a_pipe_a_folder_and_a_link(train, pairs, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    link = tmp_path / "link.safetensors"
    link.symlink_to(pairs)
    for target, message in ((fifo, "is not a regular file"), (folder, "is a folder"), (link, "is a symbolic link")):
        code, _, err = train("rnn-dot", "--data", str(pairs), "--out", str(target), "--epochs", "1", "--arch", TINY_RNN)
        assert code == 2 and f"--out {target}: {message}" in one_error_line(err)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and folder.is_dir() and os.listdir(folder) == []
    assert link.is_symlink() and link.resolve() == pairs.resolve()


def test_an_existing_checkpoint_is_replaced_only_with_force(train, pairs, tmp_path):
    out = tmp_path / "model.safetensors"
    assert train("rnn-dot", "--data", str(pairs), "--out", str(out), "--epochs", "1", "--arch", TINY_RNN)[0] == 0
    before = out.read_bytes()
    code, _, err = train("rnn-dot", "--data", str(pairs), "--out", str(out), "--epochs", "1", "--seed", "5",
                         "--arch", TINY_RNN)
    assert code == 2
    assert f"--out {out}: a checkpoint already exists there; add --force to replace it" in one_error_line(err)
    assert out.read_bytes() == before
    code, _, err = train("rnn-dot", "--data", str(pairs), "--out", str(out), "--epochs", "1", "--seed", "5",
                         "--arch", TINY_RNN, "--force")
    assert code == 0, err
    assert out.read_bytes() != before and load_checkpoint(out).training["seed"] == 5


def test_lines_a_checkpoint_could_not_hold_are_skipped_with_a_count(train, pairs, tmp_path):
    data = tmp_path / "mixed.tsv"
    bad = (b"a \x1b[2J b\tbx ax\n"  # an escape sequence
           b"c\x00d\tdx cx\n"  # a NUL byte
           + b"w" * 150 + b" a\tax\n"  # a word over 100 characters
           + b"b \xff c\tcx bx\n"  # not UTF-8
           + b"a b c" + b" " * 70_000 + b"\tcx bx ax\n"  # a line over 64 KiB
           + b"no tab here\n\n")
    data.write_bytes(pairs.read_bytes() + bad)
    out = tmp_path / "model.safetensors"
    code, _, err = train("rnn-dot", "--data", str(data), "--out", str(out), "--epochs", "1", "--arch", TINY_RNN)
    assert code == 0, err
    assert ("note: 6 lines of mixed.tsv skipped: 3 with control characters or words over 100 characters, "
            "1 not UTF-8, 1 over 64 KiB, 1 without a tab") in err
    loaded = load_checkpoint(out)  # the app can open what training wrote
    assert loaded.training["train_pairs"] + loaded.training["val_pairs"] == 40


def test_a_file_of_only_unusable_lines_is_refused_with_the_reasons(train, tmp_path):
    data = tmp_path / "nul.tsv"
    data.write_bytes(b"x\x00\tyy\nonly one column\n")
    out = tmp_path / "model.safetensors"
    code, _, err = train("rnn-dot", "--data", str(data), "--out", str(out), "--arch", TINY_RNN)
    assert code == 2
    assert one_error_line(err).endswith("nul.tsv: no usable sentence pairs (lines skipped: 1 with control "
                                        "characters or words over 100 characters, 1 without a tab)")
    assert not out.exists()


def test_a_huge_line_is_never_held_in_memory_whole(tmp_path):
    from attnviz.training.data import read_pairs

    data = tmp_path / "huge.tsv"
    with open(data, "wb") as handle:
        handle.write(b"a b\tbx ax\n" + b"x" * (40 * 1024 * 1024) + b"\ty\nc d\tdx cx\n")
    tracemalloc.start()
    try:
        pairs = read_pairs(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [" ".join(p.src) for p in pairs] == ["a b", "c d"]
    assert peak < 4 * 1024 * 1024  # the 40 MB line was read in bounded pieces (64 KiB)


def test_a_full_disk_is_one_line_and_leaves_the_checkpoint_as_it_was(train, pairs, small_disk):
    out = small_disk / "model.safetensors"
    assert train("rnn-dot", "--data", str(pairs), "--out", str(out), "--epochs", "1", "--arch", TINY_RNN)[0] == 0
    before = out.read_bytes()
    fill_disk(small_disk)
    for target, force in ((small_disk / "new.safetensors", []), (out, ["--force"])):
        code, stdout, err = train("rnn-dot", "--data", str(pairs), "--out", str(target), "--epochs", "1",
                                  "--seed", "3", "--arch", TINY_RNN, *force)
        assert code == 2 and "wrote" not in stdout
        line = final_error_line(err)
        assert "epoch 1 could not be saved" in line and "No space left on device" in line
    assert out.read_bytes() == before
    assert sorted(os.listdir(small_disk)) == ["filler", "model.safetensors"]  # no temporary file left


def test_a_checkpoint_the_loader_refuses_is_never_written(tmp_path):
    """save_checkpoint(verify=True), as training saves, loads the written bytes before they take the name:
    weights beyond float16's range (stored as inf) raise and leave the earlier checkpoint in place."""
    import torch

    from attnviz.core.checkpoints.checkpoint import build_model, save_checkpoint
    from attnviz.core.models.kinds import kind_named
    from attnviz.core.text import Vocab

    vocab = Vocab.build([("a", "b")], min_freq=1)
    config = kind_named("rnn-dot").make_config(src_vocab_size=len(vocab), tgt_vocab_size=len(vocab),
                                               **json.loads(TINY_RNN))
    model = build_model(config)
    out = tmp_path / "model.safetensors"
    save_checkpoint(out, model, src_vocab=vocab, tgt_vocab=vocab, half=True, verify=True)
    before = out.read_bytes()
    with torch.no_grad():
        next(model.parameters()).fill_(1e5)
    with pytest.raises(CheckpointError, match=r"model\.safetensors: tensor .* holds NaN or infinite values"):
        save_checkpoint(out, model, src_vocab=vocab, tgt_vocab=vocab, half=True, verify=True)
    assert out.read_bytes() == before and os.listdir(tmp_path) == ["model.safetensors"]


@pytest.mark.parametrize(("args", "message"), [
    (["--epochs", "0"], "--epochs: epochs = 0 is outside 1..100000"),
    (["--lr", "inf"], "--lr: lr must be a finite number, not inf"),
    (["--arch", "{}"], "--arch: kernel-regression trains on its own synthetic data"),
])
def test_kernel_regression_options_are_checked(train, tmp_path, args, message):
    out = tmp_path / "nw.safetensors"
    code, _, err = train("kernel-regression", "--out", str(out), *args)
    assert code == 2 and message in one_error_line(err)
    assert not out.exists()


def test_a_vocabulary_larger_than_the_loader_takes_is_refused_before_the_model_is_built(train, tmp_path):
    """220,000 distinct English words, each twice in its line: the vocabulary of the training pairs (the
    validation split holds out 1,500 lines) is over the 200,000 that loading takes, so training stops
    before it builds (or trains) the model."""
    words = [f"w{i}" for i in range(220_000)]
    data = tmp_path / "wide.tsv"
    data.write_text("".join(" ".join(w for w in words[i: i + 6] for _ in range(2)) + "\tx\n"
                            for i in range(0, len(words), 6)), encoding="utf-8")
    out = tmp_path / "model.safetensors"
    code, _, err = train("rnn-dot", "--data", str(data), "--out", str(out), "--arch", TINY_RNN)
    assert code == 2 and "parameters" not in err  # the model was never built
    assert re.search(r"wide\.tsv: the model cannot be built from this data: src_vocab_size = 2\d{5} is outside "
                     r"4\.\.200000$", final_error_line(err))
    assert not out.exists()
