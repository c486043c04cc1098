"""``attnviz to-hf``: the Transformer written as a Hugging Face Marian folder is the same network — attnviz
decodes both to the same tokens with the same attention maps, and the library's own ``generate`` says the
same — and the command never overwrites and refuses what it cannot convert."""

from __future__ import annotations

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")

from attnviz.core.checkpoints.checkpoint import load_checkpoint  # noqa: E402
from attnviz.core.decoding.stepping import DecodeSession  # noqa: E402
from attnviz.core.text import preprocess, tokenize  # noqa: E402
from tests.helpers import run_cli  # noqa: E402

SENTENCES = ["a b c", "j i h g f", "c c a", "b"]


@pytest.fixture(scope="module")
def converted(tiny_models, tmp_path_factory):
    folder = tmp_path_factory.mktemp("to-hf") / "tiny-marian"
    code = __import__("attnviz.cli", fromlist=["main"]).main(
        ["to-hf", "--checkpoint", str(tiny_models["transformer"][0]), "--out", str(folder)])
    assert code == 0
    return load_checkpoint(tiny_models["transformer"][0]), folder


@pytest.mark.parametrize("text", SENTENCES)
def test_the_converted_folder_decodes_to_the_same_tokens_and_maps(converted, text):
    ours, folder = converted
    theirs = load_checkpoint(folder)
    assert theirs.kind == "hf-seq2seq"
    mine, other = DecodeSession(ours, "cpu"), DecodeSession(theirs, "cpu")
    a, b = mine.encode(text), other.encode(text)
    assert a.tokens == b.tokens
    np.testing.assert_allclose(a.encoder_weights, b.encoder_weights, atol=1e-5)
    steps_a, steps_b = mine.run(), other.run()
    assert steps_a[-1].output_tokens == steps_b[-1].output_tokens and steps_a[-1].ended == steps_b[-1].ended
    for x, y in zip(steps_a, steps_b, strict=True):
        np.testing.assert_allclose(x.cross_weights, y.cross_weights, atol=1e-5)
        np.testing.assert_allclose(x.self_weights, y.self_weights, atol=1e-5)
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(folder).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    with torch.no_grad():
        out = model.generate(**tokenizer(text, return_tensors="pt"), num_beams=1, max_new_tokens=12)
    assert tokenizer.decode(out[0], skip_special_tokens=True).split() == list(steps_a[-1].output_tokens)


def test_the_tokenizer_reads_text_as_attnviz_does(converted):
    _, folder = converted
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    for text in ("A b.", "Ça  c!", "j, i?", "a b\u00a0c"):
        pieces = tokenizer.convert_ids_to_tokens(tokenizer(text)["input_ids"])
        expected = [w if w in tokenizer.get_vocab() else "<unk>" for w in tokenize(preprocess(text))]
        assert pieces == expected, text


def test_to_hf_never_overwrites_and_refuses_other_models(converted, tiny_models, tmp_path, capsys):
    _, folder = converted
    before = sorted(p.name for p in folder.iterdir())
    code, out, err = run_cli(capsys, "to-hf", "--checkpoint", str(tiny_models["transformer"][0]), "--out",
                             str(folder))
    assert code == 2 and "exists" in err and out == ""
    assert sorted(p.name for p in folder.iterdir()) == before
    code, _, err = run_cli(capsys, "to-hf", "--checkpoint", str(tiny_models["rnn-dot"][0]), "--out",
                           str(tmp_path / "rnn"))
    assert code == 2 and "only attnviz's Transformer converts" in err
    assert not (tmp_path / "rnn").exists() and list(tmp_path.iterdir()) == []  # nothing half-written


def test_to_hf_says_why_in_one_line_and_gives_the_folder_ordinary_permissions(converted, tiny_models, tmp_path,
                                                                              capsys, monkeypatch):
    import os
    import stat

    _, folder = converted
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o777 & ~umask  # as mkdir makes it, not mkdtemp's 0700
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}      ")
    code, _, err = run_cli(capsys, "to-hf", "--checkpoint", str(bad), "--out", str(tmp_path / "x"))
    assert code == 2 and err.startswith("attnviz: error: ") and "internal error" not in err and err.count("\n") == 1

    from attnviz.core.hf import convert

    def full_disk(self, path, *args, **kwargs):
        from safetensors import SafetensorError

        raise SafetensorError("Error while serializing: No space left on device (os error 28)")

    monkeypatch.setattr(transformers.PreTrainedModel, "save_pretrained", full_disk)
    code, _, err = run_cli(capsys, "to-hf", "--checkpoint", str(tiny_models["transformer"][0]), "--out",
                           str(tmp_path / "full"))
    assert code == 2 and "No space left on device" in err and "internal error" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.safetensors"]  # nothing half-written
    assert convert is not None


def test_to_hf_never_replaces_an_empty_folder_made_at_its_target_while_it_writes(converted, tiny_models, tmp_path,
                                                                                  capsys, monkeypatch):
    target = tmp_path / "out"
    real = transformers.PreTrainedTokenizerBase.save_pretrained

    def and_a_folder_appears(self, path, *args, **kwargs):
        result = real(self, path, *args, **kwargs)
        target.mkdir()
        return result

    monkeypatch.setattr(transformers.PreTrainedTokenizerBase, "save_pretrained", and_a_folder_appears)
    code, _, err = run_cli(capsys, "to-hf", "--checkpoint", str(tiny_models["transformer"][0]), "--out", str(target))
    assert code == 2 and "appeared while the model was written" in err
    assert target.is_dir() and list(target.iterdir()) == []  # the folder someone made is kept as it was
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_a_signal_just_after_the_folder_took_its_name_reports_the_whole_folder(converted, tiny_models, tmp_path,
                                                                               capsys, monkeypatch):
    from attnviz.core.hf import convert

    real = convert.os.rename

    def renamed_then_interrupted(source, target):
        real(source, target)
        raise KeyboardInterrupt

    monkeypatch.setattr(convert.os, "rename", renamed_then_interrupted)
    target = tmp_path / "out"
    code, out, err = run_cli(capsys, "to-hf", "--checkpoint", str(tiny_models["transformer"][0]), "--out", str(target))
    assert code == 0 and out.startswith(f"wrote {target}") and "nothing" not in err
    assert (target / "config.json").is_file()
