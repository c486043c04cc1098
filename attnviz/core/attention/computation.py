"""The computation of one attention query, stage by stage, as plain numbers a panel can draw.

A lecture draws one query of one head as a chain: the query's input vector ``a`` is projected to
``q``, every key's input ``a_j`` to ``k_j`` and ``v_j``, the scores ``s_j`` compare q with each k_j,
the masked softmax turns them into weights ``α`` (exactly 0 on masked keys) and the output ``b`` is
the weighted sum of the values. :class:`QueryComputation` holds every vector of that chain, taken
from a trained model's real numbers by :func:`attnviz.core.decoding.query_computation.compute_query`.

numpy only (no torch, no Qt): the GUI imports this module.
Shapes: D width of the layer's inputs, d width of one head's queries and keys (the head width
Dh = D / H for the Transformer, the hidden width for the RNN models), dv width of the values,
K keys, A width of the additive scoring's features.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from attnviz.core.attention.kind import AttentionKind

Scoring = Literal["dot", "additive"]


@dataclass(frozen=True)
class StageFormulas:
    """The formula of each stage, as a lecture writes it (Unicode text, one line each)."""

    query: str  # e.g. "q = W_q a"
    key: str  # e.g. "k_j = W_k a_j"
    value: str  # e.g. "v_j = W_v a_j"
    score: str  # e.g. "s_j = q·k_j / √8"
    weights: str  # "α = softmax(s) over visible keys"
    output: str  # "b = Σ_j α_j v_j"

    def lines(self) -> tuple[str, ...]:
        """The six formulas in the order of the chain."""
        return (self.query, self.key, self.value, self.score, self.weights, self.output)


@dataclass(frozen=True, eq=False)
class QueryComputation:
    """One query of one head of one attention layer, every intermediate vector included.

    model_kind: the checkpoint's kind ("transformer", "rnn-additive", "rnn-dot").
    kind: which attention (encoder self-, decoder self-, cross-attention); layer, head: 0-based.
    query_index: the query's position (a source position for encoder self-attention, else a row of
        the decoding, 0 = the query of ``<bos>``); query_token: the token at that position.
    key_tokens: the K keys' tokens (source tokens, ``<pad>`` included, or the decoder's inputs).
    scoring: "dot" (s_j = q·k_j / √d) or "additive" (s_j = w_vᵀ tanh(W_q q + W_k k_j)).
    formulas: the formula of every stage, with this model's names and numbers.

    query_input: (D,) the vector the query is made from (``a``: the layer's input at the query's
        position for the Transformer, the decoder's previous hidden state for the RNN models).
    key_inputs: (K, D) the vectors keys and values are made from (``a_j``).
    query: (d,) q, this head's query; keys: (K, d) k_j; values: (K, dv) v_j.
    scale: √d, the divisor of dot-product scores; None for additive scoring.
    additive_query: (A,) W_q q; additive_keys: (K, A) W_k k_j; additive_features: (K, A)
        tanh(W_q q + W_k k_j); additive_w_v: (A,) w_v — all four None for dot-product scoring.
    scores: (K,) s_j before the softmax, for every key (masked ones too: what the formula gives).
    visible: (K,) bool, True where the query may attend (padding and the causal mask are False).
    weights: (K,) α, the masked softmax of ``scores``: sums to 1, exactly 0 where not visible.
    output: (dv,) b = Σ_j α_j v_j, this head's output for this query (before W_o joins the heads).
    model_weights, model_scores: (K,) the row the model itself computed while decoding, for
        comparison (0 where the model computed nothing, e.g. above the causal diagonal).
    Arrays are float64 (bool for ``visible``).
    """

    model_kind: str
    kind: AttentionKind
    layer: int
    head: int
    query_index: int
    query_token: str
    key_tokens: tuple[str, ...]
    scoring: Scoring
    formulas: StageFormulas
    query_input: np.ndarray
    key_inputs: np.ndarray
    query: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    scale: float | None
    additive_query: np.ndarray | None
    additive_keys: np.ndarray | None
    additive_features: np.ndarray | None
    additive_w_v: np.ndarray | None
    scores: np.ndarray
    visible: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    model_weights: np.ndarray
    model_scores: np.ndarray

    def __post_init__(self) -> None:
        k = len(self.key_tokens)
        expected = {"key_inputs": (k, self.query_input.shape[0]), "keys": (k, self.query.shape[0]),
                    "scores": (k,), "visible": (k,), "weights": (k,), "model_weights": (k,),
                    "model_scores": (k,), "values": (k, self.output.shape[0])}
        for name, shape in expected.items():
            if getattr(self, name).shape != shape:
                raise ValueError(f"{name} has shape {getattr(self, name).shape}, expected {shape}")
        if (self.scoring == "additive") != (self.additive_w_v is not None):
            raise ValueError("the additive_* arrays are given exactly for additive scoring")
        if self.query_index < 0:
            raise ValueError(f"query_index must be non-negative, got {self.query_index}")

    @property
    def num_keys(self) -> int:
        return len(self.key_tokens)

    @property
    def masked(self) -> np.ndarray:
        """(K,) bool, True for keys the query may not attend to."""
        return ~self.visible

    def difference_from_model(self) -> float:
        """Largest |α_j − the model's own weight| over the keys: the recomputation's rounding."""
        return float(np.max(np.abs(self.weights - self.model_weights))) if self.num_keys else 0.0


def masked_softmax(scores: np.ndarray, visible: np.ndarray) -> np.ndarray:
    """Softmax of ``scores`` (K,) over the keys where ``visible`` (K,) is True; exactly 0 elsewhere,
    all zeros when nothing is visible (the rule of :func:`attnviz.core.attention.masking.masked_softmax`)."""
    scores = np.asarray(scores, dtype=np.float64)
    visible = np.asarray(visible, dtype=bool)
    weights = np.zeros_like(scores)
    if visible.any():
        shown = scores[visible]
        exp = np.exp(shown - shown.max())
        weights[visible] = exp / exp.sum()
    return weights
