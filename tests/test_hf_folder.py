"""Hugging Face model folders are looked at before anything reads them: a good folder (or a cache snapshot
whose files are links into its blobs) is described; a hostile one — a link out of the folder, a FIFO as
weights, a truncated safetensors file, a 1 GB tokenizer file, a config claiming 10⁹ hidden units, a model
that needs its own code — gets one sentence naming the file, without reading it whole."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from attnviz.core.hf.folder import HFFolderError, cached_models, inspect_folder

MARIAN = {"model_type": "marian", "d_model": 16, "encoder_layers": 2, "decoder_layers": 2,
          "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 32, "decoder_ffn_dim": 32,
          "vocab_size": 50, "max_position_embeddings": 64}
GPT2 = {"model_type": "gpt2", "n_embd": 16, "n_layer": 2, "n_head": 2, "n_inner": None, "n_positions": 64,
        "vocab_size": 60}
LLAMA = {"model_type": "llama", "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 4,
         "num_key_value_heads": 2, "intermediate_size": 32, "vocab_size": 60, "max_position_embeddings": 64}


def make_folder(folder: Path, config: dict) -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(config))
    save_file({"embed.weight": np.zeros((4, 4), np.float32)}, str(folder / "model.safetensors"))
    (folder / "tokenizer.json").write_text('{"model": {"type": "WordLevel"}}')
    return folder


@pytest.mark.parametrize(("config", "name", "layout"), [(MARIAN, "Marian", "encoder-decoder"),
                                                        (GPT2, "GPT-2", "decoder-only"),
                                                        (LLAMA, "Llama", "decoder-only")])
def test_a_model_folder_is_described_before_it_is_loaded(tmp_path, config, name, layout):
    found = inspect_folder(make_folder(tmp_path / "model", config))
    assert (found.architecture.name, found.architecture.layout, found.name) == (name, layout, "model")
    assert [p.name for p in found.weights] == ["model.safetensors"]
    assert [p.name for p in found.tokenizer_files] == ["tokenizer.json"]
    assert 0 < found.parameters < 100_000


def test_a_cache_snapshot_of_links_into_its_blobs_opens_and_is_named_as_on_the_hub(tmp_path):
    entry = tmp_path / "hub" / "models--Helsinki-NLP--opus-mt-en-fr"
    made = make_folder(tmp_path / "made", MARIAN)
    (entry / "blobs").mkdir(parents=True)
    snapshot = entry / "snapshots" / "0123abcd"
    snapshot.mkdir(parents=True)
    for file in made.iterdir():
        os.replace(file, entry / "blobs" / file.name)
        (snapshot / file.name).symlink_to(Path("../../blobs") / file.name)
    assert inspect_folder(snapshot).name == "Helsinki-NLP/opus-mt-en-fr"
    (folder, where, why), = cached_models(tmp_path / "hub")
    assert folder is not None and where == snapshot and why == ""


def _link_out(folder: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps(MARIAN))
    (folder / "config.json").unlink()
    (folder / "config.json").symlink_to(secret)


def _fifo(folder: Path, tmp_path: Path) -> None:
    (folder / "model.safetensors").unlink()
    os.mkfifo(folder / "model.safetensors")


def _truncated(folder: Path, tmp_path: Path) -> None:
    weights = folder / "model.safetensors"
    save_file({"w": np.zeros((64, 64), np.float32)}, str(weights))
    os.truncate(weights, weights.stat().st_size - 100)


def _huge_tokenizer(folder: Path, tmp_path: Path) -> None:
    os.truncate(folder / "tokenizer.json", 1024**3)  # a sparse 1 GB file: nothing reads it


def _config(**changes):
    def change(folder: Path, tmp_path: Path) -> None:
        (folder / "config.json").write_text(json.dumps({**MARIAN, **changes}))
    return change


def _remove(name: str):
    return lambda folder, tmp_path: (folder / name).unlink()


def _index_of_a_missing_shard(folder: Path, tmp_path: Path) -> None:
    (folder / "model.safetensors").unlink()
    (folder / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"w": "model-00001.safetensors"}}))


@pytest.mark.parametrize(("spoil", "file", "message"), [
    (_link_out, "config.json", "outside the model's folder"),
    (_fifo, "model.safetensors", "is a named pipe (FIFO), not a file"),
    (_truncated, "model.safetensors", "is truncated"),
    (_huge_tokenizer, "tokenizer.json", "larger than any real tokenizer.json"),
    (_config(d_model=10**9), "config.json", "d_model = 1000000000 is not a whole number from 1 to 16,384"),
    (_config(encoder_layers="6"), "config.json", "encoder_layers = '6' is not a whole number"),
    (_config(d_model=16384, encoder_layers=256, decoder_layers=256, encoder_attention_heads=256,
             decoder_attention_heads=256), "config.json", "billion parameters; attnviz opens models of up to 2"),
    (_config(d_model=15), "config.json", "is not divisible into 2 heads"),
    (_config(auto_map={"AutoModel": "modeling_evil.Evil"}), "config.json", "needs its own Python code"),
    (_config(model_type="electra"), "config.json", "model_type 'electra' is not one attnviz opens"),
    (lambda folder, tmp_path: (folder / "config.json").write_text("{nope"), "config.json", "is not valid JSON"),
    (_remove("config.json"), "", "has no config.json"),
    (_remove("model.safetensors"), "", "has no weights"),
    (_remove("tokenizer.json"), "", "has no tokenizer"),
    (_index_of_a_missing_shard, "model-00001.safetensors", "is missing (model.safetensors.index.json lists it)"),
    (lambda folder, tmp_path: os.mkfifo(folder / "chat_template.jinja"), "chat_template.jinja",
     "is a named pipe (FIFO), not a file"),  # (a file transformers opens that the list does not name)
    (lambda folder, tmp_path: (folder / "target_vocab.json").symlink_to(tmp_path), "target_vocab.json",
     "outside the model's folder"),
    (_config(model_type={"a": 1}), "config.json", "has no model_type naming its architecture"),
    (_config(head_dim=10**9), "config.json", "head_dim = 1000000000 is not a whole number from 1 to 16,384"),
])
def test_a_hostile_folder_gets_one_sentence_naming_the_file(tmp_path, spoil, file, message):
    folder = make_folder(tmp_path / "model", MARIAN)
    spoil(folder, tmp_path)
    with pytest.raises(HFFolderError) as error:
        inspect_folder(folder)
    text = str(error.value)
    assert text.startswith(str(folder / file).rstrip("/") + ":") and message in text, text
    assert "\n" not in text


def test_a_file_or_a_missing_path_is_not_a_model_folder(tmp_path):
    (tmp_path / "x.safetensors").write_bytes(b"")
    for path in (tmp_path / "x.safetensors", tmp_path / "nowhere"):
        with pytest.raises(HFFolderError, match="not a folder"):
            inspect_folder(path)


def test_every_architectures_layout_is_one_of_the_windows_layouts():
    """A folder's layout names one of core/layout.py's layouts (the views ask that object); hf/ keeps no list of
    its own, and a record naming another is refused when it is made."""
    import dataclasses

    from attnviz.core.hf.folder import ARCHITECTURES
    from attnviz.core.layout import LAYOUTS

    assert {record.layout for record in ARCHITECTURES.values()} == {"encoder-decoder", "decoder-only", "encoder-only",
                                                                    "image"}
    assert all(record.layout in LAYOUTS for record in ARCHITECTURES.values())
    with pytest.raises(KeyError, match="unknown sequence layout 'sentence'"):
        dataclasses.replace(next(iter(ARCHITECTURES.values())), layout="sentence")
