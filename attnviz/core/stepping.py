"""Step-wise decoding for the GUI and the CLI: encode once, then one token per :meth:`step`.

Results are frozen dataclasses of numpy arrays (no torch tensor leaves this module), so a GUI can
draw them on any thread. Greedy decoding is beam search with beam size 1.
Shapes: L layers, H heads, S source tokens, T decoded steps so far, k top-k size.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from attnviz.core.attention import Attended
from attnviz.core.checkpoint import LoadedModel
from attnviz.core.decoding import DecoderState, StepAttention, start, step
from attnviz.core.masking import causal_mask
from attnviz.core.results import Beam, DecodeStep, EncodedSource
from attnviz.core.text import BOS, EOS, preprocess, tokenize

LENGTH_PENALTY = 0.75  # beam scores are log P / T^α (d2l §10.8)


@dataclass
class _Hypothesis:
    ids: list[int]
    log_prob: float
    finished: bool = False
    rows: list[_Row] = field(default_factory=list)  # per step (empty when attention is not recorded)
    top: tuple[list[int], list[float]] = ([], [])

    def score(self) -> float:
        return self.log_prob / max(len(self.ids), 1) ** LENGTH_PENALTY


@dataclass(frozen=True)
class _Row:
    """One step's attention for one hypothesis, newest query row only, as numpy: cross (L, H, S),
    self (L, H, t) or None (RNN)."""

    cross_weights: np.ndarray
    cross_scores: np.ndarray
    self_weights: np.ndarray | None
    self_scores: np.ndarray | None


def _rows_per_beam(att: StepAttention | None, beams: int) -> list[_Row | None]:
    """Split a step's batched attention (B, L, H, K) into per-beam numpy rows: one device→host copy
    per array per step, so recording a step costs the same at step 30 as at step 1."""
    if att is None:
        return [None] * beams

    def host(tensor: torch.Tensor | None) -> np.ndarray | None:
        return None if tensor is None else tensor.float().cpu().numpy()

    cw, cs, sw, ss = host(att.cross_weights), host(att.cross_scores), host(att.self_weights), host(att.self_scores)
    assert cw is not None and cs is not None
    return [_Row(cw[i], cs[i], None if sw is None else sw[i], None if ss is None else ss[i]) for i in range(beams)]


def _numpy_stack(rows: list[np.ndarray], width: int | None = None) -> np.ndarray:
    """Rows (L, H, K_t) with growing K_t -> (L, H, T, width), zero-padded on the right."""
    if not rows:
        return np.zeros((0, 0, 0, width or 0), dtype=np.float32)
    width = width or max(r.shape[-1] for r in rows)
    out = np.zeros((*rows[0].shape[:2], len(rows), width), dtype=np.float32)
    for t, row in enumerate(rows):
        out[:, :, t, : row.shape[-1]] = row
    return out


def _layers_heads(atts: list[Attended]) -> tuple[np.ndarray, np.ndarray]:
    """Per-layer (1, H, S, S) -> (L, H, S, S) numpy weights and scores."""
    weights = torch.stack([a.weights[0] for a in atts]).float().cpu().numpy()
    scores = torch.stack([a.scores[0] for a in atts if a.scores is not None]).float().cpu().numpy()
    return weights, scores


class DecodeSession:
    """Decode one sentence step by step with a loaded translation model.

    ``encode(text)`` once, then ``step()`` until ``finished``. ``beam_size`` 1 is greedy decoding.
    """

    def __init__(self, loaded: LoadedModel, device: torch.device | str = "cpu", beam_size: int = 1,
                 top_k: int = 5, record_attention: bool = True):
        """record_attention: False skips the attention maps (the steps' attention arrays are empty)
        for callers that want only the translation (``attnviz translate`` / ``eval``): faster."""
        if not loaded.is_translation or loaded.src_vocab is None or loaded.tgt_vocab is None:
            raise ValueError(f"{loaded.kind} is not a translation model")
        if beam_size < 1:
            raise ValueError(f"beam size must be at least 1, got {beam_size}")
        self.loaded = loaded
        self.device = torch.device(device)
        self.model = loaded.model.to(self.device).eval()
        self.src_vocab, self.tgt_vocab = loaded.src_vocab, loaded.tgt_vocab
        self.beam_size, self.top_k = beam_size, top_k
        self.record_attention = record_attention
        self.max_src_len: int = loaded.config.max_src_len
        self.max_tgt_len: int = loaded.config.max_tgt_len
        self.source: EncodedSource | None = None
        self.steps: list[DecodeStep] = []
        self._state: DecoderState | None = None
        self._hyps: list[_Hypothesis] = []

    @property
    def finished(self) -> bool:
        return bool(self.steps) and self.steps[-1].finished

    @torch.inference_mode()
    def encode(self, text: str) -> EncodedSource:
        """Tokenize, truncate to the model's limit, encode; resets any decoding in progress."""
        started = time.perf_counter()
        words = tokenize(preprocess(text))
        if not words:
            raise ValueError("there is nothing to translate: the sentence is empty")
        truncated_from = len(words) if len(words) > self.max_src_len else None
        words = words[: self.max_src_len]
        unknown = tuple(dict.fromkeys(w for w in words if w not in self.src_vocab))
        ids = torch.tensor([self.src_vocab.ids(words)], device=self.device)
        valid = torch.tensor([len(words)], device=self.device)
        state, enc_atts = start(self.model, ids, valid, need_attention=self.record_attention)
        enc_w, enc_s = _layers_heads(enc_atts) if enc_atts and self.record_attention else (None, None)
        self._state = state
        self._hyps = [_Hypothesis([], 0.0)]
        self.steps = []
        self.source = EncodedSource(text, tuple(words), unknown, truncated_from, enc_w, enc_s,
                                    np.ones(len(words), dtype=bool), time.perf_counter() - started)
        return self.source

    @torch.inference_mode()
    def step(self) -> DecodeStep:
        """Decode one more token (for every live beam); raises RuntimeError when already finished."""
        if self._state is None or self.source is None:
            raise RuntimeError("call encode(text) before step()")
        if self.finished:
            raise RuntimeError("decoding has already finished")
        started = time.perf_counter()
        alive = [h for h in self._hyps if not h.finished]
        done = [h for h in self._hyps if h.finished]
        last = torch.tensor([h.ids[-1] if h.ids else self.tgt_vocab.bos_id for h in alive], device=self.device)
        log_probs, state, att = step(self.model, last, self._state, need_attention=self.record_attention)
        rows = _rows_per_beam(att, len(alive))
        top_p, top_i = log_probs.exp().topk(min(self.top_k, log_probs.shape[-1]), dim=-1)
        totals = log_probs + torch.tensor([h.log_prob for h in alive], device=self.device)[:, None]
        cand_scores, cand_index = totals.flatten().topk(min(self.beam_size, totals.numel()))
        vocab_size = log_probs.shape[-1]
        new_hyps, keep = [], []
        for score, flat in zip(cand_scores.tolist(), cand_index.tolist(), strict=True):
            parent, token = divmod(flat, vocab_size)
            src = alive[parent]
            hyp = _Hypothesis([*src.ids, token], score, token == self.tgt_vocab.eos_id,
                              [*src.rows, *filter(None, [rows[parent]])],
                              (top_i[parent].tolist(), top_p[parent].tolist()))
            new_hyps.append(hyp)
            keep.append(parent)
        hyps = sorted(done + new_hyps, key=lambda h: h.score(), reverse=True)[: self.beam_size]
        live_new = [h for h in hyps if not h.finished]
        if live_new:  # reorder the cache so row i belongs to the i-th live hypothesis
            index = torch.tensor([keep[new_hyps.index(h)] for h in live_new], device=self.device)
            self._state = state.reorder(index)
        self._hyps = hyps
        best = hyps[0]
        at_limit = len(self.steps) + 1 >= self.max_tgt_len
        finished = all(h.finished for h in hyps) or at_limit
        decode_step = self._describe(best, finished, time.perf_counter() - started)
        self.steps.append(decode_step)
        return decode_step

    def run(self) -> list[DecodeStep]:
        """Step until finished; returns all steps."""
        while not self.finished:
            self.step()
        return self.steps

    def translation(self) -> str:
        """The best hypothesis so far, as preprocessed text."""
        return " ".join(self.steps[-1].output_tokens) if self.steps else ""

    def _describe(self, best: _Hypothesis, finished: bool, seconds: float) -> DecodeStep:
        vocab = self.tgt_vocab
        tokens = vocab.to_tokens(best.ids)
        output = tuple(t for t in tokens if t != EOS)
        t = len(best.ids)
        source_len = len(self.source.tokens) if self.source else 0
        self_w = self_s = None
        if best.rows and best.rows[0].self_weights is not None:
            self_w = _numpy_stack([r.self_weights for r in best.rows if r.self_weights is not None], t)
            self_s = _numpy_stack([r.self_scores for r in best.rows if r.self_scores is not None], t)
        top_ids, top_probs = best.top
        return DecodeStep(
            index=len(self.steps), token=tokens[-1], finished=finished, output_tokens=output,
            query_tokens=(BOS, *tokens[:-1]), topk_tokens=tuple(vocab.to_tokens(top_ids)),
            topk_probs=np.asarray(top_probs, dtype=np.float32),
            cross_weights=_numpy_stack([r.cross_weights for r in best.rows], source_len),
            cross_scores=_numpy_stack([r.cross_scores for r in best.rows], source_len),
            # (with record_attention off, the rows are empty and so are these arrays)
            self_weights=self_w, self_scores=self_s,
            padding_mask=np.ones(source_len, dtype=bool), causal_mask=causal_mask(t).numpy(),
            beams=tuple(Beam(tuple(vocab.to_tokens(h.ids)), h.log_prob, h.finished) for h in self._hyps),
            seconds=seconds)
