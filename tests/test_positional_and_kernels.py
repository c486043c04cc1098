import math

import numpy as np
import pytest
import torch

from attnviz.core import (
    NadarayaWatsonRegression,
    PositionalEncoding,
    fit_parametric,
    kernel_weights,
    nadaraya_watson,
    positional_encoding_table,
    synthetic_regression_data,
)


@pytest.mark.parametrize(("pos", "i"), [(0, 0), (1, 0), (7, 3), (50, 15), (99, 31)])
def test_positional_table_matches_closed_formula(pos, i):
    d = 64
    table = positional_encoding_table(100, d)
    angle = pos / 10000 ** (2 * i / d)
    assert table[pos, 2 * i] == pytest.approx(math.sin(angle), abs=1e-6)
    assert table[pos, 2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-6)


def test_positional_table_odd_width_and_dtype():
    table = positional_encoding_table(10, 5)
    assert table.shape == (10, 5) and table.dtype == np.float32
    assert table[3, 4] == pytest.approx(math.sin(3 / 10000 ** (4 / 5)), abs=1e-6)


def test_positional_encoding_module_adds_table_with_offset(device):
    pe = PositionalEncoding(16, dropout=0.0, max_len=50).to(device)
    x = torch.zeros(2, 4, 16, device=device)
    table = torch.from_numpy(positional_encoding_table(50, 16)).to(device)
    torch.testing.assert_close(pe(x), table[:4].expand(2, -1, -1))
    torch.testing.assert_close(pe(x[:, :1], offset=9)[0, 0], table[9])
    with pytest.raises(ValueError, match="max_len"):
        pe(torch.zeros(1, 3, 16, device=device), offset=48)


def test_gaussian_weights_match_closed_form_softmax(device):
    x_train = torch.tensor([0.0, 1.0, 2.5], device=device)
    x_query = torch.tensor([0.5, 2.0], device=device)
    weights = kernel_weights(x_query, x_train, "gaussian", bandwidth=1.0)
    for qi, q in enumerate(x_query.tolist()):
        raw = [math.exp(-((q - x) ** 2) / 2) for x in x_train.tolist()]
        for kj, r in enumerate(raw):
            assert weights[qi, kj].item() == pytest.approx(r / sum(raw), rel=1e-5)


def test_parametric_weights_match_closed_form_with_w(device):
    model = NadarayaWatsonRegression(w=2.5).to(device)
    x_train = torch.tensor([0.0, 0.4, 1.0], device=device)
    y_train = torch.tensor([1.0, 2.0, -1.0], device=device)
    preds, weights = model(torch.tensor([0.3], device=device), x_train, y_train)
    raw = [math.exp(-(((0.3 - x) * 2.5) ** 2) / 2) for x in x_train.tolist()]
    expected = [r / sum(raw) for r in raw]
    assert weights[0].tolist() == pytest.approx(expected, rel=1e-5)
    assert preds.item() == pytest.approx(sum(e * y for e, y in zip(expected, [1, 2, -1], strict=True)),
                                         rel=1e-5)


def test_compact_kernels_and_unsupported_queries():
    keys = torch.tensor([0.0, 1.0, 3.0])
    values = torch.tensor([1.0, 3.0, 5.0])
    box = nadaraya_watson(torch.tensor([0.5, 10.0]), keys, values, "boxcar", bandwidth=1.0)
    assert box.weights[0].tolist() == [0.5, 0.5, 0.0]
    assert box.predictions[0].item() == pytest.approx(2.0)
    assert torch.isnan(box.predictions[1]) and torch.all(box.weights[1] == 0)
    epa = kernel_weights(torch.tensor([0.5]), keys, "epanechnikov", bandwidth=1.0)
    assert epa[0].tolist() == pytest.approx([0.5, 0.5, 0.0])  # 1 − 0.5² on both sides
    with pytest.raises(ValueError, match="unknown kernel"):
        kernel_weights(keys, keys, "triangle")
    with pytest.raises(ValueError, match="bandwidth"):
        kernel_weights(keys, keys, "gaussian", bandwidth=0.0)


def test_narrower_bandwidth_concentrates_attention():
    data = synthetic_regression_data()
    wide = kernel_weights(data.x_test, data.x_train, "gaussian", 2.0)
    narrow = kernel_weights(data.x_test, data.x_train, "gaussian", 0.2)
    assert narrow.max(-1).values.mean() > wide.max(-1).values.mean() * 3


def test_parametric_regression_learns_w_and_loss_falls(device):
    data = synthetic_regression_data(n_train=50, noise=0.5, seed=0)
    assert data.x_train.shape == (50,) and torch.all(data.x_train[1:] >= data.x_train[:-1])
    x, y = data.x_train.to(device), data.y_train.to(device)
    model = NadarayaWatsonRegression(w=1.0).to(device)
    losses = fit_parametric(model, x, y, epochs=5, lr=0.5)
    assert losses[-1] < losses[0] * 0.8
    assert model.w.item() != pytest.approx(1.0, abs=0.05)
    assert model.w.grad is not None and torch.isfinite(model.w.grad)


def test_kernel_view_matches_closed_form_at_the_query():
    from attnviz.core.models.kernel_regression import KernelRegressionConfig, KernelRegressionModel, explain

    model = KernelRegressionModel(KernelRegressionConfig())
    with torch.no_grad():
        model.parametric.w.fill_(3.0)
    fit = explain(model, "gaussian", bandwidth=0.5, query=1.7)
    x, y = fit.x_train.astype(np.float64), fit.y_train.astype(np.float64)
    gauss = np.exp(-(((1.7 - x) / 0.5) ** 2) / 2)
    np.testing.assert_allclose(fit.query_nonparametric_weights, gauss / gauss.sum(), rtol=1e-4, atol=1e-7)
    assert fit.query_nonparametric == pytest.approx(float(gauss @ y / gauss.sum()), rel=1e-4)
    param = np.exp(-(((1.7 - x) * 3.0) ** 2) / 2)
    np.testing.assert_allclose(fit.query_parametric_weights, param / param.sum(), rtol=1e-4, atol=1e-7)
    assert fit.nonparametric_weights.shape == (50, 50) and fit.parametric.shape == (50,)
    mse_np, mse_p = fit.test_mse()  # predictions are the attention-weighted training targets
    assert mse_np == pytest.approx(float(np.mean((fit.nonparametric_weights @ fit.y_train - fit.y_test) ** 2)))
    assert mse_p == pytest.approx(float(np.mean((fit.parametric_weights @ fit.y_train - fit.y_test) ** 2)))
