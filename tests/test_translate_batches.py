"""translate and eval in batches of a number of source tokens (--batch-size), and a batch that runs the device out
of memory decoded again at half the size: the same translations whatever the batches."""

from __future__ import annotations

import pytest
import torch

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.decoding import beam_search
from attnviz.core.decoding.beam_search import translate
from tests.helpers import run_cli

SENTENCES = [["1", "2", "3"], ["4"], ["5", "6", "7", "8", "9"], [], ["2", "2"], ["9", "8", "7", "6", "5", "4", "3"],
             ["1"], ["3", "1", "4", "1", "5"]]


@pytest.fixture(scope="module")
def transformer(tiny_models):
    return load_checkpoint(tiny_models["transformer"][0])


def _translate(loaded, **options):
    return translate(loaded.model, SENTENCES, loaded.src_vocab, loaded.tgt_vocab, torch.device("cpu"), **options)


@pytest.mark.parametrize("beam", [1, 3])
def test_a_token_budget_makes_other_batches_and_the_same_translations(transformer, beam, monkeypatch):
    whole = _translate(transformer, beam_size=beam)
    batches: list[tuple[int, int]] = []  # (rows, its longest sentence)
    original = beam_search._translate_batch
    monkeypatch.setattr(beam_search, "_translate_batch", lambda model, batch, *rest: batches.append(
        (len(batch), max(len(s.words) for s in batch))) or original(model, batch, *rest))
    assert _translate(transformer, beam_size=beam, tokens_per_batch=8) == whole
    assert whole[3] == [] and sum(rows for rows, _ in batches) == len(SENTENCES) - 1  # (the empty one is not decoded)
    assert all(rows * beam * longest <= 8 for rows, longest in batches if rows > 1) and len(batches) > 1


@pytest.mark.parametrize("error", [RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"),
                                   MemoryError()])
def test_a_batch_out_of_memory_is_halved_and_the_translations_stay(transformer, error, monkeypatch):
    whole = _translate(transformer)
    original = beam_search._translate_batch
    sizes: list[int] = []

    def tight(model, batch, *rest):
        sizes.append(len(batch))
        if len(batch) > 2:
            raise error
        return original(model, batch, *rest)

    monkeypatch.setattr(beam_search, "_translate_batch", tight)
    said: list[str] = []
    assert _translate(transformer, notice=said.append) == whole
    assert sizes[:2] == [7, 3] and set(sizes[2:]) == {1}  # halved twice, the rest at the halved size
    assert len(said) == 2 and all("out of memory on cpu" in line for line in said)


def test_a_lone_sentence_out_of_memory_and_other_errors_are_not_halved(transformer, monkeypatch):
    def broken(model, batch, *rest):
        raise RuntimeError("CUDA out of memory" if len(batch) == 1 else "shape mismatch")

    monkeypatch.setattr(beam_search, "_translate_batch", broken)
    with pytest.raises(RuntimeError, match="shape mismatch"):
        _translate(transformer)
    with pytest.raises(RuntimeError, match="out of memory"):
        _translate(transformer, rows_per_batch=1)


def test_the_commands_take_a_batch_size_and_refuse_a_nonsense_one(capsys, tiny_models, tmp_path, monkeypatch):
    checkpoint = str(tiny_models["transformer"][0])
    code, plain, err = run_cli(capsys, "translate", "--checkpoint", checkpoint, "--text", "1 2 3", "--beam", "1")
    assert code == 0, err
    code, batched, err = run_cli(capsys, "translate", "--checkpoint", checkpoint, "--text", "1 2 3", "--beam", "1",
                                 "--batch-size", "2")
    assert code == 0 and batched == plain, err
    code, _out, err = run_cli(capsys, "translate", "--checkpoint", checkpoint, "--text", "1", "--batch-size", "0")
    assert code == 2 and "--batch-size must be from 1 to 10,000,000 tokens, got 0" in err
    data = tmp_path / "pairs.tsv"
    data.write_text("1 2\tun deux\n3 4 5\ttrois quatre cinq\n", encoding="utf-8")
    outputs = [run_cli(capsys, "eval", "--checkpoint", checkpoint, "--data", str(data), *extra)
               for extra in ((), ("--batch-size", "3"))]
    assert outputs[0][0] == 0 and outputs[0][1] == outputs[1][1]
