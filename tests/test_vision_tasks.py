"""Watching a vision transformer learn (issue 48 §2): the generated image task whose right attention is known (the
patches of one bright shape among dim clutter), the [CLS] agreement a run records, and ``attnviz train vit --task``."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attnviz.core.attention.rollout import rollout
from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.learning.history import HistoryError, TrainingHistory
from attnviz.core.learning.image_tasks import (
    CLUTTER_MAX,
    IMAGE_TASKS,
    SHAPE_MIN,
    SHAPES,
    _outline,
)
from tests.helpers import run_cli

TASK = IMAGE_TASKS["shapes"]


def test_a_shapes_patches_are_the_patches_it_covers_by_hand():
    # a 6-pixel square at (2, 3): rows 2–7 and columns 3–8 are patch rows 0–1 and patch columns 0–2, all on its outline
    square = TASK.patches_of(_outline("square", 6), 2, 3)
    expected = np.zeros((7, 7), bool)
    expected[0:2, 0:3] = True
    assert np.array_equal(square, expected)
    # a 9-pixel cross at (0, 0): its middle row and column (pixel 4) are patch row 1 and patch column 1 — a plus
    cross = TASK.patches_of(_outline("cross", 9), 0, 0)
    assert sorted(zip(*np.nonzero(cross), strict=True)) == [(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)]
    # a ring is an outline: its middle is empty, its top and left middles are on it
    ring = _outline("ring", 9)
    assert not ring[4, 4] and ring[0, 4] and ring[4, 0] and ring.sum() < 81 // 2


def test_the_generated_masks_are_the_bright_pixels_patches_and_the_label_is_the_bright_shape():
    for example in TASK.examples(300, seed=3):
        top, left, size = example.box
        bright = example.image >= SHAPE_MIN  # the shape's pixels only: the clutter is never brighter than 0.45
        assert CLUTTER_MAX < SHAPE_MIN and example.image.max() <= 1.0 and example.image.min() >= 0.0
        assert np.array_equal(bright[top: top + size, left: left + size], _outline(SHAPES[example.label], size))
        assert bright.sum() == _outline(SHAPES[example.label], size).sum()  # nothing bright outside its box
        patches = bright.reshape(7, 4, 7, 4).any(axis=(1, 3))  # (independently: any bright pixel in the patch)
        assert np.array_equal(example.patches, patches) and example.patches.any()
    labels = [e.label for e in TASK.examples(400, seed=0)]
    assert set(labels) == {0, 1, 2, 3} and min(np.bincount(labels)) > 60  # every class, about evenly


def test_the_images_are_seeded_and_the_held_out_and_probe_images_are_other_streams():
    first, again = TASK.examples(5, seed=7), TASK.examples(5, seed=7)
    assert all(np.array_equal(a.image, b.image) and a.label == b.label for a, b in zip(first, again, strict=True))
    held = TASK.examples(5, seed=7, held_out=True)
    assert not any(np.array_equal(a.image, b.image) for a in first for b in held)
    probe = TASK.probe_example(0)
    assert np.array_equal(probe.image, TASK.probe_example(0).image)
    assert not any(np.array_equal(probe.image, e.image) for e in TASK.examples(200, seed=0))
    assert TASK.probe_seed("12") == 12 and TASK.probe_seed("-1") is None and TASK.probe_seed("3 1 4") is None
    assert TASK.probe_seed("９") is None and TASK.probe_seed(str(2**31)) is None


def test_cls_attention_is_the_rollout_of_the_core_and_the_agreements_are_shares():
    from attnviz.training.vision_tasks import agreements, cls_attention

    generator = torch.Generator().manual_seed(0)
    weights = torch.rand(3, 2, 4, 50, 50, generator=generator).softmax(-1)  # (L, B, H, N, N)
    shares = cls_attention(weights)
    for b in range(2):
        row = rollout(weights[:, b].numpy())[-1][0, 1:]  # the core's rollout, [CLS]'s row over the patches
        assert np.allclose(shares[b].numpy(), row / row.sum(), atol=1e-6)
    assert torch.allclose(shares.sum(-1), torch.ones(2))
    right = torch.zeros(2, 49, dtype=torch.bool)
    right[0, :4], right[1, 10:12] = True, True
    on_shape = right.float() / right.sum(-1, keepdim=True)  # all attention on the right patches
    assert agreements(on_shape, right) == (1.0, 1.0)
    share, _ = agreements(torch.full((2, 49), 1 / 49), right)  # (even: the top k is any k)
    assert share == pytest.approx((4 / 49 + 2 / 49) / 2)
    elsewhere = (~right).float() / (~right).sum(-1, keepdim=True)
    assert agreements(elsewhere, right) == (0.0, 0.0)


def test_a_short_run_writes_its_checkpoint_and_history_and_its_cls_agreement_rises(tmp_path, capsys):
    out = tmp_path / "shapes.safetensors"
    code, printed, err = run_cli(capsys, "train", "vit", "--task", "shapes", "--preset", "tiny", "--epochs", "1",
                                 "--snapshots", "2", "--out", str(out), "--threads", "1")
    assert code == 0, err
    assert printed.startswith(f"wrote {out}: accuracy ") and "top-k overlap" in printed
    assert "probe image 0 (ring) -> " in err
    loaded = load_checkpoint(out)
    assert loaded.kind == "vit" and loaded.labels == SHAPES and loaded.model.config.num_layers == 2
    history = TrainingHistory.from_json(loaded.training["history"])
    assert (history.kind, history.task, history.score_name) == ("vit", "shapes", "accuracy")
    assert [s.step for s in history.snapshots] == [0, 64, 128]
    first, last = history.snapshots[0], history.snapshots[-1]
    assert last.map.shape == (7, 7) and last.map.sum() == pytest.approx(1.0, abs=1e-3)
    assert last.note == "[CLS] rollout · 2 layers · 2 heads averaged"
    # untrained, [CLS]'s attention is about even (its share on the shape about the shape's share of the patches);
    # after 128 steps it is on the shape, and the model names most shapes
    assert first.agreement < 0.2 and last.agreement > first.agreement + 0.2 and last.overlap > 0.6
    assert last.score > 50 > first.score
    probe = history.probe_image
    assert probe is not None and probe.answer == "ring" and probe.seed == 0
    assert np.array_equal(probe.patches, TASK.probe_example(0).patches)
    assert loaded.training["agreement"] == pytest.approx(last.agreement, abs=1e-4)
    assert loaded.training["ending"] == "epochs"
    # the history reads back as it was written, and its figures export as a text task's do
    assert TrainingHistory.from_json(history.to_json()).snapshots[-1].overlap == last.overlap
    folder = tmp_path / "figures"
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(out), "--training", "--out", str(folder),
                           "--scale", "1")
    assert code == 0, err
    assert (folder / "shapes_map_step000128.csv").is_file() and (folder / "shapes_training.gif").is_file()


def test_bad_image_task_options_get_one_line_and_nothing_is_written(tmp_path, capsys):
    out = tmp_path / "m.safetensors"
    for args, message in [
        (["train", "vit", "--task", "copy"], "--task copy trains rnn-additive, rnn-dot, transformer, decoder-only; "
                                             "vit learns shapes"),
        (["train", "transformer", "--task", "shapes"], "--task shapes trains vit"),
        (["train", "vit", "--task", "shapes", "--probe", "3 1 4"], "is not a probe of the shapes task"),
        (["train", "vit", "--task", "shapes", "--data", str(tmp_path)], "--data does not go with --task"),
        (["train", "vit", "--task", "shapes", "--arch", '{"patch_size": 7}'], "patches of 4 × 4 pixels"),
        (["train", "vit", "--task", "shapes", "--arch", '{"num_heads": 3}'], "does not divide num_hiddens"),
    ]:
        code, _, err = run_cli(capsys, *args, "--out", str(out))
        assert code == 2 and err.count("\n") == 1 and message in err, (args, err)
    assert list(tmp_path.iterdir()) == []
    other = tmp_path / "notes.txt"
    other.write_text("mine")
    code, _, err = run_cli(capsys, "train", "vit", "--task", "shapes", "--out", str(other))
    assert code == 2 and other.read_text() == "mine"


def test_a_damaged_probe_image_is_refused_in_one_sentence():
    from attnviz.core.learning.history import ProbeImage, Snapshot

    probe = TASK.probe_example(0)
    snapshot = Snapshot(0, 0.0, float("nan"), 25.0, 0.1, tuple("1234567"), tuple("1234567"),
                        np.full((7, 7), 1 / 49, np.float32), "", ("ring",), 0.1)
    history = TrainingHistory("vit", "shapes", "accuracy", (snapshot,),
                              probe_image=ProbeImage(probe.image, 4, probe.patches, "ring"))
    raw = history.to_json()
    assert TrainingHistory.from_json(raw).probe_image.answer == "ring"
    for change in ({"patch": 5}, {"pixels": [[2.0] * 28] * 28}, {"patches": [[1] * 6] * 7}, {"answer": ""}):
        with pytest.raises(HistoryError, match="probe image"):
            TrainingHistory.from_json({**raw, "probe_image": {**raw["probe_image"], **change}})
    wrong_map = {**raw, "snapshots": [{**raw["snapshots"][0], "map": [[0.0] * 6] * 6, "rows": list("123456"),
                                      "cols": list("123456")}]}
    with pytest.raises(HistoryError, match="one cell per patch"):
        TrainingHistory.from_json(wrong_map)
