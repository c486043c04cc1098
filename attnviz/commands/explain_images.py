"""``attnviz explain --checkpoint IMAGE_MODEL --data FOLDER``: every image of a folder explained by its model's
predicted class (:func:`attnviz.core.explain.explain_image`) and the methods' agreement tallied over the images:
agreement.csv, layers.csv, COLUMNS.md and the figures, all at once or nothing. One process: a folder's images are
few enough (``--processes`` and torchrun are refused in one line)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attnviz.commands.shared import CliError, load_model, refuse_replacing, set_threads, shown, write_with_figures
from attnviz.i18n import tr


def image_files(args: argparse.Namespace) -> list[Path] | None:
    """The images of the folder --data, by name, at most --limit; None where it holds none (what --data should be
    then depends on the model)."""
    from attnviz.core.heads.image_atlas import image_paths

    try:
        return image_paths(args.data, args.limit)
    except ValueError:
        return None


def checked_images(paths: list[Path], reader: Any) -> None:
    """Every image opened once before the work (decoded reduced for ``reader``, and let go): the first that cannot be
    read a CliError naming it, so that a bad file stops the run before minutes of gradients, with nothing written."""
    from attnviz.core.images import ImageError
    from attnviz.core.models.image_reading import open_for

    for path in paths:
        try:
            open_for(reader, path).close()
        except ImageError as error:
            raise CliError(str(error)) from None


def run(args: argparse.Namespace, checked_options: Callable[[argparse.Namespace], list[str]]) -> int:
    """Explain the images of the folder --data with the image model --checkpoint; write the files into --out.
    checked_options: the options shared with the sentences' run, checked (the figure formats asked)."""
    from attnviz.core.heads.distributed import launched_by_torchrun
    from attnviz.progress import Heartbeat

    if args.processes is not None or launched_by_torchrun() or "RANK" in os.environ:
        raise CliError(tr("explaining a folder of images runs in one process: run attnviz explain without "
                          "--processes or torchrun"))
    if args.heldout:
        raise CliError(tr("--heldout picks sentences from a TSV; --data {data} is a folder of images").format(
            data=args.data))
    with Heartbeat("attnviz explain") as progress:
        return _run_images(args, checked_options(args), progress)


def _run_images(args: argparse.Namespace, formats: list[str], progress: Any) -> int:
    from attnviz.core.columns import AGREEMENT_CSV, IMAGE_EXPLAIN_FILES, LAYERS_CSV, columns_file, counted_in
    from attnviz.core.explain import IMAGE_METHODS, explain_image
    from attnviz.core.explain.corpus import CorpusTally, agreement_csv, layers_csv
    from attnviz.core.heads.corpus import CorpusError, check_data_file
    from attnviz.core.images import ImageError
    from attnviz.core.models.image_reading import UnreadableImage, open_for, reader_of
    from attnviz.figures.explain import explain_figure_stems, explain_figures
    from attnviz.render.figure_files import SIDECAR

    refuse_replacing(args, [AGREEMENT_CSV, LAYERS_CSV, "COLUMNS.md", SIDECAR]
                     + [f"{stem}.{fmt}" for stem in explain_figure_stems(IMAGE_METHODS) for fmt in formats])
    paths = image_files(args)
    set_threads(args.threads if args.threads is not None else 1)
    if paths is None:  # a folder without images: for anything but an image model, the sentences' check says what
        try:           # --data should be
            reads_images = load_model(args.checkpoint, args.device)[0].model_kind.reads_images
        except CliError:
            reads_images = False
        if not reads_images:
            try:
                check_data_file(args.data)
            except CorpusError as error:
                raise CliError(str(error)) from None
        raise CliError(tr("{folder}: no images in it (PNG, JPEG, WebP, BMP or GIF files)").format(folder=args.data))
    progress.stage(tr("loading {checkpoint}").format(checkpoint=args.checkpoint))
    loaded, device = load_model(args.checkpoint, args.device)
    if not loaded.model_kind.reads_images:
        raise CliError(tr("{data} is a folder of images: give an image model with --checkpoint (e.g. "
                          "models/vit.safetensors), not a {kind} model").format(data=args.data, kind=loaded.kind))
    progress.stage(tr("reading {count:,} images").format(count=len(paths)))
    reader = reader_of(loaded)
    checked_images(paths, reader)
    tally = CorpusTally()
    progress.unit = tr("images")
    progress.stage(tr("explaining"))
    for number, path in enumerate(paths, start=1):
        try:
            with open_for(reader, path) as image:
                tally.add(explain_image(loaded, image, device, ig_steps=args.ig_steps))
        except UnreadableImage as error:
            raise CliError(str(error.naming(path))) from None
        except ImageError as error:
            raise CliError(str(error)) from None
        except ValueError as error:  # (a model without a classifier head: nothing to explain)
            raise CliError(f"{args.checkpoint}: {error}") from None
        progress(number, len(paths))
    files = {AGREEMENT_CSV: agreement_csv(tally, "images").encode(), LAYERS_CSV: layers_csv(tally, "images").encode(),
             "COLUMNS.md": columns_file(IMAGE_EXPLAIN_FILES, "attnviz explain", counted_in("images")).encode()}
    sidecar = {"checkpoint": str(args.checkpoint), "kind": loaded.kind, "data": str(args.data),
               "images": tally.steps, "ig_steps": args.ig_steps, "processes": 1}
    progress.unit = ""
    progress.stage(tr("drawing the figures"))
    written = write_with_figures(files, explain_figures(tally), args, formats, sidecar, progress)
    print(tr("explained the predicted class of {count} images; wrote {files} files to {out}").format(
        count=tally.steps, files=len(written), out=shown(args.out)))
    pairs = {(p.first, p.second): p for p in tally.pairs(magnitudes=False)}
    said = [f"τ({a}, {b}) {pairs[a, b].mean:.2f}" for a, b in (("attention", "ig"), ("rollout", "ig"),
                                                                 ("attention", "occlusion"), ("ig", "occlusion"))
            if (a, b) in pairs and pairs[a, b].count]  # (none where no image's rows have an order: a uniform image)
    if said:
        print(tr("mean Kendall τ over the images: {pairs}").format(pairs=", ".join(said)))
    return 0
