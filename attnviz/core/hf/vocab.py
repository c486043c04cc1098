"""A Hugging Face tokenizer as attnviz reads tokens: readable subwords, one per id, in the interface of
:class:`~attnviz.core.text.Vocab` (ids, tokens, the special ids), so the decode loop, the views and forcing
work unchanged.

Subword tokenizers mark where words start: SentencePiece (Marian, T5, Llama 2) with ``▁``, byte-level BPE
(GPT-2, Llama 3, Qwen2, RoBERTa) with ``Ġ`` and writes every byte as a stand-in character; WordPiece (BERT,
DistilBERT) marks the pieces that continue a word instead (``##s``). attnviz shows a piece that
starts a word as the word (``▁maison`` → ``maison``), a piece inside a word after a middle dot (``·s``), the
bytes of byte-level tokens as the text they spell (``Ã©`` → ``é``, a newline ``⏎``, a lone byte of a longer
character ``<0xE2>``), and gives a name that would repeat another id's its id (``maison#812``); special tokens
stay as they are (``</s>``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from attnviz.core.text import SourceWords, check_text_size, valid_text
from attnviz.i18n import tr

CONTINUES = "·"  # marks a piece that continues the word before it
SENTENCEPIECE_START, BYTE_LEVEL_START, WORDPIECE_CONTINUES = "▁", "Ġ", "##"


def _byte_level_alphabet() -> dict[str, int]:
    """GPT-2's stand-in character for each byte -> the byte (the printable ones stand for themselves)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    stand_in, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            stand_in[chr(byte)] = byte
        else:
            stand_in[chr(256 + extra)] = byte
            extra += 1
    return stand_in


_BYTES = _byte_level_alphabet()


def _spelled(raw: bytes) -> str:
    """Bytes as the text they spell: a newline ⏎, a tab ⇥, other control bytes and the pieces of a character
    split across tokens as ``<0xE2>`` (how SentencePiece spells its byte tokens)."""
    shown = []
    for char in raw.decode("utf-8", errors="surrogateescape"):
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that is not a whole character on its own
            shown.append(f"<0x{code - 0xDC00:02X}>")
        elif char in "\n\t":
            shown.append("⏎" if char == "\n" else "⇥")
        elif code < 0x20 or code == 0x7F:
            shown.append(f"<0x{code:02X}>")
        elif char == " ":  # (a token is one word on screen and in a saved session: never a space inside)
            shown.append("␣")
        else:
            shown.append(char)
    return "".join(shown)


def readable(token: str, style: str, special: bool = False) -> str:
    """How a raw ``token`` of a tokenizer of ``style`` ("sentencepiece", "byte-level", "wordpiece" or "plain") is
    shown."""
    if special or style == "plain":
        return token
    if style == "wordpiece":
        continues = token.startswith(WORDPIECE_CONTINUES) and len(token) > len(WORDPIECE_CONTINUES)
        return CONTINUES + token[len(WORDPIECE_CONTINUES):] if continues else token
    if style == "byte-level":
        if not all(char in _BYTES for char in token):
            return token
        raw = bytes(_BYTES[char] for char in token)
        text = _spelled(raw[1:] if raw.startswith(b" ") else raw)  # (its first space marks a word start)
        return (text or "␣") if raw.startswith(b" ") else CONTINUES + text
    if token.startswith(SENTENCEPIECE_START):
        return token[len(SENTENCEPIECE_START):] or "␣"
    return CONTINUES + token


def tokenizer_style(tokens: Sequence[str]) -> str:
    """How a vocabulary writes its tokens: "byte-level" (a token for each of the 256 byte stand-ins),
    "sentencepiece" (one in ten tokens starts a word with ▁), "wordpiece" (one in ten continues a word after ##)
    or "plain"."""
    present = set(tokens)
    if sum(char in present for char in _BYTES) >= 250:
        return "byte-level"
    if sum(token.startswith(SENTENCEPIECE_START) for token in tokens) * 10 >= len(tokens):
        return "sentencepiece"
    if sum(token.startswith(WORDPIECE_CONTINUES) for token in tokens if token) * 10 >= len(tokens):
        return "wordpiece"
    return "plain"


@contextlib.contextmanager
def _tokenizer_errors() -> Iterator[None]:
    """A panic of the tokenizers library (a BaseException) on this text as a ValueError saying so."""
    try:
        yield
    except (KeyboardInterrupt, SystemExit, GeneratorExit, Exception):
        raise
    except BaseException as error:
        raise ValueError(tr("the tokenizer fails on this text ({kind}: {error})").format(
            kind=type(error).__name__, error=str(error).strip().splitlines()[0] if str(error).strip() else "")
                         ) from None


@dataclass(frozen=True)
class SubwordVocab:
    """A tokenizer's vocabulary as readable tokens (index = id, ``size`` of them: the model's output width,
    which may exceed the tokenizer's), with its special ids and the tokenizer itself for splitting text."""

    tokens: tuple[str, ...]
    pad_id: int
    bos_id: int  # the decoder's first input (an encoder–decoder's decoder start; a decoder-only model's <bos>)
    eos_id: int
    unk_id: int
    tokenizer: Any = field(repr=False, compare=False)
    add_special: bool = True  # whether splitting text adds the tokenizer's own special tokens (Marian's </s>)
    banned: tuple[int, ...] = ()  # ids never decoded (none: the model's generation config bans its own)
    ends: tuple[int, ...] = ()  # more ids that end a translation (Llama 3's <|eot_id|> beside <|end_of_text|>)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {tok: i for i, tok in enumerate(self.tokens)})

    @classmethod
    def of(cls, tokenizer: Any, size: int, *, bos_id: int, eos_id: int, pad_id: int, unk_id: int | None = None,
           ends: tuple[int, ...] = ()) -> SubwordVocab:
        """The vocabulary of ``tokenizer`` over ``size`` ids (ids it has no token for read ``<id N>``)."""
        count = min(len(tokenizer), size)
        raw = tokenizer.convert_ids_to_tokens(list(range(count)))
        special = set(tokenizer.all_special_ids)
        style = tokenizer_style(raw)
        tokens: list[str] = []
        seen: set[str] = set()
        for i in range(size):
            shown = readable(raw[i], style, i in special) if i < count and raw[i] is not None else f"<id {i}>"
            if shown in seen:
                shown = f"{shown}#{i}"
            seen.add(shown)
            tokens.append(shown)
        unk = tokenizer.unk_token_id if unk_id is None else unk_id
        return cls(tuple(tokens), pad_id, bos_id, eos_id, eos_id if unk is None else unk, tokenizer,
                   ends=tuple(i for i in ends if i != eos_id))

    @property
    def end_ids(self) -> tuple[int, ...]:
        """Every token that ends a translation, the end-of-text token first."""
        return (self.eos_id, *self.ends)

    def __len__(self) -> int:
        return len(self.tokens)

    def __contains__(self, token: object) -> bool:
        return token in self._index  # type: ignore[attr-defined]

    def ids(self, tokens: Sequence[str]) -> list[int]:
        index: dict[str, int] = self._index  # type: ignore[attr-defined]
        return [index.get(tok, self.unk_id) for tok in tokens]

    def to_tokens(self, ids: Iterable[int]) -> list[str]:
        return [self.tokens[i] for i in ids]

    def text_of(self, tokens: Sequence[str]) -> str:
        """Output tokens as the text the tokenizer makes of their ids (special tokens left out)."""
        with _tokenizer_errors():
            return str(self.tokenizer.decode(self.ids(tokens), skip_special_tokens=True)).strip()

    def target_tokens(self, text: str) -> list[str]:
        """A reference translation as the output tokens the model would write for it: the tokenizer's target ids
        (Marian's target vocabulary), without special tokens (a decoder adds its own start and end)."""
        check_text_size(text)
        with _tokenizer_errors():
            return self.to_tokens(self.tokenizer(text_target=valid_text(text), add_special_tokens=False)["input_ids"])

    def split(self, text: str, max_len: int) -> SourceWords:
        """``text`` as the model reads it: its ids and readable tokens (special tokens the tokenizer adds
        included; the first word shown as a word even where the tokenizer writes it as a piece), cut to
        ``max_len``; ``unknown`` lists the words read as the unknown token."""
        check_text_size(text)
        with _tokenizer_errors():
            return self._split(valid_text(text), max_len)

    def _split(self, text: str, max_len: int) -> SourceWords:
        ids = self.tokenizer(text, add_special_tokens=self.add_special)["input_ids"]
        truncated_from = len(ids) if len(ids) > max_len else None
        if truncated_from and self.add_special and ids[-1] == self.eos_id:  # keep the end-of-text token last
            ids = [*ids[: max_len - 1], ids[-1]]
        ids = ids[:max_len]
        unknown = tuple(dict.fromkeys(w for w in text.split() if self.unk_id in self.tokenizer(
            w, add_special_tokens=False)["input_ids"])) if self.unk_id in ids else ()
        words = self.to_tokens(ids)
        special = set(self.tokenizer.all_special_ids)
        first = next((i for i, token_id in enumerate(ids) if token_id not in special), None)
        if first is not None and words[first].startswith(CONTINUES):  # the text's first word has no space before it
            words[first] = words[first][len(CONTINUES):]
        return SourceWords(tuple(words), unknown, truncated_from, tuple(ids))
