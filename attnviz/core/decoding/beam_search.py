"""The one decode loop: beam search over a batch of sentences (beam size 1 is greedy decoding).

It drives any model with the decoder interface of :mod:`attnviz.core.models.translation`. The app steps it one
token at a time for one sentence (:mod:`attnviz.core.decoding.stepping`); ``attnviz translate`` / ``eval`` and
training's BLEU run :func:`translate` over many sentences at once, every live hypothesis of every
sentence in one model call per step.
Shapes: B sentences, k beam size, R live rows (≤ B·k), S source length, V target vocabulary,
L layers, H heads, t target positions so far.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from attnviz.core.decoding.hypothesis import AttentionRow, Hypothesis
from attnviz.core.decoding.search_rules import LibraryBeams, SearchRules, library_step
from attnviz.core.models.translation import DecoderState, StepAttention, TranslationModel
from attnviz.core.text import SourceWords, Vocab
from attnviz.i18n import tr


def _host_rows(att: StepAttention | None, count: int) -> list[AttentionRow | None]:
    """A step's batched attention (R, L, H, K) as per-row numpy: one device→host copy per array."""
    if att is None:
        return [None] * count

    def host(tensor: Tensor | None) -> np.ndarray | None:
        return None if tensor is None else tensor.float().cpu().numpy()

    cw, cs, sw, ss = host(att.cross_weights), host(att.cross_scores), host(att.self_weights), host(att.self_scores)
    assert cw is not None and cs is not None
    return [AttentionRow(cw[i], cs[i], None if sw is None else sw[i], None if ss is None else ss[i])
            for i in range(count)]


@dataclass(frozen=True)
class SearchPoint:
    """A :class:`BeamSearch` between two steps (see :meth:`BeamSearch.snapshot`)."""

    state: DecoderState
    hypotheses: list[list[Hypothesis]]
    done: list[bool]
    steps_taken: int
    library: list[LibraryBeams] = field(default_factory=list)


class BeamSearch:
    """Decode a batch of encoded sentences together, one token per :meth:`step`.

    Every sentence keeps at most ``beam_size`` hypotheses; each step extends the live ones, keeps the
    ``beam_size`` best extensions by log-probability, then ranks them with the finished ones by
    length-normalized score. A sentence ends when all its kept hypotheses have ended or after
    ``max_len`` steps. record_attention: keep each hypothesis's attention rows (the app);
    top_k: keep each hypothesis's next-token top-k (the app's table). <bos> and ``pad_id`` are never
    candidates (a barely trained model may rank them first): not chosen, not in the top-k, not forced;
    ``banned`` replaces that set where a model says otherwise (GPT-2's <bos> is its <eos>).
    A model with a ``search_rules(src, src_valid_lens, max_len, beam_size)`` method (a Hugging Face model)
    decodes by the rules it returns (:mod:`attnviz.core.decoding.search_rules`: its library's own).
    """

    def __init__(self, model: TranslationModel, src: Tensor, src_valid_lens: Tensor, *, bos_id: int, eos_id: int,
                 pad_id: int | None = None, beam_size: int = 1, max_len: int = 32, record_attention: bool = False,
                 top_k: int = 0, banned: Sequence[int] | None = None):
        if beam_size < 1:
            raise ValueError(f"beam size must be at least 1, got {beam_size}")
        self.model, self.bos_id, self.eos_id = model, bos_id, eos_id
        never = {bos_id} | ({pad_id} if pad_id is not None else set()) if banned is None else set(banned)
        self.never = sorted(never)  # token ids never decoded
        self.beam_size, self.max_len = beam_size, max_len
        self.record_attention, self.top_k = record_attention, top_k
        self.device = src.device
        self._never = torch.tensor(self.never, dtype=torch.long, device=self.device)
        self.state: DecoderState
        self.state, self.encoder_attention = model.start(src, src_valid_lens, need_attention=record_attention)
        make_rules = getattr(model, "search_rules", None)
        self.rules: SearchRules = make_rules(src, src_valid_lens, max_len, beam_size) if make_rules else SearchRules()
        self.ends = {eos_id, *self.rules.end_ids}  # the tokens that end a hypothesis
        self.hypotheses: list[list[Hypothesis]] = [[Hypothesis([], 0.0, penalty=self.rules.length_penalty)]
                                                   for _ in range(src.shape[0])]
        self.library = [LibraryBeams() for _ in range(src.shape[0])]  # (the library's rules only)
        self.done = [False] * src.shape[0]
        self.steps_taken = 0

    @property
    def finished(self) -> bool:
        return all(self.done)

    def best(self, sentence: int = 0) -> Hypothesis:
        return self.hypotheses[sentence][0]

    def snapshot(self) -> SearchPoint:
        """Where the search stands, to :meth:`restore` later (cheap: a step never changes a state or a
        hypothesis in place, it makes new ones)."""
        return SearchPoint(self.state, [list(hyps) for hyps in self.hypotheses], list(self.done), self.steps_taken,
                           [LibraryBeams(list(b.finished), b.improvable) for b in self.library])

    def restore(self, point: SearchPoint) -> None:
        """Go back to a :meth:`snapshot` of this search."""
        self.state, self.steps_taken = point.state, point.steps_taken
        self.hypotheses, self.done = [list(hyps) for hyps in point.hypotheses], list(point.done)
        self.library = [LibraryBeams(list(b.finished), b.improvable) for b in point.library]

    @torch.inference_mode()
    def step(self, force: int | None = None) -> None:
        """Decode one more token for every live hypothesis of every unfinished sentence.

        force: a token id that the best live hypothesis of sentence 0 must take (teacher forcing, one
        sentence): the search goes on from that one hypothesis, whatever its beams were.
        """
        if self.finished:
            raise RuntimeError("decoding has already finished")
        live = [(b, h) for b, hyps in enumerate(self.hypotheses) if not self.done[b] for h in hyps if not h.finished]
        state_in = self.state
        if force is not None:
            if force in self.never:
                raise ValueError(tr("token id {id} is never decoded (<bos>, <pad> or banned): it cannot be forced"
                                    ).format(id=force))
            if len(self.hypotheses) != 1:
                raise ValueError("a token can be forced only when decoding one sentence")
            if len(live) > 1:  # the best live hypothesis (they are kept ranked) is cache row 0
                state_in = self.state.reorder(torch.tensor([0], device=self.device))
            live = live[:1]
        last = torch.tensor([h.ids[-1] if h.ids else self.bos_id for _, h in live], device=self.device)
        log_probs, state, att = self.model.step(last, state_in, need_attention=self.record_attention)
        log_probs = self._processed(live, log_probs)  # (R, V)
        rows = _host_rows(att, len(live))
        top: list[tuple[list[int], list[float]]] = [([], [])] * len(live)
        if self.top_k:
            top_p, top_i = log_probs.exp().topk(min(self.top_k, log_probs.shape[-1] - len(self.never)), dim=-1)
            top = list(zip(top_i.tolist(), top_p.tolist(), strict=True))
        if force is not None:
            if not 0 <= force < log_probs.shape[-1]:
                raise ValueError(tr("token id {id} is outside the vocabulary of {count} tokens").format(
                    id=force, count=log_probs.shape[-1]))
            parent = live[0][1]
            forced = Hypothesis([*parent.ids, force], parent.log_prob + float(log_probs[0, force]),
                                force in self.ends, [*parent.rows, *filter(None, [rows[0]])], top[0],
                                self.rules.length_penalty)
            self.hypotheses[0] = [forced]
            self.library[0] = LibraryBeams()  # (decoding goes on from the forced hypothesis alone)
            self.done[0] = forced.finished or self.steps_taken + 1 >= self.max_len
            self.state = state
            self.steps_taken += 1
            return
        # Each sentence's live rows, padded to beam_size with -inf rows: one top-k for all sentences.
        sentences = sorted({b for b, _ in live})
        slot_of = {b: i for i, b in enumerate(sentences)}
        vocab = log_probs.shape[-1]
        totals = log_probs + torch.tensor([h.log_prob for _, h in live], device=self.device)[:, None]
        padded = torch.full((len(sentences), self.beam_size, vocab), float("-inf"), device=self.device)
        column: dict[int, int] = {}
        rows_index, cols_index = [], []
        for b, _ in live:
            rows_index.append(slot_of[b])
            cols_index.append(column.get(b, 0))
            column[b] = column.get(b, 0) + 1
        padded[rows_index, cols_index] = totals
        library = self.rules.library and self.beam_size > 1  # (greedy decoding is the same under both rules)
        # the library looks at (1 + the number of end tokens) × k candidates: 2k with one
        wanted = max(2, 1 + len(self.ends)) * self.beam_size if library else self.beam_size
        cand_scores, cand_index = padded.view(len(sentences), -1).topk(min(wanted, padded[0].numel()), dim=-1)
        first_row = {b: i for i, (b, _) in reversed(list(enumerate(live)))}
        at_limit = self.steps_taken + 1 >= self.max_len
        keep: list[int] = []
        for b, scores, indices in zip(sentences, cand_scores.tolist(), cand_index.tolist(), strict=True):
            extended: list[tuple[Hypothesis, int]] = []
            for score, flat in zip(scores, indices, strict=True):
                if score == float("-inf"):
                    break
                parent_column, token = divmod(flat, vocab)
                row = first_row[b] + parent_column
                parent = live[row][1]
                hyp = Hypothesis([*parent.ids, token], score, token in self.ends,
                                 [*parent.rows, *filter(None, [rows[row]])], top[row], self.rules.length_penalty)
                extended.append((hyp, row))
            if library:
                keep.extend(library_step(self, b, extended))
                continue
            parent_row = {id(hyp): row for hyp, row in extended}
            ended = [h for h in self.hypotheses[b] if h.finished]
            ranked = sorted(ended + [hyp for hyp, _ in extended], key=lambda h: h.score(), reverse=True)
            self.hypotheses[b] = ranked[: self.beam_size]
            self.done[b] = at_limit or all(h.finished for h in self.hypotheses[b])
            if not self.done[b]:  # the cache row of each kept live hypothesis, in order
                keep.extend(parent_row[id(h)] for h in self.hypotheses[b] if not h.finished)
        if keep == list(range(len(live))):  # every row kept in place (greedy decoding): no copy
            self.state = state
        elif keep:
            self.state = state.reorder(torch.tensor(keep, device=self.device))
        self.steps_taken += 1

    def _processed(self, live: list[tuple[int, Hypothesis]], scores: Tensor) -> Tensor:
        """The log-probabilities (R, V) a step decodes from: the model's own, or, for a model whose rules say its
        step gives raw logits, what its library makes of them — greedy decoding runs the processors on the
        logits and then normalises, beam search normalises first (as ``generate`` does each)."""
        rows, generated = [b for b, _ in live], [h.ids for _, h in live]
        process = self.rules.process or (lambda _rows, _ids, values: values)
        never = lambda values: values.index_fill(-1, self._never, float("-inf"))  # noqa: E731  (never decoded)
        if not self.rules.logits:
            return process(rows, generated, never(scores))  # the model's own values elsewhere
        if self.beam_size == 1:
            return never(torch.log_softmax(process(rows, generated, scores), dim=-1))
        return process(rows, generated, never(torch.log_softmax(scores, dim=-1)))

    def run(self) -> None:
        while not self.finished:
            self.step()


def encode_batch(sentences: Sequence[Sequence[str]], vocab: Vocab, *, add_bos: bool = False,
                 add_eos: bool = False) -> tuple[Tensor, Tensor]:
    """Token ids (B, T) padded with <pad> to the longest row, and valid lengths (B,)."""
    rows = [([vocab.bos_id] if add_bos else []) + vocab.ids(s) + ([vocab.eos_id] if add_eos else [])
            for s in sentences]
    return padded_rows(rows, vocab.pad_id)


def encode_sources(sources: Sequence[SourceWords], vocab: Vocab) -> tuple[Tensor, Tensor]:
    """Split sentences' ids (B, T) padded with <pad>, and valid lengths (B,): the tokenizer's own ids where
    it gave them (SourceWords.ids), else the vocabulary's ids of the words."""
    return padded_rows([list(s.ids) if s.ids is not None else vocab.ids(s.words) for s in sources], vocab.pad_id)


def padded_rows(rows: Sequence[Sequence[int]], pad_id: int) -> tuple[Tensor, Tensor]:
    """Rows of ids -> (B, T) padded with ``pad_id`` to the longest, and their lengths (B,)."""
    width = max(1, max((len(r) for r in rows), default=1))
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(row, dtype=torch.long)
    return ids, torch.tensor([len(r) for r in rows], dtype=torch.long)


@torch.inference_mode()
def translate(model: TranslationModel, sentences: Sequence[Sequence[str] | SourceWords], src_vocab: Vocab,
              tgt_vocab: Vocab, device: torch.device, *, beam_size: int = 1, max_len: int | None = None,
              rows_per_batch: int = 256, tokens_per_batch: int | None = None,
              notice: Callable[[str], object] | None = None) -> list[list[str]]:
    """Translations (target tokens, without <eos>) of tokenized, already truncated sentences (word lists, or
    :func:`~attnviz.core.text.source_words`' splits, which carry a subword tokenizer's own ids).

    Sentences are sorted by length and decoded ``rows_per_batch / beam_size`` at a time, and where
    ``tokens_per_batch`` is given no more than that many source tokens a batch (rows × beam × its longest
    sentence; a longer sentence alone). A batch that runs the device out of memory is decoded again at half the
    size, and the rest keep the halved size (``notice`` is told, once per halving); a lone sentence that does not
    fit raises the device's error. The translations do not depend on the batches (each row is decoded alone).
    """
    from attnviz.core.device import out_of_memory

    max_len = max_len or int(model.config.max_tgt_len)
    per_batch = max(1, rows_per_batch // beam_size)
    splits = [s if isinstance(s, SourceWords) else SourceWords(tuple(s), (), None) for s in sentences]
    order = [i for i in sorted(range(len(splits)), key=lambda i: len(splits[i].words)) if splits[i].words]
    results: list[list[str]] = [[] for _ in sentences]
    begin = 0
    while begin < len(order):
        end = begin + 1  # (sorted by length: each sentence added is the batch's longest)
        while end < len(order) and end - begin < per_batch and (
                tokens_per_batch is None or (end - begin + 1) * beam_size * len(splits[order[end]].words)
                <= tokens_per_batch):
            end += 1
        chunk = order[begin:end]
        try:
            outputs = _translate_batch(model, [splits[i] for i in chunk], src_vocab, tgt_vocab, device, beam_size,
                                       max_len)
        except (RuntimeError, MemoryError) as error:
            if not out_of_memory(error) or len(chunk) == 1:
                raise
            per_batch = max(1, len(chunk) // 2)
            tokens_per_batch = tokens_per_batch // 2 if tokens_per_batch is not None else None
            if device.type == "cuda":
                torch.cuda.empty_cache()
            if notice is not None:
                notice(tr("out of memory on {device}: batches of at most {rows} sentences from now on").format(
                    device=device, rows=per_batch))
            continue
        for i, output in zip(chunk, outputs, strict=True):
            results[i] = output
        begin = end
    return results


def _translate_batch(model: TranslationModel, batch: list[SourceWords], src_vocab: Vocab, tgt_vocab: Vocab,
                     device: torch.device, beam_size: int, max_len: int) -> list[list[str]]:
    """One batch's translations (target tokens without <eos>), in the batch's order."""
    src, valid = encode_sources(batch, src_vocab)
    search = BeamSearch(model, src.to(device), valid.to(device), bos_id=tgt_vocab.bos_id,
                        eos_id=tgt_vocab.eos_id, pad_id=tgt_vocab.pad_id, beam_size=beam_size, max_len=max_len,
                        banned=tgt_vocab.banned)
    search.run()
    outputs = []
    for b in range(len(batch)):
        ids = search.best(b).ids
        outputs.append(tgt_vocab.to_tokens(ids[:-1] if ids and ids[-1] in tgt_vocab.end_ids else ids))
    return outputs
