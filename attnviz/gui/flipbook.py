"""The decoding flip-book: one figure per decoding step, as one multi-page PDF and one animated GIF.

The PDF is vector, like a single PDF export (:mod:`attnviz.gui.figure_files`), one page per step, every
page as large as the largest figure with the figure at its top left, so that paging through it the
heatmap stays in place while it grows a row per step. The GIF (Pillow) shows the same figures as
pictures, padded on white to one size the same way, a frame per step, looping forever.

Both files are complete before either takes its name: each is written to a hidden temporary file beside
its destination, synced to disk, and renamed only when both are written; a failure before then removes both. An
existing file is replaced only with ``force``; a folder (or anything that is not a regular file) never.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image
from PySide6 import QtCore, QtGui

from attnviz.core.files import atomic_output, check_target, kind_of
from attnviz.figures.spec import AnyFigure
from attnviz.gui.figure_files import ExportError, WouldReplace, _failed, check_scale
from attnviz.gui.figure_painter import figure_image, figure_size, lookup_table, paint_figure

FRAME_MS = 700  # how long each step shows in the GIF
LAST_FRAME_MS = 2000  # the finished decoding stays up longer before the loop starts again
PALETTE_PIXELS = 8_000_000  # the shared GIF palette is fitted to at most about this many pixels of frames


def _checked(figures: Sequence[AnyFigure]) -> list[AnyFigure]:
    figures = list(figures)
    if not figures:
        raise ExportError("There is nothing to export yet: the decoding has no steps.")
    if any(spec.values.size == 0 for spec in figures):
        raise ExportError("There is nothing to export yet: a step's heatmap is empty.")
    return figures


def _page_size(figures: Sequence[AnyFigure]) -> QtCore.QSizeF:
    """The largest width and the largest height of the figures, in logical pixels (= PDF points)."""
    sizes = [figure_size(spec) for spec in figures]
    return QtCore.QSizeF(max(s.width() for s in sizes), max(s.height() for s in sizes))


def flipbook_pdf_bytes(figures: Sequence[AnyFigure], title: str = "") -> bytes:
    """The figures as one PDF, a page per figure, vector cells; every page the size of the largest figure."""
    figures = _checked(figures)
    size = _page_size(figures)
    data = QtCore.QByteArray()
    buffer = QtCore.QBuffer(data)
    buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    writer = QtGui.QPdfWriter(buffer)
    writer.setResolution(72)  # a logical pixel is a point, as in a single PDF export
    writer.setPageSize(QtGui.QPageSize(size, QtGui.QPageSize.Unit.Point, title or "attnviz flip-book"))
    writer.setPageMargins(QtCore.QMarginsF(0, 0, 0, 0))
    writer.setTitle(title)
    writer.setCreator("attnviz")
    painter = QtGui.QPainter()
    if not painter.begin(writer):
        raise OSError(0, "the PDF could not be started")
    try:
        for number, spec in enumerate(figures):
            if number and not writer.newPage():
                raise OSError(0, f"page {number + 1} of the PDF could not be started")
            painter.fillRect(QtCore.QRectF(QtCore.QPointF(0, 0), size), QtGui.QColor("white"))
            paint_figure(painter, spec, vector=True)
    finally:
        finished = painter.end()
    if not finished:
        raise OSError(0, "the PDF could not be finished")
    del writer  # the PDF is complete once its writer is gone
    pdf = bytes(data.data())
    if not pdf.rstrip().endswith(b"%%EOF"):
        raise OSError(0, "the PDF came out incomplete")
    return pdf


def pil_image(image: QtGui.QImage) -> Image.Image:
    """A QImage as an RGB Pillow image (a copy: the QImage may go)."""
    rgb = image.convertToFormat(QtGui.QImage.Format.Format_RGB888)
    data = bytes(rgb.constBits())[: rgb.bytesPerLine() * rgb.height()]
    return Image.frombuffer("RGB", (rgb.width(), rgb.height()), data, "raw", "RGB", rgb.bytesPerLine(), 1).copy()


def gif_frames(figures: Sequence[AnyFigure], scale: float = 1.0) -> list[Image.Image]:
    """The figures as RGB pictures at ``scale``, all padded on white to the largest width and height
    (top left aligned: the picture stays in place as it grows)."""
    pictures = [pil_image(figure_image(spec, scale)) for spec in _checked(figures)]
    width = max(p.width for p in pictures)
    height = max(p.height for p in pictures)
    frames = []
    for picture in pictures:
        if picture.size != (width, height):
            padded = Image.new("RGB", (width, height), "white")
            padded.paste(picture, (0, 0))
            picture = padded
        frames.append(picture)
    return frames


def _packed(frame: Image.Image) -> np.ndarray:
    """An RGB picture's pixels as one uint32 0xRRGGBB word each, flattened."""
    rgb = np.asarray(frame, dtype=np.uint8).reshape(-1, 3).astype(np.uint32)
    return (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]


def _rgb(packed: np.ndarray) -> np.ndarray:
    """uint32 0xRRGGBB words as (N, 3) int32 colours."""
    return np.stack([(packed >> 16) & 255, (packed >> 8) & 255, packed & 255], axis=1).astype(np.int32)


def _nearest(colours: np.ndarray, palette: np.ndarray) -> np.ndarray:
    """For each (N, 3) colour the index of the closest (P, 3) palette colour (squared RGB distance)."""
    out = np.empty(len(colours), np.intp)
    for begin in range(0, len(colours), 4096):  # (4096, P, 3) at most at once
        part = colours[begin: begin + 4096, None, :] - palette[None, :, :]
        out[begin: begin + 4096] = np.einsum("npc,npc->np", part, part).argmin(axis=1)
    return out


def colour_counts(frames: Sequence[Image.Image]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct colours of the frames (sorted uint32 0xRRGGBB words) and how many pixels have each."""
    found = [np.unique(_packed(frame), return_counts=True) for frame in frames]
    colours, where = np.unique(np.concatenate([c for c, _ in found]), return_inverse=True)
    counts = np.bincount(where.ravel(), weights=np.concatenate([n for _, n in found]), minlength=len(colours))
    return colours, counts.astype(np.int64)


def shared_palette(frames: Sequence[Image.Image], colours: np.ndarray, counts: np.ndarray,
                   colormaps: Sequence[str] = ()) -> np.ndarray:
    """One palette of at most 256 (P, 3) colours for all frames, so the colour map does not shimmer from step
    to step. colours, counts: :func:`colour_counts` of the frames; colormaps: the figures' colour maps.

    A figure has several hundred distinct colours (cells, colour bar, anti-aliased text). When they fit, the
    palette is exactly them. Otherwise it holds every second entry of each colour map (so the colour bar
    shows no bands), then median cut (Pillow) groups the frames' colours, each group represented by its
    most frequent colour rather than its mean (white stays white, a cell keeps its exact colour), and
    entries left over go to the colours with the most pixels × error.
    """
    rgb = _rgb(colours)
    if len(rgb) <= 256:
        return rgb
    maps = [lookup_table(name)[:, :3].astype(np.int32) for name in dict.fromkeys(colormaps)]
    reserved = np.concatenate(maps) if maps else np.zeros((0, 3), np.int32)
    reserved = np.unique(reserved[:: max(1, math.ceil(len(reserved) / 128))], axis=0)  # at most half the entries
    width, height = frames[0].size
    count = min(len(frames), max(1, PALETTE_PIXELS // max(1, width * height)))
    chosen = sorted({round(i * (len(frames) - 1) / max(1, count - 1)) for i in range(count)})
    sheet = Image.new("RGB", (width, height * len(chosen)), "white")
    for row, index in enumerate(chosen):
        sheet.paste(frames[index], (0, row * height))
    groups = sheet.quantize(colors=256 - len(reserved), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    centres = np.array(groups.getpalette() or [], np.int32).reshape(-1, 3)[: 256 - len(reserved)]
    members = _nearest(rgb, centres)
    modes = [rgb[members == group][counts[members == group].argmax()] for group in np.unique(members)]
    palette = np.unique(np.concatenate([reserved, np.array(modes, np.int32).reshape(-1, 3)]), axis=0)[:256]
    if spare := 256 - len(palette):  # the colours worst served so far, weighted by how many pixels have them
        error = np.abs(rgb - palette[_nearest(rgb, palette)]).sum(axis=1)
        worst = np.argsort(-(error * counts), kind="stable")[:spare]
        palette = np.concatenate([palette, rgb[worst[error[worst] > 0]]])
    return palette


def indexed_frames(frames: Sequence[Image.Image], palette: np.ndarray, colours: np.ndarray) -> list[Image.Image]:
    """The frames as "P" pictures over ``palette``: every pixel the nearest palette colour (exact colours
    stay exact; no dithering, which would speckle the flat cells). colours: every colour the frames have."""
    lookup = np.zeros(1 << 24, np.uint8)  # RGB word -> palette index, for the colours the frames have
    lookup[colours] = _nearest(_rgb(colours), palette)
    entries = palette.astype(np.uint8).ravel().tobytes()
    pictures = []
    for frame in frames:
        picture = Image.fromarray(lookup[_packed(frame)].reshape(frame.height, frame.width))  # uint8: "L"
        picture.putpalette(entries)
        pictures.append(picture)
    return pictures


def flipbook_gif_bytes(figures: Sequence[AnyFigure], scale: float = 1.0, frame_ms: int = FRAME_MS,
                       last_frame_ms: int = LAST_FRAME_MS) -> bytes:
    """The figures as an animated GIF at ``scale``: a frame per figure, ``frame_ms`` each and the last one
    ``last_frame_ms``, looping forever. Consecutive identical frames are merged by the encoder (their
    times added up), so a GIF may hold fewer frames than figures, never a different animation."""
    check_scale(scale)
    frames = gif_frames(figures, scale)
    colours, counts = colour_counts(frames)
    palette = shared_palette(frames, colours, counts, [getattr(spec, "colormap", "viridis") for spec in figures])
    indexed = indexed_frames(frames, palette, colours)
    durations = [frame_ms] * (len(indexed) - 1) + [last_frame_ms]
    handle = io.BytesIO()
    indexed[0].save(handle, format="GIF", save_all=True, append_images=indexed[1:], duration=durations, loop=0,
                    disposal=1, optimize=False)  # (optimize: transparent deltas, seconds slower, hardly smaller)
    return handle.getvalue()


def flipbook_paths(folder: str | Path, stem: str) -> tuple[Path, Path]:
    """``folder/<stem>_flipbook.pdf`` and ``folder/<stem>_flipbook.gif``."""
    folder = Path(folder)
    return folder / f"{stem}_flipbook.pdf", folder / f"{stem}_flipbook.gif"


def _targets(paths: Sequence[Path], force: bool) -> None:
    """Refuse folders and other non-files of those names always, existing files without ``force``."""
    if len(set(paths)) != len(paths):
        raise ExportError(f"the PDF and the GIF cannot both be written to {paths[0]}")
    existing = [path for path in paths if path.is_symlink() or path.exists()]
    if blocked := [path for path in existing if path.is_symlink() or not path.is_file()]:
        kind = kind_of(os.lstat(blocked[0]).st_mode)
        raise ExportError(f"{blocked[0]} exists and is not a regular file (it is {kind}): attnviz never replaces it; "
                          "rename it or choose another name")
    if existing and not force:
        raise WouldReplace(f"{len(existing)} file(s) would be replaced, e.g. {existing[0]}", existing)


def flipbook_files(figures: Sequence[AnyFigure], pdf_path: str | Path | None, gif_path: str | Path | None, *,
                   scale: float = 1.0, title: str = "", frame_ms: int = FRAME_MS,
                   last_frame_ms: int = LAST_FRAME_MS) -> list[tuple[Path, bytes]]:
    """The files :func:`write_flipbook` writes, encoded in memory: (path, bytes), the PDF first.
    Nothing is written; :func:`save_flipbook` writes them."""
    jobs: list[tuple[Path, str]] = [(Path(p), kind) for p, kind in ((pdf_path, "pdf"), (gif_path, "gif"))
                                    if p is not None]
    if not jobs:
        raise ExportError("no flip-book file to write: give a PDF or a GIF path")
    figures = _checked(figures)
    check_scale(scale)
    if len({path for path, _ in jobs}) != len(jobs):
        raise ExportError(f"the PDF and the GIF cannot both be written to {jobs[0][0]}")
    files = []
    for path, kind in jobs:
        try:
            files.append((path, flipbook_pdf_bytes(figures, title) if kind == "pdf"
                          else flipbook_gif_bytes(figures, scale, frame_ms, last_frame_ms)))
        except OSError as error:
            raise _failed(path, error) from None
    return files


def save_flipbook(files: Sequence[tuple[Path, bytes]], force: bool = False) -> list[Path]:
    """Write :func:`flipbook_files`' files, each synced beside its destination and renamed into place only
    when all are complete. Existing files are replaced only with ``force`` (else :class:`WouldReplace`);
    a name that is not a regular file, or not in a folder on disk, is refused before anything is written."""
    paths = [path for path, _ in files]
    _targets(paths, force)
    current = paths[0]
    try:
        for path in paths:
            current = path
            check_target(path)
        with contextlib.ExitStack() as stack:  # every file complete on disk before any is renamed
            for path, data in files:
                current = path
                tmp = stack.enter_context(atomic_output(path))
                with open(tmp, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
            current = paths[0]
    except OSError as error:
        raise _failed(current, error) from None
    return paths


def write_flipbook(figures: Sequence[AnyFigure], pdf_path: str | Path | None, gif_path: str | Path | None, *,
                   scale: float = 1.0, force: bool = False, title: str = "", frame_ms: int = FRAME_MS,
                   last_frame_ms: int = LAST_FRAME_MS) -> list[Path]:
    """Write the decoding's figures (one per step, in order) as a multi-page PDF and/or an animated GIF.

    pdf_path, gif_path: where to write each (None: not that one). scale: the GIF's pixels per logical
    pixel (the PDF is vector). force: replace existing files of those names (else :class:`WouldReplace`
    lists them, before anything is written). title: the PDF's document title.
    Both files are encoded in memory, then written (and synced) beside their destinations and renamed into
    place only when both are complete: an error while encoding or writing leaves neither, and an existing
    file as it was (only the two renames at the very end are not one atomic step).
    Problems raise :class:`ExportError` with a readable message. Returns the paths written (PDF first).
    """
    jobs = [Path(p) for p in (pdf_path, gif_path) if p is not None]
    if jobs:
        _targets(jobs, force)  # (before the encoding, which takes a while)
    return save_flipbook(flipbook_files(figures, pdf_path, gif_path, scale=scale, title=title, frame_ms=frame_ms,
                                        last_frame_ms=last_frame_ms), force)
