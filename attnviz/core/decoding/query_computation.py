"""Recompute one attention query of a trained model, stage by stage (the torch side): a sentence's, or an image's.

:func:`compute_query` runs the model exactly as decoding runs it (``start`` on the source, then one
``step`` per decoder input, in eval mode under ``torch.inference_mode``) while forward hooks on the
chosen attention layer record the inputs it really received: the query inputs ``a`` and the key and
value inputs ``a_j``. Then it does that one head's projection, scoring, masked softmax and weighted
sum by hand (numpy, float64) and returns a :class:`~attnviz.core.attention.computation.QueryComputation`, with
the row the model itself computed next to it for comparison.

The hooks record only calls made on the calling thread, and are removed before returning; like every
model job, a call is meant to run on the session's one worker thread.
Shapes: S source tokens, T decoder inputs (``<bos>`` first), D layer width, Dh head width, H heads.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import torch
from torch import Tensor, nn

from attnviz.core.attention.computation import QueryComputation, StageFormulas, masked_softmax
from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.layers import ExplainsChain
from attnviz.core.layout import Capability
from attnviz.core.models.loaded import LoadedModel
from attnviz.core.models.translation import SourceSelfAttention, StepAttention, TranslationModel
from attnviz.i18n import N_, tr

_SLUGS = {kind.slug: kind for kind in AttentionKind}


def attention_kind(kind: AttentionKind | str) -> AttentionKind:
    """``kind`` itself, or the kind of a slug ("enc-self", "dec-self", "cross") or a value
    ("cross-attention"); ValueError names the choices."""
    if isinstance(kind, AttentionKind):
        return kind
    if kind in _SLUGS:
        return _SLUGS[kind]
    try:
        return AttentionKind(kind)
    except ValueError:
        raise ValueError(tr("unknown attention kind {kind!r}; use one of {kinds}").format(kind=kind,
                                                                                         kinds=", ".join(_SLUGS))
                         ) from None


@dataclass
class _Calls:
    """What the hooked attention layer received, one tensor per call (batch of one)."""

    queries: list[Tensor] = field(default_factory=list)  # (1, Q, D) per call
    keys: list[Tensor] = field(default_factory=list)  # (1, K, D) per call
    values: list[Tensor] = field(default_factory=list)


def own_chains(model: Any, kind: AttentionKind) -> list[ExplainsChain]:
    """Each layer's chain of ``kind``: attnviz's own attention modules explain their own
    (``ModelKind.query_chains``)."""
    return cast(list[ExplainsChain], model.attention_modules(kind))


@contextmanager
def recording_inputs(module: Any) -> Iterator[_Calls]:
    """Record the query, key and value inputs an attention module receives while the block runs (the module says
    which: ``record_inputs``), on this thread only."""
    calls = _Calls()
    owner = threading.get_ident()

    def sink(name: str, tensor: Tensor) -> None:
        if threading.get_ident() == owner:
            getattr(calls, name).append(tensor.detach())

    handles = module.record_inputs(sink)
    try:
        yield calls
    finally:
        for handle in handles:
            handle.remove()


def _numpy(tensor: Tensor) -> np.ndarray:
    return tensor.detach().to(device="cpu", dtype=torch.float64).numpy()


def _check_index(what: str, value: int, count: int, where: str) -> None:
    """what, where: already in the interface's language ("layer", "the decoder of this transformer")."""
    if not 0 <= value < count:
        raise ValueError(tr("{what} {value} is out of range: {where} has {count} (0 to {last})").format(
            what=what, value=value, where=where, count=count, last=count - 1))


def compute_query(loaded: LoadedModel, source_tokens: Sequence[str], query_tokens: Sequence[str],
                  kind: AttentionKind | str, layer: int, head: int, query_index: int, *,
                  source_valid_len: int | None = None, device: torch.device | str | None = None,
                  source_ids: Sequence[int] | None = None,
                  source_segments: Sequence[int] | None = None) -> QueryComputation:
    """The computation of one query of one head, from the model's real numbers.

    loaded: a model that reads a sentence: a translator, a decoder-only model, or an encoder-only model (whose one
        kind, encoder self-attention, is its self-attention).
    source_tokens: the S source words as the model read them (``EncodedSource.tokens``: unknown words
        as typed, read as ``<unk>``; a batch's ``<pad>`` tokens included).
    query_tokens: the decoder's inputs so far, ``<bos>`` first (``DecodeStep.query_tokens``); unused
        (may be empty) for encoder self-attention.
    kind: encoder self-, decoder self- or cross-attention (an AttentionKind or its slug).
    layer, head: 0-based (the RNN models have one of each).
    query_index: the query's position: a source position for encoder self-attention, else a row of
        the decoding (0 = the query at ``<bos>``, as in ``DecodeStep.cross_weights[layer, head]``).
    source_valid_len: how many source tokens are real (keys beyond are padding, masked); default all.
    device: where to run (the model is moved there, as DecodeSession does); default where it is.
    source_ids: the ids the model read (``EncodedSource.ids``; a subword tokenizer's tokens may not map
        back to them); default the source vocabulary's ids of ``source_tokens``.
    source_segments: an encoder-only model's segment ids (0 first sentence, 1 second; ``EncodedSource.segments``);
        default one sentence. Other models read none.

    Keys: the source tokens for encoder self- and cross-attention, all T decoder inputs for decoder
    self-attention (keys after the query are masked by the causal mask). A decoder-only model has one
    self-attention over English and French: its "encoder" kind is the prompt's rows (causal), its decoder
    self-attention and its source view (cross) are the answer's rows over the S + T keys, English first.
    The weights equal the decoder's own row at that step up to float rounding (``model_weights``).
    Raises ValueError for a model without that kind of attention, an out-of-range layer, head or
    query, or malformed tokens.
    """
    kind = attention_kind(kind)
    if not loaded.offers(Capability.SENTENCE) or loaded.src_vocab is None:
        raise ValueError(tr("{kind} is not a translation model: it has no attention queries to show").format(
            kind=loaded.kind))
    model = cast(TranslationModel, loaded.model)  # the decoder interface decoding drives
    if kind not in loaded.model_kind.attention:
        has = ", ".join(k.label() for k in loaded.model_kind.attention)
        raise ValueError(tr("the {model} model has no {kind} (it has: {has})").format(model=loaded.kind,
                                                                                     kind=kind.label(), has=has))
    source_tokens, query_tokens = tuple(source_tokens), tuple(query_tokens)
    if not source_tokens:
        raise ValueError(tr("there is no source: source_tokens is empty"))
    valid_len = len(source_tokens) if source_valid_len is None else int(source_valid_len)
    if not 1 <= valid_len <= len(source_tokens):
        raise ValueError(tr("source_valid_len must be from 1 to {count}, got {given}").format(
            count=len(source_tokens), given=source_valid_len))
    if kind is not AttentionKind.ENCODER_SELF:
        if loaded.tgt_vocab is None:
            raise ValueError(tr("{kind} is not a translation model: it has no attention queries to show").format(
                kind=loaded.kind))
        first = loaded.first_query(source_tokens)
        if not query_tokens or query_tokens[0] != first:
            raise ValueError(tr("query_tokens must start with {first} (as DecodeStep.query_tokens does), "
                                "got {tokens}").format(first=first, tokens=list(query_tokens[:3])))

    layout = loaded.layout
    asked = kind  # (a decoder-only model's source view is the English columns of the answer's rows)
    kind = layout.computed_kind(kind)
    if not layout.recomputable(valid_len, len(source_tokens)):
        raise ValueError(tr("a padded row of a decoder-only model's batch: recompute its sentence alone"))

    # -- which layer, and the ranges -------------------------------------------------------------
    chains = loaded.model_kind.chains_of(model, kind)
    where = tr(layout.words.source_where if kind is AttentionKind.ENCODER_SELF else N_("the decoder of this {kind}"))
    _check_index(tr("layer"), layer, len(chains), where.format(kind=loaded.kind))
    module = cast(ExplainsChain, chains[layer])
    _check_index(tr("head"), head, module.heads, tr("each layer of this {kind}").format(kind=loaded.kind))
    if kind is AttentionKind.ENCODER_SELF:
        _check_index("query_index", query_index, len(source_tokens),
                     tr("the source ({tokens})").format(tokens=" ".join(source_tokens)))
    else:
        _check_index("query_index", query_index, len(query_tokens),
                     tr("the decoding so far ({tokens})").format(tokens=" ".join(query_tokens)))
    # -- run the model as decoding does, recording the layer's inputs ----------------------------
    run_on = torch.device(device) if device is not None else loaded.device
    ids = loaded.src_vocab.ids(source_tokens) if source_ids is None else list(source_ids)
    cast(nn.Module, model).to(run_on).eval()
    decoder = model
    steps = {AttentionKind.ENCODER_SELF: 0, AttentionKind.CROSS: query_index + 1,
             AttentionKind.DECODER_SELF: len(query_tokens)}[kind]
    with torch.inference_mode(), recording_inputs(module) as calls:
        src = torch.tensor([ids], dtype=torch.long, device=run_on)
        segments = {} if source_segments is None else {  # (only an encoder-only model reads segments)
            "segments": torch.tensor([list(source_segments)], dtype=torch.long, device=run_on)}
        state, encoder_attention = decoder.start(src, torch.tensor([valid_len], device=run_on),
                                                 need_attention=kind is AttentionKind.ENCODER_SELF, **segments)
        target_ids = loaded.tgt_vocab.ids(query_tokens) if steps and loaded.tgt_vocab is not None else []
        step_rows: list[StepAttention] = []
        for t in range(steps):
            token = torch.tensor([target_ids[t]], dtype=torch.long, device=run_on)
            _, state, step_attention = decoder.step(token, state, need_attention=True)
            assert step_attention is not None
            step_rows.append(step_attention)

    # -- the model's own row --------------------------------------------------------------------
    if kind is AttentionKind.ENCODER_SELF:
        assert isinstance(encoder_attention, SourceSelfAttention)
        own_weights = encoder_attention.weights[0, layer, head, query_index]
        own_scores = encoder_attention.scores[0, layer, head, query_index]
    elif kind is AttentionKind.CROSS:
        own_weights = step_rows[query_index].cross_weights[0, layer, head]
        own_scores = step_rows[query_index].cross_scores[0, layer, head]
    else:
        self_weights, self_scores = step_rows[query_index].self_weights, step_rows[query_index].self_scores
        assert self_weights is not None and self_scores is not None
        own_weights, own_scores = self_weights[0, layer, head], self_scores[0, layer, head]
    shared = loaded.shared_rows  # (1: the answer's first query is the prompt's last row)
    key_tokens = source_tokens
    if kind is AttentionKind.DECODER_SELF:
        key_tokens = layout.answer_keys(source_tokens, query_tokens, shared)
    model_weights = np.zeros(len(key_tokens))
    model_scores = np.zeros(len(key_tokens))
    width = min(len(key_tokens), own_weights.shape[-1])
    model_weights[:width] = _numpy(own_weights[:width])
    model_scores[:width] = _numpy(own_scores[:width])

    # -- the inputs the layer received (the module says which keys and values a query saw) ------------
    if not calls.queries:
        raise RuntimeError(f"the {kind.value} module of layer {layer + 1} was not called as decoding calls it")
    query_inputs = torch.cat(calls.queries, dim=1)[0]  # (Q, D)
    query_row = query_index + (layout.answer_first_row(len(source_tokens), shared)
                               if kind is not AttentionKind.ENCODER_SELF else 0)
    key_inputs, value_inputs = module.inputs_of(calls.keys, calls.values, query_index)
    if key_inputs.shape[0] != len(key_tokens) or query_inputs.shape[0] <= query_row:
        raise RuntimeError(f"the {kind.value} layer received {query_inputs.shape[0]} queries and "
                           f"{key_inputs.shape[0]} keys; expected {len(key_tokens)} keys")
    a = _numpy(query_inputs[query_row])  # (D,)
    a_keys, a_values = _numpy(key_inputs), _numpy(value_inputs)  # (K, D)

    # -- which keys the query may see -----------------------------------------------------------
    positions = np.arange(len(key_tokens))
    if layout.causal(kind):
        visible = positions <= query_row
        weights_formula = tr("α = softmax(s) over visible keys (causal mask: j ≤ {row})").format(row=query_row)
        if asked is not kind:  # the source view, computed as the self-attention it is part of
            weights_formula = tr("α = softmax(s) over visible keys (causal mask: j ≤ {row}; the source view is keys "
                                 "1–{prompt})").format(row=query_row, prompt=len(source_tokens))
    else:
        visible = positions < valid_len
        weights_formula = tr("α = softmax(s) over visible keys (padding mask: j < {length})").format(
            length=valid_len) if valid_len < len(key_tokens) else tr("α = softmax(s) over visible keys")

    query_token = (source_tokens if kind is AttentionKind.ENCODER_SELF else query_tokens)[query_index]
    return chain_computation(module, a, a_keys, a_values, head, query_row, visible, weights_formula,
                             model_kind=loaded.kind, kind=asked, layer=layer, query_index=query_index,
                             query_token=query_token, key_tokens=key_tokens, model_weights=model_weights,
                             model_scores=model_scores)


def sink_softmax(scores: np.ndarray, visible: np.ndarray, sink_logit: float) -> tuple[np.ndarray, float]:
    """The softmax over the visible keys' scores (K,) and one learned sink logit (gpt-oss) -> the keys' weights (K,)
    (0 where not visible; they sum to 1 − p_sink) and p_sink."""
    logits = np.append(np.where(visible, scores, -np.inf), sink_logit)
    exp = np.exp(logits - logits.max())
    probabilities = exp / exp.sum()
    return probabilities[:-1], float(probabilities[-1])


def chain_computation(module: ExplainsChain, a: np.ndarray, a_keys: np.ndarray, a_values: np.ndarray, head: int,
                      query_row: int, visible: np.ndarray, weights_formula: str, *, model_kind: str,
                      kind: AttentionKind, layer: int, query_index: int, query_token: str,
                      key_tokens: tuple[str, ...], model_weights: np.ndarray,
                      model_scores: np.ndarray) -> QueryComputation:
    """One head's chain for one query, by hand (float64), from the inputs its attention ``module`` received: the
    query input a (D,) at row ``query_row``, the key and value inputs (K, D); ``visible`` (K,) the keys it may see.
    The module explains its projections and its scoring; the softmax and the weighted sum are done here. Every model
    that reads positions (a sentence, an image's patches) shares it."""
    chain = module.explain(a, a_keys, a_values, head, query_row=query_row)
    q, keys, values, additive, formulas = chain.q, chain.keys, chain.values, chain.additive, dict(chain.formulas)
    scale: float | None = None
    if additive is not None:
        scores = additive[2] @ additive[3]  # (K,)
    else:
        scale = math.sqrt(q.shape[0]) if chain.scale is None else chain.scale
        scores = keys @ q / scale
        if chain.score_bias is not None:
            scores = scores + chain.score_bias
        formulas.setdefault("score", f"s_j = q·k_j / √{q.shape[0]}")
        if chain.softcap is not None:  # (Gemma 2: before the mask, as the library does)
            scores = np.tanh(scores / chain.softcap) * chain.softcap
    if chain.window is not None:  # (a sliding-window layer: its band, as the library's mask hides the rest)
        window, bidirectional = chain.window
        positions = np.arange(len(visible))
        band = np.abs(positions - query_row) <= window if bidirectional else positions > query_row - window
        visible = visible & band
        weights_formula = tr("{formula}; window: {band}").format(
            formula=weights_formula, band=tr("|j − {row}| ≤ {window}").format(row=query_row, window=window)
            if bidirectional else tr("j > {row} − {window}").format(row=query_row, window=window))
    if chain.sink_logit is not None:  # (gpt-oss: the sink's logit joins the softmax; its weight goes nowhere)
        weights, sink = sink_softmax(scores, visible, chain.sink_logit)
        weights_formula = tr("{formula}; a learned sink logit {logit:.3f} takes {share:.1%} of the row").format(
            formula=weights_formula, logit=chain.sink_logit, share=sink)
    else:
        weights = masked_softmax(scores, visible)
    output = weights @ values
    return QueryComputation(
        model_kind=model_kind, kind=kind, layer=layer, head=head, query_index=query_index,
        query_token=query_token, key_tokens=key_tokens, scoring=chain.scoring,
        formulas=StageFormulas(query=formulas["query"], key=formulas["key"], value=formulas["value"],
                               score=formulas["score"], weights=weights_formula, output="b = Σ_j α_j v_j"),
        query_input=a, key_inputs=a_keys, query=q, keys=keys, values=values, scale=scale,
        additive_query=None if additive is None else additive[0],
        additive_keys=None if additive is None else additive[1],
        additive_features=None if additive is None else additive[2],
        additive_w_v=None if additive is None else additive[3],
        scores=scores, visible=visible, weights=weights, output=output,
        model_weights=model_weights, model_scores=model_scores)


def compute_image_query(loaded: LoadedModel, image: Any, layer: int, head: int, query_index: int,
                        device: torch.device | str) -> QueryComputation:
    """One query of one head of an image model, stage by stage from the model's real numbers: the image (a Pillow
    image, :func:`attnviz.core.images.open_image`) read as ``image_reading.encode_image`` reads it, while hooks on layer
    ``layer``'s attention module (the kind's ``query_chains``) record what it received; then head ``head``'s
    q = W_q a, k_j, v_j, the scores q·k_j / √d over every position (no mask: every position sees all), the softmax
    and the weighted sum by hand (:func:`chain_computation`). The model's own
    row of the same run sits beside it (``model_weights``). ValueError for a layer, head or query out of range."""
    from attnviz.core.layout import patch_labels
    from attnviz.core.models.image_reading import UnreadableImage, reader_of

    reader = reader_of(loaded)
    labels = patch_labels(reader.specials, reader.grid)
    kind = AttentionKind.ENCODER_SELF
    chains = loaded.model_kind.chains_of(loaded.model, kind)
    _check_index(tr("layer"), layer, len(chains), tr("this {kind}").format(kind=loaded.kind))
    module = cast(ExplainsChain, chains[layer])
    _check_index(tr("head"), head, module.heads, tr("each layer of this {kind}").format(kind=loaded.kind))
    _check_index("query_index", query_index, len(labels), tr("the image's positions"))
    try:
        inputs, _pictures = reader.prepare([image])
    except UnreadableImage as error:
        raise ValueError(error.reason) from None
    with torch.inference_mode(), recording_inputs(module) as calls:
        outputs = reader.run(inputs.to(device), need_scores=True)
    if not calls.queries:
        raise RuntimeError(f"the attention module of layer {layer + 1} was not called")
    own = outputs.weights[layer, 0, head, query_index].double().cpu().numpy()
    own_scores = outputs.scores[layer, 0, head, query_index].double().cpu().numpy() if outputs.scores is not None \
        else np.zeros_like(own)

    key_inputs, value_inputs = module.inputs_of(calls.keys, calls.values, query_index)
    query_inputs = torch.cat(calls.queries, dim=1)[0]  # (N, D)
    if key_inputs.shape[0] != len(labels) or query_inputs.shape[0] != len(labels):
        raise RuntimeError(f"the attention of layer {layer + 1} received {query_inputs.shape[0]} queries and "
                           f"{key_inputs.shape[0]} keys, not the image's {len(labels)} positions")
    return chain_computation(module, _numpy(query_inputs[query_index]), _numpy(key_inputs), _numpy(value_inputs), head,
                             query_index, np.ones(len(labels), bool), tr("α = softmax(s) over every position"),
                             model_kind=loaded.kind, kind=kind, layer=layer, query_index=query_index,
                             query_token=labels[query_index], key_tokens=labels, model_weights=own,
                             model_scores=own_scores)
