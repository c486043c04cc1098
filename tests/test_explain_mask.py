"""explain_mask: an encoder-only model (attnviz's small BERT) explained at a masked position."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.explain import SINK_CLASSES, explain_mask
from attnviz.core.explain.internals import masked_internals
from attnviz.core.models.encoder_only import EncoderOnly, EncoderOnlyConfig
from attnviz.core.models.loaded import LoadedModel
from attnviz.core.text import RESERVED, Vocab
from attnviz.training.mlm import mlm_vocab

VOCAB = mlm_vocab(Vocab((*RESERVED, *(f"w{i}" for i in range(12)), ".")))
TOKENS = ["[CLS]", "w3", "w4", "[MASK]", "w6", ".", "[SEP]"]
SHIPPED = Path(__file__).resolve().parents[1] / "models" / "encoder-only.safetensors"


@pytest.fixture(scope="module")
def bert() -> LoadedModel:
    """An untrained tiny BERT (random weights: the identities below hold for any weights)."""
    torch.manual_seed(0)
    model = EncoderOnly(EncoderOnlyConfig(len(VOCAB), num_hiddens=32, num_heads=4, num_layers=2, ffn_hiddens=64,
                                          dropout=0.0, max_len=16)).eval()
    return LoadedModel("encoder-only", model.config, model, VOCAB, VOCAB)


def _log_prob(loaded: LoadedModel, tokens: list[str], position: int, word: str) -> float:
    """log p(word at position) through the model's own encode and MLM head."""
    assert loaded.src_vocab is not None
    ids = torch.tensor([loaded.src_vocab.ids(tokens)])
    segments = torch.zeros_like(ids)
    with torch.no_grad():
        encoding = loaded.model.encode(ids, segments, torch.tensor([len(tokens)]))
        logits = loaded.model.mlm_logits(encoding.hidden, torch.tensor([[position]]))
    return float(torch.log_softmax(logits[0, 0], dim=-1)[loaded.src_vocab.ids([word])[0]])


def test_rows_over_every_token_and_no_leave_one_out(bert: LoadedModel) -> None:
    explanation = explain_mask(bert, TOKENS, 3, every_layer=True)
    assert explanation.labels == tuple(TOKENS)
    assert explanation.methods == ("attention", "rollout", "flow", "norm", "grad_x_input", "grad_x_input_detached",
                                   "ig", "occlusion")
    assert explanation.token not in ("[MASK]", "[CLS]", "[SEP]", *RESERVED)
    assert explanation.log_prob == pytest.approx(_log_prob(bert, TOKENS, 3, explanation.token), abs=1e-5)
    np.testing.assert_allclose(explanation.layer_rows["rollout"].sum(axis=1), 1.0)
    sinks = explanation.sinks["self"]  # [SEP] counts as <eos>, [CLS] as <bos>, "." as punctuation
    assert np.isfinite(sinks).all() and sinks.shape == (2, 2, len(SINK_CLASSES))
    np.testing.assert_allclose(sinks[:, 0, SINK_CLASSES.index("<bos>")], explanation.layer_rows["attention"][:, 0])


def test_occlusion_equals_the_models_own_log_probabilities(bert: LoadedModel) -> None:
    explanation = explain_mask(bert, TOKENS, 3, methods=("occlusion",))
    full = _log_prob(bert, TOKENS, 3, explanation.token)
    for j in range(len(TOKENS)):
        swapped = [*TOKENS[:j], "<unk>", *TOKENS[j + 1:]]
        assert explanation.row("occlusion")[j] == pytest.approx(full - _log_prob(bert, swapped, 3, explanation.token),
                                                                abs=1e-5)


def test_norm_based_attention_decomposes_each_layers_output(bert: LoadedModel) -> None:
    ids = torch.tensor([VOCAB.ids(TOKENS)])
    internals = masked_internals(bert.model, ids, torch.zeros_like(ids), 3, tuple(TOKENS))
    kind = internals.kinds[0]
    summed = np.einsum("lhk,lhkd->ld", kind.weights, kind.transformed) + kind.bias  # W_V's and W_O's biases
    np.testing.assert_allclose(summed, kind.output, atol=1e-5)


@pytest.mark.skipif(not SHIPPED.is_file(), reason="the shipped BERT is not in this checkout")
def test_integrated_gradients_are_complete_on_the_shipped_bert() -> None:
    loaded = load_checkpoint(SHIPPED)
    tokens = ["[CLS]", "i", "[MASK]", "very", "happy", "to", "see", "you", ".", "[SEP]"]
    # (the shipped BERT's path integral converges slowly and not monotonically: 0.920 at 64 steps, 0.873 at 256,
    # 1.029 at 512, 1.0003 at 1024, 1.0009 at 2048)
    explanation = explain_mask(loaded, tokens, 2, methods=("ig", "occlusion"), ig_steps=1024)
    assert explanation.token == "was"  # the shipped model's first choice
    assert explanation.completeness is not None
    assert explanation.completeness.ratio == pytest.approx(1.0, abs=0.01)


def test_a_translation_model_is_not_a_masked_one(bert: LoadedModel, tiny_models: dict) -> None:
    from attnviz.core.explain import explain_step

    with pytest.raises(ValueError, match="encoder-only"):
        explain_mask(load_checkpoint(tiny_models["transformer"][0]), TOKENS, 3)
    with pytest.raises(ValueError, match="explain_mask"):
        explain_step(bert, TOKENS, [])
    with pytest.raises(ValueError, match="position"):
        explain_mask(bert, TOKENS, 9)
