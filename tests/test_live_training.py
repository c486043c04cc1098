"""Training you can watch (attnviz.training.live): the agreement metric, a tiny model learning the diagonal,
stopping half-way, the stored history, and hostile TSVs."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.learning.history import HistoryError, TrainingHistory
from attnviz.training.control import Control
from attnviz.training.live import (
    LiveSettings,
    LiveTraining,
    file_data,
    head_agreement,
    preset_arch,
    task_data,
)
from attnviz.training.live_kernel import KernelTraining
from attnviz.training.options import TrainingError

QUICK = LiveSettings(epochs=10, snapshots=4, train_size=1024, heldout_size=64, batch_size=32, warmup_steps=20,
                     lr=3e-3)


def test_head_agreement_counts_the_tokens_whose_strongest_attention_is_on_a_gold_position():
    # one example, 3 target tokens (the third has no gold: <eos>), 2 heads, 3 source positions
    cross = torch.tensor([[[[[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]]],
                           [[[0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]],
                           [[[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]]]])  # (B=1, T=3, L=1, H=2, S=3)
    gold = torch.tensor([[[True, False, False], [False, True, True], [False, False, False]]])
    # head 1: token 0 on 0 (hit), token 1 on 1 (hit); head 2: token 0 on 2 (miss), token 1 on 2 (hit)
    assert head_agreement(cross, gold).tolist() == [[1.0, 0.5]]


@pytest.mark.parametrize("kind", ["rnn-additive", "transformer"])
def test_a_tiny_model_trained_on_copy_finds_the_diagonal_well_above_chance(kind):
    torch.set_num_threads(1)
    history = LiveTraining(kind, task_data("copy", QUICK), preset_arch(kind, "tiny"), QUICK).run().history
    first, last = history.snapshots[0], history.snapshots[-1]
    chance = np.mean([1 / n for n in range(3, 9)])  # uniform attention over 3 to 8 digits: about 0.2
    assert first.agreement < chance + 0.1
    assert last.agreement > 2.5 * chance and last.agreement > first.agreement + 0.3
    assert last.score > 20  # some held-out inputs copied exactly
    assert [s.step for s in history.snapshots] == [0, 80, 160, 240, 320]
    assert math.isnan(first.loss) and last.loss < history.snapshots[1].loss
    assert last.cols == ("3", "1", "4", "1", "5", "9", "2") and last.map.shape == (len(last.rows), 7)
    assert np.allclose(last.map.sum(1), 1, atol=1e-4)


def test_stopping_half_way_saves_a_loadable_checkpoint_with_its_history(tmp_path):
    control = Control()
    seen = []

    def stop_after_two(history):
        seen.append(len(history.snapshots))
        if len(history.snapshots) == 2:
            control.stop()

    settings = LiveSettings(epochs=50, snapshots=100, train_size=256, heldout_size=32, batch_size=32)
    trained = LiveTraining("rnn-dot", task_data("reverse", settings), preset_arch("rnn-dot", "tiny"),
                           settings).run(control, stop_after_two)
    assert trained.info["stopped"] and trained.info["steps"] < 50 * 8
    path = trained.save(tmp_path / "reverse.safetensors")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reverse.safetensors"]  # nothing half-written beside it
    loaded = load_checkpoint(path)
    history = TrainingHistory.from_json(loaded.training["history"])
    assert len(history.snapshots) == 2 and history.task == "reverse" and history.kind == "rnn-dot"
    assert loaded.kind == "rnn-dot" and loaded.training["task"] == "reverse"
    assert history.snapshots[1].map.shape == trained.history.snapshots[1].map.shape


def test_pausing_holds_training_until_resumed():
    control = Control()
    control.pause()
    import threading

    settings = LiveSettings(epochs=1, snapshots=1, train_size=64, heldout_size=16, batch_size=32)
    run = LiveTraining("rnn-additive", task_data("copy", settings), preset_arch("rnn-additive", "tiny"), settings)
    worker = threading.Thread(target=lambda: run.run(control))
    worker.start()
    worker.join(timeout=0.5)
    assert worker.is_alive() and len(run.history.snapshots) == 1  # the untrained snapshot, then it waits
    control.resume()
    worker.join()
    assert [s.step for s in run.history.snapshots] == [0, 2]


def test_the_kernel_regression_history_shows_w_and_the_weights_sharpen():
    trained = KernelTraining(epochs=5).run()
    snapshots = trained.history.snapshots
    assert len(snapshots) == 6 and snapshots[0].note == "w = 1.00"
    assert snapshots[-1].score < snapshots[0].score  # the test error falls
    assert snapshots[-1].map.max() > 2 * snapshots[0].map.max()  # the weights concentrate
    assert trained.info["w"] == pytest.approx(float(snapshots[-1].note.split("= ")[1]), abs=0.01)


def _stored(history: TrainingHistory) -> dict:
    return json.loads(json.dumps(history.to_json()))


def test_a_stored_history_is_read_back_and_a_damaged_one_is_refused_in_one_sentence():
    history = KernelTraining(epochs=2).run().history
    again = TrainingHistory.from_json(_stored(history))
    assert [s.step for s in again.snapshots] == [0, 1, 2]
    assert np.allclose(again.snapshots[2].map, history.snapshots[2].map, atol=1e-4)
    damaged = [("snapshots", []), ("snapshots", [{"step": "one"}]), ("kind", None), ("snapshots", "x" * 10)]
    for key, value in damaged:
        raw = _stored(history) | {key: value}
        with pytest.raises(HistoryError):
            TrainingHistory.from_json(raw)
    raw = _stored(history)
    raw["snapshots"][1]["map"] = [[1.0, 2.0]]
    with pytest.raises(HistoryError, match=r"snapshot 2 .* map is not 50 × 50"):
        TrainingHistory.from_json(raw)
    raw = _stored(history)
    raw["snapshots"][0]["agreement"] = 7
    with pytest.raises(HistoryError, match="agreement is not a share"):
        TrainingHistory.from_json(raw)


@pytest.mark.parametrize("content, message", [
    (b"", "no usable source<TAB>target pairs (the file has no lines)"),
    (b"\x00\xff\xfe\x81" * 1000, "no usable source<TAB>target pairs (lines skipped: 1 not UTF-8)"),
    (b"go .\n" * 20, "lines skipped: 20 without a tab"),
    (b"a" * 10_000_000 + b"\tb\n", "lines skipped: 1 over 64 KiB"),
])
def test_a_hostile_tsv_gets_one_clear_message(tmp_path, content, message):
    path = tmp_path / "pairs.tsv"
    path.write_bytes(content)
    with pytest.raises(TrainingError) as error:
        file_data(path, QUICK)
    assert str(error.value).startswith("pairs.tsv: ") and message in str(error.value)
    assert "\n" not in str(error.value)


def test_a_tsv_of_pairs_trains_with_bleu_and_no_agreement(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("".join(f"number {i} .\tnombre {i} .\n" for i in range(40)), encoding="utf-8")
    settings = LiveSettings(epochs=2, snapshots=2, batch_size=8, heldout_size=4)
    data = file_data(path, settings, "number 3 .")
    assert data.score_name == "BLEU" and len(data.heldout) == 4 and not data.has_gold
    history = LiveTraining("transformer", data, preset_arch("transformer", "tiny"), settings).run().history
    assert all(s.agreement is None for s in history.snapshots)
    assert history.snapshots[-1].cols == ("number", "3", ".")
    assert history.snapshots[-1].note == "layer 1 · mean of 2 heads"


def test_a_probe_that_is_not_an_input_of_the_task_is_refused():
    with pytest.raises(TrainingError, match="the probe 'hello world' is not an input of the dates task"):
        task_data("dates", QUICK, "hello world")


def test_the_learned_rule_and_a_stored_ending():
    from attnviz.core.learning.history import Ending, Snapshot, has_learned

    def at(step: int, score: float) -> Snapshot:
        return Snapshot(step, 0.0, math.nan, score, None, ("a",), ("b",), np.ones((1, 1), np.float32))

    three = [at(0, 100.0), at(1, 99.0), at(2, 100.0), at(3, 99.5)]
    assert has_learned(three, "exact match", 99.0)
    assert not has_learned(three[:3], "exact match", 99.0)  # the untrained snapshot does not count
    assert not has_learned([*three, at(4, 98.9)], "exact match", 99.0)  # three in a row, the last included
    assert not has_learned(three, "BLEU", 99.0) and not has_learned(three, "exact match", None)
    history = TrainingHistory("rnn-dot", "dates", "exact match", tuple(three)).ended(Ending("learned", 95.0))
    stored = json.loads(json.dumps(history.to_json()))
    assert TrainingHistory.from_json(stored).ending == Ending("learned", 95.0)
    assert TrainingHistory.from_json(stored).ending.shown == ("learned: held-out exact match at least 95 % at 3 "
                                                              "evaluations in a row")
    for bad in ("learned", {"why": "bored"}, {"why": "minutes", "minutes": -1, "evaluations": 3},
                {"why": "epochs", "epochs": 1.5, "evaluations": 3}):
        assert TrainingHistory.from_json({**stored, "ending": bad}).ending is None  # shown without it
