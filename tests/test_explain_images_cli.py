"""``attnviz explain`` over a folder of images: agreement.csv's τ are the means of explain_image's own τ over the
images, layers.csv per layer, COLUMNS.md describes every column; a bad file, a text model, --processes and --heldout
are refused in one line (exit 2) with nothing written."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.explain import explain_image
from attnviz.core.images import open_image
from tests.helpers import assert_files_explain_themselves, run_cli
from tests.vit_images import noise_pngs, save_tiny_vit


@pytest.fixture(scope="module")
def vit_path(tmp_path_factory) -> Path:
    return save_tiny_vit(tmp_path_factory.mktemp("vit"))


@pytest.fixture()
def images(tmp_path) -> Path:
    return noise_pngs(tmp_path / "images", 3, name="image{index}.png")


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_explain_over_a_folder_of_images_tallies_explain_images_own_tau(capsys, vit_path, images, tmp_path):
    out = tmp_path / "out"
    code, stdout, err = run_cli(capsys, "explain", "--checkpoint", str(vit_path), "--data", str(images), "--out",
                                str(out), "--ig-steps", "8", "--format", "csv")
    assert code == 0, err
    assert "explained the predicted class of 3 images" in stdout and "τ(attention, ig)" in stdout
    loaded = load_checkpoint(vit_path)
    explained = [explain_image(loaded, open_image(path), ig_steps=8) for path in sorted(images.glob("*.png"))]
    methods = explained[0].methods
    agreement = {(r["method_a"], r["method_b"]): r for r in _rows(out / "agreement.csv")}
    for i, first in enumerate(methods):
        for j in range(i + 1, len(methods)):
            taus = [e.kendall[i, j] for e in explained if np.isfinite(e.kendall[i, j])]
            row = agreement[first, methods[j]]
            assert int(row["images"]) == len(taus)  # (an image run counts images)
            if taus:
                assert float(row["tau_mean"]) == pytest.approx(np.mean(taus), abs=1e-4)
    assert ("attention", "|ig|") in agreement  # attention against the magnitudes of the signed rows
    layers = _rows(out / "layers.csv")
    assert "tokens" not in layers[0] and int(layers[0]["images"]) >= 1  # (an image run counts images)
    assert {(r["method"], r["reference"], r["layer"]) for r in layers} == {
        (m, ref, str(layer)) for m in ("attention", "rollout") for ref in ("occlusion", "ig") for layer in (1, 2)}
    assert not (out / "sinks.csv").exists()  # (an image has no <eos>, <bos> or punctuation keys)
    assert_files_explain_themselves(out, ("agreement.csv", "layers.csv"))
    assert (out / "tau_attention_vs_ig.csv").exists()


def test_a_bad_image_is_one_line_exit_2_and_nothing_written(capsys, vit_path, images, tmp_path):
    (images / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n truncated")
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "explain", "--checkpoint", str(vit_path), "--data", str(images), "--out",
                           str(out), "--format", "csv")
    lines = [line for line in err.splitlines() if line.startswith("attnviz: error")]
    assert code == 2 and len(lines) == 1 and "broken.png" in lines[0], err
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("extra, message", [(("--processes", "2"), "runs in one process"),
                                            (("--heldout",), "is a folder of images")])
def test_what_a_folder_of_images_cannot_do_is_refused_in_one_line(capsys, vit_path, images, tmp_path, extra,
                                                                  message):
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "explain", "--checkpoint", str(vit_path), "--data", str(images), "--out",
                           str(out), *extra)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


def test_a_text_model_is_told_to_take_an_image_model(capsys, tiny_models, images, tmp_path):
    code, _, err = run_cli(capsys, "explain", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
                           str(images), "--out", str(tmp_path / "out"))
    assert code == 2 and "is a folder of images: give an image model" in err, err
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run_cli(capsys, "explain", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
                           str(empty), "--out", str(tmp_path / "out"))
    assert code == 2 and "is a folder: give a text file" in err, err
