"""Hostile numbers (issue 60.3): a config or image processor whose numbers would make every map NaN is refused in one
sentence naming the file and the key, before a model is built; NaN weights are found after the forward pass, and no
map or logit that is not finite is ranked, shown or written (``classify`` prints no top-5, ``export``/``heads`` write
no file)."""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")
import torch  # noqa: E402
from PIL import Image  # noqa: E402
from safetensors.torch import load_file, save_file  # noqa: E402

from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint  # noqa: E402
from tests.helpers import run_cli  # noqa: E402
from tests.hf_folders import make_folder  # noqa: E402
from tests.hf_vision_folders import make_vision_folder  # noqa: E402

Change = Callable[[dict], None]


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("numbers")
    return {"llama": make_folder("llama", root / "llama"), "gpt2": make_folder("gpt2", root / "gpt2"),
            "vit": make_vision_folder("vit", root / "vit")}


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("image") / "noise.png"
    Image.fromarray((np.random.default_rng(0).random((40, 40, 3)) * 255).astype(np.uint8)).save(path)
    return path


def _spoilt(made: dict[str, Path], tmp_path: Path, family: str, file: str, change: Change) -> Path:
    folder = Path(shutil.copytree(made[family], tmp_path / "model"))
    data = json.loads((folder / file).read_text())
    change(data)
    (folder / file).write_text(json.dumps(data))  # (json writes NaN and Infinity as Python reads them back)
    return folder


def _rope(**values) -> Change:
    return lambda config: config["rope_parameters"].update(values)


def _set(**values) -> Change:
    return lambda config: config.update(values)


NAN, INF = math.nan, math.inf


@pytest.mark.parametrize(("family", "file", "change", "message"), [
    ("llama", "config.json", _rope(rope_theta=0), "rope_parameters.rope_theta = 0 is not a number above 0"),
    ("llama", "config.json", _rope(rope_theta=-10000.0), "rope_parameters.rope_theta = -10000.0 is not a number above"),
    ("llama", "config.json", _rope(rope_theta=NAN), "rope_parameters.rope_theta = nan is not a finite number"),
    ("llama", "config.json", _rope(rope_type="linear", factor=0.0), "rope_parameters.factor = 0.0 is not a number "
                                                                    "above 0"),
    ("llama", "config.json", _rope(rope_type="linear", factor=NAN), "rope_parameters.factor = nan is not a finite"),
    ("llama", "config.json", _set(rope_scaling={"rope_type": "linear", "factor": 0}),  # (the legacy key)
     "rope_scaling.factor = 0 is not a number above 0"),
    ("llama", "config.json", _set(rope_scaling={"rope_type": "linear", "factor": NAN}),
     "rope_scaling.factor = nan is not a finite number"),
    ("llama", "config.json", _set(rope_theta=-1.0), "rope_theta = -1.0 is not a number above 0"),
    ("llama", "config.json", _set(rms_norm_eps=-1e-6), "rms_norm_eps = -1e-06 is below 0"),
    ("gpt2", "config.json", _set(layer_norm_epsilon=NAN), "layer_norm_epsilon = nan is not a finite number"),
    ("vit", "preprocessor_config.json", _set(image_mean=[NAN, 0.5, 0.5]), "image_mean[0] = nan is not a finite"),
    ("vit", "preprocessor_config.json", _set(image_mean=[0.5, INF, 0.5]), "image_mean[1] = inf is not a finite"),
    ("vit", "preprocessor_config.json", _set(image_std=[0.5, 0.5, 0]), "image_std = [0.5, 0.5, 0] is not a number "
                                                                        "above 0"),
    ("vit", "preprocessor_config.json", _set(image_std=NAN), "image_std = nan is not a finite number"),
    ("vit", "preprocessor_config.json", _set(rescale_factor=NAN), "rescale_factor = nan is not a finite number"),
    ("vit", "preprocessor_config.json", _set(rescale_factor=0), "rescale_factor = 0 is not a number above 0"),
])
def test_numbers_that_make_every_map_nan_are_refused_by_file_and_key(made, tmp_path, capsys, image, family, file,
                                                                     change, message):
    folder = _spoilt(made, tmp_path, family, file, change)
    with pytest.raises(CheckpointError) as error:
        load_checkpoint(folder)
    assert str(error.value).startswith(f"{folder / file}: ") and message in str(error.value), error.value
    out = tmp_path / "out"
    command = ("classify", str(image)) if family == "vit" else ("export", "--text", "the house", "--format", "csv",
                                                                 "--out", str(out))
    code, stdout, stderr = run_cli(capsys, command[0], "--checkpoint", str(folder), *command[1:])
    assert (code, stdout) == (2, "") and stderr.count("\n") == 1 and message in stderr, stderr
    assert not out.exists()


def test_a_real_config_keeps_its_numbers(made):
    assert load_checkpoint(made["llama"]).kind == "hf-causal"  # (rope_theta 10,000, rms_norm_eps 1e-6: opened)


def _nan_weight(made: dict[str, Path], tmp_path: Path, family: str, name: str) -> Path:
    folder = Path(shutil.copytree(made[family], tmp_path / "model"))
    weights = load_file(folder / "model.safetensors")
    weights[name] = torch.full_like(weights[name], math.nan)
    save_file(weights, folder / "model.safetensors", metadata={"format": "pt"})
    return folder


NOT_FINITE = ("the model computed attention or predictions that are not finite (NaN or infinity): its weights or "
              "its config hold numbers that break the computation, so attnviz shows, ranks and writes none of them")


@pytest.mark.parametrize("weight", ["model.layers.0.self_attn.k_proj.weight",  # (every map NaN)
                                    "model.layers.1.mlp.down_proj.weight"])  # (the maps finite, the next tokens not)
def test_nan_weights_write_no_map_and_rank_no_token(made, tmp_path, capsys, weight):
    folder = _nan_weight(made, tmp_path, "llama", weight)
    data = tmp_path / "corpus.txt"
    data.write_text("the house is big .\nhe was there .\n", encoding="utf-8")
    heads = ("heads", "--data", str(data), "--no-pruning", "--format", "csv", "--out", str(tmp_path / "heads"))
    for command in (("export", "--text", "the house", "--format", "csv", "--out", str(tmp_path / "maps")), heads,
                    ("translate", "--text", "the house")):
        code, stdout, stderr = run_cli(capsys, command[0], "--checkpoint", str(folder), *command[1:])
        last = stderr.splitlines()[-1]
        assert code == 2 and stdout == "" and last.startswith("attnviz: error: ") and last.endswith(NOT_FINITE), stderr
    assert not (tmp_path / "maps").exists() and not (tmp_path / "heads").exists()  # no CSV of NaN


def test_nan_logits_rank_no_class(made, tmp_path, capsys, image):
    folder = _nan_weight(made, tmp_path, "vit", "classifier.weight")  # (the maps are finite; the class scores not)
    code, stdout, stderr = run_cli(capsys, "classify", "--checkpoint", str(folder), str(image))
    assert (code, stdout) == (2, "")
    assert stderr == ("attnviz: error: the model's class scores are not finite (NaN or infinity): its weights or its "
                      "settings hold numbers that break the computation, so attnviz ranks no class\n")


def test_nan_attention_weights_of_an_image_model_are_refused_when_it_loads(made, tmp_path, capsys, image):
    folder = _nan_weight(made, tmp_path, "vit", "vit.encoder.layer.0.attention.attention.query.weight")
    code, stdout, stderr = run_cli(capsys, "classify", "--checkpoint", str(folder), str(image))
    assert (code, stdout) == (2, "") and stderr == f"attnviz: error: {folder}: {NOT_FINITE}\n", stderr
