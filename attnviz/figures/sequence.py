"""A decoder-only model's one sequence, prompt then answer, as the views draw it (numpy only).

Its decoding records the prompt's self-attention once (``EncodedSource.encoder_*``, (L, H, S, S)) and,
per step, the answer's rows over the prompt and the answer so far (``DecodeStep.self_*``, (L, H, T, S + T)).
Put together they are the causal self-attention of the whole sequence, (L, H, S + T, S + T).
Shapes: L layers, H heads, S prompt (English) tokens, T answer positions (``<bos>`` first).
"""

from __future__ import annotations

import numpy as np

from attnviz.core.results import DecodeStep, EncodedSource


def sequence_tokens(source: EncodedSource, step: DecodeStep | None) -> tuple[str, ...]:
    """The S + T positions: the English, then ``<bos>`` and the answer so far."""
    return (*source.tokens, *(step.query_tokens if step is not None else ()))


def sequence_mask(source: EncodedSource, step: DecodeStep | None) -> np.ndarray:
    """(S + T, S + T) bool, True where a position may attend: causal, never to the prompt's padding."""
    size = len(source.tokens) + (len(step.query_tokens) if step is not None else 0)
    keys = np.concatenate([source.padding_mask, np.ones(size - len(source.tokens), bool)])
    return np.tri(size, dtype=bool) & keys[None, :]


def sequence_maps(source: EncodedSource, step: DecodeStep | None, scores: bool = False,
                  layer: int | None = None, head: int | None = None) -> np.ndarray:
    """The whole sequence's self-attention weights (or pre-softmax scores), (L, H, S + T, S + T); with
    ``layer`` and ``head`` only that matrix, (S + T, S + T) (what one view shows: the others are not put
    together). Cells above the diagonal are 0 (never computed)."""
    prompt = source.encoder_scores if scores else source.encoder_weights
    if prompt is None:
        raise ValueError("this model records no prompt self-attention")
    answer = None if step is None else (step.self_scores if scores else step.self_weights)
    if layer is not None and head is not None:
        prompt = prompt[layer: layer + 1, head: head + 1]
        answer = None if answer is None else answer[layer: layer + 1, head: head + 1]
    width = prompt.shape[-1]
    rows = 0 if answer is None else answer.shape[2]
    out = np.zeros((*prompt.shape[:2], width + rows, width + rows), np.float32)
    out[:, :, :width, :width] = prompt
    if answer is not None:
        out[:, :, width:, :] = answer
    return out[0, 0] if layer is not None and head is not None else out
