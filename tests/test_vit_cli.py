"""The vision transformer as a kind (issue 48, first slice): its registry record and layout, its checkpoint (class
names validated as vocabularies are), ``attnviz train vit`` (progress, history, --resume, never overwriting) and
``attnviz classify`` (top-5 per image, stdin, --data's test accuracy, bad input in one line, no Qt).

Tiny models on tiny Fashion-MNIST-shaped folders written by the tests; images written with Pillow.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image
from safetensors import safe_open
from safetensors.torch import save_file

from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint, save_checkpoint, tensor_digest
from attnviz.core.images import read_grey
from attnviz.core.layout import LAYOUTS, Capability, ImageLayout
from attnviz.core.models.kinds import KINDS, families
from attnviz.core.models.vit import VisionTransformer, ViTConfig
from attnviz.training.fashion_mnist import CLASS_NAMES, to_inputs, train_validation
from attnviz.training.vision import accuracy, augment
from tests.helpers import CHILD_CAP_S, run_cli
from tests.test_fashion_mnist import write_dataset

TINY = {"num_hiddens": 16, "num_heads": 2, "num_layers": 1, "mlp_hiddens": 16}
TINY_ARCH = json.dumps(TINY)
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def cli(capsys):
    return lambda *args: run_cli(capsys, *args)


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return write_dataset(tmp_path_factory.mktemp("fmnist") / "data", n_train=200, n_test=30)


@pytest.fixture(scope="module")
def model_path(tmp_path_factory) -> Path:
    """A tiny ViT with random weights, saved with the ten class names."""
    torch.manual_seed(1)
    model = VisionTransformer(ViTConfig(**TINY, dropout=0.0)).eval()
    return save_checkpoint(tmp_path_factory.mktemp("vit") / "vit.safetensors", model, labels=CLASS_NAMES,
                           verify=True)


def one_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attnviz: error: "), err
    return lines[0]


# -- the kind, its layout, its checkpoint -------------------------------------------------------------------------

def test_the_registry_record_and_the_image_layout():
    vit = KINDS["vit"]
    assert (vit.family, vit.layout, vit.trainable) == ("vision", "image", True)
    assert vit.reads_images and not vit.reads_text
    assert isinstance(LAYOUTS["image"], ImageLayout) and vit.sequence_layout is LAYOUTS["image"]
    assert vit.sequence_layout.capabilities == frozenset({Capability.IMAGE, Capability.MAPS})
    assert vit.sequence_layout.kind_label(vit.attention[0]) == "self-attention"
    assert "vision" in families()
    images = {"vit", "hf-vision"}  # (our ViT and the Hugging Face vision folders)
    assert not any(kind.reads_images for name, kind in KINDS.items() if name not in images)
    assert KINDS["hf-vision"].reads_images and not KINDS["hf-vision"].trainable
    assert set(vit.settable_fields()) == {"patch_size", "num_hiddens", "num_heads", "num_layers", "mlp_hiddens",
                                          "dropout"}  # the image and the classes are the data's


def test_checkpoint_round_trip_keeps_labels_weights_and_digest(model_path):
    loaded = load_checkpoint(model_path)
    assert loaded.kind == "vit" and loaded.labels == CLASS_NAMES
    assert loaded.src_vocab is None and loaded.tgt_vocab is None
    torch.manual_seed(1)
    again = VisionTransformer(ViTConfig(**TINY, dropout=0.0))
    images = torch.rand(2, 1, 28, 28)
    assert torch.equal(loaded.model(images).logits, again.eval()(images).logits)
    with safe_open(str(model_path), framework="pt") as handle:
        metadata = handle.metadata()
        tensors = {name: handle.get_tensor(name) for name in handle.keys()}  # noqa: SIM118
    assert metadata["tensor_digest"] == tensor_digest(tensors)
    assert json.loads(metadata["labels"]) == list(CLASS_NAMES)


def test_saving_refuses_wrong_class_names(tmp_path):
    model = VisionTransformer(ViTConfig(**TINY))
    for labels in (None, CLASS_NAMES[:9], (*CLASS_NAMES[:9], "bad\x1b[2J")):
        with pytest.raises(ValueError, match="needs 10 class names"):
            save_checkpoint(tmp_path / "x.safetensors", model, labels=labels)
    assert not (tmp_path / "x.safetensors").exists()


@pytest.mark.parametrize(("labels", "message"), [
    (None, "metadata has no 'labels'"),
    ("[1, 2]", "labels must be a JSON list of class names"),
    ('"T-shirt"', "labels must be a JSON list of class names"),
    (json.dumps(CLASS_NAMES[:9]), "labels has 9 class names but the config says 10"),
    (json.dumps([*CLASS_NAMES[:9], "Ankle\x07boot"]), "class name 'Ankle\\\\x07boot'… is not a name"),
    (json.dumps([*CLASS_NAMES[:9], " "]), "class name ' '… is not a name"),
    (json.dumps([*CLASS_NAMES[:9], "x" * 101]), "is not a name"),
    (json.dumps([*CLASS_NAMES[:9], "Bag"]), "labels names a class twice"),
    ("[", "labels is not valid JSON"),
])
def test_loading_validates_class_names(model_path, tmp_path, labels, message):
    with safe_open(str(model_path), framework="pt") as handle:
        metadata = dict(handle.metadata())
        tensors = {name: handle.get_tensor(name) for name in handle.keys()}  # noqa: SIM118
    if labels is None:
        del metadata["labels"]
    else:
        metadata["labels"] = labels
    bad = tmp_path / "bad.safetensors"
    save_file(tensors, str(bad), metadata=metadata)
    with pytest.raises(CheckpointError, match=message) as caught:
        load_checkpoint(bad)
    assert str(bad) in str(caught.value)


# -- attnviz train vit --------------------------------------------------------------------------------------------

def test_augment_crops_within_the_padding_and_flips():
    images = torch.zeros(64, 28, 28, dtype=torch.uint8)
    images[:, 10:14, 3:5] = 255  # a bar left of the centre
    out = augment(images, torch.Generator().manual_seed(0))
    assert out.shape == images.shape and out.dtype == torch.uint8
    assert torch.equal(out.sum((1, 2)), images.sum((1, 2)))  # the bar is never cut (2 px of padding)
    columns = (out > 0).any(1).float().argmax(-1)  # first column of the bar
    assert set(columns.tolist()) <= {*range(1, 6), *range(21, 26)}  # shifted by ≤ 2, or mirrored (23 ± 2)
    assert (columns < 14).any() and (columns >= 14).any()  # some flipped, some not


def test_train_writes_a_checkpoint_with_per_epoch_validation_accuracy(cli, data, tmp_path):
    out = tmp_path / "vit.safetensors"
    code, stdout, err = cli("train", "vit", "--data", str(data), "--out", str(out), "--epochs", "2",
                            "--batch-size", "32", "--arch", TINY_ARCH, "--seed", "3", "--lr", "0.003")
    assert code == 0, err
    assert "vit: 100 training images, 100 validation images;" in err
    assert "epoch 1/2: batch 4/4, loss " in err and "epoch 2/2: batch 4/4" in err
    loaded = load_checkpoint(out)
    info = loaded.training
    assert info["epochs_completed"] == 2 and len(info["val_accuracy_per_epoch"]) == 2
    assert info["val_accuracy"] == info["val_accuracy_per_epoch"][-1]
    assert f"wrote {out}: validation accuracy {info['val_accuracy']:.2f} %" in stdout
    assert f"epoch 2: validation accuracy {info['val_accuracy']:.2f} %" in err
    _, val = train_validation(data, seed=3, validation=5000)
    assert round(100 * accuracy(loaded.model, val, torch.device("cpu")), 2) == info["val_accuracy"]
    assert loaded.labels == CLASS_NAMES and loaded.config.num_hiddens == 16
    assert not Path(f"{out}.resume").exists()  # the schedule is done


def test_stopped_then_resumed_equals_one_run(cli, data, tmp_path):
    common = ["--data", str(data), "--epochs", "3", "--batch-size", "64", "--arch", TINY_ARCH]
    straight, stopped = tmp_path / "straight.safetensors", tmp_path / "stopped.safetensors"
    assert cli("train", "vit", *common, "--out", str(straight))[0] == 0
    code, _, err = cli("train", "vit", *common, "--out", str(stopped), "--stop-after", "1")
    assert code == 0 and "continue the schedule with the same command and --resume" in err
    assert load_checkpoint(stopped).training["epochs_completed"] == 1
    code, _, err = cli("train", "vit", *common, "--out", str(stopped), "--lr", "0.01", "--resume")
    assert code == 2 and "is another run's: it ran with --lr 0.002, this run has 0.01" in one_error(err)
    code, _, err = cli("train", "vit", *common, "--out", str(stopped), "--resume")
    assert code == 0, err
    assert "resuming epoch 2 at batch 1" in err
    one, two = load_checkpoint(straight), load_checkpoint(stopped)
    assert two.training["runs"] == 2 and two.training["epochs_completed"] == 3
    assert two.training["val_accuracy_per_epoch"] == one.training["val_accuracy_per_epoch"]
    with safe_open(str(straight), framework="pt") as a, safe_open(str(stopped), framework="pt") as b:
        assert a.metadata()["tensor_digest"] == b.metadata()["tensor_digest"]


def test_augment_is_an_image_models_option(cli, data, tmp_path, monkeypatch):
    import attnviz.training.vision as vision

    seen = []
    monkeypatch.setattr(vision, "augment", lambda images: seen.append(images.shape) or images.flip(-1))
    out = tmp_path / "aug.safetensors"
    code, _, err = cli("train", "vit", "--data", str(data), "--out", str(out), "--epochs", "1", "--batch-size", "50",
                       "--arch", TINY_ARCH, "--augment")
    assert code == 0, err
    assert seen == [(50, 28, 28)] * 2 and load_checkpoint(out).training["options"]["augment"] is True
    code, _, err = cli("train", "transformer", "--data", str(data), "--out", str(tmp_path / "t.safetensors"),
                       "--augment")
    assert code == 2 and "--augment goes with an image model" in one_error(err)


def test_train_never_overwrites(cli, data, tmp_path, model_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("mine", encoding="utf-8")
    code, _, err = cli("train", "vit", "--data", str(data), "--out", str(notes), "--arch", TINY_ARCH)
    assert code == 2 and "exists and is not an attnviz checkpoint" in one_error(err)
    assert notes.read_text(encoding="utf-8") == "mine"
    existing = tmp_path / "existing.safetensors"
    existing.write_bytes(model_path.read_bytes())
    code, _, err = cli("train", "vit", "--data", str(data), "--out", str(existing), "--arch", TINY_ARCH)
    assert code == 2 and "a checkpoint already exists there; add --force to replace it" in one_error(err)
    assert existing.read_bytes() == model_path.read_bytes()


@pytest.mark.parametrize(("args", "message"), [
    (["--data", "{missing}"], "--data: give the folder with Fashion-MNIST's four idx files (not found: "),
    (["--data", "{data}", "--arch", '{"image_size": 32}'], "--arch: vit has no setting image_size"),
    (["--data", "{data}", "--arch", '{"patch_size": 5}'], "--arch: image_size=28 is not a multiple of patch_size=5"),
    (["--data", "{data}", "--arch", '{"num_layers": 9}'], "num_layers = 9 is outside 1..8"),
    (["--data", "{data}", "--epochs", "0"], "--epochs: epochs = 0 is outside 1..100000"),
    (["--data", "{data}", "--task", "dates"], "vit learns shapes"),  # (a text task: the ViT learns the image one)
    (["--data", "{broken}"], "is cut short"),
])
def test_train_refuses_in_one_line(cli, data, tmp_path, args, message):
    broken = write_dataset(tmp_path / "broken", n_train=20, n_test=5, gz=False)
    images = broken / "train-images-idx3-ubyte"
    images.write_bytes(images.read_bytes()[:-100])
    places = {"{missing}": str(tmp_path / "nowhere"), "{data}": str(data), "{broken}": str(broken)}
    args = [places.get(a, a) for a in args]
    out = tmp_path / "out.safetensors"
    code, _, err = cli("train", "vit", *args, "--out", str(out))
    assert code == 2 and message in one_error(err) and "Traceback" not in err
    assert not out.exists()


# -- attnviz classify ---------------------------------------------------------------------------------------------

def _picture(seed: int, size: tuple[int, int] = (28, 28)) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, size=(size[1], size[0]), dtype=np.uint8)


def _expected_line(model_path: Path, pixels: np.ndarray, path: Path) -> str:
    """The file's path, then its top 5 as the model ranks them: class name, probability (4 decimals)."""
    loaded = load_checkpoint(model_path)
    with torch.no_grad():
        logits = loaded.model(torch.from_numpy(pixels.astype(np.float32) / 255)[None, None]).logits[0]
    top = logits.softmax(-1).topk(5)
    return "\t".join([str(path), *(f"{CLASS_NAMES[i]}\t{p:.4f}" for i, p in zip(top.indices.tolist(),
                                                                                 top.values.tolist(), strict=True))])


def test_classify_prints_the_top_five_of_each_image_in_order(cli, model_path, tmp_path):
    paths = []
    for i in range(6):
        path = tmp_path / f"p{i}.png"
        Image.fromarray(_picture(i), mode="L").save(path)
        paths.append(path)
    code, stdout, err = cli("classify", "--checkpoint", str(model_path), *map(str, paths))
    assert code == 0, err
    lines = stdout.splitlines()
    assert lines == [_expected_line(model_path, _picture(i), paths[i]) for i in range(6)]
    fields = [line.split("\t") for line in lines]
    assert all(len(row) == 11 and len(set(row[1::2])) == 5 for row in fields)  # path, then 5 × (class, probability)
    assert all(1 >= float(row[2]) >= float(row[4]) >= float(row[10]) > 0 for row in fields)  # best first
    assert len({tuple(row[1::2]) for row in fields}) > 1  # different pictures, not one answer for all


def test_classify_names_the_classes_in_the_interfaces_language(cli, model_path, tmp_path):
    from attnviz.i18n import set_language

    path = tmp_path / "p.png"
    Image.fromarray(_picture(3), mode="L").save(path)
    from attnviz.i18n import tr

    try:
        code, stdout, err = cli("--lang", "zh_CN", "classify", "--checkpoint", str(model_path), str(path))
        chinese_names = {name: tr(name) for name in CLASS_NAMES}
    finally:
        set_language("en")
    assert code == 0, err
    assert chinese_names["T-shirt/top"] == "T恤/上衣" and chinese_names["Ankle boot"] == "短靴"
    assert len(set(chinese_names.values())) == 10 and not set(chinese_names.values()) & set(CLASS_NAMES)
    english = _expected_line(model_path, _picture(3), path).split("\t")
    chinese = stdout.rstrip("\n").split("\t")
    assert chinese[0] == str(path) and chinese[2::2] == english[2::2]  # the same probabilities
    assert chinese[1::2] == [chinese_names[name] for name in english[1::2]]


def test_classify_reads_paths_from_stdin(cli, model_path, tmp_path, monkeypatch):
    import io

    for i in range(3):
        Image.fromarray(_picture(10 + i), mode="L").save(tmp_path / f"s{i}.png")
    listing = "".join(f"{tmp_path / f's{i}.png'}\n" for i in range(3)) + "\n"  # a blank line is skipped
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(listing.encode())))
    code, stdout, err = cli("classify", "--checkpoint", str(model_path))
    assert code == 0, err
    assert stdout.splitlines() == [_expected_line(model_path, _picture(10 + i), tmp_path / f"s{i}.png")
                                   for i in range(3)]


def test_every_format_and_mode_becomes_the_grey_picture(tmp_path):
    grey = _picture(5)
    rgb = np.repeat(grey[:, :, None], 3, axis=2)
    cases = {
        "grey.png": Image.fromarray(grey, mode="L"),
        "rgb.bmp": Image.fromarray(rgb, mode="RGB"),
        "rgba.webp": Image.fromarray(np.dstack([rgb, np.full_like(grey, 255)]), mode="RGBA"),
        "palette.gif": Image.fromarray(grey, mode="L").convert("P"),
        "sixteen.png": Image.fromarray(grey.astype(np.uint16) * 257),
    }
    for name, image in cases.items():
        kwargs = {"lossless": True} if name.endswith(".webp") else {}
        image.save(tmp_path / name, **kwargs)
        np.testing.assert_allclose(read_grey(tmp_path / name, 28), grey / 255, atol=1.5 / 255, err_msg=name)
    Image.fromarray(rgb, mode="RGB").convert("CMYK").save(tmp_path / "cmyk.jpg", quality=100)
    assert np.abs(read_grey(tmp_path / "cmyk.jpg", 28) - grey / 255).mean() < 0.05  # (JPEG is lossy)
    # transparency is laid over black; a larger picture is resized; a GIF gives its first frame
    clear = np.dstack([rgb, np.zeros_like(grey)])
    Image.fromarray(clear, mode="RGBA").save(tmp_path / "clear.png")
    assert read_grey(tmp_path / "clear.png", 28).max() == 0
    Image.fromarray(np.kron(grey, np.ones((2, 3), np.uint8)), mode="L").save(tmp_path / "big.png")  # 84 × 56
    np.testing.assert_allclose(read_grey(tmp_path / "big.png", 28), grey / 255, atol=1e-6)  # each 3 × 2 block
    small = Image.fromarray(grey[::2, ::2], mode="L")  # 14 × 14, enlarged
    small.save(tmp_path / "small.png")
    assert read_grey(tmp_path / "small.png", 28).shape == (28, 28)
    np.testing.assert_allclose(read_grey(tmp_path / "small.png", 28)[::2, ::2].mean(), grey[::2, ::2].mean() / 255,
                               atol=0.05)
    frames = [Image.fromarray(np.full((28, 28), v, np.uint8), mode="L").convert("P") for v in (200, 30)]
    frames[0].save(tmp_path / "anim.gif", save_all=True, append_images=frames[1:])
    assert abs(float(read_grey(tmp_path / "anim.gif", 28).mean()) - 200 / 255) < 2 / 255


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims width × height grey pixels, with one tiny (wrong) data chunk."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))


@pytest.mark.parametrize(("make", "message"), [
    (lambda p: p.write_text("hello", encoding="utf-8"), "not an image attnviz reads (PNG, JPEG, WebP, BMP or GIF)"),
    (lambda p: p.write_bytes(_png_header(30_000, 30_000)), "more than 50,000,000 pixels, more than attnviz decodes"),
    (lambda p: p.write_bytes(_png_header(8_000, 7_000)), "8,000 × 7,000 pixels, more than the 50,000,000"),
    (lambda p: p.write_bytes(_png_header(28, 28)), "the image is damaged or cut short"),
    (lambda p: p.mkdir(), "is a folder, not an image file"),
    (lambda p: os.mkfifo(p), "is a named pipe (FIFO), not an image file"),
    (lambda p: None, "no such file"),
])
def test_bad_images_are_one_line_naming_the_file(cli, model_path, tmp_path, make, message):
    good = tmp_path / "good.png"
    Image.fromarray(_picture(0), mode="L").save(good)
    bad = tmp_path / "bad.png"
    make(bad)
    code, stdout, err = cli("classify", "--checkpoint", str(model_path), str(good), str(bad), str(good))
    assert code == 2
    assert one_error(err) == f"attnviz: error: {bad}: " + one_error(err).split(f"{bad}: ", 1)[1]
    assert message in err
    assert stdout.splitlines() == [_expected_line(model_path, _picture(0), good)]  # the image before it, then the stop


def test_a_truncated_png_and_a_device(cli, model_path, tmp_path):
    whole = tmp_path / "whole.png"
    Image.fromarray(_picture(1), mode="L").save(whole)
    cut = tmp_path / "cut.png"
    cut.write_bytes(whole.read_bytes()[:-30])
    code, _, err = cli("classify", "--checkpoint", str(model_path), str(cut))
    assert code == 2 and f"{cut}: the image is damaged or cut short" in one_error(err)
    code, _, err = cli("classify", "--checkpoint", str(model_path), "/dev/zero")
    assert code == 2 and "/dev/zero: is a character device, not an image file" in one_error(err)


def test_classify_refuses_a_model_that_does_not_read_images(cli, tmp_path):
    from attnviz.paths import MODELS_DIR

    code, _, err = cli("classify", "--checkpoint", str(MODELS_DIR / "kernel-regression.safetensors"), "x.png")
    assert code == 2 and "a kernel-regression model does not classify images" in one_error(err)


def test_classify_data_prints_the_test_accuracy(cli, model_path, data):
    code, stdout, err = cli("classify", "--checkpoint", str(model_path), "--data", str(data))
    assert code == 0, err
    loaded = load_checkpoint(model_path)
    from attnviz.training.fashion_mnist import read_test

    test = read_test(data)
    with torch.no_grad():
        right = int((loaded.model(to_inputs(test.images)).logits.argmax(-1) == test.labels).sum())
    assert stdout == f"top-1 accuracy {100 * right / 30:.2f} % on the 30 test images of {data}\n"


def test_classify_needs_no_display_and_never_imports_qt(model_path, tmp_path):
    Image.fromarray(_picture(2), mode="L").save(tmp_path / "one.png")
    script = ("import sys\nfrom attnviz.cli import main\ncode = main(sys.argv[1:])\n"
              "assert not [m for m in sys.modules if m.startswith('PySide6')], 'Qt was imported'\nsys.exit(code)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run([sys.executable, "-c", script, "classify", "--checkpoint", str(model_path),
                           str(tmp_path / "one.png")], capture_output=True, text=True, env=env, timeout=CHILD_CAP_S)
    assert done.returncode == 0, done.stderr
    assert done.stdout == _expected_line(model_path, _picture(2), tmp_path / "one.png") + "\n"


# -- the shipped model --------------------------------------------------------------------------------------------

FASHION_MNIST = Path("/usr/share/datasets/fashion-mnist")  # Debian's dataset-fashion-mnist


def test_the_shipped_vit_carries_its_record_and_its_digest():
    from attnviz.paths import MODELS_DIR

    path = MODELS_DIR / "vit.safetensors"
    assert path.stat().st_size <= 25 * 1024**2
    loaded = load_checkpoint(path)  # (the loader checks the tensor digest)
    training = loaded.training
    assert loaded.kind == "vit" and loaded.labels == CLASS_NAMES
    assert (loaded.config.image_size, loaded.config.patch_size, loaded.config.num_patches) == (28, 4, 49)
    assert training["val_images"] == 5000 and training["train_images"] == 55000
    assert training["val_accuracy"] == training["val_accuracy_per_epoch"][-1]
    card = (MODELS_DIR / "MODELS.md").read_text(encoding="utf-8")
    with safe_open(str(path), framework="pt") as handle:
        assert handle.metadata()["tensor_digest"] in card


@pytest.mark.skipif(not FASHION_MNIST.is_dir(), reason="Fashion-MNIST is not installed (apt-get install "
                    "dataset-fashion-mnist)")
def test_the_shipped_vit_reaches_89_percent_on_the_test_set(cli):
    from attnviz.paths import MODELS_DIR

    code, stdout, err = cli("classify", "--checkpoint", str(MODELS_DIR / "vit.safetensors"), "--data",
                            str(FASHION_MNIST))
    assert code == 0, err
    accuracy = float(stdout.split("top-1 accuracy ")[1].split(" %")[0])
    assert accuracy >= 89.0
    card = (MODELS_DIR / "MODELS.md").read_text(encoding="utf-8")
    assert f"the 10,000 test images): {accuracy:.2f} %**" in card  # the card quotes what the command measures


# -- attnviz export --image ---------------------------------------------------------------------------------------

def test_export_image_writes_every_map_and_overlay_with_the_models_numbers(cli, model_path, tmp_path):
    from attnviz.render.figure_files import read_csv

    image = tmp_path / "ramp.png"
    Image.fromarray((np.arange(28 * 28).reshape(28, 28) % 256).astype(np.uint8), mode="L").save(image)
    out = tmp_path / "out"
    code, stdout, err = cli("export", "--checkpoint", str(model_path), "--image", str(image), "--out", str(out),
                            "--format", "csv")
    assert code == 0, err
    loaded = load_checkpoint(model_path)
    pixels = torch.from_numpy(read_grey(image, 28))[None, None]
    output = loaded.model(pixels, need_weights=True)
    weights = output.weights[:, 0].detach().numpy()  # (L, H, N, N)
    layers, heads = weights.shape[:2]
    values, rows, cols = read_csv(out / f"enc-self_layer{layers}_head{heads}.csv")
    assert rows[:2] == ("[CLS]", "r1c1") and len(cols) == 1 + 49
    np.testing.assert_allclose(values, weights[-1, -1], atol=1e-6)
    values, rows, cols = read_csv(out / "overlay_attention_layer1_head2_query-CLS.csv")
    assert rows == tuple(f"r{i}" for i in range(1, 8)) and cols == tuple(f"c{i}" for i in range(1, 8))
    np.testing.assert_allclose(values, weights[0, 1, 0, 1:].reshape(7, 7), atol=1e-6)
    assert (out / f"overlay_rollout_layer{layers}_heads-mean_query-CLS.csv").exists()
    assert (out / "overlay_all-heads_query-CLS.csv").exists()
    sidecar = json.loads((out / "attnviz-export.json").read_text(encoding="utf-8"))
    top = output.logits[0].softmax(-1).topk(5)
    assert sidecar["classes"] == [CLASS_NAMES[i] for i in top.indices.tolist()] and sidecar["image"] == str(image)
    # an image's keys, not a translation's: no sentence, no steps, no "finished"
    assert sidecar["positions"][:2] == ["[CLS]", "r1c1"] and len(sidecar["positions"]) == 1 + 49
    assert not {"sentence", "steps", "finished", "output_tokens", "query_tokens", "source_tokens"} & set(sidecar)
    assert f"wrote {len(list(out.iterdir()))} files" in stdout


@pytest.mark.parametrize("extra, message", [
    ((), "is an image model: give the image to read with --image"),
    (("--image", "README.md"), "not an image attnviz reads"),
    (("--image", "IMAGE", "--text", "hi"), "--text does not go with an image model"),
])
def test_export_image_refuses_in_one_line_and_writes_nothing(cli, model_path, tmp_path, extra, message):
    image = tmp_path / "black.png"
    Image.new("L", (28, 28)).save(image)
    extra = tuple(str(image) if part == "IMAGE" else part for part in extra)
    out = tmp_path / "out"
    code, _stdout, err = cli("export", "--checkpoint", str(model_path), *extra, "--out", str(out))
    assert code == 2 and message in one_error(err) and not out.exists()


def test_an_exported_overlay_is_tight_titled_with_the_model_and_its_bar_clear_of_the_title(cli, model_path,
                                                                                             tmp_path):
    """Issue 59 §4: a single overlay's picture was 60 % blank (its long title on one line set the width), the colour
    bar's top value touched the title, and the title did not name the model."""
    from PySide6 import QtGui

    from attnviz.figures.image import OverlayChoice, overlay
    from attnviz.render.figure_painter import _fonts, _layout

    image = tmp_path / "ramp.png"
    Image.fromarray((np.arange(28 * 28).reshape(28, 28) % 256).astype(np.uint8), mode="L").save(image)
    out = tmp_path / "out"
    code, _stdout, err = cli("export", "--checkpoint", str(model_path), "--image", str(image), "--out", str(out),
                             "--format", "png,svg")
    assert code == 0, err
    # (before: 20 % of its columns blank here, 60 % with the shipped ViT and a longer file name; now 8 %)
    picture = np.asarray(Image.open(out / "overlay_attention_layer1_head1_query-CLS.png").convert("L"))
    blank_columns = float(np.mean((picture >= 250).all(axis=0)))
    assert blank_columns < 0.12, f"{blank_columns:.0%} of the picture's columns are blank"
    svg = (out / "overlay_attention_layer1_head1_query-CLS.svg").read_text(encoding="utf-8")
    assert "vit · ramp.png: attention of [CLS]" in svg  # the model's name (the checkpoint's) first
    assert "uniform (1/50)" in svg  # the whole title, wrapped, nothing cut
    loaded = load_checkpoint(model_path)
    from attnviz.core.models.image_reading import encode_image_file

    spec = overlay(encode_image_file(loaded, image, "cpu"), OverlayChoice(), model="vit")
    font, bold = _fonts()
    layout = _layout(spec, font, bold)
    lines = layout.title_text.count("\n") + 1
    assert 2 <= lines <= 4
    title_ink_bottom = layout.title_rect.center().y() + lines * QtGui.QFontMetricsF(bold).height() / 2
    top_value_top = layout.bar.top() - QtGui.QFontMetricsF(font).height() / 2  # (centred on the bar's top edge)
    assert top_value_top >= title_ink_bottom + 2
