"""Step-wise decoding of one sentence for the app and ``attnviz export``: encode once, one token per step.

A thin layer over :class:`attnviz.core.decoding.beam_search.BeamSearch` (batch of one) that turns each step into a
frozen :class:`DecodeStep` of numpy arrays (no torch tensor leaves this module), so a GUI can draw it
on any thread. Greedy decoding is beam size 1.
Shapes: L layers, H heads, S source tokens, T decoded steps so far, k top-k size.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import cast

import numpy as np
import torch

from attnviz.core.attention.row_stack import RowStacks, stack_rows
from attnviz.core.decoding.beam_search import BeamSearch, SearchPoint, encode_sources
from attnviz.core.decoding.hypothesis import Hypothesis
from attnviz.core.layout import Capability
from attnviz.core.limits import MAX_BEAM
from attnviz.core.models.loaded import LoadedModel
from attnviz.core.models.translation import TranslationModel
from attnviz.core.results import BatchDecoding, Beam, Comparison, DecodeStep, EncodedSource
from attnviz.core.text import BOS, PAD, SourceWords, Vocab, source_words
from attnviz.i18n import tr


class Replaying(ABC):
    """What every stepping class shares: walking back by replaying its steps, and running to the end. The class
    has ``source``, ``steps``, ``forced_tokens`` (per step: the token the user forced, or None), ``finished``,
    ``encode(text)`` and ``step(force)``."""

    source: EncodedSource | None
    steps: list[DecodeStep]
    forced_tokens: list[str | None]

    @property
    @abstractmethod
    def finished(self) -> bool: ...

    @abstractmethod
    def encode(self, text: str) -> EncodedSource: ...

    @abstractmethod
    def step(self, force: str | None = None) -> DecodeStep: ...

    def rewind(self, count: int) -> None:
        """Go back to the first ``count`` steps: the sentence is encoded again and those steps replayed,
        with the same forced tokens (the same numbers: decoding is deterministic)."""
        if self.source is None or count >= len(self.steps):
            return
        kept = self.forced_tokens[:count]
        self.encode(self.source.text)
        for token in kept:
            self.step(token)

    def run(self) -> list[DecodeStep]:
        """Step until finished; returns all steps."""
        while not self.finished:
            self.step()
        return self.steps


class DecodeSession(Replaying):
    """Decode one sentence step by step with a loaded translation model.

    ``encode(text)`` once, then ``step()`` until ``finished``. record_attention False skips the
    attention maps (the steps' attention arrays are then empty).
    """

    def __init__(self, loaded: LoadedModel, device: torch.device | str = "cpu", beam_size: int = 1,
                 top_k: int = 5, record_attention: bool = True):
        if not loaded.offers(Capability.DECODER) or loaded.src_vocab is None or loaded.tgt_vocab is None:
            raise ValueError(tr("{kind} is not a translation model").format(kind=loaded.kind))
        if not 1 <= beam_size <= MAX_BEAM:
            raise ValueError(tr("beam size must be from 1 to {most}, got {size}").format(most=MAX_BEAM, size=beam_size))
        self.loaded = loaded
        self.device = torch.device(device)
        self.model = cast(TranslationModel, loaded.model.to(self.device).eval())
        self.src_vocab, self.tgt_vocab = loaded.src_vocab, loaded.tgt_vocab
        self.beam_size, self.top_k = beam_size, top_k
        self.record_attention = record_attention
        self.max_src_len: int = loaded.config.max_src_len
        self.max_tgt_len: int = loaded.config.max_tgt_len
        self.source: EncodedSource | None = None
        self.steps: list[DecodeStep] = []
        self.forced_tokens: list[str | None] = []  # per step: the token the user forced, or None
        self._search: BeamSearch | None = None
        self._stacks = RowStacks(self.max_tgt_len)  # the steps' maps share memory (core/row_stack.py)
        # The next step decoded ahead of time (prefetch): it, the search before it, and the length limit
        # it was decoded under; step() takes it unless the user forces a token there.
        self._ahead: tuple[DecodeStep, SearchPoint, int] | None = None

    @property
    def finished(self) -> bool:
        return bool(self.steps) and self.steps[-1].finished

    @torch.inference_mode()
    def encode(self, text: str) -> EncodedSource:
        """Tokenize, truncate to the model's limit, encode; resets any decoding in progress."""
        source = source_words(text, self.src_vocab, self.max_src_len)
        if not source.words:
            raise ValueError(tr("there is nothing to translate: the sentence is empty"))
        src, valid = encode_sources([source], self.src_vocab)
        self._search = BeamSearch(self.model, src.to(self.device), valid.to(self.device),
                                  bos_id=self.tgt_vocab.bos_id, eos_id=self.tgt_vocab.eos_id,
                                  pad_id=self.tgt_vocab.pad_id, beam_size=self.beam_size, max_len=self.max_tgt_len,
                                  record_attention=self.record_attention, top_k=self.top_k,
                                  banned=self.tgt_vocab.banned)
        encoder = self._search.encoder_attention
        self._ahead = None
        self._stacks = RowStacks(self.max_tgt_len)
        self.steps = []
        self.forced_tokens = []
        self.source = EncodedSource(
            text, source.words, source.unknown, source.truncated_from,
            None if encoder is None else encoder.weights[0].float().cpu().numpy(),
            None if encoder is None else encoder.scores[0].float().cpu().numpy(),
            np.ones(len(source.words), dtype=bool), layout=self.loaded.layout, ids=source.ids,
            layer_notes=self.loaded.layer_notes, learned_sink=self.loaded.learned_sink)
        return self.source

    def step(self, force: str | None = None) -> DecodeStep:
        """Decode one more token (for every live beam); raises RuntimeError when already finished.

        force: a target token the decoder must take at this step instead of its own choice (ValueError if
        the model's vocabulary lacks it); with beam search, decoding goes on from that one hypothesis.
        """
        if self._search is None or self.source is None:
            raise RuntimeError("call encode(text) before step()")
        if self.finished:
            raise RuntimeError("decoding has already finished")
        forced_id = None if force is None else self.target_id(force)
        if self._ahead is not None:
            ahead, before, max_len = self._ahead
            self._ahead = None
            if forced_id is None and max_len == self.max_tgt_len:
                return self._record(ahead, None)
            self._search.restore(before)  # the user forces another token (or the limit changed): step again
        return self._record(self._decode_step(forced_id), force)

    @torch.inference_mode()
    def prefetch(self) -> None:
        """Decode the next step ahead of time (the app does it while the user looks at the last one), so
        that :meth:`step` without a forced token returns it at once. The steps recorded do not change."""
        if self._search is None or self.finished or self._ahead is not None:
            return
        before = self._search.snapshot()
        try:
            self._ahead = (self._decode_step(None), before, self.max_tgt_len)
        except BaseException:
            self._search.restore(before)  # a step that failed half-way must not be where Step goes on from
            raise

    def _decode_step(self, forced_id: int | None) -> DecodeStep:
        assert self._search is not None
        started = time.perf_counter()
        self._search.max_len = self.max_tgt_len
        self._search.step(forced_id)
        return self._describe(self._search.hypotheses[0], self._search.finished,
                              time.perf_counter() - started, forced_id is not None)

    def _record(self, decode_step: DecodeStep, force: str | None) -> DecodeStep:
        self.steps.append(decode_step)
        self.forced_tokens.append(force)
        return decode_step

    def target_id(self, token: str) -> int:
        """The id of a target token; ValueError naming it when the model's vocabulary lacks it."""
        if token not in self.tgt_vocab or token in (PAD, BOS):
            raise ValueError(tr("the model cannot say {token!r}: its target vocabulary has no such token").format(
                token=token))
        return self.tgt_vocab.ids([token])[0]

    def translation(self) -> str:
        """The best hypothesis so far, as preprocessed text."""
        return " ".join(self.steps[-1].output_tokens) if self.steps else ""

    def _describe(self, hyps: list[Hypothesis], finished: bool, seconds: float, forced: bool) -> DecodeStep:
        source_len = len(self.source.tokens) if self.source else 0
        self._stacks.max_rows = self.max_tgt_len
        return describe_step(hyps, finished, seconds, len(self.steps), source_len, self.tgt_vocab, forced,
                             self._stacks, first_query(self.loaded, self.source))


def first_query(loaded: LoadedModel, source: EncodedSource | SourceWords | None) -> str:
    """The query token of the first step: the decoder's start token (<bos>), or, for a model whose prompt's
    last token predicts the first new one (a Hugging Face decoder-only model), that token."""
    words = source.tokens if isinstance(source, EncodedSource) else source.words if source else ()
    return loaded.first_query(words)


def describe_step(hyps: list[Hypothesis], finished: bool, seconds: float, index: int, source_len: int,
                  vocab: Vocab, forced: bool = False, stacks: RowStacks | None = None, first: str = BOS) -> DecodeStep:
    """The frozen numpy view of a search step: its best hypothesis ``hyps[0]`` and all of its beams.
    forced: the user forced this step's token. stacks: share the maps' memory with the decoding's earlier
    steps (their arrays are then read-only views); None: new arrays. first: the first step's query token."""
    best = hyps[0]

    def stack(name: str, rows: list[np.ndarray], width: int, grows: bool = False) -> np.ndarray:
        return stack_rows(rows, width) if stacks is None else stacks.stack(name, rows, width, grows)

    tokens = vocab.to_tokens(best.ids)
    t = len(best.ids)
    self_w = self_s = None
    width = t  # the keys of the newest self-attention row: the t target positions (S + t for decoder-only)
    newest = best.rows[-1].self_weights if best.rows else None
    if newest is not None:
        width = newest.shape[-1]
        self_w = stack("self_weights", [r.self_weights for r in best.rows if r.self_weights is not None], width, True)
        self_s = stack("self_scores", [r.self_scores for r in best.rows if r.self_scores is not None], width, True)
    top_ids, top_probs = best.top
    return DecodeStep(
        index=index, token=tokens[-1], finished=finished,
        output_tokens=tuple(vocab.to_tokens(i for i in best.ids if i not in vocab.end_ids)),
        query_tokens=(first, *tokens[:-1]), topk_tokens=tuple(vocab.to_tokens(top_ids)),
        topk_probs=np.asarray(top_probs, dtype=np.float32),
        # (with record_attention off, the rows are empty and so are these arrays)
        cross_weights=stack("cross_weights", [r.cross_weights for r in best.rows], source_len),
        cross_scores=stack("cross_scores", [r.cross_scores for r in best.rows], source_len),
        self_weights=self_w, self_scores=self_s, causal_mask=np.tri(t, width, width - t, dtype=bool),
        beams=tuple(Beam(tuple(vocab.to_tokens(h.ids)), h.log_prob, h.finished,
                         stack_rows([r.cross_weights for r in h.rows], source_len) if len(hyps) > 1 else None,
                         h.penalty)
                    for h in hyps),
        seconds=seconds, forced=forced)


@torch.inference_mode()
def decode_together(loaded: LoadedModel, texts: Sequence[str], device: torch.device | str = "cpu") -> BatchDecoding:
    """Greedy-decode ``texts`` as one batch, padded to the longest with <pad> as in training, recording
    every attention map. Each sentence's numbers equal those of decoding it alone: its valid length
    masks the padding out of every softmax (d2l's masked softmax), so padded keys get weight 0. A
    decoder-only model pads on the left (its maps come in that layout), the others on the right."""
    if not loaded.offers(Capability.DECODER) or loaded.src_vocab is None or loaded.tgt_vocab is None:
        raise ValueError(tr("{kind} is not a translation model").format(kind=loaded.kind))
    device = torch.device(device)
    model = cast(TranslationModel, loaded.model.to(device).eval())
    sources = [source_words(text, loaded.src_vocab, loaded.config.max_src_len) for text in texts]
    if not sources or any(not source.words for source in sources):
        raise ValueError(tr("every sentence of a batch needs at least one word"))
    src, valid = encode_sources(sources, loaded.src_vocab)
    started = time.perf_counter()
    search = BeamSearch(model, src.to(device), valid.to(device), bos_id=loaded.tgt_vocab.bos_id,
                        eos_id=loaded.tgt_vocab.eos_id, pad_id=loaded.tgt_vocab.pad_id,
                        max_len=loaded.config.max_tgt_len, record_attention=True, banned=loaded.tgt_vocab.banned)
    search.run()
    seconds = time.perf_counter() - started
    width = src.shape[1]
    encoder = search.encoder_attention
    encoded, steps = [], []
    left = loaded.layout.pads_left
    for b, (text, source) in enumerate(zip(texts, sources, strict=True)):
        padding = (PAD,) * (width - len(source.words))
        tokens = (*padding, *source.words) if left else (*source.words, *padding)
        real = np.arange(width) >= len(padding) if left else np.arange(width) < len(source.words)
        encoded.append(EncodedSource(
            text, tokens, source.unknown, source.truncated_from,
            None if encoder is None else encoder.weights[b].float().cpu().numpy(),
            None if encoder is None else encoder.scores[b].float().cpu().numpy(), real, layout=loaded.layout,
            ids=None if source.ids is None else _padded_ids(source.ids, len(padding), loaded.src_vocab.pad_id, left),
            layer_notes=loaded.layer_notes, learned_sink=loaded.learned_sink))
        hyp = search.best(b)
        steps.append(describe_step([hyp], True, seconds, len(hyp.ids) - 1, width, loaded.tgt_vocab,
                                   first=first_query(loaded, source)))
    return BatchDecoding(tuple(encoded), tuple(steps))


def _padded_ids(ids: Sequence[int], pads: int, pad_id: int, left: bool) -> tuple[int, ...]:
    """A batch row's ids with ``pads`` padding ids on the left (decoder-only) or the right."""
    return (*([pad_id] * pads), *ids) if left else (*ids, *([pad_id] * pads))


def output_with_end(step: DecodeStep | None) -> tuple[str, ...]:
    """The tokens a decoding has output up to ``step``, ``<eos>`` included when it ended there."""
    return () if step is None else (*step.output_tokens, *((step.token,) if step.ended else ()))


def forced_comparison(other: LoadedModel, text: str, target: Sequence[str],
                      own_translation: tuple[str, ...] | None = None) -> Comparison:
    """``other`` on the sentence ``text``: its own greedy translation (``own_translation`` when already known)
    and its decoding forced to take ``target`` (the first model's output: :func:`output_with_end`),
    so that the two models' attention rows are the same queries. A token ``other`` does not know is forced
    as its unknown token; its own length limit may end the forced decoding early. An encoder-only model fills
    the sentence's masks: ``target`` is then the first model's fills, one word per step (its own translation:
    the sentence as it fills it by itself)."""
    decoding: Replaying = other.model_kind.stepping_cls(other, other.device)
    if own_translation is None:
        decoding.encode(text)
        ran = decoding.run()
        own_translation = ran[-1].output_tokens if ran else ()
    compared = decoding.encode(text)
    for token in target:
        if decoding.finished:  # its own length limit (max_tgt_len) is shorter than this output
            break
        vocab = other.tgt_vocab
        assert vocab is not None
        decoding.step(token if token in vocab else vocab.tokens[vocab.unk_id])
    return Comparison(other.name, other.kind, compared, own_translation, tuple(target),
                      tuple(decoding.steps))
