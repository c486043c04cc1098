"""Explain one decoded step: one row per method over the source tokens, and how far the methods agree.

:func:`explain_step` is what the Explain dock's worker and ``attnviz explain`` call. Methods (names in
:data:`METHODS`): the raw attention of a layer (a head, or the heads' mean), rollout, attention flow,
norm-based attention (‖Σ_h α_hj f_h(x_j)‖, or one head's α_hj ‖f_h(x_j)‖), gradient × input (through the attention
weights, and with them detached as Jain & Wallace 2019 take it), integrated gradients, and occlusion (token replaced
by ``<unk>``) and leave-one-out (token removed). Gradient × input, integrated gradients, occlusion and leave-one-out
are signed (a drop in the explained log-probability; the corpus tally also ranks their magnitudes); the attention-based
rows are never negative, and so is ``leave_one_out_tvd``, Jain & Wallace's leave-one-out: the total variation distance
between the next-token distributions with and without the token (a translation step's only: a masked position would
move). Attention rows are
the newest query's (the position predicting ``token``) over the source tokens; for a decoder-only model the
source columns of its one self-attention. Rows keep their own units (weights, flows, log-probability drops);
the agreement compares ranks only. Shapes: M methods, S source tokens, L layers.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from attnviz.core.decoding.fill_mask import CLS, MASK, SEP
from attnviz.core.heads.sinks import FIRST, SinkSums, key_classes
from attnviz.core.layout import Capability
from attnviz.core.models.loaded import LoadedModel

from .agreement import agreement_matrices
from .attribution import (
    DEFAULT_IG_STEPS,
    Completeness,
    Explained,
    MaskedLogProb,
    TokenLogProb,
    attention_detached,
    gradient_x_input,
    integrated_gradients,
    occlusion,
)
from .internals import StepInternals, step_internals

ATTENTION, ROLLOUT, FLOW, NORM = "attention", "rollout", "flow", "norm"
GRAD_X_INPUT, INTEGRATED_GRADIENTS, OCCLUSION, LEAVE_ONE_OUT = "grad_x_input", "ig", "occlusion", "leave_one_out"
GRAD_DETACHED = "grad_x_input_detached"  # gradient × input with the attention weights held constant (Jain & Wallace)
LEAVE_ONE_OUT_TVD = "leave_one_out_tvd"  # the output distribution's total variation distance (Jain & Wallace)
METHODS = (ATTENTION, ROLLOUT, FLOW, NORM, GRAD_X_INPUT, GRAD_DETACHED, INTEGRATED_GRADIENTS, OCCLUSION,
           LEAVE_ONE_OUT, LEAVE_ONE_OUT_TVD)
LAYERED = (ATTENTION, ROLLOUT, FLOW, NORM)  # the methods with a row after every layer
SINK_CLASSES = ("<eos>", "<bos>", "punctuation")  # the keys attention is said to park on (Kobayashi et al. 2020)
SAME_CLASS = {SEP: "<eos>", CLS: "<bos>"}  # a BERT's [SEP] and [CLS] count as <eos> and <bos>
POSITION_SINK_KEYS = (FIRST, "<bos>", "<eos>", CLS, SEP)  # sinks_by_position.csv's classes: attnviz's reserved tokens


def is_punctuation(token: str) -> bool:
    """Whether ``token`` is made of punctuation marks only (Unicode categories P*: . , ! ? « » …)."""
    return bool(token) and all(unicodedata.category(c).startswith("P") for c in token)


@dataclass(frozen=True)
class Explanation:
    """One step explained.

    methods (M,): the methods computed, in :data:`METHODS` order (rollout and flow are left out for a model with
    one recurrent attention; leave-one-out for a one-token source); labels (S,): the source tokens; rows (M, S)
    float64; kendall, spearman (M, M): τ-b and ρ of every pair of rows (NaN where a row is constant);
    layer_rows: method -> (L, S) the row after each layer, for the attention-based methods computed;
    token, log_prob: the predicted token and its log-probability; completeness: integrated gradients' check,
    or None if not computed; layer, head: the layer (0-based) and head (None: heads' mean) of the rows;
    sinks: attention kind ("cross", "decoder self", "self") -> (L, 2, 3): per layer, the share of the raw
    attention (heads' mean; index 0) and of the norm-based attention ‖Σ_h α_hj f_h(x_j)‖ (index 1) on the keys of
    each :data:`SINK_CLASSES` (NaN where the step has no such key), over all the keys that kind reads;
    position_sinks: kind slug (cross, dec-self, enc-self) -> the step's query row added to
    :class:`attnviz.core.heads.sinks.SinkSums` (classes :data:`POSITION_SINK_KEYS`, binned by the query's position:
    a translation's target position, a decoder-only model's position in prompt + answer, the masked position).
    """

    methods: tuple[str, ...]
    labels: tuple[str, ...]
    rows: np.ndarray
    kendall: np.ndarray
    spearman: np.ndarray
    layer_rows: dict[str, np.ndarray]
    token: str
    log_prob: float
    completeness: Completeness | None
    layer: int
    head: int | None
    sinks: dict[str, np.ndarray]
    position_sinks: dict[str, SinkSums] = field(default_factory=dict)

    def row(self, method: str) -> np.ndarray:
        return self.rows[self.methods.index(method)]


def _norm_rows(internals: StepInternals, head: int | None) -> np.ndarray:
    """(L, S): ‖Σ_h α_hj f_h(x_j)‖ (head None) or α_hj ‖f_h(x_j)‖ over the source keys of the first kind."""
    kind = internals.kinds[0]
    weights = kind.weights[:, :, internals.source]  # (L, H, S)
    transformed = kind.transformed[:, :, internals.source]  # (L, H, S, D)
    if head is None:
        return np.linalg.norm(np.einsum("lhs,lhsd->lsd", weights, transformed), axis=-1)
    return weights[:, head] * np.linalg.norm(transformed[:, head], axis=-1)


def _attention_rows(internals: StepInternals, methods: Sequence[str], head: int | None, layers: Sequence[int]
                    ) -> dict[str, np.ndarray]:
    """method -> (L, S) rows of the attention-based methods asked; flow only at ``layers`` (NaN elsewhere)."""
    weights = internals.kinds[0].weights[:, :, internals.source]  # (L, H, S)
    rows = {ATTENTION: weights.mean(axis=1) if head is None else weights[:, head]}
    if NORM in methods:
        rows[NORM] = _norm_rows(internals, head)
    if internals.rollout is not None and internals.flow_of is not None:
        rows[ROLLOUT] = internals.rollout
        if FLOW in methods:
            flow = np.full(weights.shape[::2], np.nan)
            for layer in layers:
                flow[layer] = internals.flow_of(layer)
            rows[FLOW] = flow
    return {m: rows[m] for m in LAYERED if m in rows and m in methods}


def _sink_shares(internals: StepInternals) -> dict[str, np.ndarray]:
    shares = {}
    for kind in internals.kinds:
        raw = kind.weights.mean(axis=1)  # (L, K)
        norm = np.linalg.norm(np.einsum("lhk,lhkd->lkd", kind.weights, kind.transformed), axis=-1)  # (L, K)
        norm = norm / np.maximum(norm.sum(axis=-1, keepdims=True), 1e-30)
        out = np.full((raw.shape[0], 2, len(SINK_CLASSES)), np.nan)
        for index, name in enumerate(SINK_CLASSES):
            keys = np.array([is_punctuation(k) if name == "punctuation" else SAME_CLASS.get(k, k) == name
                             for k in kind.keys])
            if keys.any():
                out[:, 0, index], out[:, 1, index] = raw[:, keys].sum(axis=-1), norm[:, keys].sum(axis=-1)
        shares[kind.name] = out
    return shares


def _position_sinks(internals: StepInternals, queries: dict[str, tuple[str, int, bool]]) -> dict[str, SinkSums]:
    """Each kind's query row as SinkSums: ``queries`` maps a kind's name to (its slug, the query's position from 0,
    causal: the row sees the keys up to its own position), the norm view ‖f_h(x_j)‖ from the kind's transformed
    values."""
    out = {}
    for kind in internals.kinds:
        slug, position, causal = queries[kind.name]
        layers, heads, _keys = kind.weights.shape
        sums = SinkSums.empty(POSITION_SINK_KEYS, layers, heads)
        masks = key_classes(kind.keys, POSITION_SINK_KEYS[1:])  # (C, K)
        norms = np.linalg.norm(kind.transformed, axis=-1)  # (L, H, K)
        for layer in range(layers):
            sums.add(layer, kind.weights[layer][:, None, :], norms[layer], np.array([position]), masks, causal)
        out[slug] = sums
    return out


@dataclass(frozen=True)
class _Problem:
    """What is explained: f (ids (B, S) -> log p (B,)) of the input ids (1, S) through ``embedding``'s output."""

    f: Explained
    embedding: nn.Module
    ids: Tensor
    labels: tuple[str, ...]
    pad_id: int
    unk_id: int
    removable: bool  # leave-one-out applies (the explained position does not move when a token goes)
    detached: Callable[[], AbstractContextManager[Any]]  # a block whose gradients hold the attention weights constant
    row_tokens: int  # the tokens one row of f reads (the source's and what else the model is fed): batches' sizes

    def rows(self, batch_tokens: int | None) -> int | None:
        """Rows of f per forward pass within ``batch_tokens`` tokens (at least one; None: all at once)."""
        return None if batch_tokens is None else max(1, batch_tokens // max(1, self.row_tokens))


def _check(methods: Sequence[str], tokens: Sequence[str]) -> None:
    if not tokens:
        raise ValueError("the source has no tokens")
    if unknown := [m for m in methods if m not in METHODS]:
        raise ValueError(f"unknown methods {unknown}; known: {', '.join(METHODS)}")


def _explain(problem: _Problem, internals: StepInternals, token_id: int, token: str, methods: Sequence[str],
             layer: int | None, head: int | None, ig_steps: int, every_layer: bool,
             queries: dict[str, tuple[str, int, bool]], batch_tokens: int | None = None) -> Explanation:
    layers = internals.kinds[0].weights.shape[0]
    layer = layers - 1 if layer is None else layer
    if not 0 <= layer < layers:
        raise ValueError(f"layer {layer} is out of range: the model has {layers}")
    if head is not None and not 0 <= head < internals.kinds[0].weights.shape[1]:
        raise ValueError(f"head {head} is out of range")
    layered = _attention_rows(internals, methods, head, range(layers) if every_layer else [layer])
    rows: dict[str, np.ndarray] = {m: layered[m][layer] for m in layered}
    completeness = None
    if GRAD_X_INPUT in methods:
        rows[GRAD_X_INPUT] = gradient_x_input(problem.f, problem.embedding, problem.ids)
    if GRAD_DETACHED in methods:
        with problem.detached():
            rows[GRAD_DETACHED] = gradient_x_input(problem.f, problem.embedding, problem.ids)
    if INTEGRATED_GRADIENTS in methods:
        rows[INTEGRATED_GRADIENTS], completeness = integrated_gradients(problem.f, problem.embedding, problem.ids,
                                                                        problem.pad_id, ig_steps,
                                                                        problem.rows(batch_tokens))
    if OCCLUSION in methods or LEAVE_ONE_OUT in methods or LEAVE_ONE_OUT_TVD in methods:
        removing = LEAVE_ONE_OUT in methods or LEAVE_ONE_OUT_TVD in methods  # (else no removed rows to run)
        unk, removed, tvd = occlusion(problem.f, problem.ids, problem.unk_id, problem.removable and removing,
                                      problem.rows(batch_tokens))
        if OCCLUSION in methods:
            rows[OCCLUSION] = unk
        if LEAVE_ONE_OUT in methods and np.isfinite(removed).all():
            rows[LEAVE_ONE_OUT] = removed
        if LEAVE_ONE_OUT_TVD in methods and np.isfinite(tvd).all():
            rows[LEAVE_ONE_OUT_TVD] = tvd
    names = tuple(m for m in METHODS if m in rows)
    labels = problem.labels
    matrix = np.stack([rows[m] for m in names]).astype(np.float64) if names else np.zeros((0, len(labels)))
    kendall, spearman = agreement_matrices(matrix)
    return Explanation(names, labels, matrix, kendall, spearman, layered, token,
                       float(internals.log_probs[token_id]), completeness, layer, head, _sink_shares(internals),
                       _position_sinks(internals, queries))


def _best(log_probs: np.ndarray, never: Sequence[int]) -> int:
    scores = log_probs.copy()
    scores[list(never)] = -np.inf
    return int(np.argmax(scores))


def explain_step(loaded: LoadedModel, source_tokens: Sequence[str], target_prefix: Sequence[str],
                 device: torch.device | str = "cpu", methods: Sequence[str] = METHODS, layer: int | None = None,
                 head: int | None = None, ig_steps: int = DEFAULT_IG_STEPS, token: str | None = None,
                 every_layer: bool = False, batch_tokens: int | None = None) -> Explanation:
    """Explain the token predicted after ``target_prefix`` (target tokens without ``<bos>``) for the source
    ``source_tokens`` (the model's own tokens, at most its max_src_len; unknown words read as ``<unk>``).

    token: the token to explain (default: the model's most likely next token, never ``<bos>`` or ``<pad>``);
    layer: 0-based (default the last), head: 0-based or None (the heads' mean) for the attention and norm rows;
    rollout and flow always average the heads. every_layer: compute attention flow after every layer for
    ``layer_rows`` (else only at ``layer``: NaN rows elsewhere). batch_tokens: at most this many tokens per forward
    pass of the gradient and occlusion methods (their variants in batches of rows; default each method's variants
    at once). Runs on ``device``; the model is used as it is (eval mode). ValueError for an encoder-only model
    (:func:`explain_mask`) or a model it does not know.
    """
    src_vocab, tgt_vocab = loaded.src_vocab, loaded.tgt_vocab
    if src_vocab is None or tgt_vocab is None or not loaded.model_kind.explains or loaded.offers(Capability.MASKS):
        raise ValueError("explain_step explains a translation model's step (explain_mask: an encoder-only model)")
    _check(methods, source_tokens)
    device = torch.device(device)
    model = loaded.model
    src = torch.tensor([src_vocab.ids(list(source_tokens))], device=device)
    tgt_in = torch.tensor([[tgt_vocab.bos_id, *tgt_vocab.ids(list(target_prefix))]], device=device)
    labels = tuple(source_tokens)
    internals = step_internals(model, src, tgt_in, labels, ("<bos>", *target_prefix))
    token_id = _best(internals.log_probs, [tgt_vocab.bos_id, tgt_vocab.pad_id]) if token is None \
        else tgt_vocab.ids([token])[0]
    problem = _Problem(TokenLogProb(model, tgt_in, token_id), model.get_submodule("src_embedding"), src, labels,
                       src_vocab.pad_id, src_vocab.unk_id, True, lambda: attention_detached(model),
                       src.shape[1] + tgt_in.shape[1])
    target = len(target_prefix)  # the query's position: cross-attention's in the target, self-attention's its key's
    queries = {kind.name: ("cross", target, False) if kind.name == "cross" else
               ("dec-self", len(kind.keys) - 1, True) for kind in internals.kinds}
    return _explain(problem, internals, token_id, tgt_vocab.tokens[token_id], methods, layer, head, ig_steps,
                    every_layer, queries, batch_tokens)


def explain_mask(loaded: LoadedModel, tokens: Sequence[str], position: int, device: torch.device | str = "cpu",
                 methods: Sequence[str] = METHODS, layer: int | None = None, head: int | None = None,
                 ig_steps: int = DEFAULT_IG_STEPS, token: str | None = None, every_layer: bool = False,
                 batch_tokens: int | None = None) -> Explanation:
    """Explain an encoder-only model's (attnviz's small BERT's) prediction at ``position`` of ``tokens``, the whole
    sequence as it reads it (``[CLS] … [MASK] … [SEP]``;
    :class:`attnviz.core.decoding.fill_mask.OwnEncoder`'s ``read``).

    The rows run over every token, [CLS] and [SEP] included; occlusion replaces each by ``<unk>`` (leave-one-out
    is left out: removing a token would move the predicted position). token: default the most likely word (never
    a reserved token). The other arguments are :func:`explain_step`'s.
    """
    vocab = loaded.src_vocab
    if vocab is None or not loaded.model_kind.explains or not loaded.offers(Capability.MASKS):
        raise ValueError("explain_mask explains an encoder-only model's masked position")
    _check(methods, tokens)
    if not 0 <= position < len(tokens):
        raise ValueError(f"position {position} is outside the {len(tokens)} tokens")
    device = torch.device(device)
    model = loaded.model
    ids = torch.tensor([vocab.ids(list(tokens))], device=device)
    first_sep = list(tokens).index(SEP) if SEP in tokens else len(tokens)
    segments = torch.tensor([[0 if i <= first_sep else 1 for i in range(len(tokens))]], device=device)
    labels = tuple(tokens)
    internals = loaded.model_kind.internals_reader()(model, ids, segments, position, labels)
    reserved = vocab.ids([t for t in (*vocab.tokens[:4], MASK, CLS, SEP) if t in vocab])
    token_id = _best(internals.log_probs, reserved) if token is None else vocab.ids([token])[0]
    problem = _Problem(MaskedLogProb(model, segments, position, token_id), model.get_submodule("token_embedding"),
                       ids, labels, vocab.pad_id, vocab.unk_id, False, lambda: attention_detached(model),
                       ids.shape[1])
    queries = {kind.name: ("enc-self", position, False) for kind in internals.kinds}
    return _explain(problem, internals, token_id, vocab.tokens[token_id], methods, layer, head, ig_steps,
                    every_layer, queries, batch_tokens)
