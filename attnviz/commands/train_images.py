"""``attnviz train vit --data DIR`` (the vision family's half of :mod:`attnviz.commands.train`, named by its
registry record's ``data_trainer``): its options (``--augment``), what its --data is, and its run."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from attnviz.commands.shared import CliError, chosen_device
from attnviz.i18n import tr


def add_arguments(train: argparse.ArgumentParser) -> None:
    """The image models' own options of ``attnviz train``."""
    train.add_argument("--augment", action="store_true", default=None,
                       help=tr("an image model: train on random crops (padding 2) and mirror images of the training "
                               "images (default: the images as they are)"))


def data_help() -> str:
    """What --data is for an image model: the end of the option's help, after its other uses."""
    return tr("; an image model: the folder of Fashion-MNIST's four idx files")


def refuse_options(args: argparse.Namespace) -> None:
    """CliError where a kind that is not an image model is given an image model's option."""
    if args.augment:
        raise CliError(tr("--augment goes with an image model (attnviz train vit)"))


def run(args: argparse.Namespace, parse_arch: Callable[[str, str], dict[str, Any]],
        training_errors: Callable[[Path], AbstractContextManager[None]]) -> int:
    """``attnviz train vit --data DIR``: a vision transformer on the Fashion-MNIST folder DIR, with per-epoch
    validation accuracy in its checkpoint (:mod:`attnviz.training.vision`)."""
    from attnviz.training.vision import ViTOptions, train_vit

    if args.data is None or not Path(args.data).is_dir():
        raise CliError(tr("--data: give the folder with Fashion-MNIST's four idx files (not found: {path})").format(
            path=args.data))
    overrides = {k: v for k, v in {"epochs": args.epochs, "seed": args.seed, "minutes": args.minutes, "lr": args.lr,
                                    "batch_size": args.batch_size, "stop_after": args.stop_after,
                                    "augment": args.augment}.items() if v is not None}
    arch = parse_arch(args.kind, args.arch) if args.arch is not None else None
    with training_errors(args.out):
        info = train_vit(args.data, args.out, chosen_device(args.device), ViTOptions(**overrides), arch,
                         replace_existing=args.force, resume=bool(args.resume))
    print(tr("wrote {out}: validation accuracy {accuracy:.2f} % after {minutes} min").format(
        out=args.out, accuracy=info["val_accuracy"], minutes=info["minutes"]))
    return 0
