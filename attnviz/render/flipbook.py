"""The decoding flip-book: one figure per decoding step, as one multi-page PDF and one animated GIF.

The PDF is vector, like a single PDF export (:mod:`attnviz.render.figure_files`), one page per step, every
page as large as the largest figure with the figure at its top left, so that paging through it the
heatmap stays in place while it grows a row per step. The GIF (Pillow) shows the same figures as
pictures, padded on white to one size the same way, a frame per step, looping forever.

Both files are streamed (a page or a frame in memory at a time; the GIF encoder keeps its frames at 1 byte a
pixel, bounded by FLIPBOOK_PIXELS) and complete before either takes its name: each is written to a hidden
temporary file beside its destination, synced to disk, and renamed only when both are written; a failure
before then removes both. An existing file is replaced only with ``force``; a folder (or anything that is
not a regular file) never.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np
from PIL import Image
from PySide6 import QtCore, QtGui

from attnviz.core.safe_output import atomic_output, check_target, kind_of
from attnviz.figures.spec import AnyFigure
from attnviz.i18n import tr
from attnviz.render.figure_files import MIN_SCALE, ExportError, WouldReplace, cannot_write, check_scale
from attnviz.render.figure_painter import figure_size, lookup_table, paint_figure

FRAME_MS = 700  # how long each step shows in the GIF
LAST_FRAME_MS = 2000  # the finished decoding stays up longer before the loop starts again
PALETTE_PIXELS = 8_000_000  # the shared GIF palette is fitted to at most about this many pixels of frames
# The GIF's frames × width × height at most: the encoder holds every frame at 1 byte a pixel, so this bounds
# the export's memory (about 100 MB of frames; one frame drawn at a
# time besides, FRAME_PIXELS at most). Past it the GIF is drawn at
# a smaller scale, and refused when even the smallest is too large.
FLIPBOOK_PIXELS = 100_000_000
FRAME_PIXELS = 16_000_000  # one frame's pixels at most (drawn at 4 bytes a pixel, counted and indexed)
BUDGET_TEXT = f"{FLIPBOOK_PIXELS // 1_000_000} million pixels"  # (English; the messages say budget_text())
Progress = Callable[[int], None]  # told how many pages or frames were just drawn


def budget_text() -> str:
    """"100 million pixels" (:data:`FLIPBOOK_PIXELS`) in the interface's language."""
    return tr("{count} million pixels").format(count=FLIPBOOK_PIXELS // 1_000_000)


class Cancelled(ExportError):
    """The user cancelled a flip-book export (nothing was written)."""


def _checked(figures: Sequence[AnyFigure]) -> list[AnyFigure]:
    figures = list(figures)
    if not figures:
        raise ExportError(tr("There is nothing to export yet: the decoding has no steps."))
    if any(spec.values.size == 0 for spec in figures):
        raise ExportError(tr("There is nothing to export yet: a step's heatmap is empty."))
    return figures


def _page_size(figures: Sequence[AnyFigure]) -> QtCore.QSizeF:
    """The largest width and the largest height of the figures, in logical pixels (= PDF points)."""
    sizes = [figure_size(spec) for spec in figures]
    return QtCore.QSizeF(max(s.width() for s in sizes), max(s.height() for s in sizes))


_ERRNO = {os.strerror(number): number for number in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS)}


def _file_error(file: QtCore.QFile) -> OSError | None:
    """The QFile's error as an OSError (errno recovered from its message where Qt keeps only that)."""
    if file.error() == QtCore.QFileDevice.FileError.NoError:
        return None
    message = file.errorString()
    return OSError(_ERRNO.get(message, 0), message)


def write_flipbook_pdf(figures: Sequence[AnyFigure], path: Path, title: str = "",
                       progress: Progress | None = None) -> None:
    """The figures as one PDF streamed into the file ``path`` page by page (nothing held but the page being
    drawn), vector cells; every page the size of the largest figure. progress(1) is called after each page."""
    figures = _checked(figures)
    size = _page_size(figures)
    file = QtCore.QFile(str(path))
    if not file.open(QtCore.QIODevice.OpenModeFlag.WriteOnly | QtCore.QIODevice.OpenModeFlag.Truncate):
        raise _file_error(file) or OSError(0, tr("the PDF could not be opened"))
    try:
        writer = QtGui.QPdfWriter(file)
        writer.setResolution(72)  # a logical pixel is a point, as in a single PDF export
        writer.setPageSize(QtGui.QPageSize(size, QtGui.QPageSize.Unit.Point, title or "attnviz flip-book"))
        writer.setPageMargins(QtCore.QMarginsF(0, 0, 0, 0))
        writer.setTitle(title)
        writer.setCreator("attnviz")
        painter = QtGui.QPainter()
        if not painter.begin(writer):
            raise _file_error(file) or OSError(0, tr("the {kind} could not be started").format(kind="PDF"))
        try:
            for number, spec in enumerate(figures):
                if number and not writer.newPage():
                    raise _file_error(file) or OSError(0, tr("page {page} of the PDF could not be started").format(
                        page=number + 1))
                painter.fillRect(QtCore.QRectF(QtCore.QPointF(0, 0), size), QtGui.QColor("white"))
                paint_figure(painter, spec, vector=True)
                if error := _file_error(file):
                    raise error
                if progress is not None:
                    progress(1)
        finally:
            finished = painter.end()
        del writer  # the PDF is complete once its writer is gone
        file.flush()
        if error := _file_error(file):
            raise error
        if not finished:
            raise OSError(0, tr("the {kind} could not be finished").format(kind="PDF"))
    finally:
        file.close()


def gif_frames(figures: Sequence[AnyFigure], scale: float = 1.0) -> list[Image.Image]:
    """The figures as RGB pictures at ``scale``, all padded on white to the largest width and height
    (top left aligned: the picture stays in place as it grows). Holds every frame: small flip-books, tests."""
    figures = _checked(figures)
    width, height = gif_size(figures, scale)
    return [_picture(_frame(spec, scale, width, height)) for spec in figures]


def gif_size(figures: Sequence[AnyFigure], scale: float) -> tuple[int, int]:
    """The GIF's width and height in pixels at ``scale``: the largest figure's."""
    size = _page_size(figures)
    return max(1, math.ceil(size.width() * scale)), max(1, math.ceil(size.height() * scale))


def gif_scale(figures: Sequence[AnyFigure], scale: float) -> float:
    """``scale`` if the GIF's frames × width × height at it fit :data:`FLIPBOOK_PIXELS` (and one frame
    :data:`FRAME_PIXELS`), else the largest
    multiple of 0.25 below it that fits; ExportError (saying why) when not even :data:`MIN_SCALE` does."""
    figures = _checked(figures)
    check_scale(scale)
    fitted = scale
    while fitted >= MIN_SCALE:
        width, height = gif_size(figures, fitted)
        if len(figures) * width * height <= FLIPBOOK_PIXELS and width * height <= FRAME_PIXELS:
            return fitted
        fitted = (math.ceil(fitted * 4) - 1) / 4  # the next multiple of 0.25 below
    width, height = gif_size(figures, MIN_SCALE)
    raise ExportError(tr("The flip-book is too large: its GIF would take {frames} frames of {width}×{height} "
                         "pixels even at the smallest scale ({scale:g}×), over the {budget} a GIF may have "
                         "(frames × width × height, and {frame_millions} million a frame, so that it fits in "
                         "memory). Decode a shorter sentence or show one head instead of all heads. Nothing was "
                         "written.").format(frames=len(figures), width=width, height=height, scale=MIN_SCALE,
                                            budget=budget_text(), frame_millions=FRAME_PIXELS // 1_000_000))


def scale_notice(figures: Sequence[AnyFigure], scale: float, fitted: float) -> str:
    """What to tell the user when the GIF is drawn at ``fitted`` instead of ``scale`` ('' when it is not)."""
    if fitted == scale:
        return ""
    return tr("The flip-book's GIF is drawn at {fitted:g}× instead of {scale:g}×: {frames} frames at {scale:g}× "
              "would be over the {budget} a GIF may have (frames × width × height; {frame_millions} million a "
              "frame).").format(fitted=fitted, scale=scale, frames=len(figures), budget=budget_text(),
                                frame_millions=FRAME_PIXELS // 1_000_000)


def _frame(spec: AnyFigure, scale: float, width: int, height: int) -> np.ndarray:
    """One figure drawn at ``scale`` on a white ``width`` × ``height`` canvas, at its top left: (height, width)
    uint32 0xRRGGBB words (4 bytes a pixel, the only copy: Qt's RGB32 pixels with the alpha byte cleared)."""
    image = QtGui.QImage(width, height, QtGui.QImage.Format.Format_RGB32)
    image.fill(QtGui.QColor("white"))
    painter = QtGui.QPainter(image)
    try:  # (ended before the image can go, whatever stops the painting: a signal mid-frame crashed Qt)
        painter.scale(scale, scale)
        paint_figure(painter, spec)
    finally:
        painter.end()
    words = np.frombuffer(image.constBits(), np.uint32, count=image.bytesPerLine() * height // 4)
    words = words.reshape(height, image.bytesPerLine() // 4)[:, :width] & np.uint32(0xFFFFFF)  # (a copy)
    del image
    return words


def _picture(words: np.ndarray) -> Image.Image:
    """(height, width) 0xRRGGBB words as an RGB Pillow image."""
    rgb = np.empty((*words.shape, 3), np.uint8)
    for channel, shift in enumerate((16, 8, 0)):
        rgb[..., channel] = (words >> shift) & 255
    return Image.fromarray(rgb, "RGB")


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
    return _merged([np.unique(_packed(frame), return_counts=True) for frame in frames])


def _merged(found: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Per-frame (colours, counts) merged into one sorted (colours, counts)."""
    colours, where = np.unique(np.concatenate([c for c, _ in found]), return_inverse=True)
    counts = np.bincount(where.ravel(), weights=np.concatenate([n for _, n in found]), minlength=len(colours))
    return colours, counts.astype(np.int64)


def _sample(frames: int, width: int, height: int) -> list[int]:
    """Which of ``frames`` frames (evenly spread, first and last included) the palette is fitted to: at most
    :data:`PALETTE_PIXELS` pixels of them."""
    count = min(frames, max(1, PALETTE_PIXELS // max(1, width * height)))
    return sorted({round(i * (frames - 1) / max(1, count - 1)) for i in range(count)})


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
    chosen = _sample(len(frames), width, height)
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


def _lookup(palette: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """RGB word -> palette index (16 MB), for the colours the frames have (nearest, exact colours stay exact)."""
    lookup = np.zeros(1 << 24, np.uint8)
    lookup[colours] = _nearest(_rgb(colours), palette)
    return lookup


def _indexed(words: np.ndarray, lookup: np.ndarray, entries: bytes) -> Image.Image:
    """(height, width) 0xRRGGBB words as a "P" picture (1 byte a pixel) through ``lookup`` over ``entries``."""
    picture = Image.fromarray(lookup[words])  # uint8: "L"
    picture.putpalette(entries)
    return picture


def indexed_frames(frames: Sequence[Image.Image], palette: np.ndarray, colours: np.ndarray) -> list[Image.Image]:
    """The frames as "P" pictures over ``palette``: every pixel the nearest palette colour (exact colours
    stay exact; no dithering, which would speckle the flat cells). colours: every colour the frames have."""
    lookup, entries = _lookup(palette, colours), palette.astype(np.uint8).ravel().tobytes()
    return [_indexed(_packed(frame).reshape(frame.height, frame.width), lookup, entries) for frame in frames]


def write_flipbook_gif(figures: Sequence[AnyFigure], handle: BinaryIO, scale: float = 1.0, frame_ms: int = FRAME_MS,
                       last_frame_ms: int = LAST_FRAME_MS, progress: Progress | None = None) -> None:
    """The figures as an animated GIF at ``scale`` written to ``handle``: a frame per figure, ``frame_ms`` each
    and the last one ``last_frame_ms``, looping forever. Consecutive identical frames are merged by the
    encoder (their times added up), so a GIF may hold fewer frames than figures, never a different animation.

    Two passes, so that no more than one drawn frame is alive at a time: the first draws each frame and keeps
    only its colour counts (and the few frames the palette is fitted to), the second draws each frame again
    and hands it to the encoder as 1 byte a pixel. progress(1) is called after each frame of each pass.
    Call :func:`gif_scale` first: this draws at ``scale`` whatever the size."""
    figures = _checked(figures)
    check_scale(scale)
    width, height = gif_size(figures, scale)
    sampled = set(_sample(len(figures), width, height))
    found, sample = [], []
    for number, spec in enumerate(figures):  # pass 1: colours
        words = _frame(spec, scale, width, height)
        found.append(np.unique(words, return_counts=True))
        if number in sampled:
            sample.append(_picture(words))
        del words
        if progress is not None:
            progress(1)
    colours, counts = _merged(found)
    palette = shared_palette(sample, colours, counts, [getattr(spec, "colormap", "viridis") for spec in figures])
    del sample
    lookup, entries = _lookup(palette, colours), palette.astype(np.uint8).ravel().tobytes()

    def indexed() -> Iterator[Image.Image]:  # pass 2: the frames, one at a time
        for spec in figures:
            picture = _indexed(_frame(spec, scale, width, height), lookup, entries)
            if progress is not None:
                progress(1)
            yield picture

    frames = indexed()
    durations = [frame_ms] * (len(figures) - 1) + [last_frame_ms]
    next(frames).save(handle, format="GIF", save_all=True, append_images=frames, duration=durations, loop=0,
                      disposal=1, optimize=False)  # (optimize: transparent deltas, seconds slower, hardly smaller)


def flipbook_paths(folder: str | Path, stem: str) -> tuple[Path, Path]:
    """``folder/<stem>_flipbook.pdf`` and ``folder/<stem>_flipbook.gif``."""
    folder = Path(folder)
    return folder / f"{stem}_flipbook.pdf", folder / f"{stem}_flipbook.gif"


def _targets(paths: Sequence[Path], force: bool) -> None:
    """Refuse folders and other non-files of those names always, existing files without ``force``."""
    if len(set(paths)) != len(paths):
        raise ExportError(tr("the PDF and the GIF cannot both be written to {path}").format(path=paths[0]))
    existing = [path for path in paths if path.is_symlink() or path.exists()]
    if blocked := [path for path in existing if path.is_symlink() or not path.is_file()]:
        kind = kind_of(os.lstat(blocked[0]).st_mode)
        raise ExportError(tr("{path} exists and is not a regular file (it is {kind}): attnviz never replaces it; "
                             "rename it or choose another name").format(path=blocked[0], kind=kind))
    if existing and not force:
        raise WouldReplace(tr("{count} file(s) would be replaced, e.g. {path}").format(count=len(existing),
                                                                                        path=existing[0]), existing)


def write_flipbook(figures: Sequence[AnyFigure], pdf_path: str | Path | None, gif_path: str | Path | None, *,
                   scale: float = 1.0, force: bool = False, title: str = "", frame_ms: int = FRAME_MS,
                   last_frame_ms: int = LAST_FRAME_MS,
                   progress: Callable[[int, int], bool] | None = None) -> list[Path]:
    """Write the decoding's figures (one per step, in order) as a multi-page PDF and/or an animated GIF.

    pdf_path, gif_path: where to write each (None: not that one). scale: the GIF's pixels per logical
    pixel (the PDF is vector), lowered to :func:`gif_scale` when the GIF would be over :data:`FLIPBOOK_PIXELS`.
    force: replace existing files of those names (else :class:`WouldReplace` lists them, before anything is
    written). title: the PDF's document title. progress(done, total): called as pages and frames are drawn;
    returning False cancels (:class:`Cancelled`).
    Each file is streamed to a hidden temporary file beside its destination (one frame or page in memory at
    a time), synced, and both are renamed into place only when both are complete: an error or a cancel
    leaves neither, and an existing file as it was (only the two renames at the very end are not one step).
    Problems raise :class:`ExportError` with a readable message. Returns the paths written (PDF first).
    """
    jobs: list[tuple[Path, str]] = [(Path(p), kind) for p, kind in ((pdf_path, "pdf"), (gif_path, "gif"))
                                    if p is not None]
    if not jobs:
        raise ExportError(tr("no flip-book file to write: give a PDF or a GIF path"))
    figures = _checked(figures)
    check_scale(scale)
    paths = [path for path, _ in jobs]
    _targets(paths, force)
    fitted = gif_scale(figures, scale) if gif_path is not None else scale
    total = sum(len(figures) * (1 if kind == "pdf" else 2) for _, kind in jobs)
    done = [0]

    def advance(count: int) -> None:
        done[0] += count
        if progress is not None and not progress(done[0], total):
            raise Cancelled(tr("The flip-book export was cancelled: nothing was written."))

    current = paths[0]
    try:
        for path in paths:
            current = path
            check_target(path)
        with contextlib.ExitStack() as stack:  # every file complete on disk before any is renamed
            for path, kind in jobs:
                current = path
                tmp = stack.enter_context(atomic_output(path))
                if kind == "pdf":
                    write_flipbook_pdf(figures, tmp, title, advance)
                with open(tmp, "ab" if kind == "pdf" else "wb") as handle:
                    if kind == "gif":
                        write_flipbook_gif(figures, handle, fitted, frame_ms, last_frame_ms, advance)
                    handle.flush()
                    os.fsync(handle.fileno())
                if kind == "pdf" and not _ends_with_eof(tmp):
                    raise OSError(0, tr("the PDF came out incomplete"))
            current = paths[0]
    except OSError as error:
        raise cannot_write(current, error) from None
    return paths


def _ends_with_eof(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(max(0, os.fstat(handle.fileno()).st_size - 64))
        return handle.read().rstrip().endswith(b"%%EOF")
