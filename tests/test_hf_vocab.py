"""Subword tokens read as words: SentencePiece's ▁ and byte-level BPE's Ġ become word starts, pieces inside a
word get a middle dot, byte-level stand-ins spell their text; every id keeps one distinct readable name, so
the ids of a split sentence are the tokenizer's own (tokenizers trained here on a few lines)."""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")
from tokenizers import SentencePieceBPETokenizer
from tokenizers.implementations import ByteLevelBPETokenizer
from transformers import PreTrainedTokenizerFast

from attnviz.core.hf.vocab import SubwordVocab, readable

LINES = ["la maison est grande .", "les maisons sont grandes .", "je suis à la maison .", "il été là-bas ."] * 20


def fast(trained, **special) -> PreTrainedTokenizerFast:
    return PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer, **special)


def test_markers_become_word_starts_and_pieces_get_a_dot():
    assert readable("▁maison", "sentencepiece") == "maison" and readable("s", "sentencepiece") == "·s"
    assert readable("Ġmaison", "byte-level") == "maison" and readable("s", "byte-level") == "·s"
    assert readable("Ã©", "byte-level") == "·é" and readable("ĠÃł", "byte-level") == "à"
    assert readable("Ċ", "byte-level") == "·⏎" and readable("</s>", "sentencepiece", special=True) == "</s>"


@pytest.mark.parametrize("kind", ["sentencepiece", "byte-level"])
def test_a_split_sentence_reads_as_words_and_keeps_the_tokenizers_ids(kind):
    if kind == "sentencepiece":
        trained = SentencePieceBPETokenizer()
        trained.train_from_iterator(LINES, vocab_size=60, special_tokens=["<pad>", "</s>", "<unk>"])
        tokenizer = fast(trained, pad_token="<pad>", eos_token="</s>", unk_token="<unk>")
    else:
        trained = ByteLevelBPETokenizer()
        trained.train_from_iterator(LINES, vocab_size=300, special_tokens=["<|endoftext|>"])
        tokenizer = fast(trained, eos_token="<|endoftext|>", bos_token="<|endoftext|>")
    eos = tokenizer.eos_token_id
    vocab = SubwordVocab.of(tokenizer, len(tokenizer) + 3, bos_id=eos, eos_id=eos, pad_id=eos)
    assert len(set(vocab.tokens)) == len(vocab) == len(tokenizer) + 3
    assert vocab.tokens[-1] == f"<id {len(tokenizer) + 2}>"  # (a model's output rows beyond the tokenizer)
    text = "la maison été là-bas ."
    split = vocab.split(text, 64)
    assert list(split.ids) == tokenizer(text)["input_ids"]
    assert vocab.ids(split.words[1:]) == list(split.ids[1:])  # (the first word: shown as a word in any case)
    assert split.words[:2] == ("la", "maison") and not any(w.startswith(("▁", "Ġ")) for w in split.words)
    assert "".join(w if w.startswith("·") else " " + w for w in split.words).replace("·", "").strip() == text
    cut = vocab.split(text, 3)
    assert len(cut.words) == 3 and cut.truncated_from == len(split.words)


def test_a_byte_level_token_is_never_shown_with_a_space_inside():
    """A token is one word on screen and in a saved session (whose forced tokens have no spaces)."""
    from attnviz.core.hf.vocab import readable

    assert readable("ĊĠĠ", "byte-level") == "·⏎␣␣"  # a newline, then two spaces: common in code vocabularies
    assert readable("ĠĠĠ", "byte-level") == "␣␣"  # a word start, then two spaces
    assert readable("Ġhome", "byte-level") == "home" and readable("Ġ", "byte-level") == "␣"
