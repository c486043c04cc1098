"""Attention rollout (Abnar & Zuidema 2020) checked against the paper's formula written out by hand,
on small fixed matrices and on a real tiny Transformer."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.core.attention.rollout import rollout, source_attribution
from attnviz.core.results import DecodeStep, EncodedSource
from attnviz.figures.rollout import (
    NEEDS_TRANSFORMER,
    ROLLOUT_METHOD,
    encoder_rollout_figure,
    source_attribution_figure,
)

# Two layers, two heads, two tokens. Layer 1's heads average to [[.75, .25], [.25, .75]], layer 2's to
# [[.5, .5], [1, 0]]; with 0.5·W + 0.5·I: A1 = [[.875, .125], [.125, .875]], A2 = [[.75, .25], [.5, .5]].
TWO_LAYERS = np.array([
    [[[1.0, 0.0], [0.5, 0.5]], [[0.5, 0.5], [0.0, 1.0]]],
    [[[0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [1.0, 0.0]]],
])
R1 = np.array([[0.875, 0.125], [0.125, 0.875]])
R2 = np.array([[0.6875, 0.3125], [0.5, 0.5]])  # A2 @ A1 (A1 @ A2 would give [[.71875, .28125], …])


def paper_rollout(weights: np.ndarray) -> list[np.ndarray]:
    """The paper's formula, one loop per index: A = 0.5·W_att + 0.5·I, rows renormalised, R_l = A_l R_{l-1}."""
    layers, heads, size = weights.shape[0], weights.shape[1], weights.shape[2]
    result, flow = [], np.eye(size)
    for layer in range(layers):
        mean = sum(weights[layer, head] for head in range(heads)) / heads
        matrix = 0.5 * mean + 0.5 * np.eye(size)
        for row in range(size):
            matrix[row] = matrix[row] / matrix[row].sum()
        product = np.zeros((size, size))
        for i in range(size):
            for j in range(size):
                product[i, j] = sum(matrix[i, k] * flow[k, j] for k in range(size))
        flow = product
        result.append(flow)
    return result


def masked_rows(rng: np.random.Generator, shape: tuple[int, ...], visible: int) -> np.ndarray:
    """Random softmax rows over the first ``visible`` keys, the others exactly 0 (as the encoder masks)."""
    scores = rng.normal(size=shape)
    scores[..., visible:] = -np.inf
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True)


def make_source(weights: np.ndarray | None, tokens=("a", "b"), padding=None) -> EncodedSource:
    padding = np.ones(len(tokens), bool) if padding is None else np.asarray(padding)
    return EncodedSource(text=" ".join(tokens), tokens=tuple(tokens), unknown=(), truncated_from=None,
                         encoder_weights=weights, encoder_scores=weights, padding_mask=padding)


def make_step(cross: np.ndarray, queries=("<bos>",)) -> DecodeStep:
    t = len(queries)
    return DecodeStep(index=t - 1, token="ax", finished=False, output_tokens=("ax",), query_tokens=tuple(queries),
                      topk_tokens=("ax",), topk_probs=np.ones(1, np.float32), cross_weights=cross, cross_scores=cross,
                      self_weights=None, self_scores=None, causal_mask=np.tril(np.ones((t, t), bool)), beams=(),
                      seconds=0.0)


def test_two_layer_two_by_two_case_by_hand():
    flows = rollout(TWO_LAYERS)
    assert flows.shape == (2, 2, 2)
    np.testing.assert_allclose(flows[0], R1, rtol=0, atol=1e-12)
    np.testing.assert_allclose(flows[1], R2, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rollout_equals_the_papers_formula_written_out(seed):
    weights = masked_rows(np.random.default_rng(seed), (3, 4, 5, 5), visible=5)
    expected = paper_rollout(weights)
    flows = rollout(weights)
    for layer in range(3):
        np.testing.assert_allclose(flows[layer], expected[layer], atol=1e-12)
    np.testing.assert_allclose(flows.sum(axis=-1), 1.0, atol=1e-12)


def test_residual_weight_is_the_share_of_the_identity():
    weights = np.array([[[[0.0, 1.0], [1.0, 0.0]]]])  # one layer, one head: swap the two tokens
    np.testing.assert_allclose(rollout(weights, residual=0.0)[0], [[0, 1], [1, 0]])
    np.testing.assert_allclose(rollout(weights, residual=0.25)[0], [[0.25, 0.75], [0.75, 0.25]])
    np.testing.assert_allclose(rollout(weights, residual=1.0)[0], np.eye(2))


def test_identity_attention_gives_identity_rollout():
    weights = np.broadcast_to(np.eye(4), (3, 2, 4, 4))
    np.testing.assert_array_equal(rollout(weights), np.broadcast_to(np.eye(4), (3, 4, 4)))


def test_no_layers_and_all_zero_rows_stay_finite():
    assert rollout(np.zeros((0, 2, 3, 3))).shape == (0, 3, 3)
    for residual in (0.5, 0.0):  # a row with no visible key keeps only itself: the identity row
        np.testing.assert_array_equal(rollout(np.zeros((2, 2, 3, 3)), residual), np.broadcast_to(np.eye(3), (2, 3, 3)))
    with pytest.raises(ValueError):
        rollout(np.zeros((2, 3, 3)))


def test_masked_keys_stay_zero_in_the_rows_of_real_tokens():
    """A sentence of 3 tokens padded to 5: no real token ever draws on a <pad> key, through any layer,
    and the real tokens' rollout is the rollout of the sentence without its padding."""
    weights = masked_rows(np.random.default_rng(3), (3, 2, 5, 5), visible=3)
    flows = rollout(weights)
    assert np.all(flows[:, :3, 3:] == 0)
    np.testing.assert_allclose(flows[:, :3, :3], rollout(weights[:, :, :3, :3]), atol=1e-12)
    np.testing.assert_allclose(flows.sum(axis=-1), 1.0, atol=1e-12)


def test_source_attribution_carries_cross_attention_through_the_encoder_rollout():
    cross = np.array([[[[1.0, 0.0]], [[0.0, 1.0]]],  # decoder layer 1: heads average to [.5, .5]
                      [[[1.0, 0.0]], [[1.0, 0.0]]]])  # decoder layer 2: all on token 1
    attribution = source_attribution(cross, R2)
    assert attribution.shape == (2, 1, 2)
    np.testing.assert_allclose(attribution[0, 0], [0.59375, 0.40625], atol=1e-12)  # .5·R2[0] + .5·R2[1]
    np.testing.assert_allclose(attribution[1, 0], R2[0], atol=1e-12)
    np.testing.assert_allclose(source_attribution(cross, None)[:, 0], [[0.5, 0.5], [1.0, 0.0]])
    np.testing.assert_array_equal(source_attribution(np.zeros((1, 2, 1, 2)), R2), 0.0)  # no weight: stays 0
    with pytest.raises(ValueError):
        source_attribution(cross, np.eye(3))


def test_encoder_rollout_figure_names_the_method_and_the_tokens():
    figure = encoder_rollout_figure(make_source(TWO_LAYERS))
    np.testing.assert_allclose(figure.values, R2, atol=1e-6)
    assert figure.row_labels == figure.col_labels == ("a", "b")
    assert figure.title == "Attention rollout, encoder layers 1–2 (heads averaged, + I for the residual)"
    assert figure.levels == (0.0, pytest.approx(0.6875))
    first = encoder_rollout_figure(make_source(TWO_LAYERS), layer=0)
    np.testing.assert_allclose(first.values, R1, atol=1e-6)
    assert "encoder layer 1 (" in first.title
    assert "Abnar" in ROLLOUT_METHOD and "identity" in ROLLOUT_METHOD


def test_padding_keys_are_marked_masked_and_left_out_of_the_colour_range():
    weights = masked_rows(np.random.default_rng(4), (2, 2, 3, 3), visible=2)
    figure = encoder_rollout_figure(make_source(weights, ("a", "b", "<pad>"), [True, True, False]))
    assert figure.masked is not None and figure.masked[:, 2].all() and not figure.masked[:, :2].any()
    assert figure.levels[1] == pytest.approx(figure.values[:, :2].max())


def test_source_attribution_figure():
    cross = np.array([[[[1.0, 0.0], [0.0, 1.0]]]])  # one decoder layer, one head, two queries
    figure = source_attribution_figure(make_source(TWO_LAYERS), make_step(cross, ("<bos>", "bx")))
    np.testing.assert_allclose(figure.values, R2, atol=1e-6)
    assert figure.row_labels == ("<bos>", "bx") and figure.col_labels == ("a", "b")
    assert figure.title.startswith("Source attribution at step 2: decoder layer 1 cross-attention")
    assert "encoder rollout, layers 1–2" in figure.title


def test_rnn_models_get_the_empty_figure_with_its_reason():
    rnn = make_source(None)
    for figure in (encoder_rollout_figure(rnn), source_attribution_figure(rnn, make_step(np.ones((1, 1, 1, 2)) / 2))):
        assert figure.values.size == 0 and not figure.colour_bar
        assert figure.title == NEEDS_TRANSFORMER
    assert encoder_rollout_figure(None).values.size == 0
    assert source_attribution_figure(make_source(TWO_LAYERS), None).values.size == 0


def test_rollout_of_a_real_tiny_transformer(tiny_models):
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.stepping import DecodeSession, decode_together

    loaded = load_checkpoint(tiny_models["transformer"][0])
    session = DecodeSession(loaded)
    source = session.encode("a b c d")
    last = session.run()[-1]
    assert source.encoder_weights is not None
    layers, size = source.encoder_weights.shape[0], len(source.tokens)
    flows = rollout(source.encoder_weights)
    assert flows.shape == (layers, size, size) and np.all(np.isfinite(flows))
    np.testing.assert_allclose(flows.sum(axis=-1), 1.0, atol=1e-6)
    for layer, expected in enumerate(paper_rollout(source.encoder_weights.astype(np.float64))):
        np.testing.assert_allclose(flows[layer], expected, atol=1e-9)
    figure = source_attribution_figure(source, last)
    assert figure.values.shape == (len(last.query_tokens), size)
    np.testing.assert_allclose(figure.values.sum(axis=-1), 1.0, atol=1e-5)
    # Padded in a batch, the sentence's own tokens roll out as they do alone and never reach a <pad> key.
    padded = decode_together(loaded, ["a b c d e f", "a b c d"]).sources[1]
    assert padded.encoder_weights is not None
    together = rollout(padded.encoder_weights)
    np.testing.assert_allclose(together[:, :size, :size], flows, atol=1e-5)
    assert np.all(together[:, :size, size:] == 0)
