"""``attnviz figures``: render the book's attention figures (d2l.ai, the Transformer paper) and their index page."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from attnviz.commands.shared import (
    THREADS_HELP,
    CliError,
    check_out_option,
    formats_option,
    set_threads,
    shown,
    write_batch,
)
from attnviz.figures.editions import DEFAULT_EDITION, EDITION_NAMES, EDITIONS
from attnviz.i18n import tr


def add_parser(subparsers: Any) -> None:
    """The ``figures`` command's options."""
    figures = subparsers.add_parser("figures",
                                    help=tr("render the book's attention figures (d2l.ai, the Transformer paper)"))
    figures.add_argument("--out", required=True, type=Path, help=tr("folder to write into (created if missing)"))
    figures.add_argument("--format", default="png,svg,csv", help=tr("comma-separated: png, svg, pdf, csv, npy"))
    figures.add_argument("--only", help=tr("figures whose key or section (in either edition) starts with these, "
                                           "e.g. 10.6,paper or 11.6"))
    figures.add_argument("--edition", default=DEFAULT_EDITION, metavar="|".join(EDITIONS),
                         help=tr("how sections are numbered: {editions} (default {default}); the other edition's "
                                 "number stands beside each").format(
                             editions="; ".join(f"{e}: {tr(n)}" for e, n in EDITION_NAMES.items()),
                             default=DEFAULT_EDITION))
    figures.add_argument("--scale", type=float, default=2.0, help=tr("PNG scale factor (default 2)"))
    figures.add_argument("--threads", type=int, help=tr(THREADS_HELP))
    figures.add_argument("--force", action="store_true", help=tr("replace files of the same names in --out"))
    figures.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Render the book's attention figures (the gallery) without a window, with an index page."""
    from attnviz.figures.editions import edition_of
    from attnviz.figures.spec import NamedFigure
    from attnviz.gallery import entries, index_html
    from attnviz.progress import Heartbeat
    from attnviz.render.figure_files import ExportError, check_scale

    formats = formats_option(args.format)  # (Qt started here only where a picture is asked for)
    try:
        edition = edition_of(args.edition)
        check_scale(args.scale)
        only = [part.strip() for part in args.only.split(",") if part.strip()] if args.only else None
        chosen = entries(only, edition)
    except (ExportError, ValueError) as error:
        raise CliError(str(error)) from None
    check_out_option(args.out)
    set_threads(args.threads)
    with Heartbeat("attnviz figures") as progress:  # each tenth and at least every 10 s, on stderr
        # (chosen: in the edition's order, its supplementary figures last; files named by its section numbers)
        progress.stage(tr("computing the figures"))
        figures = []
        for entry in chosen:
            figures.append(NamedFigure(entry.file_stem(edition), entry.build()))
            progress(len(figures), len(chosen))
        index = index_html(chosen, [fmt for fmt in formats if fmt != "npy"], edition).encode("utf-8")
        sidecar = {"attnviz_figures": 1, "edition": edition,
                   "figures": [{"file": e.file_stem(edition), "key": e.key, "section": e.section.number(edition),
                                "in_book": not e.supplementary(edition), "caption": e.caption,
                                "sections": e.section.numbers} for e in chosen]}
        progress.stage(tr("drawing the files"))
        written = write_batch(figures, args, formats, sidecar, {"index.html": index}, progress)
    print(tr("wrote {figures} figures ({files} files) into {out}; open {index}").format(
        figures=len(chosen), files=len(written), out=shown(args.out), index=shown(args.out / "index.html")))
    return 0
