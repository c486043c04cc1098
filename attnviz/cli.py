"""Command-line interface: ``attnviz COMMAND …``. Needs no window and never imports Qt.

Errors reach the user as one line on stderr and exit code 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

EXIT_USAGE = 2


class CliError(Exception):
    """A problem the user can fix; printed as one line on stderr, exit code 2."""


def _cmd_demo(args: argparse.Namespace) -> int:
    """Show the core at work: kernel regression and a masked attention row, as text."""
    import torch

    from attnviz.core import (
        NadarayaWatsonRegression,
        fit_parametric,
        masked_softmax,
        nadaraya_watson,
        synthetic_regression_data,
    )

    data = synthetic_regression_data(seed=args.seed)
    print("Nadaraya–Watson kernel regression on f(x) = 2 sin x + x^0.8 (50 noisy points)")
    for kernel in ("gaussian", "boxcar", "epanechnikov"):
        pred = nadaraya_watson(data.x_test, data.x_train, data.y_train, kernel, bandwidth=0.5)
        mse = torch.nanmean((pred.predictions - data.y_test) ** 2).item()
        print(f"  non-parametric {kernel:<13} h=0.5  test MSE {mse:.3f}")
    model = NadarayaWatsonRegression()
    losses = fit_parametric(model, data.x_train, data.y_train, epochs=5)
    with torch.no_grad():
        mse = ((model(data.x_test, data.x_train, data.y_train).predictions - data.y_test) ** 2).mean()
    print(f"  parametric     learned w={model.w.item():.2f}  loss {losses[0]:.1f} -> {losses[-1]:.1f}"
          f"  test MSE {mse.item():.3f}")
    scores = torch.tensor([[[2.0, 1.0, 0.5, 3.0, -1.0]]])
    weights = masked_softmax(scores, torch.tensor([3]))[0, 0]
    print("masked softmax of scores [2, 1, 0.5, 3, -1] with valid length 3:")
    print("  " + "  ".join(f"{w:.3f}" for w in weights.tolist()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attnviz", description="See attention.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo = sub.add_parser("demo", help="print what the attention core computes, as text")
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(run=_cmd_demo)
    return parser


COMMANDS = ("demo",)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one CLI command; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return run(args)
    except CliError as error:
        print(f"attnviz: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
