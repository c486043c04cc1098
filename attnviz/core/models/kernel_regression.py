"""Nadaraya–Watson kernel regression: attention pooling in its simplest form (d2l §10.2; §11.2 in d2l 1.0).

A query x attends to training inputs xᵢ (keys) and pools their targets yᵢ (values):
``f(x) = Σᵢ α(x, xᵢ) yᵢ`` with ``α(x, xᵢ) = K((x − xᵢ)/h) / Σⱼ K((x − xⱼ)/h)``.
Shapes: Q queries, K keys (training points).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import torch
from torch import Tensor, nn

from attnviz.core.results import KERNELS, KernelFit
from attnviz.i18n import tr


class KernelPrediction(NamedTuple):
    """predictions (Q,) and the attention weights (Q, K) that produced them."""

    predictions: Tensor
    weights: Tensor


def _gaussian_log(u: Tensor) -> Tensor:
    return -(u**2) / 2


def _boxcar(u: Tensor) -> Tensor:
    return (u.abs() <= 1).to(u.dtype)


def _epanechnikov(u: Tensor) -> Tensor:
    return torch.clamp(1 - u**2, min=0)


#: Kernels with compact support, evaluated directly; the Gaussian is evaluated in log space.
_COMPACT_KERNELS: dict[str, Callable[[Tensor], Tensor]] = {
    "boxcar": _boxcar,
    "epanechnikov": _epanechnikov,
    "constant": torch.ones_like,  # every key alike: average pooling, whatever the bandwidth
}


def true_function(x: Tensor) -> Tensor:
    """The book's target f(x) = 2 sin(x) + x^0.8."""
    return 2 * torch.sin(x) + x**0.8


class RegressionData(NamedTuple):
    """x_train, y_train (N,) sorted noisy samples; x_test, y_test (M,) noiseless grid."""

    x_train: Tensor
    y_train: Tensor
    x_test: Tensor
    y_test: Tensor


def synthetic_regression_data(n_train: int = 50, noise: float = 0.5, seed: int = 0) -> RegressionData:
    """The book's setup: n_train sorted points on [0, 5), noise σ, test grid 0…4.9 step 0.1."""
    gen = torch.Generator().manual_seed(seed)
    x_train, _ = torch.sort(torch.rand(n_train, generator=gen) * 5)
    y_train = true_function(x_train) + torch.randn(n_train, generator=gen) * noise
    x_test = torch.arange(0, 5, 0.1)
    return RegressionData(x_train, y_train, x_test, true_function(x_test))


def kernel_weights(queries: Tensor, keys: Tensor, kernel: str = "gaussian",
                   bandwidth: float = 1.0) -> Tensor:
    """Attention weights α (Q, K) of queries (Q,) over keys (K,) for a kernel and bandwidth h > 0.

    Gaussian rows always sum to 1. With a compact kernel (boxcar, Epanechnikov) a query with no
    key within one bandwidth gets an all-zero row: no training point supports it.
    """
    if bandwidth <= 0 or not math.isfinite(bandwidth):
        raise ValueError(tr("bandwidth must be a positive number, got {bandwidth}").format(bandwidth=bandwidth))
    u = (queries[:, None] - keys[None, :]) / bandwidth  # (Q, K)
    if kernel == "gaussian":
        return torch.softmax(_gaussian_log(u), dim=-1)
    if kernel not in _COMPACT_KERNELS:
        raise ValueError(tr("unknown kernel {kernel!r}; choose one of {kernels}").format(kernel=kernel,
                                                                                        kernels=", ".join(KERNELS)))
    mass = _COMPACT_KERNELS[kernel](u)
    total = mass.sum(dim=-1, keepdim=True)
    return torch.where(total > 0, mass / total.clamp_min(torch.finfo(mass.dtype).tiny), 0.0)


def nadaraya_watson(queries: Tensor, keys: Tensor, values: Tensor, kernel: str = "gaussian",
                    bandwidth: float = 1.0) -> KernelPrediction:
    """Non-parametric regression: predictions (Q,) = α (Q, K) @ values (K,).

    A query with no support (all-zero row, compact kernels only) is predicted as NaN.
    """
    weights = kernel_weights(queries, keys, kernel, bandwidth)
    predictions = weights @ values
    unsupported = weights.sum(dim=-1) == 0
    return KernelPrediction(predictions.masked_fill(unsupported, float("nan")), weights)


class NadarayaWatsonRegression(nn.Module):
    """Parametric Gaussian regression with a learnable scale w: α = softmax(−((x − xᵢ) w)² / 2).

    The learned bandwidth is h = 1 / |w|.
    """

    def __init__(self, w: float = 1.0):
        super().__init__()
        self.w = nn.Parameter(torch.tensor(float(w)))

    def forward(self, queries: Tensor, keys: Tensor, values: Tensor) -> KernelPrediction:
        """queries (Q,); keys, values (K,) shared by all queries or (Q, K) per query."""
        if keys.dim() == 1:
            keys = keys[None, :].expand(queries.shape[0], -1)
            values = values[None, :].expand(queries.shape[0], -1)
        weights = torch.softmax(-(((queries[:, None] - keys) * self.w) ** 2) / 2, dim=-1)
        return KernelPrediction((weights * values).sum(dim=-1), weights)


def leave_one_out(x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """For each training point, the other N−1 points as keys and values: two (N, N−1) tensors."""
    n = x.shape[0]
    keep = ~torch.eye(n, dtype=torch.bool, device=x.device)
    return x[None, :].expand(n, -1)[keep].view(n, n - 1), y[None, :].expand(n, -1)[keep].view(n, n - 1)


def fit_parametric(model: NadarayaWatsonRegression, x_train: Tensor, y_train: Tensor,
                   epochs: int = 5, lr: float = 0.5) -> list[float]:
    """Train w by full-batch SGD on the leave-one-out squared error (the book's recipe).

    Returns the loss before each update and after the last one (epochs + 1 values).
    """
    keys, values = leave_one_out(x_train, y_train)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = ((model(x_train, keys, values).predictions - y_train) ** 2).sum() / 2
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        losses.append(float(((model(x_train, keys, values).predictions - y_train) ** 2).sum() / 2))
    return losses


@dataclass(frozen=True)
class KernelRegressionConfig:
    """The shipped kernel-regression setup: data recipe plus the default non-parametric kernel."""

    n_train: int = 50
    noise: float = 0.5
    seed: int = 0
    kernel: str = "gaussian"
    bandwidth: float = 1.0


class KernelRegressionModel(nn.Module):
    """Training data, test grid and trained parametric model in one module (one checkpoint).

    Buffers x_train, y_train (N,), x_test, y_test (M,); ``parametric`` holds the learned w.
    """

    def __init__(self, config: KernelRegressionConfig):
        super().__init__()
        self.config = config
        data = synthetic_regression_data(config.n_train, config.noise, config.seed)
        self.x_train: Tensor
        self.y_train: Tensor
        self.x_test: Tensor
        self.y_test: Tensor
        for name, value in data._asdict().items():
            self.register_buffer(name, value.clone())
        self.parametric = NadarayaWatsonRegression()

    def data(self) -> RegressionData:
        return RegressionData(*(getattr(self, name) for name in RegressionData._fields))

    def non_parametric(self, queries: Tensor, kernel: str | None = None,
                       bandwidth: float | None = None) -> KernelPrediction:
        """queries (Q,) -> predictions (Q,), weights (Q, N) with the config's or the given kernel."""
        return nadaraya_watson(queries, self.x_train, self.y_train, kernel or self.config.kernel,
                               bandwidth if bandwidth is not None else self.config.bandwidth)

    def forward(self, queries: Tensor) -> KernelPrediction:
        """The trained parametric model's predictions (Q,) and weights (Q, N)."""
        return self.parametric(queries, self.x_train, self.y_train)


@torch.no_grad()
def explain(model: KernelRegressionModel, kernel: str | None = None, bandwidth: float | None = None,
            query: float = 2.5) -> KernelFit:
    """Both models' predictions and attention weights on the test grid and at one query point."""
    kernel = kernel or model.config.kernel
    bandwidth = bandwidth if bandwidth is not None else model.config.bandwidth
    x_test = model.x_test
    queries = torch.cat([x_test, torch.tensor([query], dtype=x_test.dtype, device=x_test.device)])
    nonparam = model.non_parametric(queries, kernel, bandwidth)
    param = model(queries)
    np_pred, np_w = nonparam.predictions.cpu().numpy(), nonparam.weights.cpu().numpy()
    p_pred, p_w = param.predictions.cpu().numpy(), param.weights.cpu().numpy()
    return KernelFit(
        kernel=kernel, bandwidth=float(bandwidth), w=float(model.parametric.w.item()),
        x_train=model.x_train.cpu().numpy(), y_train=model.y_train.cpu().numpy(),
        x_test=x_test.cpu().numpy(), y_test=model.y_test.cpu().numpy(),
        nonparametric=np_pred[:-1], nonparametric_weights=np_w[:-1],
        parametric=p_pred[:-1], parametric_weights=p_w[:-1], query=float(query),
        query_nonparametric=float(np_pred[-1]), query_nonparametric_weights=np_w[-1],
        query_parametric=float(p_pred[-1]), query_parametric_weights=p_w[-1])
