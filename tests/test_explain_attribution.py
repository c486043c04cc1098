"""Gradient × input and integrated gradients (Captum) against closed forms on a tiny linear model."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import Tensor, nn

from attnviz.core.explain.attribution import TokenLogProb, gradient_x_input, integrated_gradients, occlusion

PAD, UNK = 0, 3


class SumPooled(nn.Module):
    """logits (B, t, 2) = W Σ_j e(src_j): log p(token 0) = −softplus(−w·h) with w = W_0 − W_1, h = Σ_j e_j."""

    def __init__(self) -> None:
        super().__init__()
        self.src_embedding = nn.Embedding(8, 5)
        self.output = nn.Linear(5, 2, bias=False)

    def forward(self, src: Tensor, src_valid_lens: Tensor, tgt_in: Tensor) -> Tensor:
        h = self.src_embedding(src).sum(dim=1)  # (B, D)
        return self.output(h)[:, None, :].expand(-1, tgt_in.shape[1], -1)


@pytest.fixture
def linear() -> tuple[SumPooled, Tensor, Tensor, np.ndarray, np.ndarray, np.ndarray]:
    torch.manual_seed(3)
    model = SumPooled().double().eval()
    src, tgt_in = torch.tensor([[4, 5, 6, 7]]), torch.tensor([[1, 2]])
    table = model.src_embedding.weight.detach().numpy()
    w = (model.output.weight[0] - model.output.weight[1]).detach().numpy()
    return model, src, tgt_in, table, w, src[0].numpy()


def _g(z: np.ndarray | float) -> np.ndarray | float:
    return -np.logaddexp(0.0, -z)  # log sigmoid(z) = −softplus(−z)


def test_gradient_x_input_is_the_closed_form(linear) -> None:
    model, src, tgt_in, table, w, ids = linear
    z = w @ table[ids].sum(axis=0)
    slope = 1.0 / (1.0 + np.exp(z))  # g'(z) = 1 − sigmoid(z)
    row = gradient_x_input(TokenLogProb(model, tgt_in, 0), model.src_embedding, src)
    np.testing.assert_allclose(row, slope * (table[ids] @ w), rtol=1e-9)


def test_integrated_gradients_is_the_closed_form(linear) -> None:
    # f = g(w·h) along a straight path: ∇f ∝ w everywhere, so IG_j = (g(z1) − g(z0)) · w·(e_j − b) / (z1 − z0)
    model, src, tgt_in, table, w, ids = linear
    shares = (table[ids] - table[PAD]) @ w
    z1, z0 = w @ table[ids].sum(axis=0), w @ (len(ids) * table[PAD])
    expected = (_g(z1) - _g(z0)) * shares / (z1 - z0)
    row, completeness = integrated_gradients(TokenLogProb(model, tgt_in, 0), model.src_embedding, src, PAD, steps=64)
    np.testing.assert_allclose(row, expected, rtol=1e-6)
    assert completeness.difference == pytest.approx(_g(z1) - _g(z0))
    assert completeness.ratio == pytest.approx(1.0, abs=1e-6)


def test_occlusion_is_the_drop_in_log_probability(linear) -> None:
    model, src, tgt_in, table, w, ids = linear
    unk, removed, _tvd = occlusion(TokenLogProb(model, tgt_in, 0), src, UNK)  # (the TVD: test_explain_papers.py)
    full = _g(w @ table[ids].sum(axis=0))
    for j in range(len(ids)):
        swapped = ids.copy()
        swapped[j] = UNK
        assert unk[j] == pytest.approx(full - _g(w @ table[swapped].sum(axis=0)))
        assert removed[j] == pytest.approx(full - _g(w @ np.delete(table[ids], j, axis=0).sum(axis=0)))
