"""Masks and the masked softmax.

Convention used everywhere in attnviz: a boolean mask is ``True`` where a query *may* attend to a
key (the cell is visible) and ``False`` where it is masked out. Shapes use B batch, H heads,
Q queries, K keys.
"""

from __future__ import annotations

import torch
from torch import Tensor


def padding_mask(valid_lens: Tensor, num_keys: int) -> Tensor:
    """Keys that are real tokens rather than padding.

    valid_lens: (B,) integer number of valid keys per sequence.
    Returns a bool tensor (B, K), True for key positions ``< valid_len``.
    """
    positions = torch.arange(num_keys, device=valid_lens.device)
    return positions[None, :] < valid_lens[:, None]


def causal_mask(num_queries: int, num_keys: int | None = None, *, offset: int = 0,
                device: torch.device | str | None = None) -> Tensor:
    """The subsequent-position mask of a decoder.

    Query i (at absolute position ``offset + i``) may attend to keys 0..offset+i.
    Returns a bool tensor (Q, K); K defaults to ``offset + Q``.
    """
    if num_keys is None:
        num_keys = offset + num_queries
    query_pos = torch.arange(num_queries, device=device)[:, None] + offset
    key_pos = torch.arange(num_keys, device=device)[None, :]
    return key_pos <= query_pos


def valid_lens_mask(valid_lens: Tensor, num_queries: int, num_keys: int) -> Tensor:
    """Expand d2l-style valid lengths to a boolean mask (B, Q, K).

    valid_lens: (B,) one length per sequence, shared by all queries, or (B, Q) one length per query.
    """
    if valid_lens.dim() == 1:
        valid_lens = valid_lens[:, None].expand(-1, num_queries)
    elif valid_lens.dim() != 2:
        raise ValueError(f"valid_lens must be 1-D (B,) or 2-D (B, Q), got shape {tuple(valid_lens.shape)}")
    if valid_lens.shape[1] != num_queries:
        raise ValueError(f"valid_lens has {valid_lens.shape[1]} queries, scores have {num_queries}")
    key_pos = torch.arange(num_keys, device=valid_lens.device)
    return key_pos[None, None, :] < valid_lens[:, :, None]


def combine_masks(scores: Tensor, valid_lens: Tensor | None, mask: Tensor | None) -> Tensor | None:
    """One boolean mask broadcastable to ``scores`` (B, [H,] Q, K), or None when nothing is masked.

    mask: any bool tensor broadcastable to scores (e.g. a (Q, K) causal mask), True = keep.
    """
    combined = None
    if valid_lens is not None:
        combined = valid_lens_mask(valid_lens, scores.shape[-2], scores.shape[-1])
        if scores.dim() == 4:  # (B, Q, K) -> (B, 1, Q, K), shared by every head
            combined = combined[:, None]
    if mask is not None:
        mask = mask.to(device=scores.device, dtype=torch.bool)
        combined = mask if combined is None else combined & mask
    return combined


def masked_softmax(scores: Tensor, valid_lens: Tensor | None = None, *,
                   mask: Tensor | None = None) -> Tensor:
    """Softmax over the last axis that gives masked keys exactly zero weight.

    scores: (B, Q, K) or (B, H, Q, K) pre-softmax attention scores.
    valid_lens: None, (B,) or (B, Q) number of valid keys (d2l's convention).
    mask: optional bool tensor broadcastable to scores, True = may attend.
    Returns weights of the shape of ``scores``. Each row sums to 1 over its visible keys and is
    exactly 0 elsewhere; a row with no visible key (valid length 0) is all zeros, never NaN,
    and its gradient is zero.
    """
    keep = combine_masks(scores, valid_lens, mask)
    if keep is None:
        return torch.softmax(scores, dim=-1)
    # A finite fill (not -inf) keeps fully masked rows finite in both forward and backward.
    filled = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    return torch.softmax(filled, dim=-1).masked_fill(~keep, 0.0)

