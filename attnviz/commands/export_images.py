"""``attnviz export --image IMG`` for an image model (the vision family's half of :mod:`attnviz.commands.export`,
named by its registry records' ``input_commands``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from attnviz.commands.shared import CliError, shown, write_batch
from attnviz.i18n import tr


def run(args: argparse.Namespace, loaded, device, formats: list[str], mask=None) -> int:
    """export of an image model's reading of --image: every layer × head map over [CLS] and the patches, [CLS]'s
    attention over the image in every layer × head, its rollout after each layer (+ 0.5·I), and every head's overlay
    in one grid. ``mask``: the heads switched off (a saved session's, or --mask-heads), as the window switches them
    off: their outputs zeroed before the output projection, so the later layers' maps and the classes change."""
    import contextlib

    from attnviz.commands.shared import head_mask_of
    from attnviz.core.heads import masked_heads
    from attnviz.core.images import ImageError
    from attnviz.core.models.image_reading import encode_image_file
    from attnviz.figures.attention import AttentionView, attention_figures, attention_sidecar
    from attnviz.figures.image import image_export_figures

    if args.image is None:
        raise CliError(tr("{checkpoint} is an image model: give the image to read with --image").format(
            checkpoint=args.checkpoint))
    for option in ("text", "step", "flipbook"):
        if getattr(args, option) not in (None, False, ""):
            raise CliError(tr("--{option} does not go with an image model").format(option=option.replace("_", "-")))
    if args.mask_heads is not None:
        if mask:
            raise CliError(tr("--session switches its own heads off ({heads}): leave out --mask-heads").format(
                heads=mask))
        mask = head_mask_of(loaded, args.mask_heads)
    try:
        with masked_heads(loaded.model, mask, device) if mask else contextlib.nullcontext():
            source = encode_image_file(loaded, args.image, device)
    except (ImageError, ValueError) as error:
        raise CliError(str(error)) from None
    name = Path(args.checkpoint).stem
    if mask:  # (as the window names a model with heads off: ModelInfo.name)
        name = tr("{model}, heads off {heads}").format(model=name, heads=mask)
    view = AttentionView(scores=args.scores, show_masked=not args.blank_masked)
    figures = attention_figures(source, [None], view, name) + image_export_figures(source, name)
    sidecar = attention_sidecar(source, [None], view, name, loaded.kind, str(args.checkpoint), str(device))
    sidecar |= {"image": str(args.image), "classes": list(source.classes),
                "class_probabilities": [round(float(p), 6) for p in (source.class_probs if source.class_probs
                                                                      is not None else [])]}
    if mask:
        sidecar["masked_heads"] = str(mask)
    written = write_batch(figures, args, formats, sidecar)
    print(tr("wrote {count} files into {out}").format(count=len(written), out=shown(args.out)))
    return 0
