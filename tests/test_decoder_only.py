"""The decoder-only translator (core/models/decoder_only.py): its KV cache, left-padded batches, the source view
and its attention against torch's own scaled_dot_product_attention."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from attnviz.core.decoding.beam_search import BeamSearch
from attnviz.core.models.decoder_only import DecoderOnly, DecoderOnlyConfig, left_padded

CONFIG = DecoderOnlyConfig(30, 40, num_hiddens=32, ffn_hiddens=64, num_heads=4, num_decoder_layers=2,
                           dropout=0.0, max_src_len=10, max_tgt_len=12)
SRC = torch.tensor([[5, 6, 7, 8], [9, 10, 0, 0], [11, 0, 0, 0]])  # right-padded, as encode_batch makes them
VALID = torch.tensor([4, 2, 1])
TGT_IN = torch.tensor([[1, 11, 12, 13], [1, 14, 15, 16], [1, 17, 18, 19]])  # <bos> first


@pytest.fixture(scope="module")
def model() -> DecoderOnly:
    torch.manual_seed(0)
    return DecoderOnly(CONFIG).eval()


def test_batches_are_left_padded():
    ids, visible = left_padded(SRC, VALID, pad_id=0)
    assert ids.tolist() == [[5, 6, 7, 8], [0, 0, 9, 10], [0, 0, 0, 11]]
    assert visible.tolist() == [[True] * 4, [False, False, True, True], [False, False, False, True]]


@torch.no_grad()
def test_cached_steps_equal_the_training_time_forward_pass(model):
    full = torch.log_softmax(model(SRC, VALID, TGT_IN), dim=-1)  # (B, T, V): teacher forcing in one pass
    state, _ = model.start(SRC, VALID)
    for t in range(TGT_IN.shape[1]):
        log_probs, state, _ = model.step(TGT_IN[:, t], state)
        torch.testing.assert_close(log_probs, full[:, t], atol=1e-5, rtol=0)


@torch.no_grad()
def test_a_padded_batch_equals_each_sentence_alone(model):
    together = model(SRC, VALID, TGT_IN)
    for b, length in enumerate(VALID.tolist()):
        alone = model(SRC[b: b + 1, :length], VALID[b: b + 1], TGT_IN[b: b + 1])
        torch.testing.assert_close(together[b: b + 1], alone, atol=1e-5, rtol=0)


@torch.no_grad()
def test_attention_equals_torch_sdpa_and_the_source_view_is_the_english_columns(model):
    state, prompt = model.start(SRC, VALID, need_attention=True)
    assert prompt is not None and prompt.weights.shape == (3, 2, 4, 4, 4)
    _, _, step = model.step(TGT_IN[:, 0], state, need_attention=True)
    assert step is not None and step.self_weights is not None
    assert step.self_weights.shape == (3, 2, 4, 5) and step.cross_weights.shape == (3, 2, 4, 4)
    torch.testing.assert_close(step.cross_weights, step.self_weights[..., :4])  # not renormalised
    torch.testing.assert_close(step.self_weights.sum(-1), torch.ones(3, 2, 4))
    assert (step.self_weights[1, :, :, :2] == 0).all() and (step.self_weights[2, :, :, :3] == 0).all()  # padding

    # Layer 1 of sentence 0 (no padding), recomputed with torch's own attention from the block's weights.
    block = model.blocks[0]
    ids = SRC[:1]
    x = model.src_embedding(ids) * CONFIG.num_hiddens**0.5 + model.positional.P[:4]
    h = block.norm1(x)
    attention = block.attention
    q, k, v = (attention.split_heads(w(h)) for w in (attention.W_q, attention.W_k, attention.W_v))
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    scores = q @ k.transpose(-2, -1) / (CONFIG.num_hiddens // CONFIG.num_heads) ** 0.5
    reference_weights = torch.softmax(scores.masked_fill(~torch.ones(4, 4, dtype=torch.bool).tril(), -torch.inf), -1)
    torch.testing.assert_close(prompt.weights[0, 0], reference_weights[0], atol=1e-6, rtol=0)
    torch.testing.assert_close(reference_weights @ v, expected, atol=1e-6, rtol=0)


@torch.no_grad()
def test_beam_search_of_width_one_is_the_greedy_argmax_chain(model):
    search = BeamSearch(model, SRC, VALID, bos_id=1, eos_id=2, pad_id=0, beam_size=1, max_len=5)
    search.run()
    for b in range(3):
        ids = search.best(b).ids
        tgt_in = torch.tensor([[1, *ids[:-1]]])
        logits = model(SRC[b: b + 1, : VALID[b]], VALID[b: b + 1], tgt_in)[0]
        logits[:, [0, 1]] = -torch.inf  # <pad> and <bos> are never decoded
        assert logits.argmax(-1).tolist() == ids


def test_the_kinds_count_of_recorded_cells_is_what_a_decoding_records(tmp_path):
    """ModelKind.attention_cells (the loader's and train's memory bound) against a real decoding to the
    length limit, its steps' maps stacked afresh as the worst case (a beam overtaking at every step)."""
    import dataclasses

    from attnviz.core.checkpoints.checkpoint import load_checkpoint, save_checkpoint
    from attnviz.core.decoding.stepping import DecodeSession
    from attnviz.core.models.kinds import KINDS
    from attnviz.core.text import RESERVED, Vocab

    vocab = Vocab((*RESERVED, *(f"w{i}" for i in range(40))))
    config = dataclasses.replace(CONFIG, src_vocab_size=len(vocab), tgt_vocab_size=len(vocab), max_src_len=5,
                                 max_tgt_len=9)
    torch.manual_seed(0)
    model = DecoderOnly(config)
    with torch.no_grad():
        model.output.weight[vocab.eos_id] = 1.0  # its logit is the sum of a LayerNorm's output: 0, never the top
    loaded = load_checkpoint(save_checkpoint(tmp_path / "m.safetensors", model, src_vocab=vocab, tgt_vocab=vocab))
    session = DecodeSession(loaded)
    source = session.encode("w1 w2 w3 w4 w5")
    steps = session.run()
    assert len(steps) == 9
    recorded = source.encoder_weights.size + sum(s.cross_weights.size + s.self_weights.size for s in steps)
    assert KINDS["decoder-only"].attention_cells(vars(config)) == recorded
