"""explain_step on tiny trained models of every translation family: the rows are what the model computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.explain import LAYERED, METHODS, explain_step
from attnviz.core.explain.internals import step_internals
from attnviz.core.models.loaded import LoadedModel

FAMILIES = ["transformer", "decoder-only", "rnn-additive", "rnn-dot"]
SOURCE = ["a", "c", "e", "b", "d"]
PREFIX = ["dx", "bx"]  # the reversal of SOURCE so far


@pytest.fixture(params=FAMILIES)
def loaded(request: pytest.FixtureRequest, tiny_models: dict) -> LoadedModel:
    return load_checkpoint(tiny_models[request.param][0])


def _ids(loaded: LoadedModel, source: list[str], prefix: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
    assert loaded.src_vocab is not None and loaded.tgt_vocab is not None
    return (torch.tensor([loaded.src_vocab.ids(source)]),
            torch.tensor([[loaded.tgt_vocab.bos_id, *loaded.tgt_vocab.ids(prefix)]]))


def _log_prob_by_steps(loaded: LoadedModel, source: list[str], prefix: list[str], token: str) -> float:
    """log p(token | source, prefix) through the decoder interface (start, then one cached step per token)."""
    src, tgt_in = _ids(loaded, source, prefix)
    model = loaded.model
    with torch.no_grad():
        state, _ = model.start(src, torch.tensor([src.shape[1]]))
        for t in range(tgt_in.shape[1]):
            log_probs, state, _ = model.step(tgt_in[:, t], state)
    assert loaded.tgt_vocab is not None
    return float(log_probs[0, loaded.tgt_vocab.ids([token])[0]])


def test_rows_shapes_and_agreement(loaded: LoadedModel) -> None:
    explanation = explain_step(loaded, SOURCE, PREFIX, every_layer=True)
    recurrent = loaded.kind.startswith("rnn")
    expected = [m for m in METHODS if not (recurrent and m in ("rollout", "flow"))]
    assert list(explanation.methods) == expected
    assert explanation.labels == tuple(SOURCE)
    assert explanation.rows.shape == (len(expected), len(SOURCE))
    assert explanation.token == "ex"  # the trained reversal's next word
    assert explanation.log_prob == pytest.approx(_log_prob_by_steps(loaded, SOURCE, PREFIX, "ex"), abs=1e-4)
    assert np.allclose(np.diag(explanation.kendall), 1.0) and np.allclose(explanation.spearman, explanation.spearman.T)
    for method in LAYERED:
        if method in explanation.layer_rows:
            assert np.isfinite(explanation.layer_rows[method]).all()
    # the model reverses: the word it writes now, "ex", is the source's "e" (position 2): hiding it costs most
    assert int(np.argmax(explanation.row("occlusion"))) == 2


def test_occlusion_equals_the_models_own_log_probabilities(loaded: LoadedModel) -> None:
    explanation = explain_step(loaded, SOURCE, PREFIX, methods=("occlusion", "leave_one_out"))
    full = _log_prob_by_steps(loaded, SOURCE, PREFIX, explanation.token)
    for j in range(len(SOURCE)):
        swapped = [*SOURCE[:j], "<unk>", *SOURCE[j + 1:]]
        removed = SOURCE[:j] + SOURCE[j + 1:]
        assert explanation.row("occlusion")[j] == pytest.approx(
            full - _log_prob_by_steps(loaded, swapped, PREFIX, explanation.token), abs=1e-4)
        assert explanation.row("leave_one_out")[j] == pytest.approx(
            full - _log_prob_by_steps(loaded, removed, PREFIX, explanation.token), abs=1e-4)


def test_integrated_gradients_are_complete(loaded: LoadedModel) -> None:
    explanation = explain_step(loaded, SOURCE, PREFIX, methods=("ig",), ig_steps=128)
    assert explanation.completeness is not None
    assert abs(explanation.completeness.difference) > 0.5  # a real change from the <pad> source
    assert explanation.completeness.ratio == pytest.approx(1.0, abs=0.01)
    assert explanation.row("ig").sum() == pytest.approx(explanation.completeness.attribution_sum)


def test_norm_based_attention_decomposes_the_layer_output(loaded: LoadedModel) -> None:
    """Σ_h Σ_j α_hj f_h(x_j) + b_O is each layer's attention output as the model computed it."""
    src, tgt_in = _ids(loaded, SOURCE, PREFIX)
    internals = step_internals(loaded.model, src, tgt_in, tuple(SOURCE), ("<bos>", *PREFIX))
    for kind in internals.kinds:
        summed = np.einsum("lhk,lhkd->ld", kind.weights, kind.transformed) + kind.bias
        np.testing.assert_allclose(summed, kind.output, atol=1e-5)
    explanation = explain_step(loaded, SOURCE, PREFIX, methods=("attention", "norm"), head=0)
    first = internals.kinds[0]
    expected = first.weights[-1, 0, :5] * np.linalg.norm(first.transformed[-1, 0, :5], axis=-1)
    np.testing.assert_allclose(explanation.row("norm"), expected)
    np.testing.assert_allclose(explanation.row("attention"), first.weights[-1, 0, :5])


def test_bad_requests_are_refused(tiny_models: dict) -> None:
    loaded = load_checkpoint(tiny_models["transformer"][0])
    with pytest.raises(ValueError, match="layer"):
        explain_step(loaded, SOURCE, PREFIX, layer=9)
    with pytest.raises(ValueError, match="head"):
        explain_step(loaded, SOURCE, PREFIX, head=9)
    with pytest.raises(ValueError, match="unknown methods"):
        explain_step(loaded, SOURCE, PREFIX, methods=("saliency",))
    with pytest.raises(ValueError, match="no tokens"):
        explain_step(loaded, [], PREFIX)


SHIPPED = Path(__file__).resolve().parents[1] / "models" / "transformer.safetensors"


@pytest.mark.skipif(not SHIPPED.is_file(), reason="the shipped Transformer is not in this checkout")
def test_integrated_gradients_are_complete_on_the_shipped_transformer() -> None:
    loaded = load_checkpoint(SHIPPED)
    source = ["i", "am", "very", "happy", "to", "see", "you", "."]
    explanation = explain_step(loaded, source, ["je", "suis"], methods=("ig",),
                               ig_steps=64)
    assert explanation.token == "très"
    assert explanation.completeness is not None
    assert explanation.completeness.ratio == pytest.approx(1.0, abs=0.01)


def test_sink_shares_are_the_rows_shares_on_those_keys() -> None:
    if not SHIPPED.is_file():
        pytest.skip("the shipped Transformer is not in this checkout")
    from attnviz.core.explain import SINK_CLASSES, is_punctuation

    loaded = load_checkpoint(SHIPPED)
    source = ["hello", ",", "tom", "!"]
    explanation = explain_step(loaded, source, ["bonjour"], methods=("attention", "norm"), every_layer=True)
    punctuation = np.array([is_punctuation(w) for w in source])
    assert punctuation.tolist() == [False, True, False, True]
    cross = explanation.sinks["cross"]  # (L, 2, 3)
    column = SINK_CLASSES.index("punctuation")
    np.testing.assert_allclose(cross[:, 0, column], explanation.layer_rows["attention"][:, punctuation].sum(axis=1))
    norms = explanation.layer_rows["norm"]
    np.testing.assert_allclose(cross[:, 1, column], norms[:, punctuation].sum(axis=1) / norms.sum(axis=1))
    assert np.isnan(cross[:, :, SINK_CLASSES.index("<bos>")]).all()  # the source has no <bos>
    decoder_self = explanation.sinks["decoder self"]  # keys: <bos> bonjour
    assert np.all((decoder_self[:, :, SINK_CLASSES.index("<bos>")] > 0) & (decoder_self[:, :, 1] <= 1))


def test_step_figures_scale_each_row_and_show_the_agreement(tiny_models: dict) -> None:
    from attnviz.figures.explain import agreement_figure, step_figure

    explanation = explain_step(load_checkpoint(tiny_models["transformer"][0]), SOURCE, PREFIX)
    figure = step_figure(explanation)
    assert figure.values.shape == (len(explanation.methods), len(SOURCE)) and figure.col_labels == tuple(SOURCE)
    np.testing.assert_allclose(np.abs(figure.values).max(axis=1), 1.0)
    np.testing.assert_allclose(figure.values * np.abs(explanation.rows).max(axis=1, keepdims=True), explanation.rows)
    assert figure.row_labels[0] == "raw attention" and "“ex”" in figure.title
    tau = agreement_figure(explanation)
    np.testing.assert_allclose(tau.values, explanation.kendall)


@pytest.mark.parametrize("family", ["transformer", "decoder-only"])
def test_rollout_rows_are_the_apps_source_attribution(tiny_models: dict, family: str) -> None:
    """The rollout row of a step is the last row of the window's Source attribution view, which the app builds
    from its own cached step-by-step decoding."""
    from attnviz.core.attention.rollout import rollout
    from attnviz.core.decoding.stepping import DecodeSession

    loaded = load_checkpoint(tiny_models[family][0])
    session = DecodeSession(loaded)
    source = session.encode(" ".join(SOURCE))
    for _ in range(3):
        step = session.step()
    traced = loaded.layout.traced(source, step, rollout(source.encoder_weights), None)  # the last layer
    prefix = list(step.query_tokens[1:])  # the decoder inputs after <bos>: the step predicted from them
    explanation = explain_step(loaded, SOURCE, prefix, methods=("rollout",))
    np.testing.assert_allclose(explanation.row("rollout"), traced.values[-1], atol=1e-5)


def test_the_registry_says_which_kinds_are_explained_and_the_others_are_refused_in_words() -> None:
    from attnviz.core.layout import Capability
    from attnviz.core.models.kinds import KINDS

    explained = {name for name, kind in KINDS.items() if kind.explains}
    # attnviz's own sentence models (a library's are not covered) and every image model (explain_image: its reader)
    assert explained == {*FAMILIES, "encoder-only", "vit", "hf-vision"}
    for name in explained:  # each record names a function that exists
        assert KINDS[name].image_reader is not None or callable(KINDS[name].internals_reader())
    masks = {name for name in explained if KINDS[name].sequence_layout.offers(Capability.MASKS)}
    assert masks == {"encoder-only"}
    with pytest.raises(ValueError, match="hf-seq2seq"):
        KINDS["hf-seq2seq"].internals_reader()
    with pytest.raises(ValueError, match="not ModuleList"):
        step_internals(torch.nn.ModuleList(), torch.zeros(1, 1), torch.zeros(1, 1), (), ())
