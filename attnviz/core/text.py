"""Text preprocessing and vocabularies, following d2l's machine-translation chapter."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from attnviz.i18n import tr

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
RESERVED = (PAD, BOS, EOS, UNK)


def preprocess(text: str) -> str:
    """Lowercase, turn U+202F / U+00A0 into spaces, put a space before , . ! ? (d2l's ``_preprocess``)."""
    text = text.replace("\u202f", " ").replace("\xa0", " ").lower().strip()
    out = []
    for i, char in enumerate(text):
        if i > 0 and char in ",.!?" and text[i - 1] != " ":
            out.append(" ")
        out.append(char)
    return "".join(out)


def tokenize(text: str) -> list[str]:
    """Word tokens of an already preprocessed sentence."""
    return text.split()


@dataclass(frozen=True)
class SourceWords:
    """A sentence as a model reads it: words (preprocessed, cut to the model's limit), the words its
    vocabulary lacks (read as <unk>), the original length when it was cut, and the token ids where they
    are not the vocabulary's ids of the words (a subword tokenizer's readable words: core/hf/vocab.py)."""

    words: tuple[str, ...]
    unknown: tuple[str, ...]
    truncated_from: int | None
    ids: tuple[int, ...] | None = None


MAX_TEXT_BYTES = 64 * 1024  # a sentence at most, as a corpus file's line: longer text is refused before it is split
_SURROGATES = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD, the replacement character: a byte that was not UTF-8
    reaches Python so (``--text`` from argv, a file read with ``surrogateescape``), and tokenizers refuse it; attnviz
    reads it as U+FFFD, an unknown word, whatever the model."""
    return _SURROGATES.sub("\ufffd", text) if _SURROGATES.search(text) else text


def check_text_size(text: str) -> None:
    """ValueError when ``text`` is over :data:`MAX_TEXT_BYTES` in UTF-8: checked in microseconds, before a tokenizer
    spends seconds and gigabytes on a 10 MB "sentence" only to find it longer than the model reads."""
    if len(text) > MAX_TEXT_BYTES // 4 and len(text.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
        raise ValueError(tr("the text is over {kib} KiB; attnviz reads one sentence of at most {kib} KiB").format(
            kib=MAX_TEXT_BYTES // 1024))


def source_words(text: str, vocab: Vocab, max_len: int) -> SourceWords:
    """``text`` as a model with source vocabulary ``vocab`` reads it, cut to ``max_len`` tokens: the one place
    input is cut (a subword vocabulary splits it its own way: core/hf/vocab.py). A byte that was not UTF-8 is read
    as U+FFFD (:func:`valid_text`); ValueError for text over :data:`MAX_TEXT_BYTES`."""
    check_text_size(text)
    return vocab.split(valid_text(text), max_len)


def _word_split(text: str, vocab: Vocab, max_len: int) -> SourceWords:
    """Preprocess, tokenize and truncate ``text`` to ``max_len`` words."""
    words = tokenize(preprocess(text))
    truncated_from = len(words) if len(words) > max_len else None
    words = words[:max_len]
    unknown = tuple(dict.fromkeys(w for w in words if w not in vocab))
    return SourceWords(tuple(words), unknown, truncated_from)


@dataclass(frozen=True)
class Vocab:
    """A token list whose first four entries are ``<pad> <bos> <eos> <unk>`` (ids 0–3)."""

    tokens: tuple[str, ...]

    def __post_init__(self) -> None:
        if tuple(self.tokens[:4]) != RESERVED:
            raise ValueError(tr("a vocabulary must start with {tokens}").format(tokens=" ".join(RESERVED)))
        if len(set(self.tokens)) != len(self.tokens):
            raise ValueError(tr("a vocabulary must not repeat a token"))
        object.__setattr__(self, "_index", {tok: i for i, tok in enumerate(self.tokens)})

    @classmethod
    def build(cls, sentences: Iterable[Sequence[str]], min_freq: int = 2,
              max_size: int | None = None) -> Vocab:
        """Tokens seen at least ``min_freq`` times, most frequent first (ties alphabetically)."""
        counts = Counter(tok for sentence in sentences for tok in sentence)
        ranked = sorted((t for t, c in counts.items() if c >= min_freq and t not in RESERVED),
                        key=lambda t: (-counts[t], t))
        if max_size is not None:
            ranked = ranked[: max(0, max_size - len(RESERVED))]
        return cls((*RESERVED, *ranked))

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def pad_id(self) -> int:
        return 0

    @property
    def bos_id(self) -> int:
        return 1

    @property
    def end_ids(self) -> tuple[int, ...]:
        """Every token that ends a translation: <eos> alone (a tokenizer's vocabulary may have several)."""
        return (self.eos_id,)

    @property
    def eos_id(self) -> int:
        return 2

    @property
    def unk_id(self) -> int:
        return 3

    def __contains__(self, token: object) -> bool:
        return token in self._index  # type: ignore[attr-defined]

    def ids(self, tokens: Sequence[str]) -> list[int]:
        """Token ids; unknown tokens map to ``<unk>``."""
        index: dict[str, int] = self._index  # type: ignore[attr-defined]
        return [index.get(tok, 3) for tok in tokens]

    def to_tokens(self, ids: Iterable[int]) -> list[str]:
        return [self.tokens[i] for i in ids]

    @property
    def banned(self) -> tuple[int, ...]:
        """Ids a decoder never outputs: <pad> and <bos>."""
        return (self.pad_id, self.bos_id)

    def split(self, text: str, max_len: int) -> SourceWords:
        """``text`` preprocessed and split into words, cut to ``max_len``."""
        return _word_split(text, self, max_len)

    def text_of(self, tokens: Sequence[str]) -> str:
        """Output tokens as text: the words with spaces between."""
        return " ".join(tokens)

    def target_tokens(self, text: str) -> list[str]:
        """A reference translation (preprocessed text) as the output tokens it is: its words (text_of's inverse)."""
        return tokenize(text)


def untakeable_words(words: Iterable[str], vocab: Vocab) -> list[str]:
    """The words (each once, in order) a decoder with target vocabulary ``vocab`` cannot be forced to take:
    those it lacks, and <pad> and <bos>, which it never outputs."""
    return list(dict.fromkeys(word for word in words if word not in vocab or word in (PAD, BOS)))


MAX_NAMED_WORDS = 5  # refused words named (with their nearest known words) in one message; the rest counted


def nearest_words(word: str, vocab: Vocab, count: int = 3) -> list[str]:
    """Up to ``count`` words of ``vocab`` spelled most like ``word`` (difflib's similarity ≥ 0.6), best first."""
    return difflib.get_close_matches(word, [t for t in vocab.tokens if t not in RESERVED], n=count, cutoff=0.6)


def refused_words_message(words: Sequence[str], vocab: Vocab) -> str:
    """Why ``words`` (from :func:`untakeable_words`) cannot be forced, with the nearest words the model does
    know, e.g. 'Cannot force “zorglub” (nearest it knows: “zorro”): the model cannot say it (…)'."""
    parts = []
    for word in words[:MAX_NAMED_WORDS]:  # (a nearest-word look-up costs ~25 ms: a pasted page must not freeze)
        if word in (PAD, BOS):
            parts.append(tr("“{word}” (never an output)").format(word=word))
        elif near := nearest_words(word, vocab):
            parts.append(tr("“{word}” (nearest it knows: {near})").format(word=word,
                                                                         near=", ".join(f"“{w}”" for w in near)))
        else:
            parts.append(f"“{word}”")
    if len(words) == 1:
        template = tr("Cannot force {words}: the model cannot say it (its target vocabulary has {count:,} words). "
                      "Nothing was forced.")
    else:
        template = tr("Cannot force {words}: the model cannot say them (its target vocabulary has {count:,} words). "
                      "Nothing was forced.")
    if len(words) > MAX_NAMED_WORDS:
        parts.append(tr("and {count:,} more").format(count=len(words) - MAX_NAMED_WORDS))
    return template.format(words="; ".join(parts), count=len(vocab))
