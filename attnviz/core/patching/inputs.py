"""A minimal pair as a model reads it, and where its metric — logit(answer) − logit(alternative) — is read.

Three layouts, as the model says what it is (:class:`~attnviz.core.models.loaded.LoadedModel`'s layout):

- **translation** (attnviz's Transformer and decoder-only models, a Hugging Face encoder–decoder): the answers are
  target tokens. Both sides are translated greedily; the step read is the first where the clean translation writes
  the answer or the alternative (a model that writes "elle est fatigué" is read where it chose fatigué over
  fatiguée), else the first where the two translations part. The clean translation's tokens before that step are
  fed to both runs (teacher forcing), so the two runs differ only in their sources.
- **continuation** (a Hugging Face decoder-only folder: GPT-2, Llama, Qwen2): the next-token logits at the prompt's
  last position; answer and alternative are one token each of its tokenizer (with or without a space before them).
- **mask** (attnviz's small BERT, a Hugging Face encoder-only folder): the logits at the mask; both sides put it at
  the same position.

A pair's two sides must read as the same number of tokens (and, at a mask, with the mask at the same place): a pair
that does not is refused with its line, never aligned (:class:`~attnviz.core.patching.pairs.PairsError`).
Shapes: B rows, S source tokens, T target tokens fed, V the output vocabulary.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from attnviz.core.layout import Capability
from attnviz.core.patching.pairs import MinimalPair, PairsError
from attnviz.core.text import preprocess, source_words
from attnviz.i18n import tr


@dataclass(frozen=True)
class PreparedPair:
    """One pair ready to run: the model call's inputs for each side (tensors of one row each), the answer's and the
    alternative's ids, the clean side's tokens as read (the positions' labels: (S,), the residual grid's), and the
    target prefix fed before the
    step read (translation; else empty)."""

    pair: MinimalPair
    clean: tuple[Tensor, ...]
    corrupt: tuple[Tensor, ...]
    answer_id: int
    alternative_id: int
    tokens: tuple[str, ...]
    prefix: tuple[str, ...] = ()

    def rows(self, sides: Sequence[bool]) -> tuple[Tensor, ...]:
        """The call's inputs for a batch whose row r is the clean side where ``sides[r]``, else the corrupt one."""
        index = torch.tensor([0 if clean else 1 for clean in sides], device=self.clean[0].device)
        return tuple(torch.cat([c, k])[index] for c, k in zip(self.clean, self.corrupt, strict=True))


class Reader(ABC):
    """How a model's pairs are prepared and their logits read (one per layout)."""

    def __init__(self, loaded: Any, device: torch.device):
        self.loaded, self.device = loaded, device
        self.model = loaded.model
        self.skipped: list[tuple[MinimalPair, str]] = []  # pairs :meth:`prepare` left out, and why (not refused)

    @abstractmethod
    def prepare(self, pairs: Sequence[MinimalPair]) -> list[PreparedPair]:
        """The pairs as the model reads them, in order (PairsError naming the first that cannot be read; a pair the
        model gives no step to read is left out and listed in :attr:`skipped`)."""

    @abstractmethod
    def logits(self, inputs: tuple[Tensor, ...]) -> Tensor:
        """The logits (B, V) where the answers are read, for a batch of inputs (:meth:`PreparedPair.rows`)."""

    def batch_key(self, prepared: PreparedPair) -> tuple[Any, ...]:
        """What pairs batched into one call must share: their inputs' shapes (no row is padded)."""
        return tuple(tuple(part.shape) for part in prepared.clean)

    def output_layer(self) -> nn.Linear | None:
        """The layer that makes the logits from the last hidden states, where every logit is that layer's row of its
        token and nothing after it mixes the vocabulary (so it can compute the answers' rows alone); None: unknown."""
        return None

    def metric(self, prepared: PreparedPair, inputs: tuple[Tensor, ...]) -> Tensor:
        """logit(answer) − logit(alternative) (B,) of each row (float32 or wider)."""
        logits = self.logits(inputs)
        logits = logits.to(torch.promote_types(logits.dtype, torch.float32))
        return logits[:, prepared.answer_id] - logits[:, prepared.alternative_id]


def _same_length(pair: MinimalPair, clean: Sequence[int], corrupt: Sequence[int]) -> None:
    if len(clean) != len(corrupt):
        raise PairsError(tr("{where}the clean side reads as {clean} tokens and the corrupt side as {corrupt}: a pair's "
                            "two sides must read as the same number of tokens (attnviz does not align them)").format(
            where=pair.where(), clean=len(clean), corrupt=len(corrupt)))


def _row(ids: Sequence[int], device: torch.device) -> Tensor:
    return torch.tensor([list(ids)], dtype=torch.long, device=device)


class TranslationReader(Reader):
    """Target tokens at the step after the clean translation's shared prefix, teacher-forced (module docstring)."""

    def _target_id(self, pair: MinimalPair, word: str) -> int:
        vocab = self.loaded.tgt_vocab
        for form in dict.fromkeys((word, preprocess(word))):
            if form in vocab and vocab.ids([form])[0] not in (vocab.pad_id, vocab.unk_id, vocab.bos_id):
                return int(vocab.ids([form])[0])
        raise PairsError(tr("{where}{word!r} is not one token of the model's output vocabulary").format(
            where=pair.where(), word=word))

    def prepare(self, pairs: Sequence[MinimalPair]) -> list[PreparedPair]:
        from attnviz.core.decoding.beam_search import translate

        loaded = self.loaded
        src_vocab, tgt_vocab = loaded.src_vocab, loaded.tgt_vocab
        most = int(loaded.config.max_src_len)
        splits = []
        for pair in pairs:
            clean, corrupt = source_words(pair.clean, src_vocab, most), source_words(pair.corrupt, src_vocab, most)
            ids = [list(s.ids) if s.ids is not None else src_vocab.ids(s.words) for s in (clean, corrupt)]
            _same_length(pair, *ids)
            splits.append((clean, corrupt, ids))
        sides = [s for clean, corrupt, _ in splits for s in (clean, corrupt)]
        translations = translate(self.model, sides, src_vocab, tgt_vocab, self.device, beam_size=1)
        prepared = []
        for number, (pair, (clean, _, ids)) in enumerate(zip(pairs, splits, strict=True)):
            answer, alternative = self._target_id(pair, pair.answer), self._target_id(pair, pair.alternative)
            written, other = translations[2 * number], translations[2 * number + 1]
            either = {tgt_vocab.tokens[answer], tgt_vocab.tokens[alternative]}
            step = next((t for t, token in enumerate(written) if token in either), None)
            if step is None:
                step = next((t for t, (a, b) in enumerate(zip(written, other, strict=False)) if a != b),
                            None if len(written) == len(other) else min(len(written), len(other)))
            if step is None:
                self.skipped.append((pair, tr("{where}the model translates both sides alike ({translation!r}) and "
                                              "never writes {answer!r}: there is no step to read").format(
                    where=pair.where(), translation=" ".join(written), answer=pair.answer)))
                continue
            prefix = tuple(written[:step])
            target = _row([tgt_vocab.bos_id, *tgt_vocab.ids(list(prefix))], self.device)
            valid = torch.tensor([len(ids[0])], device=self.device)
            prepared.append(PreparedPair(pair, (_row(ids[0], self.device), valid, target),
                                         (_row(ids[1], self.device), valid, target), answer, alternative,
                                         tuple(clean.words), prefix))
        return prepared

    def logits(self, inputs: tuple[Tensor, ...]) -> Tensor:
        src, valid, target = inputs
        return self.model(src, valid, target)[:, -1]


class ContinuationReader(Reader):
    """The next-token logits at the prompt's last position (a decoder-only folder continuing English)."""

    def _token_id(self, pair: MinimalPair, word: str) -> int:
        tokenizer = self.loaded.src_vocab.tokenizer
        for form in (" " + word, word):
            ids = tokenizer(form, add_special_tokens=False)["input_ids"]
            if len(ids) == 1:
                return int(ids[0])
        raise PairsError(tr("{where}{word!r} is more than one token of this model's tokenizer").format(
            where=pair.where(), word=word))

    def prepare(self, pairs: Sequence[MinimalPair]) -> list[PreparedPair]:
        vocab = self.loaded.src_vocab
        most = int(self.loaded.config.max_src_len)
        prepared = []
        for pair in pairs:
            clean, corrupt = source_words(pair.clean, vocab, most), source_words(pair.corrupt, vocab, most)
            ids = [list(s.ids) if s.ids is not None else vocab.ids(s.words) for s in (clean, corrupt)]
            _same_length(pair, *ids)
            valid = torch.tensor([len(ids[0])], device=self.device)
            start = _row([self.loaded.tgt_vocab.pad_id], self.device)  # (not fed: the prompt's last position reads)
            prepared.append(PreparedPair(pair, (_row(ids[0], self.device), valid, start),
                                         (_row(ids[1], self.device), valid, start), self._token_id(pair, pair.answer),
                                         self._token_id(pair, pair.alternative), tuple(clean.words)))
        return prepared

    def logits(self, inputs: tuple[Tensor, ...]) -> Tensor:
        src, valid, start = inputs
        return self.model(src, valid, start)[:, -1]

    def output_layer(self) -> nn.Linear | None:
        """A causal language model's head (``lm_head``): the library returns its output as the logits (a decoder-only
        folder adds no bias over the vocabulary after it; Gemma 2's soft-capping is per logit)."""
        hf = getattr(self.model, "hf", None)
        layer = hf.get_output_embeddings() if hf is not None and hasattr(hf, "get_output_embeddings") else None
        return layer if isinstance(layer, nn.Linear) else None


class MaskReader(Reader):
    """The logits at the mask of an encoder-only model (attnviz's small BERT, a BERT-like folder)."""

    def __init__(self, loaded: Any, device: torch.device):
        super().__init__(loaded, device)
        self.reader = loaded.model_kind.stepping_cls.reader_for(loaded, device)
        self.position = 0

    def prepare(self, pairs: Sequence[MinimalPair]) -> list[PreparedPair]:
        prepared = []
        for pair in pairs:
            try:
                clean, corrupt = self.reader.read(pair.clean), self.reader.read(pair.corrupt)
                answer, alternative = self.reader.word_id(pair.answer), self.reader.word_id(pair.alternative)
            except ValueError as error:
                raise PairsError(f"{pair.where()}{error}") from None
            _same_length(pair, clean.ids, corrupt.ids)
            mask = self.reader.mask_token
            places = [i for i, token in enumerate(clean.tokens) if token == mask]
            if not places or places != [i for i, token in enumerate(corrupt.tokens) if token == mask]:
                raise PairsError(tr("{where}both sides need one {mask} at the same place: the answers are read "
                                    "there").format(where=pair.where(), mask=mask))
            segments = [_row(s.segments, self.device) for s in (clean, corrupt)]
            position = torch.tensor([places[0]], device=self.device)
            prepared.append(PreparedPair(pair, (_row(clean.ids, self.device), segments[0], position),
                                         (_row(corrupt.ids, self.device), segments[1], position), answer, alternative,
                                         tuple(clean.tokens)))
        return prepared

    def batch_key(self, prepared: PreparedPair) -> tuple[Any, ...]:
        """The inputs' shapes and the mask's position (one call reads one position)."""
        return (*super().batch_key(prepared), int(prepared.clean[2][0]))

    def logits(self, inputs: tuple[Tensor, ...]) -> Tensor:
        tokens, segments, position = inputs
        return self.model.masked_logits(tokens, segments, int(position[0]))


def reader_for(loaded: Any, device: torch.device) -> Reader:
    """The reader of ``loaded``'s layout; PairsError for a model that reads no text to patch (images, points)."""
    if loaded.offers(Capability.MASKS):
        return MaskReader(loaded, device)
    if loaded.offers(Capability.DECODER):
        return ContinuationReader(loaded, device) if loaded.shared_rows else TranslationReader(loaded, device)
    raise PairsError(tr("patching reads minimal pairs of sentences: this model reads no sentence"))
