"""A decoder-only Hugging Face prompt beyond the window's decoding cap (issue 49 §1): it opens in the window with its
maps computed on demand (core/decoding/long_prompt.py), the Attention panel's map is the store's and eager attention's
for any layer and head, the views that need every map say so in one sentence, and a prompt within the cap goes the
old way (every map recorded, stepped)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")

from attnviz.core.attention.kind import AttentionKind  # noqa: E402
from attnviz.core.hf.load import load_hf_folder  # noqa: E402
from tests.helpers import raised  # noqa: E402

TEXT = " ".join(["the house is big . i am at home . he was there ."] * 63)  # 1,008 byte-level tokens
NOT_AT_LENGTH = "Not at this length:"


@pytest.fixture(scope="module")
def long_llama(tmp_path_factory):
    """A grouped-query Llama folder with 1,100 positions (the decoding's prompt cap stays at 448)."""
    from tests.hf_folders import _byte_level_tokenizer

    folder = tmp_path_factory.mktemp("long-window") / "llama"
    tokenizer = _byte_level_tokenizer()
    torch.manual_seed(3)
    transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        intermediate_size=32, max_position_embeddings=1100, bos_token_id=0, eos_token_id=0,
        pad_token_id=0)).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _eager(folder, ids: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    eager = transformers.AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    with torch.no_grad():
        return eager(input_ids=torch.tensor([ids]), output_attentions=True).attentions  # L × (1, H, S, S)


def test_a_prompt_beyond_the_cap_opens_with_its_maps_on_demand(window, errors, long_llama):
    window.load(long_llama)
    window.set_sentence(TEXT, run=True)
    state = window.session.state
    source = state.source
    assert source is not None and source.on_demand is not None and source.encoder_weights is None
    tokens = len(source.tokens)
    assert 1000 <= tokens <= 1100 and source.truncated_from is None
    assert state.steps == ()  # (the answer is not stepped at this length)
    assert "not stepped at this length" in window.decoding_area.notice.text()
    assert not state.can_step and not window.step_action.isEnabled() and not window.run_action.isEnabled()
    area = window.decoding_area  # nor forced: a forced word would step it
    assert not area.force_button.isEnabled() and not area.force_field.isEnabled()
    assert area.topk.hint == "" and area.output.text() == ""  # (no "Press Step (F10)…" where Step is off)
    attention = window.attention
    eager = _eager(long_llama, source.ids)
    store = window.session._prompt_store
    for layer, head in ((0, 1), (1, 3)):
        attention.select_view(AttentionKind.ENCODER_SELF, layer, head)
        matrix = attention.current
        assert matrix is not None and matrix.values.shape == (tokens, tokens)
        np.testing.assert_allclose(matrix.values, eager[layer][0, head].numpy(), atol=1e-5)
        np.testing.assert_array_equal(matrix.values, store.map(layer, head))
        assert matrix.masked[0, 1] and not matrix.masked[1, 0]  # (causal)
    attention.scores.setChecked(True)  # the scores: computed on demand too
    assert attention.current is not None and attention.current.scores
    np.testing.assert_array_equal(attention.current.values, store.map(1, 3, scores=True))
    attention.all_heads.setChecked(True)
    assert attention.grid.message.startswith(NOT_AT_LENGTH) and f"{tokens:,} tokens" in attention.grid.message
    rollout = raised(window, "rollout")
    masks = raised(window, "masks")
    for heatmap in (rollout.encoder, rollout.attribution, masks.padding, masks.causal):
        assert heatmap.title_text().startswith(NOT_AT_LENGTH), heatmap.title_text()
    for name in window.docks:  # every other view keeps working (or says what it does not show)
        window.docks[name].show()
        window.panels.ensure_current(name)
    assert not errors, errors


def test_a_prompt_within_the_cap_goes_the_old_way(window, errors, long_llama):
    window.load(long_llama)
    window.set_sentence("the house is big .", run=True)
    state = window.session.state
    assert state.source.on_demand is None and state.source.encoder_weights is not None
    assert state.steps and state.finished
    assert window.session._prompt_store is None
    assert window.decoding_area.force_button.isEnabled() and window.decoding_area.force_field.isEnabled()
    assert load_hf_folder(long_llama).config.max_src_len == 448
    assert not errors, errors


@pytest.fixture(scope="module")
def long_bert(tmp_path_factory):
    from tests.hf_encoder_folders import make_long_bert_folder

    return make_long_bert_folder(tmp_path_factory.mktemp("long-window") / "bert")


@pytest.fixture(scope="module")
def long_marian(tmp_path_factory):
    from tests.hf_folders import make_long_marian_folder

    return make_long_marian_folder(tmp_path_factory.mktemp("long-window") / "marian")


@pytest.mark.parametrize("family", ["bert", "marian"])
def test_an_encoder_input_beyond_the_cap_opens_with_its_maps_on_demand(window, errors, long_bert, long_marian,
                                                                        family):
    """A BERT sentence, a Marian source: 900-odd tokens (the cap: 512) open with the encoder's self-attention
    computed on demand, equal to eager attention; no mask is filled and nothing is translated at this length."""
    folder = long_bert if family == "bert" else long_marian
    text = " ".join(["the house is big . i am at home . he was there ."] * 45)
    window.load(folder)
    window.set_sentence(text, run=True)
    state = window.session.state
    source = state.source
    assert source is not None and source.on_demand is not None and source.encoder_weights is None
    tokens = len(source.tokens)
    assert 512 < tokens <= 1024 and source.truncated_from is None
    assert state.steps == () and not state.can_step and not window.step_action.isEnabled()
    said = "no mask is filled at this length" if family == "bert" else "it is not translated at this length"
    assert said in window.decoding_area.notice.text()
    auto = transformers.BertModel if family == "bert" else transformers.MarianMTModel
    eager = auto.from_pretrained(folder, attn_implementation="eager").eval()
    with torch.no_grad():
        out = eager(input_ids=torch.tensor([source.ids]), output_attentions=True) if family == "bert" else \
            eager(input_ids=torch.tensor([source.ids]), decoder_input_ids=torch.tensor([[0]]), output_attentions=True)
    attentions = out.attentions if family == "bert" else out.encoder_attentions
    attention = window.attention
    for layer, head in ((0, 1), (1, 0)):
        attention.select_view(AttentionKind.ENCODER_SELF, layer, head)
        matrix = attention.current
        assert matrix is not None and matrix.values.shape == (tokens, tokens)
        np.testing.assert_allclose(matrix.values, attentions[layer][0, head].numpy(), atol=1e-5)
        assert not matrix.masked.any()  # (both directions, no padding)
    attention.all_heads.setChecked(True)
    assert attention.grid.message.startswith(NOT_AT_LENGTH)
    for name in window.docks:  # every other view keeps working (or says what it does not show)
        window.docks[name].show()
        window.panels.ensure_current(name)
    assert not errors, errors
