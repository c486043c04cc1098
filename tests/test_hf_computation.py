"""The Computation view of Hugging Face models: one query's q, k_j, v_j, scores and weights recomputed from
the module's own projections (Marian, BART and mBART q/k/v_proj, T5 with its relative position bias, GPT-2's
c_attn, Llama and Qwen2 with RoPE and grouped-query heads) equal the row the model computed while decoding —
which test_hf_decoding checks against the library's ``output_attentions``."""

from __future__ import annotations

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")

from attnviz.core.attention.kind import AttentionKind  # noqa: E402
from attnviz.core.checkpoints.checkpoint import load_checkpoint  # noqa: E402
from attnviz.core.decoding.query_computation import compute_query  # noqa: E402
from attnviz.core.decoding.stepping import DecodeSession  # noqa: E402
from tests.hf_folders import FAMILIES, TEXT, make_folder  # noqa: E402

ENC, DEC, CROSS = AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS


@pytest.fixture(scope="module", params=FAMILIES)
def decoded(request, tmp_path_factory):
    folder = make_folder(request.param, tmp_path_factory.mktemp("hf") / request.param, seed=3)
    loaded = load_checkpoint(folder)
    session = DecodeSession(loaded, "cpu")
    source = session.encode(TEXT)
    for _ in range(4):
        if session.finished:
            break
        step = session.step()
    return request.param, loaded, source, step


@pytest.mark.parametrize("kind", [ENC, DEC, CROSS])
def test_every_query_recomputed_by_hand_equals_the_models_own_row(decoded, kind):
    _family, loaded, source, step = decoded
    heads = loaded.config.num_heads
    queries = len(source.tokens) if kind is ENC else len(step.query_tokens)
    for query in {0, queries // 2, queries - 1}:
        for layer, head in ((0, 0), (1, heads - 1)):
            comp = compute_query(loaded, source.tokens, step.query_tokens, kind, layer, head, query,
                                 source_ids=source.ids)
            np.testing.assert_allclose(comp.weights, comp.model_weights, atol=1e-5)
            finite = np.isfinite(comp.model_scores) & comp.visible
            np.testing.assert_allclose(comp.scores[finite], comp.model_scores[finite], atol=1e-4)
            assert np.isclose(comp.weights.sum(), 1.0) and not comp.weights[~comp.visible].any()
            if kind is ENC:
                recorded = source.encoder_weights[layer, head, query]
            elif kind is DEC:
                recorded = step.self_weights[layer, head, query]
            else:
                recorded = step.cross_weights[layer, head, query]
            np.testing.assert_allclose(comp.weights[: len(recorded)], recorded, atol=1e-5)  # what the view shows
            assert comp.kind is kind and comp.query_token == (source.tokens if kind is ENC
                                                               else step.query_tokens)[query]


def test_the_formulas_say_how_this_family_makes_its_query(decoded):
    family, loaded, source, step = decoded
    comp = compute_query(loaded, source.tokens, step.query_tokens, DEC, 0, loaded.config.num_heads - 1,
                         len(step.query_tokens) - 1, source_ids=source.ids)
    if family in ("llama", "qwen2"):  # 4 query heads share 2 key/value heads: the last query head reads the 2nd
        assert comp.formulas.query.startswith("q = RoPE_m(W_q a" + (" + b_q)" if family == "qwen2" else ")"))
        assert "key/value head 2 of 2, shared by 2 query heads" in comp.formulas.key
    elif family == "gpt2":
        assert "c_attn" in comp.formulas.query
    elif family == "t5":  # no biases, no 1/√d: a learned bias per relative distance instead
        assert comp.formulas.query == "q = W_q a"
        assert comp.formulas.score.startswith("s_j = q·k_j + b(j − ") and "no 1/√d" in comp.formulas.score
        return
    else:
        assert comp.formulas.query == "q = W_q a + b_q"
    width = comp.query.shape[0]
    assert comp.formulas.score == f"s_j = q·k_j / √{width}"
    causal = comp.visible == (np.arange(len(comp.key_tokens)) <= np.flatnonzero(comp.visible).max())
    assert causal.all()


def test_a_decoder_only_models_first_query_is_the_prompts_last_token(decoded):
    family, loaded, source, step = decoded
    if family not in ("gpt2", "llama", "qwen2"):
        pytest.skip("an encoder–decoder's first query is its decoder start token")
    comp = compute_query(loaded, source.tokens, step.query_tokens, CROSS, 1, 0, 0, source_ids=source.ids)
    assert comp.query_token == source.tokens[-1]
    assert comp.key_tokens[: len(source.tokens)] == source.tokens
    assert comp.visible.sum() == len(source.tokens)  # the prompt's last position sees the prompt only
    np.testing.assert_allclose(comp.weights[: len(source.tokens)], source.encoder_weights[1, 0, -1], atol=1e-5)
