"""Filling masks with an encoder-only model, one mask per step: the stepping class of the encoder-only kinds.

A sentence with one or more masks (``[MASK]``, or the tokenizer's own mask token) is encoded once; each step
predicts the first mask still open from the sentence as it stands (the masks before it filled in), records that
encoding's attention and the top-k words with their probabilities, and fills the mask with the best word, or with
the word the user chose (``step(force=word)``), so the next step reads the sentence with it.
Shapes: L layers, H heads, S tokens (special tokens included), V vocabulary.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol, cast

import numpy as np
import torch

from attnviz.core.decoding.stepping import Replaying
from attnviz.core.models.loaded import LoadedModel
from attnviz.core.results import DecodeStep, EncodedSource
from attnviz.core.text import RESERVED, Vocab, check_text_size, preprocess, tokenize, valid_text
from attnviz.i18n import tr

MASK, CLS, SEP = "[MASK]", "[CLS]", "[SEP]"  # attnviz's own BERT's reserved words (after the translators' four)


@dataclass(frozen=True)
class ReadSentence:
    """A sentence as an encoder-only model reads it: S tokens with its special ones, their ids, segment ids
    (0: the first sentence, 1: the second of a pair) and the words its vocabulary lacks (read as unknown)."""

    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    segments: tuple[int, ...]
    unknown: tuple[str, ...] = ()


@dataclass(frozen=True)
class Prediction:
    """One encoding: weights, scores (L, H, S, S) and the probabilities (V,) of every word at one position."""

    weights: np.ndarray
    scores: np.ndarray
    probs: np.ndarray


class MaskedLanguageModel(Protocol):
    """What :class:`FillMaskSession` drives: attnviz's own BERT (:class:`OwnMaskedLM`) or a Hugging Face one."""

    mask_token: str
    positions: int  # the most tokens it reads

    def read(self, text: str) -> ReadSentence: ...

    def predict(self, ids: tuple[int, ...], segments: tuple[int, ...], position: int) -> Prediction: ...

    def word(self, index: int) -> str: ...

    def word_id(self, word: str) -> int: ...

    def proposable(self, probs: np.ndarray) -> np.ndarray: ...


class OwnMaskedLM:
    """attnviz's small BERT (:class:`attnviz.core.models.encoder_only.EncoderOnly`) with its vocabulary: a sentence is
    preprocessed as the translators' English (lowercase, punctuation split off); ``[MASK]`` marks a word to guess
    and ``[SEP]`` starts the second sentence of a pair."""

    mask_token = MASK

    def __init__(self, loaded: LoadedModel, device: torch.device):
        self.vocab = cast(Vocab, loaded.src_vocab)
        self.model: Any = loaded.model.to(device).eval()
        self.device = device
        self.positions = int(loaded.config.max_len)
        self._reserved = np.array(sorted({*self.vocab.ids([*RESERVED, MASK, CLS, SEP])}))

    def read(self, text: str) -> ReadSentence:
        """``text`` as the model reads it; ValueError for more tokens than its positions (or over 64 KiB, refused
        before it is split); a byte that was not UTF-8 is read as U+FFFD (an unknown word)."""
        check_text_size(text)
        text = valid_text(text)
        words = [{"[mask]": MASK, "[sep]": SEP}.get(word, word) for word in tokenize(preprocess(text))]
        tokens = [CLS, *words]
        if tokens[-1] != SEP:
            tokens.append(SEP)
        if len(tokens) > self.positions:
            raise ValueError(tr("The sentence is {count} tokens long with {cls} and {sep}; this model reads at most "
                                "{most}.").format(count=len(tokens), cls=CLS, sep=SEP, most=self.positions))
        first_sep = tokens.index(SEP)
        segments = tuple(0 if i <= first_sep else 1 for i in range(len(tokens)))
        unknown = tuple(dict.fromkeys(w for w in words if w not in self.vocab))
        return ReadSentence(tuple(tokens), tuple(self.vocab.ids(tokens)), segments, unknown)

    @torch.inference_mode()
    def predict(self, ids: tuple[int, ...], segments: tuple[int, ...], position: int) -> Prediction:
        tokens = torch.tensor([ids], dtype=torch.long, device=self.device)
        encoding = self.model.encode(tokens, torch.tensor([segments], dtype=torch.long, device=self.device),
                                     torch.tensor([len(ids)], device=self.device))
        logits = self.model.mlm_logits(encoding.hidden, torch.tensor([[position]], device=self.device))[0, 0]
        return Prediction(encoding.weights[0].float().cpu().numpy(), encoding.scores[0].float().cpu().numpy(),
                          torch.softmax(logits.float(), dim=-1).cpu().numpy())

    def word(self, index: int) -> str:
        return self.vocab.tokens[index]

    def word_id(self, word: str) -> int:
        if word not in self.vocab or word in (MASK, CLS, SEP, *RESERVED):
            raise ValueError(tr("the model cannot fill in {word!r}: its vocabulary has no such word").format(word=word))
        return self.vocab.ids([word])[0]

    def proposable(self, probs: np.ndarray) -> np.ndarray:
        """``probs`` with the reserved tokens at 0: a mask is filled with a word, never with ``[SEP]``."""
        probs = probs.copy()
        probs[self._reserved] = 0
        return probs


class FillMaskSession(Replaying):
    """Fill the masks of one sentence step by step (the interface of
    :class:`attnviz.core.decoding.stepping.DecodeSession`).

    ``encode(text)``, then ``step()`` until ``finished``; ``step(force=word)`` fills the mask with ``word``.
    """

    def __init__(self, loaded: LoadedModel, device: torch.device | str = "cpu", beam_size: int = 1,
                 top_k: int = 5, record_attention: bool = True):
        self.loaded = loaded
        self.device = torch.device(device)
        self.top_k = top_k
        self.reader = self.reader_for(loaded, self.device)
        self.max_src_len = self.reader.positions  # (the longest sentence, its special tokens included)
        self.source: EncodedSource | None = None
        self.steps: list[DecodeStep] = []
        self.forced_tokens: list[str | None] = []
        self._read: ReadSentence | None = None
        self._ids: list[int] = []
        # The next step's encoding, made ahead (by encode, whose own pass is the first step's, or by prefetch):
        # the ids and mask position it read, the prediction, and the seconds it took.
        self._ahead: tuple[tuple[int, ...], int, Prediction, float] | None = None

    @staticmethod
    def reader_for(loaded: LoadedModel, device: torch.device) -> MaskedLanguageModel:
        """The model behind the steps (a Hugging Face kind's stepping class gives its own)."""
        return OwnMaskedLM(loaded, device)

    def _open_masks(self) -> list[int]:
        """The positions of the masks still to fill, first first."""
        return [i for i, token in enumerate(self._current_tokens()) if token == self.reader.mask_token]

    def _current_tokens(self) -> tuple[str, ...]:
        assert self._read is not None
        return tuple(self.reader.word(i) if i != original else token
                     for i, original, token in zip(self._ids, self._read.ids, self._read.tokens, strict=True))

    @property
    def finished(self) -> bool:
        """No mask is left to fill (or there was none)."""
        return self._read is not None and not self._open_masks()

    def encode(self, text: str) -> EncodedSource:
        """Read and encode ``text``; resets the steps. ValueError for an empty or too long sentence."""
        if not text.strip():
            raise ValueError(tr("there is nothing to read: the sentence is empty"))
        read = self.reader.read(text)
        self._read, self._ids = read, list(read.ids)
        self.steps, self.forced_tokens = [], []
        first = self._open_masks()
        started = time.perf_counter()
        encoded = self.reader.predict(read.ids, read.segments, first[0] if first else 0)
        self._ahead = (tuple(read.ids), first[0], encoded, time.perf_counter() - started) if first else None
        self.source = EncodedSource(text, read.tokens, read.unknown, None, encoded.weights, encoded.scores,
                                    np.ones(len(read.tokens), dtype=bool), layout=self.loaded.layout, ids=read.ids,
                                    segments=np.array(read.segments), layer_notes=self.loaded.layer_notes,
                                    learned_sink=self.loaded.learned_sink)
        return self.source

    def step(self, force: str | None = None) -> DecodeStep:
        """Fill the first open mask (with ``force`` if given); ValueError when there is no mask to fill."""
        if self._read is None or self.source is None:
            raise RuntimeError("call encode(text) before step()")
        masks = self._open_masks()
        if not masks and not self.steps:
            raise ValueError(tr("There is no {mask} in the sentence: write {mask} in place of a word to see what "
                                "the model guesses there, e.g. “i {mask} to go home .”").format(
                mask=self.reader.mask_token))
        if not masks:
            raise ValueError(tr("There is no {mask} left to fill: write {mask} in place of a word to see what the "
                                "model guesses there.").format(mask=self.reader.mask_token))
        started = time.perf_counter()
        position = masks[0]
        forced_id = None if force is None else self.reader.word_id(force)
        query_tokens, query_ids = self._current_tokens(), tuple(self._ids)
        predicted, ahead_seconds = self._predicted(query_ids, position)
        probs = self.reader.proposable(predicted.probs)
        top = np.argpartition(-probs, min(self.top_k, probs.size - 1))[: self.top_k]  # (not a sort of the vocabulary)
        best = top[np.argsort(-probs[top], kind="stable")]
        chosen = int(best[0]) if forced_id is None else forced_id
        self._ids[position] = chosen
        filled = self._current_tokens()
        size = len(query_tokens)
        layers, heads = predicted.weights.shape[:2]
        step = DecodeStep(
            index=len(self.steps), token=self.reader.word(chosen), finished=len(masks) == 1,
            output_tokens=filled, query_tokens=query_tokens,
            topk_tokens=tuple(self.reader.word(int(i)) for i in best), topk_probs=probs[best].astype(np.float32),
            cross_weights=np.zeros((layers, heads, 0, size), np.float32),
            cross_scores=np.zeros((layers, heads, 0, size), np.float32),
            self_weights=predicted.weights, self_scores=predicted.scores,
            causal_mask=np.ones((size, size), bool), beams=(), seconds=ahead_seconds + time.perf_counter() - started,
            forced=forced_id is not None, focus=position, query_ids=query_ids)
        self.steps.append(step)
        self.forced_tokens.append(force)
        return step

    def _predicted(self, ids: tuple[int, ...], position: int) -> tuple[Prediction, float]:
        """The encoding of ``ids`` with the mask at ``position`` predicted, and the seconds it took when it was made
        ahead (0 when it is made now: the caller's clock counts it)."""
        assert self._read is not None
        ahead, self._ahead = self._ahead, None
        if ahead is not None and ahead[0] == ids and ahead[1] == position:
            return ahead[2], ahead[3]
        return self.reader.predict(ids, self._read.segments, position), 0.0

    def prefetch(self) -> None:
        """Encode the sentence as the next step will read it (its masks filled so far), ahead of time (the app
        does it while the user looks at the last step), so that :meth:`step` returns at once. The step is the same
        whichever word the user then chooses: the choice only fills the mask after the encoding."""
        masks = self._open_masks() if self._read is not None else []
        if self._read is None or not masks:
            return
        ids = tuple(self._ids)
        if self._ahead is not None and self._ahead[:2] == (ids, masks[0]):
            return
        started = time.perf_counter()
        predicted = self.reader.predict(ids, self._read.segments, masks[0])
        self._ahead = (ids, masks[0], predicted, time.perf_counter() - started)

    def target_id(self, token: str) -> int:
        return self.reader.word_id(token)
