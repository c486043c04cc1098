"""Attention scoring functions and multi-head attention.

Every attention call is pure: it returns an :class:`Attended` (unpacks as ``output, weights``)
and keeps nothing on the module. Shapes: B batch, H heads, Q queries, K keys, D width.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor, nn

from attnviz.core.masking import masked_softmax

Scoring = Literal["dot", "additive"]


@dataclass(frozen=True)
class Attended:
    """Result of one attention call.

    output: (B, Q, Dv) or (B, Q, D) for multi-head attention.
    weights: (B, Q, K) for one head, (B, H, Q, K) for multi-head attention; rows sum to 1 over
        visible keys and are exactly 0 on masked keys.
    scores: pre-softmax scores of the shape of ``weights``, or None unless ``need_scores=True``.
    """

    output: Tensor
    weights: Tensor
    scores: Tensor | None = None

    def __iter__(self) -> Iterator[Tensor]:
        """Unpack as ``output, weights`` (d2l style)."""
        return iter((self.output, self.weights))


class AdditiveAttention(nn.Module):
    """Bahdanau scoring: ``score(q, k) = w_vᵀ tanh(W_q q + W_k k)``; q and k may differ in width."""

    def __init__(self, query_size: int, key_size: int, num_hiddens: int, dropout: float = 0.0):
        super().__init__()
        self.W_q = nn.Linear(query_size, num_hiddens, bias=False)
        self.W_k = nn.Linear(key_size, num_hiddens, bias=False)
        self.w_v = nn.Linear(num_hiddens, 1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        """queries (B, Q, Dq), keys (B, K, Dk) -> scores (B, Q, K)."""
        # (B, Q, 1, A) + (B, 1, K, A) -> (B, Q, K, A) -> w_v -> (B, Q, K)
        features = torch.tanh(self.W_q(queries)[:, :, None, :] + self.W_k(keys)[:, None, :, :])
        return self.w_v(features).squeeze(-1)

    def forward(self, queries: Tensor, keys: Tensor, values: Tensor,
                valid_lens: Tensor | None = None, *, mask: Tensor | None = None,
                need_scores: bool = False) -> Attended:
        """queries (B, Q, Dq), keys (B, K, Dk), values (B, K, Dv); valid_lens (B,) or (B, Q)."""
        scores = self.score(queries, keys)
        weights = masked_softmax(scores, valid_lens, mask=mask)
        output = torch.bmm(self.dropout(weights), values)
        return Attended(output, weights, scores if need_scores else None)


class DotProductAttention(nn.Module):
    """Scaled dot-product scoring: ``score(q, k) = qᵀk / √d``."""

    def __init__(self, dropout: float = 0.0):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    @staticmethod
    def score(queries: Tensor, keys: Tensor) -> Tensor:
        """queries (..., Q, D), keys (..., K, D) -> scores (..., Q, K)."""
        return queries @ keys.transpose(-2, -1) / math.sqrt(queries.shape[-1])

    def forward(self, queries: Tensor, keys: Tensor, values: Tensor,
                valid_lens: Tensor | None = None, *, mask: Tensor | None = None,
                need_scores: bool = False) -> Attended:
        """queries (B, [H,] Q, D), keys (B, [H,] K, D), values (B, [H,] K, Dv)."""
        scores = self.score(queries, keys)
        weights = masked_softmax(scores, valid_lens, mask=mask)
        output = self.dropout(weights) @ values
        return Attended(output, weights, scores if need_scores else None)


class HeadwiseAdditiveScore(nn.Module):
    """Additive scoring applied per head, each head with its own W_q, W_k, w_v.

    Width of each head's features equals the head width Dh.
    """

    def __init__(self, num_heads: int, head_dim: int):
        super().__init__()
        scale = 1.0 / math.sqrt(head_dim)
        self.W_q = nn.Parameter(torch.randn(num_heads, head_dim, head_dim) * scale)
        self.W_k = nn.Parameter(torch.randn(num_heads, head_dim, head_dim) * scale)
        self.w_v = nn.Parameter(torch.randn(num_heads, head_dim) * scale)

    def forward(self, queries: Tensor, keys: Tensor) -> Tensor:
        """queries (B, H, Q, Dh), keys (B, H, K, Dh) -> scores (B, H, Q, K)."""
        q = torch.einsum("bhqd,hde->bhqe", queries, self.W_q)
        k = torch.einsum("bhkd,hde->bhke", keys, self.W_k)
        features = torch.tanh(q[:, :, :, None, :] + k[:, :, None, :, :])  # (B, H, Q, K, Dh)
        return torch.einsum("bhqke,he->bhqk", features, self.w_v)


class MultiHeadAttention(nn.Module):
    """Multi-head attention with per-head weights exposed.

    Projects queries, keys and values to ``num_hiddens`` (D), splits into H heads of width
    Dh = D / H, scores each head with scaled dot product (default) or per-head additive scoring,
    and projects the concatenated heads back with W_o.
    """

    def __init__(self, num_hiddens: int, num_heads: int, dropout: float = 0.0, *,
                 bias: bool = False, scoring: Scoring = "dot", query_size: int | None = None,
                 key_size: int | None = None, value_size: int | None = None):
        super().__init__()
        if num_hiddens % num_heads:
            raise ValueError(f"num_hiddens={num_hiddens} is not divisible by num_heads={num_heads}")
        if scoring not in ("dot", "additive"):
            raise ValueError(f"unknown scoring {scoring!r}; use 'dot' or 'additive'")
        self.num_heads = num_heads
        self.head_dim = num_hiddens // num_heads
        self.scoring = scoring
        self.W_q = nn.Linear(query_size or num_hiddens, num_hiddens, bias=bias)
        self.W_k = nn.Linear(key_size or num_hiddens, num_hiddens, bias=bias)
        self.W_v = nn.Linear(value_size or num_hiddens, num_hiddens, bias=bias)
        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bias)
        self.additive = HeadwiseAdditiveScore(num_heads, self.head_dim) if scoring == "additive" else None
        self.dropout = nn.Dropout(dropout)

    def split_heads(self, x: Tensor) -> Tensor:
        """(B, T, D) -> (B, H, T, Dh)."""
        b, t, _ = x.shape
        return x.view(b, t, self.num_heads, self.head_dim).transpose(1, 2)

    def project_keys_values(self, keys: Tensor, values: Tensor) -> tuple[Tensor, Tensor]:
        """Project and split keys and values once, e.g. to cache them: -> two (B, H, K, Dh)."""
        return self.split_heads(self.W_k(keys)), self.split_heads(self.W_v(values))

    def attend(self, queries: Tensor, key_heads: Tensor, value_heads: Tensor,
               valid_lens: Tensor | None = None, *, mask: Tensor | None = None,
               need_scores: bool = False) -> Attended:
        """Attend with already projected keys/values.

        queries: (B, Q, Dq) raw queries; key_heads, value_heads: (B, H, K, Dh) from
        :meth:`project_keys_values`; valid_lens (B,) or (B, Q); mask broadcastable to (B, H, Q, K).
        Returns output (B, Q, D), weights and scores (B, H, Q, K).
        """
        q = self.split_heads(self.W_q(queries))  # (B, H, Q, Dh)
        scores = self.additive(q, key_heads) if self.additive is not None else DotProductAttention.score(q, key_heads)
        weights = masked_softmax(scores, valid_lens, mask=mask)  # (B, H, Q, K)
        heads = (self.dropout(weights) if self.training else weights) @ value_heads  # (B, H, Q, Dh)
        b, _, nq, _ = heads.shape
        output = self.W_o(heads.transpose(1, 2).reshape(b, nq, -1))  # (B, Q, D)
        return Attended(output, weights, scores if need_scores else None)

    def forward(self, queries: Tensor, keys: Tensor, values: Tensor,
                valid_lens: Tensor | None = None, *, mask: Tensor | None = None,
                need_scores: bool = False) -> Attended:
        """queries (B, Q, Dq), keys (B, K, Dk), values (B, K, Dv) -> output (B, Q, D)."""
        key_heads, value_heads = self.project_keys_values(keys, values)
        return self.attend(queries, key_heads, value_heads, valid_lens, mask=mask,
                           need_scores=need_scores)
