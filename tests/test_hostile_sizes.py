"""Hostile sizes (issue 59 §5): images far larger than a model reads take the memory of one image, never of a
folder; an image a folder's processor would stretch into gigabytes, and a config claiming 2³¹ classes, are refused
in one sentence before the work; a full disk or a file in the way under --out is said before any process starts or
any sentence is explained; a long corpus says how far it has been read. Memory is measured in a child process (its
peak resident memory, ``resource.getrusage``), never a clock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.helpers import CHILD_CAP_S, one_error_line, run_cli

ROOT = Path(__file__).resolve().parents[1]
VIT = ROOT / "models" / "vit.safetensors"
MISSING = "/nonexistent/model.safetensors"  # a refusal that names this checkpoint came after the model's loading
MB = 1024 * 1024


def _gradient(width: int, height: int, mode: str) -> Image.Image:
    """A width × height picture in ``mode``: grey ramps across and down (RGBA: half transparent on the left)."""
    across = np.broadcast_to((np.arange(width) * 255 // max(width - 1, 1)).astype(np.uint8), (height, width))
    down = np.broadcast_to((np.arange(height) * 255 // max(height - 1, 1)).astype(np.uint8)[:, None], (height, width))
    grey = Image.fromarray(np.ascontiguousarray(across), "L")
    if mode == "L":
        return grey
    other = Image.fromarray(np.ascontiguousarray(down), "L")
    alpha = Image.fromarray(np.where(across < 128, 128, 255).astype(np.uint8), "L")
    picture = Image.merge("RGBA", (grey, other, grey, alpha))
    return picture if mode == "RGBA" else picture.convert(mode)


# -- large images: decoded reduced, one at a time --------------------------------------------------------------------

@pytest.mark.parametrize("mode, suffix", [("L", ".png"), ("RGBA", ".png"), ("RGB", ".jpg")])
def test_a_large_image_is_decoded_reduced_to_what_the_model_reads_and_reads_the_same(tmp_path, mode, suffix):
    from attnviz.core.images import open_image, to_grey

    path = tmp_path / f"large{suffix}"
    _gradient(3000, 2000, mode).save(path, quality=95)  # (a PNG has no quality: left aside)
    whole = open_image(path)
    reduced = open_image(path, reduce_to=28)
    assert whole.size == (3000, 2000)
    assert 56 <= min(reduced.size) < 112 and reduced.mode == whole.mode  # (≥ twice the side read, and no more)
    assert reduced.size[0] / reduced.size[1] == pytest.approx(1.5, rel=0.02)
    difference = np.abs(to_grey(reduced, 28) - to_grey(whole, 28))  # the model reads nearly the same picture
    assert difference.mean() < 1 / 255 and difference.max() <= 10 / 255  # (means of areas' means, rounded)
    assert open_image(path, reduce_to=1500).size == (3000, 2000)  # (not larger than twice the side: as it is)


_PEAK = """
import resource, sys
from attnviz.app import main
code = main(sys.argv[1:])
print("PEAK", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, code)
"""


def _peak_mb(*args: str) -> int:
    """Peak resident memory in MB of ``attnviz ARGS`` in a fresh process (which must succeed)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", _PEAK, *args], capture_output=True, text=True, env=env,
                          timeout=CHILD_CAP_S)
    said = [line.split() for line in done.stdout.splitlines() if line.startswith("PEAK ")]
    assert said and said[-1][2] == "0", (done.stdout[-2000:], done.stderr[-2000:])
    return int(said[-1][1])


def test_a_folder_of_large_images_takes_the_memory_of_one(tmp_path):
    """``heads --data`` and ``classify`` over 16 RGBA images of 3,000 × 3,000 (36 MB each decoded) peak within
    50 MB of the same over one: each image is decoded reduced and let go before the next (held whole, the 16 took
    16 × 27 MB more)."""
    one, many = tmp_path / "one", tmp_path / "many"
    one.mkdir()
    many.mkdir()
    _gradient(3000, 3000, "RGBA").save(one / "image.png", compress_level=1)
    for index in range(16):
        os.link(one / "image.png", many / f"image{index:02d}.png")
    heads_one = _peak_mb("heads", "--checkpoint", str(VIT), "--data", str(one), "--out", str(tmp_path / "o1"))
    heads_many = _peak_mb("heads", "--checkpoint", str(VIT), "--data", str(many), "--out", str(tmp_path / "o2"))
    assert heads_many - heads_one < 50, (heads_one, heads_many)
    classify_one = _peak_mb("classify", "--checkpoint", str(VIT), str(one / "image.png"))
    classify_many = _peak_mb("classify", "--checkpoint", str(VIT), *map(str, sorted(many.iterdir())))
    assert classify_many - classify_one < 50, (classify_one, classify_many)


def test_the_window_and_explain_read_the_reduced_image_as_the_model_does(tmp_path):
    """encode_image_file (the window's reading) of a large file gives the model's maps of its reduced decoding."""
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.images import open_image
    from attnviz.core.models.image_reading import encode_image, encode_image_file

    path = tmp_path / "large.png"
    _gradient(2400, 2400, "L").save(path)
    loaded = load_checkpoint(VIT)
    shown = encode_image_file(loaded, path, "cpu")
    whole = encode_image(loaded, open_image(path), "large.png", "cpu")
    assert shown.picture is not None and whole.picture is not None
    assert shown.encoder_weights is not None and whole.encoder_weights is not None
    assert shown.picture.pixels.shape == whole.picture.pixels.shape
    difference = np.abs(shown.picture.pixels - whole.picture.pixels)
    assert difference.mean() < 1 / 255 and difference.max() <= 10 / 255
    assert shown.classes == whole.classes and shown.encoder_weights.shape == whole.encoder_weights.shape


# -- a folder's processor as a bomb ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dinov2(tmp_path_factory):
    pytest.importorskip("transformers")
    from tests.hf_vision_folders import make_vision_folder

    return make_vision_folder("dinov2-classifier", tmp_path_factory.mktemp("dinov2") / "dinov2", seed=5)


def test_the_size_a_processor_resizes_to_is_known_before_it_runs():
    import transformers

    from attnviz.core.hf.vision import resized_size

    shortest = transformers.BitImageProcessor(size={"shortest_edge": 256}, crop_size={"height": 224, "width": 224})
    assert resized_size(shortest, 20_000, 1) == (5_120_000, 256)
    assert resized_size(shortest, 640, 480) == (341, 256)
    fixed = transformers.ViTImageProcessor(size={"height": 224, "width": 224})
    assert resized_size(fixed, 20_000, 1) == (224, 224)
    capped = transformers.BitImageProcessor(size={"shortest_edge": 256, "longest_edge": 512})
    assert resized_size(capped, 20_000, 100) == (512, 3)


def test_an_image_the_processor_would_stretch_into_gigabytes_is_refused_before_it_runs(dinov2, tmp_path, capsys,
                                                                                        monkeypatch):
    import attnviz.core.hf.vision as vision

    strip = tmp_path / "strip.png"
    Image.new("L", (200_000, 1), 200).save(strip)
    square = tmp_path / "square.png"
    _gradient(64, 48, "RGB").save(square)
    ran: list[tuple[int, int]] = []
    processed = vision.processed

    def watched(processor, image):
        ran.append(image.size)
        return processed(processor, image)

    monkeypatch.setattr(vision, "processed", watched)
    code, out, err = run_cli(capsys, "classify", "--checkpoint", str(dinov2), str(square), str(strip))
    assert code == 2 and len(out.splitlines()) == 1  # (the image before it is classified)
    # (a strip this long is refused from its header, by its sides' ratio, before the processor's own bound —
    # resized_size, tested below — would have to catch it)
    assert one_error_line(err) == (
        f"attnviz: error: {strip}: 200,000 × 1 pixels, a strip rather than a picture: attnviz reads images whose "
        "longer side is at most 32 times the shorter")
    assert (200_000, 1) not in ran and ran  # (the processor never saw the strip)


# -- a config's classes ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("family", ["vit", "bert", "marian"])
def test_a_config_claiming_two_billion_classes_is_refused_before_anything_is_built(family, tmp_path, capsys):
    pytest.importorskip("transformers")
    from attnviz.core.hf.folder import HFFolderError, inspect_folder

    folder = tmp_path / family
    if family == "vit":
        from tests.hf_vision_folders import make_vision_folder

        make_vision_folder("vit", folder)
    elif family == "bert":
        from tests.hf_encoder_folders import make_encoder_folder

        make_encoder_folder("bert", folder)
    else:
        from tests.hf_folders import make_folder

        make_folder("marian", folder)
    config = json.loads((folder / "config.json").read_text())
    config = {key: value for key, value in config.items() if key not in ("id2label", "label2id")}
    (folder / "config.json").write_text(json.dumps({**config, "num_labels": 2**31}))
    said = f"{folder / 'config.json'}: num_labels = 2147483648 is not a whole number from 1 to 1,000,000"
    with pytest.raises(HFFolderError) as refused:
        inspect_folder(folder)  # (the folder's check, in milliseconds: before transformers reads the config)
    assert str(refused.value) == said
    image = tmp_path / "one.png"
    _gradient(32, 32, "RGB").save(image)
    command = ["classify", "--checkpoint", str(folder), str(image)] if family == "vit" else \
        ["translate", "--checkpoint", str(folder), "--text", "the house ."]
    code, _, err = run_cli(capsys, *command)
    assert code == 2 and one_error_line(err) == f"attnviz: error: {said}"


# -- --out checked before the work -----------------------------------------------------------------------------------

def _no_launch(*_args, **_kwargs):
    raise AssertionError("the job's processes were started")


@pytest.mark.parametrize("command", ["heads", "explain"])
def test_processes_are_not_started_for_an_out_that_cannot_be_written(command, tmp_path, capsys, monkeypatch):
    from attnviz.commands import processes

    monkeypatch.setattr(processes, "launch", _no_launch)
    data = tmp_path / "data.txt"
    data.write_text("the house .\tla maison .\n", encoding="utf-8")
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine", encoding="utf-8")
    code, _, err = run_cli(capsys, command, "--checkpoint", MISSING, "--data", str(data), "--processes", "2",
                           "--out", str(a_file))
    assert code == 2 and "--out" in one_error_line(err) and "notes.txt is a file, not a folder" in err
    if command == "explain":
        out = tmp_path / "out"
        out.mkdir()
        (out / "tau_attention_vs_occlusion.svg").write_text("mine", encoding="utf-8")
        code, _, err = run_cli(capsys, command, "--checkpoint", MISSING, "--data", str(data), "--processes", "2",
                               "--out", str(out), "--format", "svg")
        assert code == 2 and "e.g. tau_attention_vs_occlusion.svg; add --force" in one_error_line(err)


def test_a_full_disk_is_said_before_the_processes_start(small_disk, tmp_path, capsys, monkeypatch):
    from attnviz.commands import processes
    from tests.helpers import fill_disk

    monkeypatch.setattr(processes, "launch", _no_launch)
    data = tmp_path / "data.txt"
    data.write_text("the house .\tla maison .\n", encoding="utf-8")
    fill_disk(small_disk)
    code, _, err = run_cli(capsys, "heads", "--checkpoint", MISSING, "--data", str(data), "--processes", "2",
                           "--out", str(small_disk / "atlas"))
    assert code == 2 and "the disk is full" in one_error_line(err)


def test_a_file_named_as_a_figure_of_explain_is_said_before_the_model_loads(tmp_path, capsys):
    from attnviz.core.explain import IMAGE_METHODS, METHODS
    from attnviz.figures.explain import explain_figure_stems

    assert "tau_attention_vs_ig" in explain_figure_stems(METHODS)
    assert "layers_spearman_vs_occlusion" in explain_figure_stems(IMAGE_METHODS)
    assert explain_figure_stems(("ig", "occlusion")) == ["tau_ig_vs_occlusion"]  # (no attention: no layer figure)
    data = tmp_path / "data.txt"
    data.write_text("the house .\tla maison .\n", encoding="utf-8")
    images = tmp_path / "images"
    images.mkdir()
    _gradient(28, 28, "L").save(images / "one.png")
    for source, figure in ((data, "tau_rollout_vs_ig.png"), (images, "layers_spearman_vs_ig.pdf")):
        out = tmp_path / f"out-{source.name}"
        out.mkdir()
        (out / figure).write_bytes(b"mine")
        code, _, err = run_cli(capsys, "explain", "--checkpoint", MISSING, "--data", str(source), "--out", str(out))
        assert code == 2 and f"e.g. {figure}; add --force to replace them" in one_error_line(err), err
        assert (out / figure).read_bytes() == b"mine"


# -- a long corpus says how far it has been read ---------------------------------------------------------------------

def test_heads_says_how_far_it_has_read_a_long_corpus_as_it_reads_it(tmp_path, capsys):
    from attnviz.core.heads.corpus import read_corpus

    data = tmp_path / "long.txt"
    with open(data, "w", encoding="utf-8") as handle:
        for index in range(5000):
            handle.write(f"the house {index} is big .\tla maison {index} est grande .\n")
    size = data.stat().st_size
    seen: list[tuple[int, int]] = []
    corpus = read_corpus(data, progress=lambda done, total: seen.append((done, total)))
    assert len(corpus) == 5000 and len(seen) == 6  # every 1,000 lines, and at the end
    assert [total for _, total in seen] == [size] * 6 and seen[-1][0] == size
    assert [done for done, _ in seen] == sorted(done for done, _ in seen) and seen[0][0] < size / 4
    code, _, err = run_cli(capsys, "heads", "--checkpoint", MISSING, "--data", str(data), "--out",
                           str(tmp_path / "atlas"))
    lines = err.splitlines()
    reading = [line for line in lines if line.startswith("attnviz heads: reading the sentences ")]
    assert code == 2 and lines[-1].startswith("attnviz: error: ") and MISSING in lines[-1]  # (read before loading)
    assert reading[0].startswith("attnviz heads: reading the sentences 19 % (") and reading[0].endswith(
        f" of {size:,} bytes)")  # (its first 1,000 lines: the first said, before the 5,000 are read)
    assert reading[-1] == f"attnviz heads: reading the sentences 100 % ({size:,} of {size:,} bytes)"
