"""``attnviz demo``: print what the attention core computes (kernel regression, a masked softmax row), as text."""

from __future__ import annotations

import argparse
from typing import Any

from attnviz.commands.shared import CliError
from attnviz.i18n import tr


def add_parser(subparsers: Any) -> None:
    """The ``demo`` command's options."""
    demo = subparsers.add_parser("demo", help=tr("print what the attention core computes, as text"))
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Show the core at work: kernel regression and a masked attention row, as text."""
    import torch

    from attnviz.core.limits import seed_problem

    if problem := seed_problem(args.seed):
        raise CliError(problem)

    from attnviz.core import (
        NadarayaWatsonRegression,
        fit_parametric,
        masked_softmax,
        nadaraya_watson,
        synthetic_regression_data,
    )

    data = synthetic_regression_data(seed=args.seed)
    print(tr("Nadaraya–Watson kernel regression on f(x) = 2 sin x + x^0.8 (50 noisy points)"))
    for kernel in ("gaussian", "boxcar", "epanechnikov"):
        pred = nadaraya_watson(data.x_test, data.x_train, data.y_train, kernel, bandwidth=0.5)
        mse = torch.nanmean((pred.predictions - data.y_test) ** 2).item()
        print(tr("  non-parametric {kernel:<13} h=0.5  test MSE {mse:.3f}").format(kernel=kernel, mse=mse))
    model = NadarayaWatsonRegression()
    losses = fit_parametric(model, data.x_train, data.y_train, epochs=5)
    with torch.no_grad():
        mse = ((model(data.x_test, data.x_train, data.y_train).predictions - data.y_test) ** 2).mean()
    print(tr("  parametric     learned w={w:.2f}  loss {before:.1f} -> {after:.1f}  test MSE {mse:.3f}").format(
        w=model.w.item(), before=losses[0], after=losses[-1], mse=mse.item()))
    scores = torch.tensor([[[2.0, 1.0, 0.5, 3.0, -1.0]]])
    weights = masked_softmax(scores, torch.tensor([3]))[0, 0]
    print(tr("masked softmax of scores [2, 1, 0.5, 3, -1] with valid length 3:"))
    print("  " + "  ".join(f"{w:.3f}" for w in weights.tolist()))
    return 0
