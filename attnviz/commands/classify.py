"""``attnviz classify``: the top-5 classes of each image with an image model, or its accuracy on Fashion-MNIST's
test set (``--data``). Needs no display: Qt is never imported."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from attnviz.commands.shared import THREADS_HELP, CliError, load_model, set_threads, stdin_paths
from attnviz.i18n import tr

TOP_CLASSES = 5  # classes per line, best first
BATCH = 256  # images classified at once


def add_parser(subparsers: Any) -> None:
    """The ``classify`` command's options."""
    classify = subparsers.add_parser("classify", help=tr("the top-5 classes of each image (paths as arguments, or "
                                                         "one a line on stdin), or --data's test accuracy"))
    classify.add_argument("images", nargs="*", metavar="IMAGE",
                          help=tr("PNG, JPEG, WebP, BMP or GIF files (default: their paths on stdin, one a line)"))
    classify.add_argument("--checkpoint", required=True, help=tr("an image model: models/vit.safetensors"))
    classify.add_argument("--data", help=tr("the folder of Fashion-MNIST's four idx files: print the top-1 accuracy "
                                            "on its 10,000 test images instead"))
    classify.add_argument("--device", default="auto", help=tr("auto, cpu, cuda, cuda:N or mps"))
    classify.add_argument("--threads", type=int, help=tr(THREADS_HELP))
    classify.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """One line per image, in the order given, tab-separated as a pipe reads it: the file's path, then its top-5
    classes best first, each a class name (in the interface's language where attnviz knows the name, e.g.
    Fashion-MNIST's; else the model's own) and its probability (0.0000–1.0000); or, with --data, the test set's
    top-1 accuracy. A file that is not a readable image stops the run with one line naming it (the
    images before it are printed)."""
    set_threads(args.threads)
    loaded, device = load_model(args.checkpoint, args.device)
    if not loaded.model_kind.reads_images:
        raise CliError(tr("{checkpoint}: a {kind} model does not classify images (give an image model, e.g. "
                          "models/vit.safetensors)").format(checkpoint=args.checkpoint, kind=loaded.kind))
    from attnviz.core.models.image_reading import reader_of

    if not reader_of(loaded).labels:  # (a bare ViTModel or Dinov2Model: its attention, but no classes)
        raise CliError(tr("{checkpoint}: {name} has no classifier head, so it names no classes (attnviz heads --data "
                          "shows its attention over a folder of images)").format(checkpoint=args.checkpoint,
                                                                                 name=loaded.name))
    if args.data is not None:
        if args.images:
            raise CliError(tr("--data measures the test set: give it without image files"))
        return _test_accuracy(loaded, device, args.data)
    paths = args.images if args.images else stdin_paths()
    for batch in _batches(paths, BATCH):
        _classify(loaded, device, batch)
    return 0


def _batches(paths: Iterable[str], size: int) -> Iterator[list[str]]:
    batch: list[str] = []
    for path in paths:
        batch.append(path)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _classify(loaded: Any, device: Any, paths: list[str]) -> None:
    """Read ``paths`` one at a time, each decoded reduced and prepared for the model before the next is read (a batch
    holds its prepared pictures, never its images whole), classify those read and print their lines; the first
    unreadable file a CliError after the lines of the images before it."""
    import torch

    from attnviz.core.images import ImageError
    from attnviz.core.models.image_reading import UnreadableImage, classify_prepared, read_prepared, reader_of

    reader = reader_of(loaded)
    inputs: list[Any] = []
    read: list[str] = []  # (the paths of the images read, in order)
    problem: ValueError | None = None
    for path in paths:
        try:
            inputs.append(read_prepared(reader, [path])[0])
        except ImageError as error:
            problem = error
            break
        except UnreadableImage as error:  # (a folder's image processor refusing it: the lines of those before it)
            problem = error.naming(path)
            break
        read.append(path)
    if inputs:
        lines = classify_prepared(reader, torch.cat(inputs), device, TOP_CLASSES)
        sys.stdout.write("".join(classified_line(path, line) + "\n" for path, line in zip(read, lines, strict=True)))
        sys.stdout.flush()
    if problem is not None:
        raise CliError(str(problem))


def classified_line(path: str, classes: Iterable[tuple[str, float]]) -> str:
    """``path``, then each (class, probability) as ``name<TAB>0.9120``, tab-separated; Fashion-MNIST's ten class
    names in the interface's language, any other (a folder's own) as the model names it."""
    from attnviz.training.fashion_mnist import CLASS_NAMES

    return "\t".join([path, *(f"{tr(name) if name in CLASS_NAMES else name}\t{probability:.4f}"
                               for name, probability in classes)])


def _test_accuracy(loaded: Any, device: Any, folder: str) -> int:
    """Top-1 accuracy on the Fashion-MNIST test images of ``folder``, printed."""
    from attnviz.training.fashion_mnist import CLASS_NAMES, SIDE, read_test
    from attnviz.training.options import TrainingError
    from attnviz.training.vision import accuracy

    config = loaded.config
    if (config.image_size, config.channels, loaded.labels) != (SIDE, 1, CLASS_NAMES):
        raise CliError(tr("--data: this model does not read Fashion-MNIST (28 × 28 grey images of its ten classes)"))
    try:
        test = read_test(folder)
    except TrainingError as error:
        raise CliError(f"--data: {error}") from None
    score = accuracy(loaded.model, test, device)
    print(tr("top-1 accuracy {accuracy:.2f} % on the {count:,} test images of {folder}").format(
        accuracy=100 * score, count=len(test), folder=folder))
    return 0
