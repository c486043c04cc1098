"""<bos> and <pad> are never candidates of free decoding: a barely trained model that ranks them first
still says words (greedy, beam search, the top-k table, batch translation), and neither can be forced."""

import pytest
import torch

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.decoding.beam_search import BeamSearch, encode_batch, translate
from attnviz.core.decoding.stepping import DecodeSession
from attnviz.core.text import BOS, PAD

NEVER = {BOS, PAD}


@pytest.fixture
def babbler(tiny_models):
    """The tiny RNN with its output bias pushed so that <bos>, then <pad>, are by far its likeliest words."""
    loaded = load_checkpoint(tiny_models["rnn-dot"][0])
    vocab = loaded.tgt_vocab
    with torch.no_grad():
        loaded.model.output.bias[vocab.bos_id] += 60.0
        loaded.model.output.bias[vocab.pad_id] += 50.0
    return loaded


@pytest.mark.parametrize("beam_size", [1, 3])
def test_free_decoding_never_takes_bos_or_pad(babbler, beam_size):
    decoding = DecodeSession(babbler, beam_size=beam_size, top_k=5)
    decoding.encode("a b c")
    steps = decoding.run()
    assert steps and steps[-1].output_tokens
    for step in steps:
        assert not NEVER & set(step.output_tokens)
        assert not NEVER & set(step.topk_tokens) and len(step.topk_tokens) == 5
        assert all(not NEVER & set(beam.tokens) for beam in step.beams)


def test_batch_translation_never_says_bos_or_pad(babbler):
    device = torch.device("cpu")
    for beam_size in (1, 2):
        out = translate(babbler.model, [["a", "b"], ["c", "d", "e"]], babbler.src_vocab, babbler.tgt_vocab, device,
                        beam_size=beam_size)
        assert all(words and not NEVER & set(words) for words in out)


def test_bos_and_pad_cannot_be_forced(babbler):
    decoding = DecodeSession(babbler)
    decoding.encode("a b c")
    for token in NEVER:
        with pytest.raises(ValueError, match="cannot say"):
            decoding.step(token)
    vocab = babbler.tgt_vocab
    src, valid = encode_batch([["a", "b"]], babbler.src_vocab)
    search = BeamSearch(babbler.model, src, valid, bos_id=vocab.bos_id, eos_id=vocab.eos_id, pad_id=vocab.pad_id)
    with pytest.raises(ValueError, match="never"):
        search.step(force=vocab.bos_id)
    assert search.steps_taken == 0
