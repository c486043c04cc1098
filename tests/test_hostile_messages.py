"""Refusals that say what is wrong with what: sizes in units that read well, the file that is broken named
itself, kinds of attention named once."""

from __future__ import annotations

import pytest

from tests.helpers import one_error_line, run_cli


def test_sizes_and_counts_read_in_units_that_fit_them() -> None:
    from attnviz.core.hf.load import bytes_in_words, numbers_in_words

    assert [bytes_in_words(n) for n in (0, 212, 4_096, 12_900_000, 1_300_000_000, 10**13)] == [
        "0 bytes", "212 bytes", "4.1 KB", "12.9 MB", "1.3 GB", "10,000.0 GB"]
    assert [numbers_in_words(n) for n in (15_216, 999_999, 168_300_000)] == [
        "15,216 numbers", "999,999 numbers", "168.3 million numbers"]


def test_a_tiny_weights_file_is_refused_in_units_that_fit_it(capsys, tmp_path) -> None:
    from tests.hf_folders import make_folder

    folder = make_folder("gpt2", tmp_path / "gpt2")
    (folder / "model.safetensors").unlink()
    (folder / "pytorch_model.bin").write_bytes(b"x" * 212)
    code, _, stderr = run_cli(capsys, "translate", "--checkpoint", str(folder), "--text", "the house")
    said = one_error_line(stderr)
    assert code == 2 and "pytorch_model.bin: holds 212 bytes of weights, too few for the " in said
    assert " numbers config.json describes" in said and "0.0" not in said


def test_a_broken_sentencepiece_model_is_blamed_not_the_vocabulary_beside_it(capsys, tmp_path) -> None:
    from tests.hf_folders import make_opus_mt_folder

    folder = make_opus_mt_folder(tmp_path / "opus")
    spm = folder / "source.spm"
    spm.write_bytes(spm.read_bytes()[:100])
    code, _, stderr = run_cli(capsys, "translate", "--checkpoint", str(folder), "--text", "the house")
    said = one_error_line(stderr)
    assert code == 2 and f"{spm}: not a SentencePiece model that can be read" in said and "vocab.json" not in said


def test_an_encoder_only_model_names_the_attention_it_lacks_once() -> None:
    from attnviz.core.attention.kind import AttentionKind
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from tests.test_hostile_corpus import SHIPPED

    model = load_checkpoint(SHIPPED / "encoder-only.safetensors").model
    with pytest.raises(ValueError) as refused:
        model.attention_modules(AttentionKind.DECODER_SELF)
    assert str(refused.value) == "an encoder-only model has no decoder self-attention"
