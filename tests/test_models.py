"""The translation models: learning, checkpoints, step-wise and cached decoding, masks."""

import numpy as np
import pytest
import torch

from attnviz.core.attention.masking import causal_mask
from attnviz.core.checkpoints.checkpoint import load_checkpoint, save_checkpoint
from attnviz.core.decoding.beam_search import encode_batch
from attnviz.core.decoding.stepping import DecodeSession
from tests.conftest import DEVICES
from tests.tiny import reversal_of

KINDS = ["transformer", "decoder-only", "rnn-additive", "rnn-dot"]


@pytest.mark.parametrize("kind", KINDS)
def test_tiny_model_learns_reversal(tiny_models, kind):
    path, info = tiny_models[kind]
    assert info["val_bleu"] > 60, info
    session = DecodeSession(load_checkpoint(path), beam_size=1)
    hits = 0
    for sentence in ["a b c", "j i h g", "c a f e b", "d d e"]:
        session.encode(sentence)
        session.run()
        hits += session.translation() == reversal_of(sentence)
    assert hits >= 3


@pytest.mark.parametrize("kind", KINDS)
def test_checkpoint_round_trip_keeps_outputs(tiny_models, tmp_path, kind):
    loaded = load_checkpoint(tiny_models[kind][0])
    copy = save_checkpoint(tmp_path / "copy.safetensors", loaded.model, src_vocab=loaded.src_vocab,
                           tgt_vocab=loaded.tgt_vocab, training=loaded.training)
    again = load_checkpoint(copy)
    assert again.kind == kind and again.config == loaded.config
    assert again.src_vocab == loaded.src_vocab and again.tgt_vocab == loaded.tgt_vocab
    assert again.training["val_bleu"] == loaded.training["val_bleu"]
    src, valid = encode_batch([["a", "b", "c"]], loaded.src_vocab)
    tgt = torch.tensor([[1, 4, 5]])
    with torch.no_grad():
        torch.testing.assert_close(again.model(src, valid, tgt), loaded.model(src, valid, tgt))


@pytest.mark.parametrize("kind", KINDS)
def test_stepwise_decoding_equals_full_sequence_decoding(tiny_models, kind):
    loaded = load_checkpoint(tiny_models[kind][0])
    session = DecodeSession(loaded)
    session.encode("b c a d")
    steps = session.run()
    vocab = loaded.tgt_vocab
    decoded = [vocab.bos_id, *vocab.ids(list(steps[-1].output_tokens))]
    src, valid = encode_batch([["b", "c", "a", "d"]], loaded.src_vocab)
    with torch.no_grad():
        logits = loaded.model(src, valid, torch.tensor([decoded]))  # teacher forcing, one pass
    full_choice = vocab.to_tokens(logits[0].argmax(-1).tolist())
    assert full_choice == [s.token for s in steps]
    last = steps[-1]
    probs = torch.softmax(logits[0, -1], -1)
    np.testing.assert_allclose(last.topk_probs[0], probs.max().item(), rtol=1e-4)
    assert last.cross_weights.shape[2:] == (len(steps), 4)


def test_transformer_stepwise_attention_equals_full_pass(tiny_models):
    loaded = load_checkpoint(tiny_models["transformer"][0])
    session = DecodeSession(loaded)
    session.encode("e f g")
    last = session.run()[-1]
    vocab = loaded.tgt_vocab
    prefix = torch.tensor([vocab.ids(list(last.query_tokens))])
    src, valid = encode_batch([["e", "f", "g"]], loaded.src_vocab)
    with torch.no_grad():
        encoding = loaded.model.encode(src, valid)
        _, _, att = loaded.model.decode(prefix, encoding.state, need_scores=True)
    full_cross = torch.stack([a.weights[0] for a in att.cross_attention]).numpy()
    full_self = torch.stack([a.weights[0] for a in att.self_attention]).numpy()
    np.testing.assert_allclose(last.cross_weights, full_cross, atol=1e-5)
    np.testing.assert_allclose(last.self_weights, full_self, atol=1e-5)
    assert np.all(last.self_weights[..., ~last.causal_mask] == 0)  # nothing on future positions
    np.testing.assert_array_equal(last.causal_mask, causal_mask(len(last.query_tokens)).numpy())
    L, H = loaded.config.num_decoder_layers, loaded.config.num_heads
    assert last.self_weights.shape == (L, H, len(last.query_tokens), len(last.query_tokens))
    assert session.source.encoder_weights.shape == (loaded.config.num_encoder_layers, H, 3, 3)


@pytest.mark.parametrize("kind", KINDS)
def test_cached_steps_equal_uncached_steps(tiny_models, kind):
    """The decoder interface's cached step equals a full teacher-forced pass over the whole prefix."""
    loaded = load_checkpoint(tiny_models[kind][0])
    src, valid = encode_batch([["a", "b", "c", "d", "e"], ["f", "g", "h", "<pad>", "<pad>"]], loaded.src_vocab)
    valid = torch.tensor([5, 3])
    with torch.no_grad():
        state, _ = loaded.model.start(src, valid)
        tokens = torch.full((2,), loaded.tgt_vocab.bos_id)
        prefix = tokens[:, None]
        for _ in range(5):
            cached, state, _ = loaded.model.step(tokens, state)
            recomputed = torch.log_softmax(loaded.model(src, valid, prefix)[:, -1], dim=-1)
            torch.testing.assert_close(cached, recomputed, rtol=1e-4, atol=1e-4)
            tokens = cached.argmax(-1)
            prefix = torch.cat([prefix, tokens[:, None]], dim=1)


@pytest.mark.parametrize("kind", KINDS)
def test_no_weight_on_padding(tiny_models, kind):
    loaded = load_checkpoint(tiny_models[kind][0])
    src, _ = encode_batch([["a", "b", "c", "d", "e"], ["f", "g"]], loaded.src_vocab)
    valid = torch.tensor([5, 2])
    with torch.no_grad():
        state, encoder = loaded.model.start(src, valid, need_attention=True)
        _, _, att = loaded.model.step(torch.full((2,), loaded.tgt_vocab.bos_id), state, need_attention=True)
    padding = slice(0, 3) if loaded.model_kind.decoder_only else slice(2, None)  # (decoder-only: on the left)
    assert torch.all(att.cross_weights[1, ..., padding] == 0)
    if loaded.model_kind.decoder_only:  # the source view: the English share of rows that sum to 1 with the answer
        assert att.self_weights is not None and torch.all(att.self_weights[1, ..., padding] == 0)
        torch.testing.assert_close(att.self_weights.sum(-1), torch.ones_like(att.self_weights.sum(-1)))
        assert torch.all(att.cross_weights.sum(-1) < 1)
    else:
        torch.testing.assert_close(att.cross_weights.sum(-1), torch.ones_like(att.cross_weights.sum(-1)))
    if encoder is not None:  # encoder (or prompt) self-attention (B, L, H, S, S)
        assert torch.all(encoder.weights[1, ..., padding] == 0)


def test_beam_search_exposes_beams_and_beam_one_is_greedy(tiny_models):
    loaded = load_checkpoint(tiny_models["transformer"][0])
    greedy = DecodeSession(loaded, beam_size=1)
    greedy.encode("a c e g")
    greedy.run()
    beam = DecodeSession(loaded, beam_size=4)
    beam.encode("a c e g")
    first = beam.step()
    assert len(first.beams) == 4
    assert len({b.tokens for b in first.beams}) == 4
    steps = beam.run()
    assert steps[-1].finished and steps[-1].output_tokens == steps[-1].beams[0].tokens[:-1]
    assert beam.translation() == reversal_of("a c e g") == greedy.translation()


def test_session_reports_unknown_words_and_truncation(tiny_models):
    session = DecodeSession(load_checkpoint(tiny_models["rnn-dot"][0]))
    source = session.encode("a zebra b " + "c " * 20)
    assert source.unknown == ("zebra",)
    assert source.truncated_from == 23 and len(source.tokens) == 10
    with pytest.raises(ValueError, match="empty"):
        session.encode("   ")
    with pytest.raises(RuntimeError, match="finished"):
        session.encode("a b")
        session.run()
        session.step()


def test_decoding_stops_at_max_length(tiny_models):
    loaded = load_checkpoint(tiny_models["transformer"][0])
    session = DecodeSession(loaded)
    session.encode("a b")
    session.max_tgt_len = 1
    steps = session.run()
    assert len(steps) == 1 and steps[0].finished


@pytest.mark.parametrize("kind", KINDS)
def test_translation_without_recording_attention_is_the_same(tiny_models, kind):
    loaded = load_checkpoint(tiny_models[kind][0])
    recorded, bare = DecodeSession(loaded, beam_size=3), DecodeSession(loaded, beam_size=3, record_attention=False)
    for session in (recorded, bare):
        session.encode("c a f e b")
        session.run()
    assert bare.translation() == recorded.translation() == reversal_of("c a f e b")
    assert bare.steps[-1].cross_weights.size == 0 and recorded.steps[-1].cross_weights.size > 0
    assert [s.token for s in bare.steps] == [s.token for s in recorded.steps]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("device", [d for d in DEVICES if d != "cpu"])  # CUDA; skipped with the reason where absent
def test_decoding_on_the_device_matches_the_cpu(tiny_models, device, kind):
    """Same tokens, attention and probabilities within tolerance, CUDA vs CPU."""
    runs = []
    for where in ("cpu", device):
        session = DecodeSession(load_checkpoint(tiny_models[kind][0]), where, beam_size=2)
        session.encode("j i h g")
        runs.append(session.run())
    cpu, other = runs
    assert [s.token for s in other] == [s.token for s in cpu]
    np.testing.assert_allclose(other[-1].cross_weights, cpu[-1].cross_weights, atol=1e-4)
    np.testing.assert_allclose(other[-1].topk_probs, cpu[-1].topk_probs, atol=1e-4)


def test_the_fast_vocabulary_projection_equals_the_linear_layer_and_follows_training():
    from attnviz.core.models.projection import project

    torch.manual_seed(0)
    layer = torch.nn.Linear(16, 300)
    x = torch.randn(3, 1, 16)
    with torch.inference_mode():
        torch.testing.assert_close(project(layer, x), layer(x), rtol=1e-5, atol=1e-6)
    with torch.no_grad():
        layer.weight.mul_(2.0)  # as an optimiser step changes it in place
    with torch.inference_mode():
        torch.testing.assert_close(project(layer, x), layer(x), rtol=1e-5, atol=1e-6)  # not the stale copy
    out = project(layer, x)  # gradients recorded: the layer itself, so training is unaffected
    out.sum().backward()
    assert layer.weight.grad is not None
    assert "_attnviz_transposed" not in dict(layer.named_buffers()) and "_attnviz_transposed" not in layer.state_dict()


def test_the_decoding_projection_works_for_a_model_built_in_inference_mode():
    """A model loaded under ``torch.inference_mode`` (a script timing decoding, say) has inference
    tensors, which keep no version counter: the projection's cached copy must not need one."""
    from torch import nn

    from attnviz.core.models.projection import project

    with torch.inference_mode():
        linear = nn.Linear(8, 5)
        x = torch.randn(3, 8)
        torch.testing.assert_close(project(linear, x), linear(x))
