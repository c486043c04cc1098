"""A decoder-only model's one sequence, prompt then answer, as the views draw it (numpy only).

Its decoding records the prompt's self-attention once (``EncodedSource.encoder_*``, (L, H, S, S)) and,
per step, the answer's rows over the prompt and the answer so far (``DecodeStep.self_*``, (L, H, T, S + T)).
Put together they are the causal self-attention of the whole sequence, (L, H, S + T, S + T).
A model without a separator (a Hugging Face decoder-only model) has no ``<bos>`` row: its first query is the
prompt's last position, so the two overlap by one row and the sequence is S + T − 1 long.
Shapes: L layers, H heads, S prompt (English) tokens, T answer positions (``<bos>`` first).
"""

from __future__ import annotations

import numpy as np

from attnviz.core.results import DecodeStep, EncodedSource
from attnviz.i18n import tr


def overlap(source: EncodedSource, step: DecodeStep | None) -> int:
    """1 where the answer's first query is the prompt's last position (no separator), else 0 (read from the
    width of the step's keys: S + T with a ``<bos>`` row, S + T − 1 without)."""
    if step is None or step.self_weights is None:
        return 0
    return len(source.tokens) + len(step.query_tokens) - step.self_weights.shape[-1]


def sequence_tokens(source: EncodedSource, step: DecodeStep | None) -> tuple[str, ...]:
    """The positions: the English, then ``<bos>`` (where the model has one) and the answer so far."""
    return (*source.tokens, *(step.query_tokens[overlap(source, step):] if step is not None else ()))


def sequence_mask(source: EncodedSource, step: DecodeStep | None) -> np.ndarray:
    """(N, N) bool over the N sequence positions, True where a position may attend: causal, never to the
    prompt's padding."""
    size = len(sequence_tokens(source, step))
    keys = np.concatenate([source.padding_mask, np.ones(size - len(source.tokens), bool)])
    return np.tri(size, dtype=bool) & keys[None, :]


def sequence_maps(source: EncodedSource, step: DecodeStep | None, scores: bool = False,
                  layer: int | None = None, head: int | None = None) -> np.ndarray:
    """The whole sequence's self-attention weights (or pre-softmax scores), (L, H, N, N) over its N positions
    (:func:`sequence_tokens`); with ``layer`` and ``head`` only that matrix, (N, N) (what one view shows: the
    others are not put together). Cells above the diagonal are 0 (never computed)."""
    prompt = source.encoder_scores if scores else source.encoder_weights
    if prompt is None:
        raise ValueError(tr("this model records no prompt self-attention"))
    answer = None if step is None else (step.self_scores if scores else step.self_weights)
    if layer is not None and head is not None:
        prompt = prompt[layer: layer + 1, head: head + 1]
        answer = None if answer is None else answer[layer: layer + 1, head: head + 1]
    width = prompt.shape[-1]
    rows = 0 if answer is None else answer.shape[2]
    first = width - overlap(source, step)  # the sequence row of the answer's first query
    out = np.zeros((*prompt.shape[:2], first + rows, first + rows), np.float32)
    out[:, :, :width, :width] = prompt
    if answer is not None:
        out[:, :, first:, :] = answer
    return out[0, 0] if layer is not None and head is not None else out
