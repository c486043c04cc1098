"""Attention scoring functions and multi-head attention.

Every attention call is pure: it returns an :class:`Attended` (unpacks as ``output, weights``)
and keeps nothing on the module. Each module also explains its own chain for one query (the Computation view,
``core/query_computation.py``): ``record_inputs`` hooks what it receives, ``inputs_of`` picks the keys and values
one query saw, ``explain`` recomputes q, k, v (and additive scoring's features) by hand as a :class:`Chain`.
Shapes: B batch, H heads, Q queries, K keys, D width.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np
import torch
from torch import Tensor, nn
from torch.utils.hooks import RemovableHandle

from attnviz.core.attention import recording as recorded
from attnviz.core.attention.masking import masked_softmax
from attnviz.i18n import tr

Scoring = Literal["dot", "additive"]
Sink = Callable[[str, Tensor], None]  # ("queries" | "keys" | "values", one call's input (1, n, D))
GateSource = Callable[[], "Tensor | None"]  # a head gate ξ at call time: (H,) or (B, H); None: no gate (core/heads)
# An intervention on a module's heads before its output projection: heads (B, Q, H, Dh) -> what the projection reads
# instead (B, Q, H, Dh), or None (the heads as they are). Gates, patching and attribution patching are all one of these.
HeadChange = Callable[[Tensor], "Tensor | None"]


def gated(gate: GateSource) -> HeadChange:
    """The change that multiplies head h by ``gate()[..., h]`` ((H,) or (B, H); None: no change)."""
    def change(heads: Tensor) -> Tensor | None:
        g = gate()
        if g is None:
            return None
        g = g.to(heads.dtype) if g.dim() == 1 else g.to(heads.dtype)[:, None, :]  # (H,) or (B, 1, H)
        return heads * g[..., None]
    return change


def _report(module: nn.Module, query: Tensor, key: Tensor, value: Tensor, scores: Tensor | None,
            weights: Tensor) -> None:
    """Hand one multi-head call (heads (B, H, Q|K, Dh), scores and weights (B, H, Q, K)) to the recording blocks of
    :mod:`attnviz.core.hf.attention` open now (attnviz's own attention is recorded by the same machinery)."""
    listening = recorded.listening()
    if not listening:
        return
    shown = scores if scores is not None else weights.new_full(weights.shape, float("nan"))
    call = recorded.AttentionCall(module, query.detach(), key.detach(), value.detach(), shown.detach(),
                                  weights.detach())
    for calls in listening:
        calls.append(call)


@dataclass(frozen=True)
class Chain:
    """One head's chain for one query, float64: q (Dq,), keys (K, Dk), values (K, Dv); formulas: what the query,
    key and value stages compute (and the score, where the scoring is additive); additive: W_q' q (A,), W_k' k (K, A),
    their tanh features (K, A) and w_v (A,), or None (scaled dot-product scoring). A dot-product chain's scores are
    keys @ q / scale (+ score_bias (K,), T5's relative positions): scale None is √d, and formulas may then leave the
    score out."""

    q: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    formulas: dict[str, str]
    scoring: Scoring
    additive: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
    scale: float | None = None
    score_bias: np.ndarray | None = None
    # today's twists (core/hf/variants.py): scores capped to c·tanh(s / c); keys within a window of the query's row
    # (causal: j > row − window; bidirectional: |j − row| ≤ window); a learned sink logit joining the softmax
    softcap: float | None = None
    window: tuple[int, bool] | None = None  # (window, bidirectional)
    sink_logit: float | None = None


class ExplainsChain(Protocol):
    """An attention module that explains its own chain for one query (every attention class here)."""

    @property
    def heads(self) -> int: ...

    def record_inputs(self, sink: Sink) -> list[RemovableHandle]: ...

    def gate_heads(self, gate: GateSource) -> list[RemovableHandle]:
        """Gates ξ on its heads (core/heads): hooks multiplying head h's output by ``gate()[..., h]``."""
        ...

    def intervene_heads(self, change: HeadChange) -> list[RemovableHandle]:
        """A hook handing its heads (B, Q, H, Dh) before the output projection to ``change`` (core/patching)."""
        ...

    def inputs_of(self, keys: list[Tensor], values: list[Tensor], query_index: int) -> tuple[Tensor, Tensor]: ...

    def explain(self, a: np.ndarray, a_keys: np.ndarray, a_values: np.ndarray, head: int, *,
                query_row: int = 0) -> Chain:
        """Head ``head``'s chain for the query input a (D,) at row ``query_row`` of what the module received and the
        key and value inputs (K, D)."""
        ...


def _float64(tensor: Tensor) -> np.ndarray:
    return tensor.detach().to(device="cpu", dtype=torch.float64).numpy()


class RecurrentQuery(nn.Module):
    """An RNN decoder's attention (additive or dot-product): one head; its query is the decoder's previous hidden
    state and its keys and values are the encoder's outputs, passed whole at every step, not projected."""

    heads = 1

    def record_inputs(self, sink: Sink) -> list[RemovableHandle]:
        """Hooks passing each call's (queries, keys, values) arguments to ``sink``."""
        def hook(_module: nn.Module, args: tuple[Any, ...]) -> None:
            for name, tensor in zip(("queries", "keys", "values"), args[:3], strict=True):
                sink(name, tensor)
        return [self.register_forward_pre_hook(hook)]

    def gate_heads(self, gate: GateSource) -> list[RemovableHandle]:
        """A hook multiplying the one head's output (the context vector) by ``gate()`` ((1,) or (B, 1)): a gate
        of 0 switches the attention off, the decoder then reads a zero context (core/heads)."""
        return self.intervene_heads(gated(gate))

    def intervene_heads(self, change: HeadChange) -> list[RemovableHandle]:
        """A hook handing the one head's output (the context vector (B, Q, D), as heads (B, Q, 1, D)) to ``change``
        and passing on what it returns."""
        def hook(_module: nn.Module, _args: tuple[Any, ...], attended: Attended) -> Attended | None:
            changed = change(attended.output[:, :, None, :])
            if changed is None:
                return None
            return Attended(changed[:, :, 0, :], attended.weights, attended.scores)
        return [self.register_forward_hook(hook)]

    @staticmethod
    def inputs_of(keys: list[Tensor], values: list[Tensor], query_index: int) -> tuple[Tensor, Tensor]:
        """The keys and values (K, D) query ``query_index`` saw: every step gets the whole source again."""
        return keys[query_index][0], values[query_index][0]

    def explain(self, a: np.ndarray, a_keys: np.ndarray, a_values: np.ndarray, head: int, *,
                query_row: int = 0) -> Chain:
        """q, keys and values as they are (nothing projects them); dot-product scoring."""
        formulas = {"query": tr("q = s_{t−1}, the decoder's hidden state before this step"),
                    "key": tr("k_j = h_j, the encoder's output at source word j"), "value": "v_j = h_j"}
        return Chain(a, a_keys, a_values, formulas, "dot")


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


class AdditiveAttention(RecurrentQuery):
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

    def explain(self, a: np.ndarray, a_keys: np.ndarray, a_values: np.ndarray, head: int, *,
                query_row: int = 0) -> Chain:
        chain = super().explain(a, a_keys, a_values, head)
        features_q = _float64(self.W_q.weight) @ a  # (A,)
        features_k = a_keys @ _float64(self.W_k.weight).T  # (K, A)
        features = np.tanh(features_q[None, :] + features_k)
        return Chain(chain.q, chain.keys, chain.values, {**chain.formulas, "score": "s_j = w_vᵀ tanh(W_q q + W_k k_j)"},
                     "additive", (features_q, features_k, features, _float64(self.w_v.weight)[0]))


class DotProductAttention(RecurrentQuery):
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
        _report(self, q, key_heads, value_heads, scores, weights)
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

    # -- its chain for one query (the Computation view) ---------------------------------------------
    @property
    def heads(self) -> int:
        return self.num_heads

    def gate_heads(self, gate: GateSource) -> list[RemovableHandle]:
        """A hook multiplying head h's output by ``gate()[..., h]`` ((H,) or (B, H)) before W_o: the gate ξ_h of
        Michel et al. 2019; 0 switches the head off (core/heads)."""
        return self.intervene_heads(gated(gate))

    def intervene_heads(self, change: HeadChange) -> list[RemovableHandle]:
        """A hook before W_o handing the heads (B, Q, H, Dh) to ``change`` and passing on what it returns (gates,
        patching: core/heads, core/patching)."""
        def hook(_module: nn.Module, args: tuple[Any, ...]) -> tuple[Tensor] | None:
            x = args[0]  # (B, Q, H·Dh): the heads side by side
            changed = change(x.unflatten(-1, (self.num_heads, self.head_dim)))  # (B, Q, H, Dh)
            return None if changed is None else (changed.flatten(-2),)
        return [self.W_o.register_forward_pre_hook(hook)]

    def record_inputs(self, sink: Sink) -> list[RemovableHandle]:
        """Hooks passing the inputs of W_q, W_k and W_v to ``sink`` (a decoder calls ``attend`` and
        ``project_keys_values``, not ``forward``: these are the calls that always happen)."""
        def keep(name: str) -> Callable[..., None]:
            def hook(_module: nn.Module, args: tuple[Any, ...]) -> None:
                sink(name, args[0])
            return hook
        return [linear.register_forward_pre_hook(keep(name))
                for linear, name in ((self.W_q, "queries"), (self.W_k, "keys"), (self.W_v, "values"))]

    @staticmethod
    def inputs_of(keys: list[Tensor], values: list[Tensor], query_index: int) -> tuple[Tensor, Tensor]:
        """The keys and values (K, D) a query saw: W_k and W_v ran once per call on the new keys (a decoder's
        self-attention caches them step by step), so the calls put together."""
        return torch.cat(keys, dim=1)[0], torch.cat(values, dim=1)[0]

    def explain(self, a: np.ndarray, a_keys: np.ndarray, a_values: np.ndarray, head: int, *,
                query_row: int = 0) -> Chain:
        """Head ``head``'s projections of the query input a (D,) and the key and value inputs (K, D), by hand."""
        rows = slice(head * self.head_dim, (head + 1) * self.head_dim)

        def project(linear: nn.Linear, x: np.ndarray) -> np.ndarray:
            out = x @ _float64(linear.weight)[rows].T
            return out if linear.bias is None else out + _float64(linear.bias)[rows]

        q, keys, values = project(self.W_q, a), project(self.W_k, a_keys), project(self.W_v, a_values)
        bias = " + b" if self.W_q.bias is not None else ""
        formulas = {"query": f"q = W_q a{bias and bias + '_q'}", "key": f"k_j = W_k a_j{bias and bias + '_k'}",
                    "value": f"v_j = W_v a_j{bias and bias + '_v'}"}
        if self.additive is None:
            return Chain(q, keys, values, formulas, self.scoring)
        features_q = q @ _float64(self.additive.W_q[head])  # (Dh,)
        features_k = keys @ _float64(self.additive.W_k[head])  # (K, Dh)
        features = np.tanh(features_q[None, :] + features_k)
        return Chain(q, keys, values, {**formulas, "score": "s_j = w_vᵀ tanh(W_q' q + W_k' k_j)"}, self.scoring,
                     (features_q, features_k, features, _float64(self.additive.w_v[head])))
