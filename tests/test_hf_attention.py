"""attnviz's recording attention for Hugging Face models computes what the library's eager attention
computes: every layer's weights equal ``output_attentions`` (tiny random models of each family, built here
from a config), the outputs equal eager's, and the recorded scores are what the softmax read."""

from __future__ import annotations

import pytest
import torch

transformers = pytest.importorskip("transformers")

from attnviz.core.hf.attention import IMPLEMENTATION, recording, register  # noqa: E402

SOURCE = torch.tensor([[5, 6, 7, 2], [5, 6, 2, 0]])  # the second row padded
SOURCE_MASK = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]])
PROMPT = torch.tensor([[0, 3, 4, 5], [3, 4, 5, 6]])  # decoder-only: the first row padded on the left
PROMPT_MASK = torch.tensor([[0, 1, 1, 1], [1, 1, 1, 1]])
BART_SIZES = dict(vocab_size=50, d_model=16, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                  decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=64,
                  pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=0)


def marian():
    return transformers.MarianMTModel(transformers.MarianConfig(**BART_SIZES)), "encoder-decoder"


def bart():
    return transformers.BartForConditionalGeneration(transformers.BartConfig(**BART_SIZES)), "encoder-decoder"


def t5():  # relative position bias added to the scores (and no 1/√d scaling)
    config = transformers.T5Config(vocab_size=50, d_model=16, d_kv=8, d_ff=32, num_layers=2, num_heads=2,
                                   pad_token_id=0, eos_token_id=2, decoder_start_token_id=0)
    return transformers.T5ForConditionalGeneration(config), "encoder-decoder"


def gpt2():
    config = transformers.GPT2Config(vocab_size=60, n_embd=16, n_layer=2, n_head=2, n_positions=64,
                                     bos_token_id=1, eos_token_id=1)
    return transformers.GPT2LMHeadModel(config), "decoder-only"


def llama():  # grouped-query attention: 4 query heads share 2 key/value heads
    config = transformers.LlamaConfig(vocab_size=60, hidden_size=16, num_hidden_layers=2, num_attention_heads=4,
                                      num_key_value_heads=2, intermediate_size=32, max_position_embeddings=64,
                                      bos_token_id=1, eos_token_id=2, pad_token_id=0)
    return transformers.LlamaForCausalLM(config), "decoder-only"


def qwen2():
    config = transformers.Qwen2Config(vocab_size=60, hidden_size=16, num_hidden_layers=2, num_attention_heads=4,
                                      num_key_value_heads=2, intermediate_size=32, max_position_embeddings=64,
                                      bos_token_id=1, eos_token_id=2)
    return transformers.Qwen2ForCausalLM(config), "decoder-only"


@pytest.mark.parametrize("build", [marian, bart, t5, gpt2, llama, qwen2], ids=lambda b: b.__name__)
def test_recorded_attention_is_the_librarys_eager_attention(build):
    register()
    torch.manual_seed(0)
    model, layout = build()
    model.eval()
    inputs = (dict(input_ids=SOURCE, attention_mask=SOURCE_MASK, decoder_input_ids=torch.tensor([[0, 9, 4]] * 2))
              if layout == "encoder-decoder" else dict(input_ids=PROMPT, attention_mask=PROMPT_MASK))
    model.set_attn_implementation("eager")
    with torch.no_grad():
        reference = model(**inputs, output_attentions=True)
    model.set_attn_implementation(IMPLEMENTATION)
    with torch.no_grad(), recording() as calls:
        ours = model(**inputs, output_attentions=True)
    names = (("encoder_attentions", "decoder_attentions", "cross_attentions") if layout == "encoder-decoder"
             else ("attentions",))
    expected = [weights for name in names for weights in getattr(reference, name)]
    assert len(calls) == len(expected) == len(names) * 2
    by_kind = sorted(calls, key=lambda c: names.index(_kind(c, layout)))  # (the library runs them interleaved)
    for call, weights in zip(by_kind, expected, strict=True):
        torch.testing.assert_close(call.weights, weights, atol=1e-6, rtol=0)
        real = torch.isfinite(call.scores).any(dim=-1)  # (a left-padding query row sees nothing: no weights)
        torch.testing.assert_close(torch.softmax(call.scores, dim=-1)[real], call.weights[real], atol=1e-6, rtol=0)
        assert call.query.shape[1] == call.key.shape[1] == weights.shape[1]  # grouped heads repeated per query head
    torch.testing.assert_close(ours.logits, reference.logits, atol=1e-5, rtol=0)
    masked = by_kind[0].scores[1, :, :, -1] if layout == "encoder-decoder" else by_kind[0].scores[0, :, -1, 0]
    assert torch.isneginf(masked).all()  # the padding the mask hides reads -inf, not the dtype's lowest number


def _kind(call, layout: str) -> str:
    if layout == "decoder-only":
        return "attentions"
    if call.query.shape[2] == SOURCE.shape[1] and call.key.shape[2] == SOURCE.shape[1]:
        return "encoder_attentions"
    return "cross_attentions" if call.key.shape[2] == SOURCE.shape[1] else "decoder_attentions"
