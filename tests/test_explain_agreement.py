"""Kendall's τ-b and Spearman's ρ against values computed by hand (ties as scipy treats them)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attnviz.core.explain import agreement_matrices, average_ranks, kendall_tau, spearman_rho


def test_one_discordant_pair_of_three() -> None:
    # pairs (0,1) and (0,2) agree, (1,2) disagree: τ = (2 − 1) / 3; ρ = 1 − 6·Σd² / (n(n² − 1)) = 1 − 12/24
    assert kendall_tau(np.array([1.0, 2, 3]), np.array([1.0, 3, 2])) == pytest.approx(1 / 3)
    assert spearman_rho(np.array([1.0, 2, 3]), np.array([1.0, 3, 2])) == pytest.approx(0.5)


def test_ties_follow_tau_b_and_average_ranks() -> None:
    x, y = np.array([1.0, 1, 2]), np.array([1.0, 2, 3])
    # τ-b: concordant − discordant = 2; untied pairs: 2 in x, 3 in y -> 2 / √6
    assert kendall_tau(x, y) == pytest.approx(2 / math.sqrt(6))
    # ranks x = (1.5, 1.5, 3), y = (1, 2, 3): centred (−.5, −.5, 1)·(−1, 0, 1) = 1.5; norms² 1.5 and 2
    assert spearman_rho(x, y) == pytest.approx(1.5 / math.sqrt(3.0))
    np.testing.assert_allclose(average_ranks(np.array([3.0, 1, 3, 2])), [3.5, 1, 3.5, 2])


def test_order_not_values_and_reversal() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=12)
    assert kendall_tau(x, np.exp(3 * x)) == pytest.approx(1.0)
    assert spearman_rho(x, x**3) == pytest.approx(1.0)
    assert kendall_tau(x, -x) == pytest.approx(-1.0)
    assert spearman_rho(x, -x) == pytest.approx(-1.0)


def test_constant_row_has_no_order() -> None:
    assert math.isnan(kendall_tau(np.ones(4), np.arange(4.0)))
    assert math.isnan(spearman_rho(np.ones(4), np.arange(4.0)))
    with pytest.raises(ValueError):
        kendall_tau(np.ones(3), np.ones(4))


def test_matrices_are_symmetric_with_unit_diagonal() -> None:
    rows = np.array([[1.0, 2, 3, 4], [4.0, 3, 2, 1], [1.0, 3, 2, 4]])
    tau, rho = agreement_matrices(rows)
    np.testing.assert_allclose(tau, tau.T)
    np.testing.assert_allclose(np.diag(rho), 1.0)
    assert tau[0, 1] == pytest.approx(-1.0)
    assert tau[0, 2] == pytest.approx(kendall_tau(rows[0], rows[2]))
    # (1,2,3,4) vs (1,3,2,4): one discordant pair of six -> τ = 4/6; Σd² = 2 -> ρ = 1 − 12/60
    assert tau[0, 2] == pytest.approx(4 / 6)
    assert rho[0, 2] == pytest.approx(0.8)
