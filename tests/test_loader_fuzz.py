"""A bounded, seeded fuzz of the checkpoint loader: every hostile variant of a real checkpoint is either
refused with CheckpointError or loads weights bit-identical to the original (``bench/fuzz_loader.py``
runs thousands of cases and reports times and memory)."""

from __future__ import annotations

import pytest
import torch

from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from attnviz.core.models.kernel_regression import KernelRegressionConfig, KernelRegressionModel
from attnviz.core.models.seq2seq import Seq2SeqAttention, Seq2SeqConfig
from attnviz.core.models.transformer import Transformer, TransformerConfig
from attnviz.core.text import Vocab
from tests.fuzz_checkpoints import variants

CASES_PER_SOURCE = 100


def small_checkpoints(folder) -> dict[str, tuple]:
    """One small checkpoint of each family, as written by attnviz today: {name: (path, state dict)}."""
    vocab = Vocab.build([["a", "b", "c", "d"]], min_freq=1)
    models = {
        "transformer": Transformer(TransformerConfig(len(vocab), len(vocab), num_hiddens=8, ffn_hiddens=16,
                                                     num_heads=2, num_encoder_layers=1, num_decoder_layers=1)),
        "rnn": Seq2SeqAttention(Seq2SeqConfig(len(vocab), len(vocab), embed_size=8, num_hiddens=8, num_layers=1)),
        "kernel": KernelRegressionModel(KernelRegressionConfig()),
    }
    out = {}
    for name, model in models.items():
        translation = name != "kernel"
        path = save_checkpoint(folder / f"{name}.safetensors", model, src_vocab=vocab if translation else None,
                               tgt_vocab=vocab if translation else None)
        out[name] = (path, {k: v.clone() for k, v in model.state_dict().items()})
    return out


@pytest.mark.parametrize("source", ["transformer", "rnn", "kernel"])
def test_every_hostile_variant_is_refused_or_loads_the_same_weights(tmp_path, source):
    path, original = small_checkpoints(tmp_path)[source]
    refused = loaded = 0
    for index, (label, data) in enumerate(variants(path.read_bytes(), seed=index_seed(source), count=CASES_PER_SOURCE)):
        case = tmp_path / f"case{index}.safetensors"
        case.write_bytes(data)
        try:
            model = load_checkpoint(case).model
        except CheckpointError:
            refused += 1
            continue
        state = model.state_dict()
        for name, tensor in original.items():
            assert torch.equal(state[name], tensor), f"{label}: {name} loaded with other values"
        loaded += 1
    assert refused + loaded == CASES_PER_SOURCE and refused > CASES_PER_SOURCE // 2


def index_seed(source: str) -> int:
    return {"transformer": 1, "rnn": 2, "kernel": 3}[source]
