"""``attnviz train --resume``: a run stopped after an epoch, or killed inside one, continues its schedule
and makes the very model a run that was never stopped makes; another run's settings are refused.

In-process on generated pairs with a tiny Transformer (the same threads throughout, so runs are exact).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from safetensors.numpy import load_file

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.training import train as train_module
from tests.helpers import run_cli
from tests.tiny import write_reversal_data

TINY = json.dumps({"num_hiddens": 8, "ffn_hiddens": 8, "num_heads": 2, "num_encoder_layers": 1,
                   "num_decoder_layers": 1})
TINY_DECODER_ONLY = json.dumps({"num_hiddens": 8, "ffn_hiddens": 8, "num_heads": 2, "num_decoder_layers": 2})


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    return write_reversal_data(tmp_path / "pairs.tsv", n=60)


def train(capsys, kind: str, data: Path, out: Path, *extra: str) -> tuple[int, str]:
    arch = TINY_DECODER_ONLY if kind == "decoder-only" else TINY
    code, _, err = run_cli(capsys, "train", kind, "--data", str(data), "--out", str(out), "--epochs", "3",
                           "--batch-size", "8", "--arch", arch, *extra)
    return code, err


def tensors(path: Path) -> dict:
    return load_file(str(path))


def assert_same_model(a: Path, b: Path) -> None:
    first, second = tensors(a), tensors(b)
    assert first.keys() == second.keys()
    for name in first:
        assert (first[name] == second[name]).all(), name
    info_a, info_b = load_checkpoint(a).training, load_checkpoint(b).training
    assert info_a["bleu_per_epoch"] == info_b["bleu_per_epoch"]
    assert info_a["train_loss_per_epoch"] == info_b["train_loss_per_epoch"]
    assert info_a["steps"] == info_b["steps"]


@pytest.mark.parametrize("kind", ["transformer", "decoder-only"])
def test_a_run_stopped_after_an_epoch_resumes_to_the_model_of_an_unstopped_run(capsys, pairs, tmp_path, kind):
    straight, stopped = tmp_path / "straight.safetensors", tmp_path / "stopped.safetensors"
    assert train(capsys, kind, pairs, straight)[0] == 0
    assert not (tmp_path / "straight.safetensors.resume").exists()  # a finished schedule leaves no state

    code, err = train(capsys, kind, pairs, stopped, "--stop-after", "1")
    assert code == 0, err
    state = tmp_path / "stopped.safetensors.resume"
    assert state.is_file() and "--resume" in err
    assert load_checkpoint(stopped).training["epochs_completed"] == 1

    code, err = train(capsys, kind, pairs, stopped, "--stop-after", "2", "--resume")
    assert code == 0, err
    assert "resuming epoch 2 at batch 1" in err and state.is_file()
    code, err = train(capsys, kind, pairs, stopped, "--resume")
    assert code == 0, err
    assert not state.exists()
    assert load_checkpoint(stopped).training["runs"] == 3
    assert_same_model(straight, stopped)


def test_a_run_killed_inside_an_epoch_resumes_from_its_last_saved_batch(capsys, pairs, tmp_path, monkeypatch):
    straight, killed = tmp_path / "straight.safetensors", tmp_path / "killed.safetensors"
    assert train(capsys, "transformer", pairs, straight)[0] == 0

    monkeypatch.setattr(train_module, "SAVE_EVERY_S", -1.0)  # keep the state after every batch
    real_update, calls = train_module.Progress.update, []

    def interrupted_in_the_ninth_batch(self, done, loss, tokens):
        calls.append(done)
        if len(calls) == 9:  # epoch 2's second batch (an epoch here is 7): killed before it is saved
            raise KeyboardInterrupt
        real_update(self, done, loss, tokens)

    monkeypatch.setattr(train_module.Progress, "update", interrupted_in_the_ninth_batch)
    code, err = train(capsys, "transformer", pairs, killed)
    assert code == 130 and "interrupted" in err
    assert "killed.safetensors.resume: the same command with --resume continues it" in err
    monkeypatch.setattr(train_module.Progress, "update", real_update)

    code, err = train(capsys, "transformer", pairs, killed, "--resume")
    assert code == 0, err
    assert "resuming epoch 2 at batch 2" in err
    assert_same_model(straight, killed)


@pytest.mark.parametrize(("change", "message"), [
    (("--epochs", "4"), "it ran with --epochs 3, this run has 4"),
    (("--seed", "1"), "it ran with --seed 0, this run has 1"),
    (("--lr", "0.01"), "it ran with --lr 0.001, this run has 0.01"),
    (("--data", "OTHER"), "it trained on a different --data file"),
    (("--stop-after", "1"), "--stop-after 1: the run in"),
])
def test_resume_refuses_another_runs_settings(capsys, pairs, tmp_path, change, message):
    out = tmp_path / "model.safetensors"
    assert train(capsys, "transformer", pairs, out, "--stop-after", "1")[0] == 0
    before = out.read_bytes()
    args = list(change)
    if "OTHER" in args:
        args[1] = str(write_reversal_data(tmp_path / "other.tsv", n=60, seed=1))
    code, err = train(capsys, "transformer", pairs, out, "--resume", *args)
    assert code == 2 and message in err.strip().splitlines()[-1], err
    assert out.read_bytes() == before


def test_resume_without_a_state_and_a_new_run_over_one_say_what_to_do(capsys, pairs, tmp_path):
    out = tmp_path / "model.safetensors"
    code, err = train(capsys, "transformer", pairs, out, "--resume")
    assert code == 2 and "there is nothing to resume" in err
    assert not out.exists()

    assert train(capsys, "transformer", pairs, out, "--stop-after", "1")[0] == 0
    out.unlink()  # the checkpoint is gone, its unfinished run's state is not
    code, err = train(capsys, "transformer", pairs, out)
    assert code == 2 and "holds an unfinished run: add --resume to continue it, or --force" in err
    code, err = train(capsys, "transformer", pairs, out, "--force")
    assert code == 0, err
    assert not (tmp_path / "model.safetensors.resume").exists()


def test_a_state_that_is_not_one_is_refused_in_one_line(capsys, pairs, tmp_path):
    out = tmp_path / "model.safetensors"
    (tmp_path / "model.safetensors.resume").write_bytes(b"PK\x03\x04 not a state")
    code, err = train(capsys, "transformer", pairs, out, "--resume")
    assert code == 2 and "is not a training state attnviz can continue" in err
    assert len(err.strip().splitlines()) == 1
