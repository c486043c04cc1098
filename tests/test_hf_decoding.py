"""Hugging Face models decode through attnviz's own loop to the library's own answer: greedy tokens equal
``generate``'s, and every attention map recorded at every step equals ``output_attentions`` for the same
prefix (tiny random models built here from a config; nothing is downloaded)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

transformers = pytest.importorskip("transformers")

from attnviz.core.decoding.beam_search import BeamSearch  # noqa: E402
from attnviz.core.hf.seq2seq import HFEncoderDecoder  # noqa: E402

PAD, EOS, STEPS = 0, 2, 8
SOURCES = torch.tensor([[5, 6, 7, 8, 2], [9, 6, 2, 0, 0]])
VALID = torch.tensor([5, 3])


def tiny(family: str, seed: int):
    torch.manual_seed(seed)
    sizes = dict(vocab_size=40, d_model=16, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                 decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=64,
                 pad_token_id=PAD, eos_token_id=EOS, decoder_start_token_id=PAD, bos_token_id=1)
    if family == "marian":
        model = transformers.MarianMTModel(transformers.MarianConfig(**sizes))
    elif family == "mbart":
        model = transformers.MBartForConditionalGeneration(transformers.MBartConfig(**sizes))
    elif family == "t5":  # relative position bias; no 1/√d scaling
        model = transformers.T5ForConditionalGeneration(transformers.T5Config(
            vocab_size=40, d_model=16, d_kv=8, d_ff=32, num_layers=2, num_decoder_layers=2, num_heads=2,
            relative_attention_num_buckets=8, pad_token_id=PAD, eos_token_id=EOS, decoder_start_token_id=PAD))
    else:
        model = transformers.BartForConditionalGeneration(transformers.BartConfig(**sizes, forced_bos_token_id=None))
    model.eval()
    model.generation_config.bad_words_ids = [[PAD]]  # as opus-mt's generation config: <pad> is never an output
    model.generation_config.forced_eos_token_id = None
    return model


@pytest.mark.parametrize("family", ["marian", "bart", "mbart", "t5"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_greedy_decoding_and_every_map_equal_generate(family, seed):
    model = tiny(family, seed)
    adapter = HFEncoderDecoder(model, SimpleNamespace(max_src_len=64, max_tgt_len=STEPS))
    search = BeamSearch(adapter, SOURCES, VALID, bos_id=PAD, eos_id=EOS, pad_id=PAD, beam_size=1, max_len=STEPS,
                        record_attention=True)
    search.run()
    model.set_attn_implementation("eager")
    mask = (torch.arange(SOURCES.shape[1])[None] < VALID[:, None]).long()
    with torch.no_grad():
        reference = model.generate(SOURCES, attention_mask=mask, max_new_tokens=STEPS, num_beams=1, do_sample=False,
                                   output_attentions=True, return_dict_in_generate=True)
    for row in range(len(SOURCES)):
        ours = search.best(row)
        library = reference.sequences[row, 1:].tolist()  # (after the decoder start)
        library = library[: library.index(EOS) + 1] if EOS in library else library
        assert ours.ids == library
        encoder = search.encoder_attention
        for layer, weights in enumerate(reference.encoder_attentions):
            torch.testing.assert_close(encoder.weights[row, layer], weights[row], atol=1e-5, rtol=0)
        for step, attention_row in enumerate(ours.rows):
            for layer in range(2):
                cross = reference.cross_attentions[step][layer][row, :, -1]
                own = reference.decoder_attentions[step][layer][row, :, -1]
                torch.testing.assert_close(torch.from_numpy(attention_row.cross_weights[layer]), cross, atol=1e-5,
                                           rtol=0)
                torch.testing.assert_close(torch.from_numpy(attention_row.self_weights[layer]), own, atol=1e-5,
                                           rtol=0)


def tiny_causal(family: str, seed: int):
    torch.manual_seed(seed)
    if family == "gpt2":  # GPT-2's one special token is <bos> and <eos> at once
        config = transformers.GPT2Config(vocab_size=40, n_embd=16, n_layer=2, n_head=2, n_positions=64,
                                         bos_token_id=EOS, eos_token_id=EOS)
        model = transformers.GPT2LMHeadModel(config)
    else:
        cls = {"llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM),
               "qwen2": (transformers.Qwen2Config, transformers.Qwen2ForCausalLM)}[family]
        config = cls[0](vocab_size=40, hidden_size=16, num_hidden_layers=2, num_attention_heads=4,
                        num_key_value_heads=2, intermediate_size=32, max_position_embeddings=64, bos_token_id=1,
                        eos_token_id=EOS, pad_token_id=PAD)
        model = cls[1](config)
    return model.eval()


@pytest.mark.parametrize("family", ["gpt2", "llama", "qwen2"])
@pytest.mark.parametrize("seed", [0, 1])
def test_decoder_only_greedy_decoding_of_a_left_padded_batch_and_every_map_equal_generate(family, seed):
    from attnviz.core.hf.causal import HFCausal
    from attnviz.core.hf.generation import left_padded

    model = tiny_causal(family, seed)
    adapter = HFCausal(model, SimpleNamespace(max_src_len=64, max_tgt_len=STEPS), PAD)
    search = BeamSearch(adapter, SOURCES, VALID, bos_id=EOS, eos_id=EOS, beam_size=1, max_len=STEPS,
                        record_attention=True, banned=[])
    search.run()
    model.set_attn_implementation("eager")
    ids, mask = left_padded(SOURCES, VALID, PAD)
    with torch.no_grad():
        reference = model.generate(ids, attention_mask=mask, max_new_tokens=STEPS, num_beams=1, do_sample=False,
                                   pad_token_id=PAD, output_attentions=True, return_dict_in_generate=True)
    width = SOURCES.shape[1]
    for row in range(len(SOURCES)):
        ours = search.best(row)
        library = reference.sequences[row, width:].tolist()
        library = library[: library.index(EOS) + 1] if EOS in library else library
        assert ours.ids == library
        for layer, weights in enumerate(reference.attentions[0]):  # the prompt's pass
            torch.testing.assert_close(search.encoder_attention.weights[row, layer], weights[row], atol=1e-5,
                                       rtol=0)
        for step, attention_row in enumerate(ours.rows):
            for layer in range(2):
                own = reference.attentions[step][layer][row, :, -1]
                torch.testing.assert_close(torch.from_numpy(attention_row.self_weights[layer]), own, atol=1e-5,
                                           rtol=0)
                torch.testing.assert_close(torch.from_numpy(attention_row.cross_weights[layer]), own[:, :width],
                                           atol=1e-5, rtol=0)


def _searched(model, decoder_only: bool, beams: int) -> BeamSearch:
    """attnviz's search over SOURCES with ``model`` (its own rules: the model's generation config), run."""
    from attnviz.core.hf.causal import HFCausal

    view = SimpleNamespace(max_src_len=64, max_tgt_len=STEPS)
    adapter = HFCausal(model, view, PAD) if decoder_only else HFEncoderDecoder(model, view, PAD, PAD)
    search = BeamSearch(adapter, SOURCES, VALID, bos_id=EOS if decoder_only else PAD, eos_id=EOS, pad_id=PAD,
                        beam_size=beams, max_len=STEPS, banned=[] if decoder_only else [PAD])
    search.run()
    return search


def _library_best(model, sources, valid, beams, steps, decoder_only):
    """generate's best hypothesis per sentence (new tokens, up to and with the end token) and its score."""
    from attnviz.core.hf.generation import left_padded

    if decoder_only:
        ids, mask = left_padded(sources, valid, PAD)
    else:
        ids, mask = sources, (torch.arange(sources.shape[1])[None] < valid[:, None]).long()
    with torch.no_grad():
        out = model.generate(ids, attention_mask=mask, max_new_tokens=steps, num_beams=beams, do_sample=False,
                             pad_token_id=PAD, output_scores=True, return_dict_in_generate=True)
    start = ids.shape[1] if decoder_only else 1
    best = []
    for row in range(len(sources)):
        new = out.sequences[row, start:].tolist()
        best.append(new[: new.index(EOS) + 1] if EOS in new else new)
    scores = out.sequences_scores.tolist() if beams > 1 else [None] * len(sources)
    return best, scores


@pytest.mark.parametrize("family", ["marian", "bart", "mbart", "t5", "gpt2", "llama", "qwen2"])
@pytest.mark.parametrize(("beams", "penalty", "early"), [(1, 1.0, False), (2, 1.0, False), (3, 2.0, True),
                                                         (3, 0.0, "never"), (4, -0.5, False)])
def test_beam_search_follows_the_librarys_rules_and_tokens(family, beams, penalty, early):
    """Beam tokens and scores equal generate's, with its length penalty, early stopping and a forced end
    token at the length limit (the library's logits processors, applied by attnviz's search)."""

    decoder_only = family in ("gpt2", "llama", "qwen2")
    model = tiny_causal(family, 5) if decoder_only else tiny(family, 5)
    model.generation_config.length_penalty = penalty
    model.generation_config.early_stopping = early
    model.generation_config.forced_eos_token_id = EOS  # the last allowed token is the end token
    search = _searched(model, decoder_only, beams)
    library, scores = _library_best(model, SOURCES, VALID, beams, STEPS, decoder_only)
    for row in range(len(SOURCES)):
        best = search.best(row)
        assert best.ids == library[row], (row, best.ids, library[row])
        assert best.ids[-1] == EOS  # ended, or forced to end at the limit
        if scores[row] is not None:
            assert best.score() == pytest.approx(scores[row], abs=1e-4)


@pytest.mark.parametrize("family", ["marian", "llama"])
@pytest.mark.parametrize("beams", [1, 3])
def test_a_model_with_several_end_tokens_stops_at_any_of_them_as_generate_does(family, beams):
    """Llama 3 and Qwen2 instruction models list several end tokens (<|eot_id|> beside <|end_of_text|>)."""

    from attnviz.core.hf.generation import left_padded

    decoder_only = family == "llama"
    ends = []
    for seed in range(12):  # a seed whose greedy answer ends with the second end token, to see it stop there
        model = tiny_causal(family, seed) if decoder_only else tiny(family, seed)
        model.generation_config.eos_token_id = [EOS, 9]
        model.generation_config.forced_eos_token_id = None
        search = _searched(model, decoder_only, beams)
        ids, mask = left_padded(SOURCES, VALID, PAD) if decoder_only else (
            SOURCES, (torch.arange(SOURCES.shape[1])[None] < VALID[:, None]).long())
        with torch.no_grad():
            out = model.generate(ids, attention_mask=mask, max_new_tokens=STEPS, num_beams=beams, do_sample=False,
                                 pad_token_id=PAD)
        start = ids.shape[1] if decoder_only else 1
        for row in range(len(SOURCES)):
            library = out[row, start:].tolist()
            stop = next((i for i, token in enumerate(library) if token in (EOS, 9)), None)
            library = library if stop is None else library[: stop + 1]
            assert search.best(row).ids == library
            ends.append(library[-1])
        if 9 in ends:  # (that seed is the one looked for: every seed before it matched generate too)
            break
    assert 9 in ends  # (some answer did end with the second end token)


@pytest.mark.parametrize("family", ["qwen2", "marian"])
@pytest.mark.parametrize("beams", [1, 3])
def test_a_repetition_penalty_acts_as_in_generate(family, beams):
    """Qwen2 instruction models ship repetition_penalty 1.05: generate's greedy search applies it to the raw
    logits (positive ones divided, negative ones multiplied), its beam search to the log-probabilities."""

    decoder_only = family == "qwen2"
    for seed in range(3):
        model = tiny_causal(family, seed) if decoder_only else tiny(family, seed)
        model.generation_config.repetition_penalty = 3.0
        search = _searched(model, decoder_only, beams)
        library, _ = _library_best(model, SOURCES, VALID, beams, STEPS, decoder_only)
        assert [search.best(row).ids for row in range(len(SOURCES))] == library
