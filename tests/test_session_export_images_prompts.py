"""``attnviz export --session`` of image sessions and long prompts writes what the window shows (issue 60.6): an image
session's switched-off heads are off (heads the model does not have refused), a sentence it holds is not taken for
--text, its relative image path is read beside the session file; a prompt beyond the decoding cap is exported whole,
its saved layer and head's map computed on demand as the window shows it, not decoded from its first tokens."""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from attnviz.core.attention.kind import AttentionKind
from attnviz.figures.attention import AttentionView
from attnviz.render.figure_files import SIDECAR
from attnviz.session_file import SavedSession, read_session, sha256_of, write_session
from tests.helpers import run_cli

VIT = Path(__file__).resolve().parents[1] / "models" / "vit.safetensors"


@pytest.fixture(autouse=True)
def _application(qapp):
    """The CLI makes a QGuiApplication to render if none exists; later tests in this process need widgets."""


@pytest.fixture()
def picture(tmp_path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    path = folder / "shirt.png"
    Image.fromarray((np.random.default_rng(1).random((28, 28)) * 255).astype(np.uint8), "L").save(path)
    return path


def _image_session(folder: Path, image: str, heads_off: str = "", sentence: str = "", name: str = "s") -> Path:
    saved = SavedSession(VIT, sha256_of(VIT), sentence=sentence, heads_off=heads_off, image=image,
                         view=AttentionView(kind=AttentionKind.ENCODER_SELF))
    return write_session(saved, folder / f"{name}.attnviz.json")


def _map(folder: Path, name: str) -> np.ndarray:
    with open(folder / name, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))[1:]
    return np.array([[float(v) for v in row[1:]] for row in rows])


def _export(capsys, session: Path, out: Path) -> tuple[int, str]:
    code, _, stderr = run_cli(capsys, "export", "--session", str(session), "--format", "csv", "--out", str(out))
    return code, stderr


def test_an_image_sessions_heads_off_are_off_in_its_export(capsys, tmp_path, picture):
    outs = {}
    for name, heads in (("on", ""), ("off", "enc-self:1.1,enc-self:1.2,enc-self:1.3")):
        outs[name] = tmp_path / name
        code, stderr = _export(capsys, _image_session(picture.parent, str(picture), heads, name=name), outs[name])
        assert code == 0, stderr
        sidecar = json.loads((outs[name] / SIDECAR).read_text(encoding="utf-8"))
        assert sidecar.get("masked_heads", "") == heads and ("heads off" in sidecar["model"]) == bool(heads)
    first, later = "enc-self_layer1_head1.csv", "enc-self_layer2_head1.csv"
    assert np.allclose(_map(outs["on"], first), _map(outs["off"], first))  # (its maps are made before its output)
    assert not np.allclose(_map(outs["on"], later), _map(outs["off"], later), atol=1e-6)  # (the next layer reads it)


def test_an_image_session_switching_off_heads_the_model_lacks_is_refused(capsys, tmp_path, picture):
    code, stderr = _export(capsys, _image_session(picture.parent, str(picture), "enc-self:9.1"), tmp_path / "out")
    assert code == 2 and stderr.startswith("attnviz: error: ") and "the heads it switches off" in stderr, stderr
    assert "enc-self:9.1" in stderr and stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_an_image_session_holding_a_sentence_exports_its_image(capsys, tmp_path, picture):
    code, stderr = _export(capsys, _image_session(picture.parent, str(picture), sentence="i am here ."),
                           tmp_path / "out")
    assert code == 0, stderr  # (not "--text does not go with an image model": no --text was given)
    assert json.loads((tmp_path / "out" / SIDECAR).read_text(encoding="utf-8"))["image"] == str(picture)


def test_a_relative_image_path_is_read_beside_the_session(capsys, tmp_path, picture, monkeypatch):
    session = _image_session(picture.parent, "shirt.png")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # (no shirt.png here)
    assert read_session(session).image == str(picture.resolve())
    code, stderr = _export(capsys, session, tmp_path / "out")
    assert code == 0, stderr
    assert json.loads((tmp_path / "out" / SIDECAR).read_text(encoding="utf-8"))["image"] == str(picture.resolve())


@pytest.fixture(scope="module")
def llama(tmp_path_factory) -> Path:
    pytest.importorskip("transformers")
    from tests.hf_folders import make_folder

    return make_folder("llama", tmp_path_factory.mktemp("llama") / "llama")  # (decoding cap 192, positions 256)


LONG = " ".join(["the house is big . he was there ."] * 40)  # (past 256 tokens: cut at the positions, as the window)


def test_a_long_prompt_session_exports_the_whole_prompts_map_as_the_window_shows_it(capsys, tmp_path, llama):
    import torch

    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.long_prompt import encode_long_prompt, prompt_map
    from attnviz.core.heads import HeadMask, head_layout, masked_heads

    session = write_session(SavedSession(llama, sha256_of(llama), sentence=LONG,
                                         view=AttentionView(kind=AttentionKind.ENCODER_SELF, layer=1, head=2),
                                         heads_off="dec-self:1.1"), tmp_path / "long.attnviz.json")
    out = tmp_path / "out"
    code, stderr = _export(capsys, session, out)
    assert code == 0, stderr
    names = sorted(path.name for path in out.iterdir())
    assert names == [SIDECAR, "dec-self_layer2_head3.csv"], names  # one map: no decoding, no 193 files
    sidecar = json.loads((out / SIDECAR).read_text(encoding="utf-8"))
    loaded = load_checkpoint(llama)
    with masked_heads(loaded.model, HeadMask.parse("dec-self:1.1", head_layout(loaded.model))), torch.no_grad():
        store, source = encode_long_prompt(loaded, LONG)  # type: ignore[misc]  (what the window encodes)
        shown, _hidden = prompt_map(store, 1, 2, scores=False)
    assert len(source.tokens) == 256 > loaded.config.max_src_len  # (the whole prompt, to the model's positions)
    assert sidecar["source_tokens"] == list(source.tokens) and sidecar["masked_heads"] == "dec-self:1.1"
    written = _map(out, "dec-self_layer2_head3.csv")
    assert written.shape == (256, 256) and np.allclose(written, shown, atol=1e-6)


def test_a_long_prompt_session_has_no_steps_to_export(capsys, tmp_path, llama):
    session = write_session(SavedSession(llama, sha256_of(llama), sentence=LONG),
                            tmp_path / "long.attnviz.json")
    code, _, stderr = run_cli(capsys, "export", "--session", str(session), "--step", "3", "--format", "csv",
                              "--out", str(tmp_path / "out"))
    assert code == 2 and "is shown whole, its maps computed on demand, and never stepped: leave out --step" in stderr
    assert not (tmp_path / "out").exists()


def test_moving_a_session_with_its_image_keeps_it_readable(tmp_path, picture):
    session = _image_session(picture.parent, "shirt.png")
    moved = Path(shutil.copytree(picture.parent, tmp_path / "moved"))
    assert read_session(moved / session.name).image == str((moved / "shirt.png").resolve())
    assert os.path.isfile(read_session(moved / session.name).image)
