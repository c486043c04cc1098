"""Invalid checkpoints give one clear CheckpointError that names the file and the problem."""

import json
from pathlib import Path

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file

from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint, save_checkpoint, tensor_digest
from attnviz.core.models.kernel_regression import KernelRegressionConfig, KernelRegressionModel
from attnviz.core.models.transformer import Transformer, TransformerConfig
from attnviz.core.text import Vocab


@pytest.fixture
def good(tmp_path):
    vocab = Vocab.build([["a", "b", "c"]], min_freq=1)
    config = TransformerConfig(len(vocab), len(vocab), num_hiddens=8, ffn_hiddens=16, num_heads=2,
                               num_encoder_layers=1, num_decoder_layers=1)
    return save_checkpoint(tmp_path / "good.safetensors", Transformer(config), src_vocab=vocab, tgt_vocab=vocab)


def rewrite(src, dst, *, tensors=None, metadata=None):
    """Copy a checkpoint with some tensors and metadata entries changed (None deletes); changed tensors
    get a matching digest, as a stranger's file would have."""
    with safe_open(str(src), framework="pt") as handle:
        meta = dict(handle.metadata())
        data = {k: handle.get_tensor(k) for k in handle.keys()}  # noqa: SIM118
    for key, value in (tensors or {}).items():
        data.pop(key) if value is None else data.__setitem__(key, value)
    if tensors and "tensor_digest" in meta:
        meta["tensor_digest"] = tensor_digest(data)
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


def _one_value(value: float, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The (7, 8) source embedding of ``good``: small finite weights but one ``value``."""
    weights = torch.rand(7, 8) - 0.5
    weights[3, 5] = value
    return weights.to(dtype)


def test_missing_tensor_wrong_shape_wrong_dtype_nan(good, tmp_path):
    cases = [
        ({"tgt_embedding.weight": None}, "missing tensors tgt_embedding.weight"),
        ({"src_embedding.weight": torch.zeros(3, 8)}, r"src_embedding.weight has shape \(3, 8\), expected \(7, 8\)"),
        ({"src_embedding.weight": torch.zeros(7, 8, dtype=torch.int32)}, "has dtype torch.int32"),
        ({"src_embedding.weight": torch.full((7, 8), float("nan"))}, "holds NaN"),
        # one bad value among finite ones, at either end of the range, in the float16 a shipped model is stored in
        ({"src_embedding.weight": _one_value(float("nan"))}, "holds NaN or infinite values"),
        ({"src_embedding.weight": _one_value(float("inf"))}, "holds NaN or infinite values"),
        ({"src_embedding.weight": _one_value(float("-inf"), torch.float16)}, "holds NaN or infinite values"),
        ({"src_embedding.weight": _one_value(-2e6)}, r"holds values beyond ±1e\+06"),
        ({"src_embedding.weight": _one_value(2e6)}, r"holds values beyond ±1e\+06"),
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


# -- hostile files: a few KB that claim an enormous or impossible model ------------------------------
def _config_of(path):
    with safe_open(str(path), framework="pt") as handle:
        return json.loads(handle.metadata()["config"])


@pytest.mark.parametrize(("change", "message"), [
    ({"num_hiddens": 10**9}, r"num_hiddens = 1000000000 is outside 1\.\.4096"),
    ({"max_src_len": 3 * 10**6}, "max_src_len = 3000000 is outside"),
    ({"num_encoder_layers": 10**6}, "num_encoder_layers = 1000000 is outside"),
    ({"num_heads": 0}, "num_heads = 0 is outside"),
    ({"num_heads": -1}, "num_heads = -1 is outside"),
    ({"num_heads": 3}, "num_heads = 3 does not divide num_hiddens = 8"),
    ({"num_heads": "2"}, "num_heads must be a whole number, not '2'"),
    ({"max_src_len": 0}, "max_src_len = 0 is outside"),
    ({"max_tgt_len": 10**9}, "max_tgt_len = 1000000000 is outside"),
    ({"dropout": float("nan")}, "dropout must be a finite number"),
    ({"tie_output": "yes"}, "tie_output must be true or false"),
    ({"num_hiddens": 64, "ffn_hiddens": 16}, r"has shape \(7, 8\), expected \(7, 64\) \(the config does not match"),
])
def test_a_lying_config_is_refused_before_anything_is_built(good, tmp_path, change, message):
    config = {**_config_of(good), **change}
    bad = rewrite(good, tmp_path / "bad.safetensors", metadata={"config": json.dumps(config)})
    with pytest.raises(CheckpointError, match=f"bad.safetensors: .*{message}"):
        load_checkpoint(bad)


def test_kernel_regression_claiming_a_billion_points_is_refused(tmp_path):
    good = save_checkpoint(tmp_path / "nw.safetensors", KernelRegressionModel(KernelRegressionConfig()))
    config = {**_config_of(good), "n_train": 10**9}
    bad = rewrite(good, tmp_path / "bad.safetensors", metadata={"config": json.dumps(config)})
    with pytest.raises(CheckpointError, match="n_train = 1000000000 is outside"):
        load_checkpoint(bad)


@pytest.mark.parametrize(("metadata", "message"), [
    ({"config": "[" * 100_000 + "]" * 100_000}, "config is nested too deeply"),
    ({"training": "[1, 2]"}, "training info must be a JSON object"),
    ({"training": "{" * 5}, "training is not valid JSON"),
])
def test_malformed_metadata_is_one_checkpoint_error(good, tmp_path, metadata, message):
    bad = rewrite(good, tmp_path / "bad.safetensors", metadata=metadata)
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(bad)


def test_a_safetensors_file_from_elsewhere_is_named_as_such(tmp_path):
    other = tmp_path / "other.safetensors"
    save_file({"weight": torch.zeros(3)}, str(other))
    with pytest.raises(CheckpointError, match=r"other\.safetensors: not an attnviz checkpoint: no attnviz metadata"):
        load_checkpoint(other)


def test_a_flipped_byte_in_the_tensor_data_is_refused(good, tmp_path):
    data = bytearray(good.read_bytes())
    data[-5] ^= 0x40  # inside the last tensor's bytes (the header is at the front)
    flipped = tmp_path / "flipped.safetensors"
    flipped.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"flipped\.safetensors: the tensor data does not match its checksum"):
        load_checkpoint(flipped)


def test_a_lying_checkpoint_makes_the_cli_exit_2_with_one_line(good, tmp_path, capsys):
    from tests.helpers import run_cli

    config = {**_config_of(good), "num_hiddens": 10**9}
    bad = rewrite(good, tmp_path / "bad.safetensors", metadata={"config": json.dumps(config)})
    for command in (["translate", "--checkpoint", str(bad), "--text", "a b"],
                    ["export", "--checkpoint", str(bad), "--text", "a b", "--out", str(tmp_path / "out")]):
        code, _out, err = run_cli(capsys, *command)
        assert code == 2 and err.count("\n") == 1 and "num_hiddens = 1000000000 is outside" in err
    assert not (tmp_path / "out").exists()


def test_unopenable_paths_say_why_in_words(good, tmp_path):
    loop = tmp_path / "loop.safetensors"
    loop.symlink_to(loop)
    with pytest.raises(CheckpointError, match=r"loop\.safetensors: cannot be opened \(Too many levels"):
        load_checkpoint(loop)
    with pytest.raises(CheckpointError, match="is a folder, not a checkpoint file"):
        load_checkpoint(tmp_path)


def test_a_file_name_that_is_not_utf8_still_opens(good, tmp_path):
    import os

    odd = Path(os.fsdecode(bytes(tmp_path) + b"/mod\xe8le.safetensors"))  # Latin-1 'modèle'
    odd.write_bytes(good.read_bytes())
    loaded = load_checkpoint(odd)
    assert loaded.kind == "transformer" and loaded.path == odd


def test_kernel_data_with_absurd_values_is_refused(tmp_path):
    good = save_checkpoint(tmp_path / "nw.safetensors", KernelRegressionModel(KernelRegressionConfig()))
    with safe_open(str(good), framework="pt") as handle:
        x_train = handle.get_tensor("x_train")
    bad = rewrite(good, tmp_path / "bad.safetensors", tensors={"x_train": x_train * 1e30})
    with pytest.raises(CheckpointError, match=r"tensor x_train holds values beyond ±1e\+06"):
        load_checkpoint(bad)


def test_an_unreadable_file_says_permission_denied(good, monkeypatch):
    """(As root, chmod cannot make a file unreadable: the OS's answer is simulated.)"""
    import attnviz.core.checkpoints.header as checkpoint_file  # (where the loader first opens the file)

    def refused(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(checkpoint_file, "open", refused, raising=False)
    with pytest.raises(CheckpointError, match=r"good\.safetensors: permission denied"):
        load_checkpoint(good)


def test_a_config_whose_attention_maps_would_fill_the_memory_is_refused(good, tmp_path):
    """Each field in range, together too much: 24 decoder layers × 64 heads × 1,024 steps would record
    terabytes of attention maps while one sentence decodes."""
    config = {**_config_of(good), "num_hiddens": 64, "num_heads": 64, "num_decoder_layers": 24,
              "max_tgt_len": 1024, "max_src_len": 64}
    bad = rewrite(good, tmp_path / "bad.safetensors", metadata={"config": json.dumps(config)})
    with pytest.raises(CheckpointError, match=r"would record .* GB of attention maps"):
        load_checkpoint(bad)


def test_a_vocabulary_entry_that_is_no_word_is_refused(good, tmp_path):
    with safe_open(str(good), framework="pt") as handle:
        tokens = json.loads(handle.metadata()["tgt_vocab"])
    for junk in ("W" * 100_000, "evil\x1b]0;x\x07"):
        bad = rewrite(good, tmp_path / "bad.safetensors",
                      metadata={"tgt_vocab": json.dumps([*tokens[:4], junk, *tokens[5:]])})
        with pytest.raises(CheckpointError, match=r"tgt_vocab is not a valid vocabulary .*is not a word"):
            load_checkpoint(bad)


def test_a_named_pipe_is_refused_not_waited_on(tmp_path):
    import os

    fifo = tmp_path / "pipe.safetensors"
    os.mkfifo(fifo)
    with pytest.raises(CheckpointError, match=r"pipe\.safetensors: not a regular file"):
        load_checkpoint(fifo)


def test_a_header_of_a_million_empty_tensors_is_refused_at_once(tmp_path):
    many = tmp_path / "many.safetensors"
    save_file({f"t{i}": torch.zeros(0) for i in range(20_000)}, str(many),
              metadata={"format_version": "1", "kind": "transformer"})
    with pytest.raises(CheckpointError, match="20,000 tensors"):
        load_checkpoint(many)
