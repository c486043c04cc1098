"""``attnviz train KIND --task NAME`` and ``attnviz export --training``: the training recorded in the checkpoint,
written out as a flip-book and figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.learning.history import HistoryError, TrainingHistory
from tests.helpers import run_cli


def test_train_on_a_task_then_export_its_training(tmp_path, capsys):
    out = tmp_path / "dates.safetensors"
    code, printed, err = run_cli(capsys, "train", "rnn-additive", "--task", "dates", "--out", str(out), "--epochs", "2",
                                 "--snapshots", "3", "--preset", "tiny", "--threads", "1")
    assert code == 0, err
    assert printed.startswith(f"wrote {out}: exact match ") and "alignment agreement" in printed
    assert "march 14 2021 ->" in err  # each snapshot's probe, as it learns
    history = TrainingHistory.from_json(load_checkpoint(out).training["history"])
    assert [s.step for s in history.snapshots] == [0, 85, 171, 256]
    assert history.snapshots[0].cols == ("march", "14", "2021")  # (day and month differ: two rows told apart)

    folder = tmp_path / "figures"
    code, printed, err = run_cli(capsys, "export", "--checkpoint", str(out), "--training", "--out", str(folder),
                                 "--scale", "1")
    assert code == 0, err
    names = sorted(p.name for p in folder.iterdir())
    assert "dates_training.gif" in names and "dates_training.pdf" in names
    assert {"dates_loss.png", "dates_scores.csv", "dates_map_step000000.png", "dates_map_step000256.csv"} <= set(names)
    with Image.open(folder / "dates_training.gif") as gif:
        assert gif.n_frames == 4  # one frame per snapshot
    assert (folder / "dates_training.pdf").read_bytes().startswith(b"%PDF")
    sidecar = json.loads((folder / "attnviz-export.json").read_text())
    assert sidecar["task"] == "dates" and sidecar["snapshots"] == 4
    before = (folder / "dates_training.gif").read_bytes()
    import attnviz.render.flipbook

    def never(*_args, **_kwargs):
        raise AssertionError("the flip-book was drawn before the files in the way were said")

    original, attnviz.render.flipbook.write_flipbook = attnviz.render.flipbook.write_flipbook, never
    try:  # files in the way are said at once, before anything is drawn
        code, _, err = run_cli(capsys, "export", "--checkpoint", str(out), "--training", "--out", str(folder))
    finally:
        attnviz.render.flipbook.write_flipbook = original
    assert code == 2 and "--force" in err and (folder / "dates_training.gif").read_bytes() == before
    # a history whose snapshots share a step (two maps for one file name) is refused as it is read
    raw = history.to_json()
    raw["snapshots"][2]["step"] = raw["snapshots"][1]["step"]
    with pytest.raises(HistoryError, match="not in step order"):
        TrainingHistory.from_json(raw)


def test_a_task_run_stops_once_it_has_learned_and_says_why(tmp_path, capsys):
    out = tmp_path / "dates.safetensors"
    code, printed, err = run_cli(capsys, "train", "rnn-additive", "--task", "dates", "--out", str(out),
                                 "--threads", "1")
    assert code == 0, err
    history = TrainingHistory.from_json(load_checkpoint(out).training["history"])
    total = 20 * 128  # the default 20 epochs of 8,192 examples in batches of 64
    assert history.snapshots[-1].step < total // 2  # learned long before the epochs were done …
    assert all(s.score >= 99.0 for s in history.snapshots[-3:])  # … at 3 evaluations in a row
    assert f"stopped at step {history.snapshots[-1].step:,}: held-out exact match at least 99 % at 3 " in err
    assert printed.startswith(f"wrote {out}: exact match 100.0 %") or "exact match 99" in printed


def test_task_options_are_checked_in_one_line(tmp_path, capsys):
    out = str(tmp_path / "m.safetensors")
    for args, message in [
        (["train", "kernel-regression", "--task", "copy", "--out", out], "leave out --task"),
        (["train", "transformer", "--task", "copy", "--data", "x.tsv", "--out", out], "--data does not go with --task"),
        (["train", "transformer", "--snapshots", "5", "--data", "x.tsv", "--out", out], "--snapshots goes with --task"),
        (["train", "transformer", "--task", "dates", "--probe", "3 1 4", "--out", out],
         "not an input of the dates task"),
        (["train", "transformer", "--task", "copy", "--snapshots", "0", "--out", out], "--snapshots must be from 1"),
        (["train", "transformer", "--task", "copy", "--learned", "101", "--out", out], "--learned must be more than 0"),
        (["train", "transformer", "--learned", "90", "--data", "x.tsv", "--out", out], "--learned goes with --task"),
    ]:
        code, _, err = run_cli(capsys, *args)
        assert code == 2 and message in err and err.count("\n") == 1, (args, err)
    assert not list(tmp_path.iterdir())


def test_export_training_of_a_checkpoint_without_history_says_so(tmp_path, capsys, tiny_models):
    path = tiny_models["transformer"][0]
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(path), "--training", "--out", str(tmp_path / "o"))
    assert code == 2 and "has no training history" in err and not (tmp_path / "o").exists()


def test_ctrl_c_stops_a_task_run_and_saves_what_it_learned(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    from tests.helpers import CHILD_CAP_S

    out = tmp_path / "copy.safetensors"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    child = subprocess.Popen([sys.executable, "-m", "attnviz", "train", "rnn-additive", "--task", "copy", "--out",
                              str(out), "--epochs", "200", "--snapshots", "400", "--preset", "tiny", "--threads", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert child.stderr is not None
    lines = []
    for line in child.stderr:  # wait for the first snapshot after training began (an event, not a clock)
        lines.append(line)
        if line.startswith("step ") and not line.startswith("step 0 "):
            break
    child.send_signal(signal.SIGINT)
    printed, rest = child.communicate(timeout=CHILD_CAP_S)
    assert child.returncode == 0, "".join(lines) + rest
    assert "stopping after this step and saving what it learned" in rest
    assert printed.startswith(f"wrote {out} (stopped early): exact match ")
    loaded = load_checkpoint(out)
    assert loaded.training["stopped"] is True and loaded.training["steps"] < 200 * 256
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.safetensors"]  # nothing half-written beside it
