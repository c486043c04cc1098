"""``attnviz heads --data FOLDER`` for an image model: the atlas of its heads over a folder of images (the vision
family's half of :mod:`attnviz.commands.heads`, named by its registry records' ``input_commands``)."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

from attnviz.commands.shared import (
    CliError,
    check_out_option,
    csv_bytes,
    load_model,
    refuse_replacing,
    set_threads,
    shown,
    write_batch,
)
from attnviz.core.columns import columns_file
from attnviz.i18n import tr

if TYPE_CHECKING:
    from attnviz.progress import Heartbeat


def run(args: argparse.Namespace, progress: Heartbeat) -> int | None:
    """The atlas of an image model over --data, a folder of images: image_heads.csv (per layer and head: entropy,
    [CLS] share, mean attention distance in pixels), distances_by_layer.csv (its heads averaged) and COLUMNS.md; the
    distances by layer printed too. One process (the images of a folder are few enough). None where --checkpoint
    is not an image model and the folder holds no images: the sentences' own check then says what --data should
    be."""
    from attnviz.core.columns import DISTANCES_CSV, IMAGE_HEADS_CSV, IMAGE_HEADS_FILES
    from attnviz.core.heads.distributed import launched_by_torchrun
    from attnviz.core.heads.image_atlas import image_atlas, image_paths
    from attnviz.core.images import ImageError
    from attnviz.render.figure_files import SIDECAR

    if launched_by_torchrun():
        raise CliError(tr("the atlas of a folder of images runs in one process: run attnviz heads without "
                          "--processes or torchrun"))
    check_out_option(args.out)
    set_threads(args.threads)
    try:
        paths = image_paths(args.data, args.limit)
    except ValueError as error:  # (no images: an image model says so; any other --data's own check says what it is)
        try:
            image_model = load_model(args.checkpoint, args.device)[0].model_kind.reads_images
        except CliError:
            return None
        if not image_model:
            return None
        raise CliError(str(error)) from None
    progress.stage(tr("loading {checkpoint}").format(checkpoint=args.checkpoint))
    loaded, device = load_model(args.checkpoint, args.device)
    if not loaded.model_kind.reads_images:
        raise CliError(tr("{data} is a folder of images: give an image model with --checkpoint (e.g. "
                          "models/vit.safetensors), not a {kind} model").format(data=args.data, kind=loaded.kind))
    refuse_replacing(args, [IMAGE_HEADS_CSV, DISTANCES_CSV, "COLUMNS.md", SIDECAR])
    progress.stage(tr("attention over {count:,} images").format(count=len(paths)))
    started = time.perf_counter()
    try:
        sums = image_atlas(loaded, paths, device, progress)
    except ImageError as error:
        raise CliError(str(error)) from None
    seconds = time.perf_counter() - started
    by_layer = sums.layer_distances()
    extra = {IMAGE_HEADS_CSV: csv_bytes(sums.table()),
             DISTANCES_CSV: csv_bytes([{"layer": layer + 1, "mean_distance_px": float(distance)}
                                  for layer, distance in enumerate(by_layer)]),
             "COLUMNS.md": columns_file(IMAGE_HEADS_FILES, "attnviz heads").encode("utf-8")}
    sidecar = {"checkpoint": str(args.checkpoint), "kind": loaded.kind, "data": str(args.data),
               "images": sums.images, "seconds": round(seconds, 1)}
    written = write_batch([], args, [], sidecar, extra)
    print(tr("mean attention distance by layer, pixels (heads averaged): {distances}").format(
        distances=", ".join(f"{distance:.1f}" for distance in by_layer)))
    print(tr("wrote {count} files into {out}: {heads} heads over {images:,} images in {seconds:.0f} s").format(
        count=len(written), out=shown(args.out), heads=by_layer.size * sums.entropy.shape[1], images=sums.images,
        seconds=seconds))
    return 0
