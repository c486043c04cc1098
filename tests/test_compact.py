"""A loaded model held in less memory (attnviz.core.models.compact) decodes to exactly the same numbers."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from attnviz.core.checkpoints.checkpoint import load_checkpoint, save_checkpoint
from attnviz.core.decoding.stepping import DecodeSession

SENTENCES = ("a b c", "d e a b", "c")


def _same(a, b, where: str) -> None:
    """Every number of two results (dataclasses, tuples of them, numpy arrays) is bitwise the same."""
    if dataclasses.is_dataclass(a):
        for field in dataclasses.fields(a):
            _same(getattr(a, field.name), getattr(b, field.name), f"{where}.{field.name}")
    elif isinstance(a, tuple | list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, float):
        assert a == b or where.endswith(".seconds"), where  # (how long the step took is a timing)
    else:
        assert a == b, where


def _decoded(loaded, beam_size: int) -> list:
    results = []
    for sentence in SENTENCES:
        decoding = DecodeSession(loaded, beam_size=beam_size)
        results.append((decoding.encode(sentence), decoding.run()))
    return results


def _storage_bytes(model: torch.nn.Module) -> int:
    """Bytes of every tensor the model holds (parameters, buffers and any tensor kept on a submodule)."""
    storages = {}
    for module in model.modules():
        tensors = [*module.parameters(recurse=False), *module.buffers(recurse=False)]
        tensors += [value[1] for value in vars(module).values() if isinstance(value, tuple) and len(value) == 2
                    and isinstance(value[1], torch.Tensor)]  # (e.g. a kept transposed copy)
        for tensor in tensors:
            storages[tensor.untyped_storage().data_ptr()] = tensor.untyped_storage().nbytes()
    return sum(storages.values())


@pytest.mark.parametrize("kind", ["transformer", "rnn-additive"])
@pytest.mark.parametrize("beam_size", [1, 3])
def test_compact_weights_decode_the_same_numbers_in_less_memory(tiny_models, tmp_path, kind, beam_size):
    plain = load_checkpoint(tiny_models[kind][0], compact_weights=False)
    half = save_checkpoint(tmp_path / "half.safetensors", plain.model, src_vocab=plain.src_vocab,
                           tgt_vocab=plain.tgt_vocab, half=True)  # as the shipped models are stored
    lean, full = load_checkpoint(half), load_checkpoint(half, compact_weights=False)
    _same(_decoded(lean, beam_size), _decoded(full, beam_size), kind)
    model = lean.model
    assert model.src_embedding.weight.dtype == torch.float16
    assert model.output.weight.t().is_contiguous()  # the projection multiplies by it: no copy beside it
    assert _storage_bytes(model) < _storage_bytes(full.model)
    assert _storage_bytes(full.model) - _storage_bytes(model) >= model.output.weight.numel() * 4


def test_a_float32_checkpoint_keeps_float32_embeddings(tiny_models, tmp_path):
    """Only weights stored as float16 may be held as float16: anything else would change a number."""
    model = load_checkpoint(tiny_models["transformer"][0], compact_weights=False).model
    with torch.no_grad():
        model.src_embedding.weight.add_(1e-4)  # (no longer float16 numbers)
    path = save_checkpoint(tmp_path / "f32.safetensors", model, src_vocab=load_checkpoint(
        tiny_models["transformer"][0]).src_vocab, tgt_vocab=load_checkpoint(tiny_models["transformer"][0]).tgt_vocab)
    loaded = load_checkpoint(path)
    assert loaded.model.src_embedding.weight.dtype == torch.float32
    _same(_decoded(loaded, 1), _decoded(load_checkpoint(path, compact_weights=False), 1), "float32")


def test_models_with_the_same_vocabulary_share_it(tiny_models):
    first, second = (load_checkpoint(tiny_models[kind][0]) for kind in ("transformer", "rnn-dot"))
    assert first.tgt_vocab == second.tgt_vocab and first.tgt_vocab is second.tgt_vocab
