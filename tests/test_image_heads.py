"""The head atlas of an image model: entropy, [CLS] share and mean attention distance in pixels, by the closed
formula on hand-made maps and through ``attnviz heads --data FOLDER_OF_IMAGES`` on a tiny ViT."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest
import torch
from PIL import Image

from attnviz.core.checkpoints.checkpoint import save_checkpoint
from attnviz.core.heads.image_atlas import ImageHeadSums, image_atlas, image_paths, patch_distances
from attnviz.core.models.vit import VisionTransformer, ViTConfig
from attnviz.training.fashion_mnist import CLASS_NAMES
from tests.helpers import run_cli

TINY = {"image_size": 8, "patch_size": 4, "num_hiddens": 16, "num_heads": 2, "num_layers": 2, "mlp_hiddens": 32,
        "dropout": 0.0}  # a 2 × 2 grid of 4-pixel patches


def test_patch_distances_are_between_the_centres_in_pixels():
    distances = patch_distances(2, 4)  # centres (2, 2), (2, 6), (6, 2), (6, 6)
    np.testing.assert_allclose(distances[0], [0, 4, 4, 4 * math.sqrt(2)])
    np.testing.assert_allclose(distances, distances.T)


def test_the_sums_give_the_closed_formula_on_hand_made_maps():
    """Head 1: [CLS] reads all five positions alike, each patch only itself (distance 0). Head 2: every patch puts
    half on [CLS], a quarter on itself and a quarter on the patch diagonally opposite: renormalised over the patches,
    its distance is half of 4√2; its [CLS] share one half."""
    weights = np.zeros((1, 1, 2, 5, 5))  # (L, B, H, N, N): [CLS], then patches 1–4 on a 2 × 2 grid
    weights[0, 0, :, 0, :] = 0.2
    weights[0, 0, 0, 1:, 1:] = np.eye(4)
    opposite = {1: 4, 2: 3, 3: 2, 4: 1}
    for query, other in opposite.items():
        weights[0, 0, 1, query, 0] = 0.5
        weights[0, 0, 1, query, query] += 0.25
        weights[0, 0, 1, query, other] += 0.25
    sums = ImageHeadSums.empty(1, 2)
    sums.add(weights, patch_distances(2, 4))
    sums.add(weights, patch_distances(2, 4))  # two images alike: the means stay
    first, second = sums.table()
    assert (first["layer"], first["head"], second["head"]) == (1, 1, 2) and sums.images == 2
    assert first["entropy"] == pytest.approx(math.log(5) / 5)  # one spread row of five, four one-hot rows
    assert first["cls_share"] == 0 and first["mean_distance_px"] == 0
    assert second["cls_share"] == pytest.approx(0.5)
    assert second["mean_distance_px"] == pytest.approx(0.5 * 4 * math.sqrt(2))
    np.testing.assert_allclose(sums.layer_distances(), [0.25 * 4 * math.sqrt(2)])


def _folder_of_images(folder, count: int):
    folder.mkdir()
    rng = np.random.default_rng(0)
    for i in range(count):
        Image.fromarray(rng.integers(0, 256, (28, 28), dtype=np.uint8), mode="L").save(folder / f"{i:03d}.png")
    (folder / "notes.txt").write_text("not an image: passed over")
    return folder


@pytest.fixture
def tiny_vit(tmp_path):
    torch.manual_seed(0)
    model = VisionTransformer(ViTConfig(**TINY)).eval()
    return save_checkpoint(tmp_path / "vit.safetensors", model, labels=CLASS_NAMES)


def test_the_atlas_of_a_folder_equals_the_models_own_maps(tiny_vit, tmp_path):
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.images import read_grey

    folder = _folder_of_images(tmp_path / "images", 70)  # more than one batch of 64
    paths = image_paths(folder)
    assert len(paths) == 70 and all(p.suffix == ".png" for p in paths)
    loaded = load_checkpoint(tiny_vit)
    sums = image_atlas(loaded, paths, "cpu")
    pixels = torch.from_numpy(np.stack([read_grey(p, 8) for p in paths]))[:, None]
    with torch.no_grad():
        weights = loaded.model(pixels, need_weights=True).weights.numpy()  # (L, B, H, N, N)
    expected = ImageHeadSums.empty(2, 2)
    expected.add(weights, patch_distances(2, 4))
    np.testing.assert_allclose(sums.distance, expected.distance, rtol=1e-5)
    np.testing.assert_allclose(sums.cls_share, expected.cls_share, rtol=1e-5)
    assert sums.images == 70


def test_attnviz_heads_over_a_folder_of_images_writes_the_tables(tiny_vit, tmp_path, capsys):
    folder = _folder_of_images(tmp_path / "images", 5)
    out = tmp_path / "out"
    code, stdout, err = run_cli(capsys, "heads", "--checkpoint", str(tiny_vit), "--data", str(folder), "--out",
                                str(out))
    assert code == 0, err
    with open(out / "image_heads.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["layer"], r["head"]) for r in rows] == [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")]
    assert all(0 <= float(r["mean_distance_px"]) <= 4 * math.sqrt(2) for r in rows)
    with open(out / "distances_by_layer.csv", newline="", encoding="utf-8") as handle:
        layers = list(csv.DictReader(handle))
    assert float(layers[1]["mean_distance_px"]) == pytest.approx(
        np.mean([float(r["mean_distance_px"]) for r in rows[2:]]))
    assert "mean attention distance by layer, pixels" in stdout and "over 5 images" in stdout
    assert "### image_heads.csv" in (out / "COLUMNS.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("make, message", [
    (lambda folder: folder.mkdir(), "no images in it"),
    (lambda folder: (folder.mkdir(), (folder / "a.png").write_bytes(b"not a png")), "a.png: not an image"),
])
def test_a_folder_without_readable_images_is_one_line(tiny_vit, tmp_path, capsys, make, message):
    folder = tmp_path / "images"
    make(folder)
    code, _stdout, err = run_cli(capsys, "heads", "--checkpoint", str(tiny_vit), "--data", str(folder), "--out",
                                 str(tmp_path / "out"))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out" / "image_heads.csv").exists()


def test_a_folder_of_images_needs_an_image_model(tiny_models, tmp_path, capsys):
    folder = _folder_of_images(tmp_path / "images", 2)
    code, _stdout, err = run_cli(capsys, "heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
                                 str(folder), "--out", str(tmp_path / "out"))
    assert code == 2 and "is a folder of images: give an image model" in err
