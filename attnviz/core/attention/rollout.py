"""Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers"), numpy only.

Attention weights of one layer say how much each position reads from the positions of the layer
below, not from the input tokens. Rollout follows the flow down through every layer: each layer's
heads are averaged, the residual connection is modelled by adding the identity, and the layers'
matrices are multiplied. Shapes: L layers, H heads, S source tokens, T decoder queries.
"""

from __future__ import annotations

import numpy as np

DEFAULT_RESIDUAL = 0.5  # the paper's A = 0.5·W_att + 0.5·I


def _normalise_rows(matrix: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """Rows of ``matrix`` (..., Q, K) scaled to sum 1; rows summing to 0 are replaced by ``empty``'s rows."""
    sums = matrix.sum(axis=-1, keepdims=True)
    return np.where(sums > 0, matrix / np.where(sums > 0, sums, 1.0), empty)


def layer_matrices(weights: np.ndarray, residual: float = DEFAULT_RESIDUAL) -> np.ndarray:
    """weights (L, H, S, S) -> (L, S, S): A_l = residual·I + (1 − residual)·mean_h W_l, rows renormalised.

    A row with no visible key (all zero) becomes the identity row: the position only keeps itself.
    """
    weights = np.asarray(weights)
    if weights.ndim != 4 or weights.shape[-1] != weights.shape[-2]:
        raise ValueError(f"encoder self-attention must be (L, H, S, S), got {weights.shape}")
    identity = np.eye(weights.shape[-1])
    # (summed in float64 without a float64 copy of all heads: 128 MB for 8 heads × 2 layers of 1,024 tokens)
    mixed = residual * identity + (1.0 - residual) * weights.mean(axis=1, dtype=np.float64)  # (L, S, S)
    return _normalise_rows(mixed, identity)


def rollout(weights: np.ndarray, residual: float = DEFAULT_RESIDUAL) -> np.ndarray:
    """Attention rollout of one sentence's encoder self-attention.

    weights (L, H, S, S), rows summing to 1 over the visible keys (masked keys exactly 0).
    Returns (L, S, S) float64, the rollout after each layer: R_1 = A_1, R_l = A_l @ R_{l-1} (layer 1
    applied first). Row i of R_l: the share of each input token in position i after layer l; ``[-1]``
    is the full rollout. Every row sums to 1. L = 0 gives an empty (0, S, S) array.
    """
    out = layer_matrices(weights, residual)  # R_1 = A_1 (A_1 @ I: no product needed)
    for layer in range(1, out.shape[0]):
        out[layer] = out[layer] @ out[layer - 1]  # R_l = A_l @ R_{l-1}
    return out


def source_attribution(cross_weights: np.ndarray, encoder_rollout: np.ndarray | None) -> np.ndarray:
    """How much each decoder query draws, through the encoder–decoder attention, on each source token.

    cross_weights (L_dec, H, T, S): the decoder's cross-attention at a step; encoder_rollout (S, S): the
    encoder's full rollout (``rollout(w)[-1]``), or None. For each decoder layer l:
    attribution_l = mean_h(cross_l) @ encoder_rollout — cross-attention reads encoder outputs, and the
    rollout maps each encoder output back to the input tokens. No identity is added: the decoder's
    residual stream carries target-side information, not source tokens. With None the result is the
    head-averaged cross-attention itself. Returns (L_dec, T, S) float64; each row is renormalised to
    sum 1 (a row with no weight at all stays 0).
    """
    cross = np.asarray(cross_weights, dtype=np.float64)
    if cross.ndim != 4:
        raise ValueError(f"cross-attention must be (L, H, T, S), got {cross.shape}")
    averaged = cross.mean(axis=1)  # (L_dec, T, S)
    if encoder_rollout is not None:
        flow = np.asarray(encoder_rollout, dtype=np.float64)
        if flow.shape != (cross.shape[-1], cross.shape[-1]):
            raise ValueError(f"encoder rollout must be (S, S) with S = {cross.shape[-1]}, got {flow.shape}")
        averaged = averaged @ flow
    return _normalise_rows(averaged, np.zeros(averaged.shape[-1]))
