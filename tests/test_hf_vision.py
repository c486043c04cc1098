"""Hugging Face vision folders (ViT, DeiT, DINOv2 with and without registers): every map is the library's own
output_attentions (eager), the top class its argmax, the positions are the specials then the patches, the folder's
image processor prepares the images, `attnviz classify` and `attnviz heads --data` take the folders, and a folder
that cannot be opened safely — no weights, some missing, its own code, no image processor — is refused in one
sentence, never started with made-up weights."""

from __future__ import annotations

import csv
import json
import re
import shutil

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")

from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint  # noqa: E402
from attnviz.core.hf.folder import ARCHITECTURES, inspect_folder  # noqa: E402
from attnviz.core.models.image_reading import (  # noqa: E402
    UnreadableImage,
    classify,
    encode_image,
    reader_of,
)
from tests.helpers import run_cli  # noqa: E402
from tests.hf_vision_folders import FAMILIES, LABELS, PATCH, SIDE, make_vision_folder  # noqa: E402

GRID = SIDE // PATCH
CLASSIFIERS = ("vit", "deit", "dinov2-classifier")


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("hf-vision")
    return {family: make_vision_folder(family, root / family, seed=5) for family in FAMILIES}


@pytest.fixture(scope="module")
def loaded(folders):
    return {family: load_checkpoint(folder) for family, folder in folders.items()}


def _images():
    """A colour photograph-like image of another size and shape than the model's, and a grey one."""
    from PIL import Image

    rng = np.random.default_rng(0)
    colour = Image.fromarray((rng.random((40, 52, 3)) * 255).astype(np.uint8))
    grey = Image.fromarray((rng.random((30, 30)) * 255).astype(np.uint8))  # ("L": handed over as RGB)
    return [colour, grey]


def _write_images(folder, count=3):
    from PIL import Image

    folder.mkdir()
    rng = np.random.default_rng(1)
    for index in range(count):
        pixels = (rng.random((36 + 4 * index, 40, 3)) * 255).astype(np.uint8)
        Image.fromarray(pixels).save(folder / f"image{index}.png")
    return folder


def _library(folder, family):
    """transformers' own model of the folder, with eager attention."""
    model_class = getattr(transformers, FAMILIES[family][1])
    return model_class.from_pretrained(folder, attn_implementation="eager").eval()


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_map_is_the_librarys_own_attention_and_the_top_class_its_argmax(family, folders, loaded):
    model = loaded[family]
    assert model.kind == "hf-vision" and model.model_kind.reads_images and model.model.architecture is \
        ARCHITECTURES[inspect_folder(folders[family]).model_type]
    reader = reader_of(model)
    inputs, pictures = reader.prepare(_images())
    outputs = reader.run(inputs, need_scores=True)
    library = _library(folders[family], family)
    with torch.no_grad():
        expected = library(pixel_values=inputs, output_attentions=True)
    specials = FAMILIES[family][3]
    positions = len(specials) + GRID * GRID  # (DeiT: 2 + P; registers: 1 + R + P)
    assert outputs.weights.shape == (2, 2, 2, positions, positions)
    np.testing.assert_allclose(outputs.weights.numpy(), torch.stack(expected.attentions).numpy(), atol=1e-4)
    np.testing.assert_allclose(outputs.scores.softmax(-1).numpy(), outputs.weights.numpy(), atol=1e-6)
    assert (reader.specials, reader.grid, reader.patch) == (specials, (GRID, GRID), (PATCH, PATCH))
    if family in CLASSIFIERS:
        assert model.labels == tuple(LABELS.values())
        assert outputs.logits.argmax(-1).tolist() == expected.logits.argmax(-1).tolist()
        np.testing.assert_allclose(outputs.logits.numpy(), expected.logits.numpy(), atol=1e-4)
    else:
        assert outputs.logits is None and model.labels == ()
    assert pictures.shape == (2, SIDE, SIDE, 3) and pictures.dtype == np.float32
    assert pictures.min() >= 0.0 and pictures.max() <= 1.0


@pytest.mark.parametrize("family", ["vit", "deit", "dinov2"])
def test_the_folders_own_processor_prepares_the_images_and_the_pictures_undo_its_normalisation(family, folders,
                                                                                                loaded):
    processor = transformers.AutoImageProcessor.from_pretrained(folders[family], local_files_only=True)
    images = _images()
    reader = reader_of(loaded[family])
    inputs, pictures = reader.prepare(images)
    expected = processor(images=[image.convert("RGB") for image in images], return_tensors="pt")["pixel_values"]
    np.testing.assert_allclose(inputs.numpy(), expected.numpy(), atol=1e-6)
    mean, std = np.array(processor.image_mean), np.array(processor.image_std)
    np.testing.assert_allclose(pictures, np.clip(expected.numpy().transpose(0, 2, 3, 1) * std + mean, 0, 1), atol=1e-5)
    grey = pictures[1]  # (a grey image stays grey in the picture the model read)
    np.testing.assert_allclose(grey[..., 0], grey[..., 2], atol=1e-5)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_an_encoded_image_names_its_positions_places_and_top_classes(family, loaded):
    model = loaded[family]
    image = _images()[0]
    source = encode_image(model, image, "photo.png", "cpu")
    specials = FAMILIES[family][3]
    assert source.tokens[: len(specials)] == specials and source.tokens[len(specials)] == "r1c1"
    assert source.tokens[-1] == f"r{GRID}c{GRID}" and len(source.tokens) == len(specials) + GRID * GRID
    reader = reader_of(model)
    inputs, _pictures = reader.prepare([image])
    np.testing.assert_allclose(source.encoder_weights, reader.run(inputs).weights[:, 0].numpy(), atol=1e-6)
    picture = source.picture
    assert picture.pixels.shape == (SIDE, SIDE, 3) and picture.grid == (GRID, GRID)
    assert (picture.boxes[: len(specials)] == -1).all()
    assert picture.boxes[len(specials)].tolist() == [0, 0, PATCH, PATCH]
    if family in CLASSIFIERS:
        assert source.classes[0] == classify(model, [image], "cpu")[0][0] and len(source.classes) == 3
        assert source.class_probs.sum() == pytest.approx(1.0, abs=1e-5)
    else:
        assert source.classes == ()


def test_classify_takes_batches_of_the_readers_size(loaded, monkeypatch):
    model = loaded["vit"]
    images = _images() * 3
    whole = classify(model, images, "cpu")
    monkeypatch.setattr("attnviz.core.hf.vision.MAX_READER_BATCH", 2)
    assert reader_of(model).batch == 2 and classify(model, images, "cpu") == whole


def test_a_bare_model_names_no_classes(loaded):
    with pytest.raises(ValueError, match="has no classifier head"):
        classify(loaded["dinov2"], _images(), "cpu")


def test_a_processor_that_makes_pictures_of_another_size_refuses_that_image_in_one_sentence(folders, tmp_path):
    """(the trial image is square: the folder opens; the first image that is not is refused, by its index)"""
    folder = tmp_path / "dinov2"
    shutil.copytree(folders["dinov2"], folder)
    settings = json.loads((folder / "preprocessor_config.json").read_text())
    settings |= {"do_center_crop": False, "size": {"shortest_edge": SIDE}}  # (a square stays 32 × 32; others not)
    (folder / "preprocessor_config.json").write_text(json.dumps(settings))
    model = load_checkpoint(folder)
    with pytest.raises(UnreadableImage, match=r"makes a picture of 32 × 4\d pixels in 3 channels of it; the model "
                                              r"reads 3 × 32 × 32") as caught:
        reader_of(model).prepare(_images())
    assert caught.value.index == 0
    assert reader_of(model).prepare(_images()[1:])[0].shape == (1, 3, SIDE, SIDE)  # (the square one)


# -- refused folders ----------------------------------------------------------------------------------------------

def _spoiled(folders, tmp_path, family="vit"):
    folder = tmp_path / family
    shutil.copytree(folders[family], folder)
    return folder


def _drop_a_weight(folder):
    from safetensors.torch import load_file, save_file

    tensors = load_file(folder / "model.safetensors")
    del tensors[next(name for name in sorted(tensors) if name.endswith("weight") and ".1." in name)]
    save_file(tensors, folder / "model.safetensors", metadata={"format": "pt"})


def _config(folder, **changes):
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, **changes}))


@pytest.mark.parametrize("spoil, file, message", [
    (lambda f: (f / "model.safetensors").unlink(), "", "has no weights"),
    (_drop_a_weight, "model.safetensors", "lacks 1 of the model's weights"),
    (lambda f: _config(f, auto_map={"AutoModel": "modeling.Mine"}), "config.json", "never runs"),
    (lambda f: (f / "preprocessor_config.json").unlink(), "", "has no preprocessor_config.json"),
    (lambda f: _config(f, architectures=["ViTForMaskedImageModeling"]), "config.json", "is not a model attnviz opens"),
    (lambda f: (f / "preprocessor_config.json").write_text(json.dumps({"size": {"height": 10**6, "width": 32}})),
     "preprocessor_config.json", "is not a size in pixels"),
    (lambda f: _config(f, image_size=10**6), "config.json", "image_size"),
])
def test_a_folder_that_cannot_be_opened_safely_is_refused_in_one_sentence(folders, tmp_path, spoil, file, message):
    folder = _spoiled(folders, tmp_path)
    spoil(folder)
    with pytest.raises(CheckpointError, match=message) as caught:
        load_checkpoint(folder)
    assert str(folder / file).rstrip("/") in str(caught.value) and "\n" not in str(caught.value)


def test_a_vision_folder_opens_in_the_window_with_its_picture_and_both_specials(window, folders, errors):
    window.load(folders["deit"])
    assert not errors and window.session.state.model.kind == "hf-vision"
    source = window.session.state.shown_source  # its first look: the first shipped sample, as its processor reads it
    assert source is not None and source.picture is not None and source.tokens[:3] == ("[CLS]", "[DIST]", "r1c1")
    panel = window.panels.panels["image"]
    assert window.docks["image"].isVisible() and panel.class_names[0].text() == source.classes[0]
    named = window.current_figure()  # [CLS]'s attention over the patches (the distillation token's share is said)
    np.testing.assert_allclose(named.spec.values, source.picture.on_grid(source.encoder_weights[0, 0, 0]), atol=1e-7)
    window.docks["positional"].raise_()
    patches = window.panels.panels["positional"].patches_figure()  # each patch's learned position against the others'
    assert patches is not None and len(patches.panels) == source.picture.grid[0] * source.picture.grid[1]


def test_a_folder_with_registers_lays_its_positions_out_without_them(window, folders, errors):
    window.load(folders["dinov2-registers"])
    source = window.session.state.shown_source
    assert not errors and source.picture.specials > 1 and source.tokens[1] == "[REG1]"
    window.docks["positional"].raise_()
    patches = window.panels.panels["positional"].patches_figure()
    assert patches is not None and len(patches.panels) == source.picture.grid[0] * source.picture.grid[1]


# -- the commands -------------------------------------------------------------------------------------------------

def test_attnviz_classify_prints_each_images_classes_best_first(folders, loaded, tmp_path, capsys):
    paths = _write_images(tmp_path / "images")
    images = sorted(paths.iterdir())
    for family in CLASSIFIERS:
        code, stdout, err = run_cli(capsys, "classify", "--checkpoint", str(folders[family]), *map(str, images))
        assert code == 0, err
        lines = [line.split("\t") for line in stdout.splitlines()]
        from attnviz.core.images import open_image

        inputs, _pictures = reader_of(loaded[family]).prepare([open_image(p) for p in images])
        with torch.no_grad():
            logits = _library(folders[family], family)(pixel_values=inputs).logits
        assert [line[0] for line in lines] == list(map(str, images))  # each line opens with its file
        assert [LABELS[i] for i in logits.argmax(-1).tolist()] == [line[1] for line in lines]
        assert all(sorted(line[1::2]) == sorted(LABELS.values()) for line in lines)  # (the folder's own names)
        probabilities = logits.softmax(-1).sort(-1, descending=True).values
        for line, expected in zip(lines, probabilities.tolist(), strict=True):
            assert [float(p) for p in line[2::2]] == pytest.approx(expected, abs=1e-4)


def test_attnviz_classify_refuses_a_bare_model_in_one_line(folders, tmp_path, capsys):
    image = _write_images(tmp_path / "images", 1) / "image0.png"
    code, stdout, err = run_cli(capsys, "classify", "--checkpoint", str(folders["dinov2"]), str(image))
    assert code == 2 and stdout == "" and len(err.strip().splitlines()) == 1
    assert "has no classifier head" in err


def test_attnviz_classify_names_an_image_the_processor_cannot_handle(folders, tmp_path, capsys):
    folder = _spoiled(folders, tmp_path, "dinov2-classifier")
    settings = json.loads((folder / "preprocessor_config.json").read_text())
    (folder / "preprocessor_config.json").write_text(json.dumps(
        settings | {"do_center_crop": False, "size": {"shortest_edge": SIDE}}))
    images = _write_images(tmp_path / "images", 2)  # image0 is 36 × 40: 32 × 35 after the resize
    square = images / "square.png"
    from PIL import Image

    Image.new("RGB", (50, 50)).save(square)
    code, stdout, err = run_cli(capsys, "classify", "--checkpoint", str(folder), str(square),
                                str(images / "image0.png"))
    assert code == 2 and len(stdout.splitlines()) == 1 and len(err.strip().splitlines()) == 1, err
    assert re.search(r"image0\.png: the model folder's image processor makes a picture of 32 × 3\d pixels", err)


@pytest.mark.parametrize("family", ["dinov2", "dinov2-registers", "deit"])
def test_attnviz_heads_over_a_folder_of_images_with_a_vision_folder(family, folders, tmp_path, capsys):
    images = _write_images(tmp_path / "images", 3)
    out = tmp_path / "out"
    code, stdout, err = run_cli(capsys, "heads", "--checkpoint", str(folders[family]), "--data", str(images), "--out",
                                str(out))
    assert code == 0, err
    with open(out / "image_heads.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4 and all(0 <= float(r["mean_distance_px"]) <= SIDE * np.sqrt(2) for r in rows)
    others = [float(r["other_specials_share"]) for r in rows]
    assert all(share > 0 for share in others) if family != "dinov2" else all(share == 0 for share in others)
    assert "mean attention distance by layer, pixels" in stdout and "over 3 images" in stdout


@pytest.mark.parametrize("family", ["vit", "dinov2"])
def test_a_folders_overlay_is_drawn_with_the_shipped_vits_tick_size(family, loaded, qtbot):
    """Issue 59 §4: the Image dock scaled the overlay, text and all, to fit; a folder's 4 × 4 patches made a smaller
    figure than the shipped ViT's 7 × 7 (the cells stopped at 36 px), and a bare model (no class list beside it) had
    more room, so its tick labels were drawn twice as large. Now the pictures are OVERLAY_PX on their longer side and
    the labels come out in the dock's font whatever the room."""
    from dataclasses import replace

    from PySide6 import QtGui

    from attnviz.core.models.image_reading import encode_image_file
    from attnviz.figures.image import OverlayChoice, overlay
    from attnviz.gui.panels.image import FigureCanvas
    from attnviz.paths import MODELS_DIR, SAMPLE_IMAGES
    from attnviz.render.figure_painter import _fonts, _layout

    sample = SAMPLE_IMAGES / "0-t-shirt-top.png"
    tick_pixels, grids, pictures = [], [], []
    # (the rooms the Image dock gives them at 1024 × 768: beside the shipped ViT's class list, a bare model's none)
    for model, room in ((load_checkpoint(MODELS_DIR / "vit.safetensors"), (320, 445)), (loaded[family], (555, 470))):
        source = encode_image_file(model, sample, "cpu")
        spec = overlay(source, OverlayChoice())
        canvas = FigureCanvas()
        qtbot.addWidget(canvas)
        canvas.resize(*room)
        canvas.show_figure(replace(spec, title=""))  # (as the dock shows it)
        tick_pixels.append(canvas.label_pixels())
        grids.append(source.picture.grid)
        pictures.append(_layout(spec, *_fonts()).grid.width())
    assert grids == [(7, 7), (SIDE // PATCH, SIDE // PATCH)]
    assert pictures[0] == pictures[1]  # (exported: the same picture size, 4 × 4 patches or 7 × 7)
    shipped, folder = tick_pixels
    assert abs(folder - shipped) <= 1.0, f"tick labels {folder:.1f} px, the shipped ViT's {shipped:.1f}"
    assert abs(shipped - QtGui.QFontInfo(canvas.font()).pixelSize()) <= 1.0  # (the dock's own text size)
