"""Invalid checkpoints give one clear CheckpointError that names the file and the problem."""

import json

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file

from attnviz.core.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from attnviz.core.kernel_regression import KernelRegressionConfig, KernelRegressionModel
from attnviz.core.text import Vocab
from attnviz.core.transformer import Transformer, TransformerConfig


@pytest.fixture
def good(tmp_path):
    vocab = Vocab.build([["a", "b", "c"]], min_freq=1)
    config = TransformerConfig(len(vocab), len(vocab), num_hiddens=8, ffn_hiddens=16, num_heads=2,
                               num_encoder_layers=1, num_decoder_layers=1)
    return save_checkpoint(tmp_path / "good.safetensors", Transformer(config), src_vocab=vocab, tgt_vocab=vocab)


def rewrite(src, dst, *, tensors=None, metadata=None):
    """Copy a checkpoint with some tensors and metadata entries changed (None deletes)."""
    with safe_open(str(src), framework="pt") as handle:
        meta = dict(handle.metadata())
        data = {k: handle.get_tensor(k) for k in handle.keys()}  # noqa: SIM118
    for key, value in (tensors or {}).items():
        data.pop(key) if value is None else data.__setitem__(key, value)
    for key, value in (metadata or {}).items():
        meta.pop(key) if value is None else meta.__setitem__(key, value)
    save_file(data, str(dst), metadata=meta)
    return dst


def test_good_checkpoint_loads(good):
    loaded = load_checkpoint(good)
    assert loaded.kind == "transformer" and not loaded.model.training


def test_missing_file(tmp_path):
    with pytest.raises(CheckpointError, match=r"nope\.safetensors: no such file"):
        load_checkpoint(tmp_path / "nope.safetensors")


def test_garbage_bytes_and_pickles_are_refused(tmp_path):
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"\x80\x04not a checkpoint at all" * 10)
    with pytest.raises(CheckpointError, match=r"junk\.safetensors: not a readable safetensors file"):
        load_checkpoint(junk)
    pickled = tmp_path / "model.pt"
    torch.save({"w": torch.zeros(2)}, pickled)
    with pytest.raises(CheckpointError, match=r"model\.pt: not a readable safetensors file"):
        load_checkpoint(pickled)


@pytest.mark.parametrize(("metadata", "message"), [
    ({"kind": "lstm"}, "unknown model kind 'lstm'"),
    ({"format_version": "99"}, "format_version '99' is not supported"),
    ({"config": "{not json"}, "config is not valid JSON"),
    ({"config": json.dumps({"src_vocab_size": 7})}, "config is missing tgt_vocab_size"),
    ({"tgt_vocab": json.dumps(["<pad>", "<bos>", "<eos>", "<unk>"])}, "tgt_vocab has 4 tokens but the config says 7"),
    ({"src_vocab": json.dumps(["a", "b"])}, "src_vocab is not a valid vocabulary"),
    ({"src_vocab": None}, "metadata has no 'src_vocab'"),
])
def test_bad_metadata(good, tmp_path, metadata, message):
    bad = rewrite(good, tmp_path / "bad.safetensors", metadata=metadata)
    with pytest.raises(CheckpointError, match=f"bad.safetensors: {message}"):
        load_checkpoint(bad)


def test_missing_tensor_wrong_shape_wrong_dtype_nan(good, tmp_path):
    cases = [
        ({"tgt_embedding.weight": None}, "missing tensors tgt_embedding.weight"),
        ({"src_embedding.weight": torch.zeros(3, 8)}, r"src_embedding.weight has shape \(3, 8\), expected \(7, 8\)"),
        ({"src_embedding.weight": torch.zeros(7, 8, dtype=torch.int32)}, "has dtype torch.int32"),
        ({"src_embedding.weight": torch.full((7, 8), float("nan"))}, "holds NaN"),
        ({"extra.weight": torch.zeros(1)}, "unexpected tensors extra.weight"),
    ]
    for tensors, message in cases:
        bad = rewrite(good, tmp_path / "bad.safetensors", tensors=tensors)
        with pytest.raises(CheckpointError, match=message):
            load_checkpoint(bad)


def test_kernel_regression_checkpoint_round_trip(tmp_path):
    model = KernelRegressionModel(KernelRegressionConfig(seed=3))
    with torch.no_grad():
        model.parametric.w.fill_(4.5)
    loaded = load_checkpoint(save_checkpoint(tmp_path / "nw.safetensors", model))
    assert loaded.kind == "kernel-regression" and loaded.src_vocab is None
    assert loaded.model.parametric.w.item() == 4.5
    torch.testing.assert_close(loaded.model.x_train, model.x_train)
    preds, weights = loaded.model(loaded.model.x_test)
    assert weights.shape == (50, 50) and preds.shape == (50,)


def test_save_is_atomic_when_the_folder_is_unwritable(good, tmp_path):
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    loaded = load_checkpoint(good)
    with pytest.raises(OSError):
        save_checkpoint(blocked / "out.safetensors", loaded.model, src_vocab=loaded.src_vocab,
                        tgt_vocab=loaded.tgt_vocab)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file-not-folder", "good.safetensors"]
