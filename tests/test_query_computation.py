"""The computation of one query: recomputed by hand from a trained model's real numbers, it must equal
what the model itself computed while decoding — its weights and scores rows (DecodeStep), its own
projections, and each head's output as the layer's W_o receives it."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attnviz.core.attention.computation import QueryComputation
from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.layers import MultiHeadAttention
from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.decoding.query_computation import compute_query
from attnviz.core.decoding.stepping import DecodeSession, decode_together
from attnviz.core.models.loaded import LoadedModel
from attnviz.core.models.transformer import Transformer

CROSS, DEC_SELF, ENC_SELF = AttentionKind.CROSS, AttentionKind.DECODER_SELF, AttentionKind.ENCODER_SELF
TEXT = "a b zz d e"  # "zz" is not in the tiny vocabulary: it is read as <unk>
TOLERANCE = 1e-5
ALL = ("transformer", "decoder-only", "rnn-additive", "rnn-dot")


def decoded(loaded: LoadedModel, device: torch.device | str = "cpu", text: str = TEXT):
    session = DecodeSession(loaded, device)
    source = session.encode(text)
    return source, session.run()[-1]


def layer_count(loaded: LoadedModel, kind: AttentionKind) -> int:
    if loaded.model_kind.decoder_only:
        return loaded.config.num_decoder_layers
    if not isinstance(loaded.model, Transformer):
        return 1
    return loaded.config.num_encoder_layers if kind is ENC_SELF else loaded.config.num_decoder_layers


def row_keys(loaded: LoadedModel, source, step, kind: AttentionKind) -> tuple[str, ...]:
    """The keys of a query's row: a decoder-only model's answer rows (its decoder self-attention and its
    source view) span the English and the French so far."""
    if kind is ENC_SELF:
        return source.tokens
    if loaded.model_kind.decoder_only:
        return source.tokens + step.query_tokens
    return step.query_tokens if kind is DEC_SELF else source.tokens


def every_query(loaded: LoadedModel, source, step) -> Iterator[tuple[AttentionKind, int, int, int]]:
    """Every (kind, layer, head, query) the model exposes for this decoding."""
    c = loaded.config
    heads = getattr(c, "num_heads", 1)
    for kind in loaded.model_kind.attention:
        layers = layer_count(loaded, kind)
        queries = len(source.tokens) if kind is ENC_SELF else len(step.query_tokens)
        for layer in range(layers):
            for head in range(heads):
                for query in range(queries):
                    yield kind, layer, head, query


def recorded_row(source, step, kind: AttentionKind, layer: int, head: int, query: int,
                 decoder_only: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The weights and scores row the decoding recorded (DecodeStep / EncodedSource); a decoder-only
    model's source view is the English columns of its whole self-attention row, which is returned."""
    if decoder_only and kind is CROSS:
        kind = DEC_SELF
    if kind is ENC_SELF:
        return source.encoder_weights[layer, head, query], source.encoder_scores[layer, head, query]
    if kind is CROSS:
        return step.cross_weights[layer, head, query], step.cross_scores[layer, head, query]
    return step.self_weights[layer, head, query], step.self_scores[layer, head, query]


def attention_module(loaded: LoadedModel, kind: AttentionKind, layer: int) -> Any:
    model: Any = loaded.model
    if loaded.model_kind.decoder_only:
        return model.blocks[layer].attention
    if not isinstance(model, Transformer):
        return model.attention
    if kind is ENC_SELF:
        return model.encoder_blocks[layer].attention
    block: Any = model.decoder_blocks[layer]
    return block.self_attention if kind is DEC_SELF else block.cross_attention


@contextmanager
def layer_spy(module: torch.nn.Module) -> Iterator[dict[str, list[torch.Tensor]]]:
    """What an attention layer really computed, independently of compute_query's own hooks: its projected
    q, k, v and the per-head outputs (MultiHeadAttention: the input of W_o, the heads side by side;
    the RNN attention: its output)."""
    seen: dict[str, list[torch.Tensor]] = {"q": [], "k": [], "v": [], "heads": []}

    def keep(name: str, pick):
        return lambda _m, args, out: seen[name].append(pick(args, out).detach().double().cpu())

    if isinstance(module, MultiHeadAttention):
        handles = [module.W_q.register_forward_hook(keep("q", lambda a, o: o)),
                   module.W_k.register_forward_hook(keep("k", lambda a, o: o)),
                   module.W_v.register_forward_hook(keep("v", lambda a, o: o)),
                   module.W_o.register_forward_hook(keep("heads", lambda a, o: a[0]))]
    else:
        handles = [module.register_forward_hook(keep("q", lambda a, o: a[0])),
                   module.register_forward_hook(keep("k", lambda a, o: a[1])),
                   module.register_forward_hook(keep("v", lambda a, o: a[2])),
                   module.register_forward_hook(keep("heads", lambda a, o: o.output))]
    try:
        yield seen
    finally:
        for handle in handles:
            handle.remove()


@pytest.fixture
def models(tiny_models) -> dict[str, LoadedModel]:
    return {kind: load_checkpoint(tiny_models[kind][0]) for kind in ALL}


@pytest.mark.parametrize("kind_name", ALL)
def test_every_query_equals_the_rows_the_decoder_recorded(models, kind_name, device):
    loaded = models[kind_name]
    source, step = decoded(loaded, device)
    assert "zz" in source.unknown and "zz" in source.tokens  # kept as typed, read as <unk>
    count = 0
    for kind, layer, head, query in every_query(loaded, source, step):
        c = compute_query(loaded, source.tokens, step.query_tokens, kind, layer, head, query)
        weights, scores = recorded_row(source, step, kind, layer, head, query, loaded.model_kind.decoder_only)
        assert (c.kind, c.layer, c.head, c.query_index) == (kind, layer, head, query)
        np.testing.assert_allclose(c.weights, weights, atol=TOLERANCE, err_msg=f"{kind} {layer} {head} {query}")
        np.testing.assert_allclose(c.scores[c.visible], scores[c.visible], atol=TOLERANCE, rtol=1e-6)
        np.testing.assert_allclose(c.model_weights, weights, atol=TOLERANCE)
        assert c.difference_from_model() < TOLERANCE
        assert np.all(c.weights[~c.visible] == 0.0)  # masked keys: exactly 0
        assert c.weights[c.visible].sum() == pytest.approx(1.0, abs=1e-12)
        assert c.key_tokens == row_keys(loaded, source, step, kind)
        assert c.query_token == (source.tokens if kind is ENC_SELF else step.query_tokens)[query]
        count += 1
    expected = {"transformer": 2 * 4 * (5 + 2 * len(step.query_tokens)),
                "decoder-only": 3 * 4 * (5 + 2 * len(step.query_tokens)), "rnn-additive": len(step.query_tokens),
                "rnn-dot": len(step.query_tokens)}[kind_name]
    assert count == expected


@pytest.mark.parametrize("kind_name", ALL)
def test_the_output_is_the_layers_own_output_for_that_head(models, kind_name, device):
    """b = Σ α_j v_j equals what the real layer computed for that head (the input of W_o, or the RNN
    attention's output); q, k_j, v_j equal the layer's own projections; and for dot-product scoring,
    torch's scaled_dot_product_attention on the layer's own q, k, v gives the same b."""
    loaded = models[kind_name]
    for kind in loaded.model_kind.attention:
        for layer in range(layer_count(loaded, kind)):
            module = attention_module(loaded, kind, layer)
            with layer_spy(module) as seen:
                source, step = decoded(loaded, device)
            for head in range(getattr(loaded.config, "num_heads", 1)):
                queries = len(source.tokens) if kind is ENC_SELF else len(step.query_tokens)
                for query in range(queries):
                    c = compute_query(loaded, source.tokens, step.query_tokens, kind, layer, head, query)
                    if isinstance(module, MultiHeadAttention):
                        cols = slice(head * module.head_dim, (head + 1) * module.head_dim)
                        row = query  # (a decoder-only model's answer rows come after the prompt's rows)
                        if loaded.model_kind.decoder_only and kind is not ENC_SELF:
                            row += len(source.tokens)
                        keys = len(c.key_tokens)  # (its prompt rows see the prompt only)
                        q = torch.cat(seen["q"], dim=1)[0, row, cols]
                        k = torch.cat(seen["k"], dim=1)[0, :keys, cols]
                        v = torch.cat(seen["v"], dim=1)[0, :keys, cols]
                        b = torch.cat(seen["heads"], dim=1)[0, row, cols]
                    else:  # one call per decoder step, each with the whole source
                        q, k, v = seen["q"][query][0, 0], seen["k"][query][0], seen["v"][query][0]
                        b = seen["heads"][query][0, 0]
                    where = f"{kind_name} {kind.slug} layer {layer} head {head} query {query}"
                    np.testing.assert_allclose(c.query, q.numpy(), atol=TOLERANCE, err_msg=where)
                    np.testing.assert_allclose(c.keys, k.numpy(), atol=TOLERANCE, err_msg=where)
                    np.testing.assert_allclose(c.values, v.numpy(), atol=TOLERANCE, err_msg=where)
                    np.testing.assert_allclose(c.output, b.numpy(), atol=TOLERANCE, err_msg=where)
                    if c.scoring == "dot":
                        mask = torch.from_numpy(c.visible)[None, :]
                        sdpa = F.scaled_dot_product_attention(q[None, None], k[None], v[None], attn_mask=mask)
                        np.testing.assert_allclose(c.output, sdpa[0, 0].numpy(), atol=TOLERANCE, err_msg=where)
                        assert c.scale == pytest.approx(np.sqrt(q.shape[0]))


def test_decoder_self_attention_respects_the_causal_mask(models):
    loaded = models["transformer"]
    source, step = decoded(loaded)
    t = len(step.query_tokens)
    assert t >= 3
    for layer in range(loaded.config.num_decoder_layers):
        for query in range(t):
            c = compute_query(loaded, source.tokens, step.query_tokens, DEC_SELF, layer, 1, query)
            np.testing.assert_array_equal(c.visible, np.arange(t) <= query)
            np.testing.assert_array_equal(c.visible, step.causal_mask[query])
            assert np.all(c.weights[query + 1:] == 0.0) and np.all(c.weights[: query + 1] > 0)
            assert f"j ≤ {query}" in c.formulas.weights
            # Keys after the query cannot change its row: recomputed from the prefix alone, it is the same.
            prefix = compute_query(loaded, source.tokens, step.query_tokens[: query + 1], DEC_SELF, layer, 1, query)
            np.testing.assert_allclose(prefix.weights, c.weights[: query + 1], atol=1e-6)
            np.testing.assert_allclose(prefix.output, c.output, atol=1e-6)


@pytest.mark.parametrize("kind_name", ["transformer", "rnn-additive"])
def test_padded_source_keys_get_weight_exactly_zero(models, kind_name):
    """A sentence of a padded batch: its <pad> keys are masked out, as the batch decoding recorded."""
    loaded = models[kind_name]
    batch = decode_together(loaded, ["a b c d e f", "c d"])
    source, step = batch.sources[1], batch.steps[1]
    assert source.tokens[2:] == ("<pad>",) * 4
    heads = getattr(loaded.config, "num_heads", 1)
    for kind in loaded.model_kind.attention:
        if kind is DEC_SELF:
            continue
        for head in range(heads):
            for query in range(len(source.tokens) if kind is ENC_SELF else len(step.query_tokens)):
                c = compute_query(loaded, source.tokens, step.query_tokens, kind, 0, head, query, source_valid_len=2)
                weights, _ = recorded_row(source, step, kind, 0, head, query)
                np.testing.assert_array_equal(c.visible, source.padding_mask)
                assert np.all(c.weights[2:] == 0.0)
                np.testing.assert_allclose(c.weights, weights, atol=TOLERANCE)
                assert "padding mask: j < 2" in c.formulas.weights


def test_additive_scoring_inside_a_multi_head_layer(models):
    """MultiHeadAttention can score each head additively (its own W_q', W_k', w_v per head); no shipped
    model does, so a Transformer is given such a cross-attention layer here, untrained."""
    tiny = models["transformer"]
    model = Transformer(tiny.config)
    block: Any = model.decoder_blocks[1]
    block.cross_attention = MultiHeadAttention(tiny.config.num_hiddens, tiny.config.num_heads, scoring="additive")
    loaded = LoadedModel("transformer", tiny.config, model.eval(), tiny.src_vocab, tiny.tgt_vocab)
    with layer_spy(block.cross_attention) as seen:
        source, step = decoded(loaded)
    heads = torch.cat(seen["heads"], dim=1)[0]
    for head in range(tiny.config.num_heads):
        for query in range(len(step.query_tokens)):
            c = compute_query(loaded, source.tokens, step.query_tokens, CROSS, 1, head, query)
            assert c.scoring == "additive" and c.scale is None
            assert c.additive_w_v is not None and c.additive_features is not None
            assert c.additive_query is not None and c.additive_keys is not None
            np.testing.assert_allclose(c.additive_features,
                                       np.tanh(c.additive_query[None, :] + c.additive_keys), atol=1e-12)
            np.testing.assert_allclose(c.scores, c.additive_features @ c.additive_w_v, atol=1e-12)
            np.testing.assert_allclose(c.weights, step.cross_weights[1, head, query], atol=TOLERANCE)
            np.testing.assert_allclose(c.scores, step.cross_scores[1, head, query], atol=TOLERANCE)
            cols = slice(head * 8, head * 8 + 8)
            np.testing.assert_allclose(c.output, heads[query, cols].numpy(), atol=TOLERANCE)
            assert c.formulas.score == "s_j = w_vᵀ tanh(W_q' q + W_k' k_j)"


def test_the_rnn_chain_shows_bahdanau_scoring(models):
    loaded = models["rnn-additive"]
    source, step = decoded(loaded)
    c = compute_query(loaded, source.tokens, step.query_tokens, "cross", 0, 0, 1)
    assert c.scoring == "additive" and c.scale is None and c.model_kind == "rnn-additive"
    hidden = loaded.config.num_hiddens
    assert c.query_input.shape == c.query.shape == (hidden,) and c.keys.shape == (len(source.tokens), hidden)
    np.testing.assert_array_equal(c.query, c.query_input)  # the RNN's query is its hidden state, unprojected
    np.testing.assert_array_equal(c.keys, c.key_inputs)
    assert c.additive_query is not None and c.additive_query.shape == (hidden,)
    assert c.formulas.score == "s_j = w_vᵀ tanh(W_q q + W_k k_j)"
    dot = compute_query(models["rnn-dot"], source.tokens, ("<bos>",), CROSS, 0, 0, 0)
    assert dot.scoring == "dot" and dot.additive_w_v is None
    assert dot.formulas.score == f"s_j = q·k_j / √{hidden}" and dot.scale == pytest.approx(hidden**0.5)


def test_the_transformer_chain_names_its_stages(models):
    loaded = models["transformer"]
    source, step = decoded(loaded)
    c = compute_query(loaded, source.tokens, step.query_tokens, ENC_SELF, 1, 2, 2)
    assert c.formulas.lines() == ("q = W_q a", "k_j = W_k a_j", "v_j = W_v a_j", "s_j = q·k_j / √8",
                                  "α = softmax(s) over visible keys", "b = Σ_j α_j v_j")
    assert c.query_input.shape == (32,) and c.key_inputs.shape == (5, 32)
    assert c.query.shape == (8,) and c.keys.shape == (5, 8) and c.values.shape == (5, 8) and c.output.shape == (8,)
    assert c.query_token == "zz" and c.visible.all()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.layer = 0  # type: ignore[misc]


@pytest.mark.parametrize(("kind_name", "kind", "layer", "head", "query", "message"), [
    ("transformer", CROSS, 2, 0, 0, "layer 2 is out of range: the decoder"),
    ("transformer", ENC_SELF, -1, 0, 0, "layer -1 is out of range: the encoder"),
    ("transformer", DEC_SELF, 0, 4, 0, "head 4 is out of range"),
    ("transformer", CROSS, 0, 0, 99, "query_index 99 is out of range: the decoding so far"),
    ("transformer", ENC_SELF, 0, 0, 5, "query_index 5 is out of range: the source"),
    ("transformer", "sideways", 0, 0, 0, "unknown attention kind 'sideways'"),
    ("rnn-dot", DEC_SELF, 0, 0, 0, "has no decoder self-attention"),
    ("rnn-additive", ENC_SELF, 0, 0, 0, "has no encoder self-attention"),
    ("rnn-additive", CROSS, 1, 0, 0, "layer 1 is out of range"),
    ("rnn-dot", CROSS, 0, 1, 0, "head 1 is out of range"),
])
def test_requests_outside_the_model_are_refused_in_words(models, kind_name, kind, layer, head, query, message):
    loaded = models[kind_name]
    source, step = decoded(loaded)
    with pytest.raises(ValueError, match=message):
        compute_query(loaded, source.tokens, step.query_tokens, kind, layer, head, query)


def test_malformed_inputs_are_refused_in_words(models):
    loaded = models["transformer"]
    with pytest.raises(ValueError, match="must start with <bos>"):
        compute_query(loaded, ("a", "b"), ("bx", "ax"), CROSS, 0, 0, 0)
    with pytest.raises(ValueError, match="source_tokens is empty"):
        compute_query(loaded, (), ("<bos>",), CROSS, 0, 0, 0)
    with pytest.raises(ValueError, match="source_valid_len must be from 1 to 2"):
        compute_query(loaded, ("a", "b"), ("<bos>",), CROSS, 0, 0, 0, source_valid_len=3)
    # encoder self-attention needs no decoder inputs
    c = compute_query(loaded, ("a", "b"), (), "enc-self", 0, 0, 1)
    assert isinstance(c, QueryComputation) and c.key_tokens == ("a", "b")


def test_the_computation_module_is_torch_free():
    """The GUI imports attnviz.core.attention.computation before (or without) torch."""
    code = "import sys, attnviz.core.attention.computation; assert 'torch' not in sys.modules, 'torch imported'"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
