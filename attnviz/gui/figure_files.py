"""Writing heatmaps out: pictures (PNG at any scale, SVG, PDF) and numbers (CSV, NPY).

Every file is written atomically (temporary file, then rename). A batch (``export_batch``) is built
in a hidden folder beside its destination and moved in only when every file is complete, so a
failure leaves nothing half-written. Problems raise :class:`ExportError` with a readable message.
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtSvg

from attnviz.core.files import atomic_output
from attnviz.figures.spec import AnyFigure, GridSpec, NamedFigure
from attnviz.gui.figure_painter import figure_image, figure_size, paint_figure

FORMATS = ("png", "svg", "pdf", "csv", "npy")
SIDECAR = "attnviz-export.json"


class ExportError(Exception):
    """An export that could not be written; the message says where and why."""


def _failed(path: Path, error: OSError) -> ExportError:
    reason = error.strerror or str(error)
    return ExportError(f"Cannot write {path}: {reason}")


MIN_SCALE, MAX_SCALE = 0.25, 8.0  # PNG scale: 8× a 1,000-pixel figure is already 64 megapixels


def check_scale(scale: float) -> float:
    """``scale`` if it is a PNG scale attnviz writes, else ExportError saying which are."""
    if not (isinstance(scale, int | float) and math.isfinite(scale) and MIN_SCALE <= scale <= MAX_SCALE):
        raise ExportError(f"the PNG scale must be a number from {MIN_SCALE:g} to {MAX_SCALE:g}, got {scale!r}")
    return float(scale)


def write_png(spec: AnyFigure, path: Path, scale: float = 2.0) -> None:
    with atomic_output(path) as tmp:
        writer = QtGui.QImageWriter(str(tmp), b"png")
        if not writer.write(figure_image(spec, scale)):
            raise OSError(0, writer.errorString())


def _paint_vector(device: QtGui.QPaintDevice, spec: AnyFigure, kind: str) -> None:
    """Paint the figure with vector cells onto an SVG generator or a PDF writer."""
    painter = QtGui.QPainter()
    if not painter.begin(device):
        raise OSError(0, f"the {kind} file could not be opened")
    paint_figure(painter, spec, vector=True)
    painter.end()


def write_svg(spec: AnyFigure, path: Path) -> None:
    size = figure_size(spec)
    with atomic_output(path) as tmp:
        generator = QtSvg.QSvgGenerator()
        generator.setFileName(str(tmp))
        generator.setSize(size.toSize())
        generator.setViewBox(QtCore.QRectF(QtCore.QPointF(0, 0), size))
        generator.setTitle(spec.title)
        generator.setDescription("attnviz heatmap")
        _paint_vector(generator, spec, "SVG")


def write_pdf(spec: AnyFigure, path: Path) -> None:
    size = figure_size(spec)  # logical pixels, drawn as points (72 per inch)
    with atomic_output(path) as tmp:
        writer = QtGui.QPdfWriter(str(tmp))
        writer.setResolution(72)
        writer.setPageSize(QtGui.QPageSize(size, QtGui.QPageSize.Unit.Point, spec.title or "attnviz"))
        writer.setPageMargins(QtCore.QMarginsF(0, 0, 0, 0))
        writer.setTitle(spec.title)
        writer.setCreator("attnviz")
        _paint_vector(writer, spec, "PDF")


def write_csv(spec: AnyFigure, path: Path) -> None:
    """A table: header ``query \\ key, k1, k2, …``, then one row per query: its token and its values.

    A grid (all heads) gets two more leading columns naming each row's panel, e.g. ``layer 1, head 2``.
    """
    with atomic_output(path) as tmp, open(tmp, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        if isinstance(spec, GridSpec):
            first = spec.panels[0]
            writer.writerow(["layer", "head", f"{first.row_axis} \\ {first.col_axis}", *first.col_labels])
            for index, panel in enumerate(spec.panels):
                names = [spec.row_names[index // spec.columns], spec.col_names[index % spec.columns]]
                for label, row in zip(panel.row_labels, panel.values, strict=True):
                    writer.writerow([*names, label, *(f"{float(v):.9g}" for v in row)])
            return
        writer.writerow([f"{spec.row_axis} \\ {spec.col_axis}", *spec.col_labels])
        for label, row in zip(spec.row_labels, spec.values, strict=True):
            writer.writerow([label, *(f"{float(v):.9g}" for v in row)])


def read_csv(path: Path) -> tuple[np.ndarray, tuple[str, ...], tuple[str, ...]]:
    """Values (Q, K), row labels and column labels of a file written by :func:`write_csv`."""
    with open(path, newline="", encoding="utf-8") as handle:
        header, *rows = list(csv.reader(handle))
    values = np.array([[float(v) for v in row[1:]] for row in rows], dtype=np.float32).reshape(len(rows), -1)
    return values, tuple(row[0] for row in rows), tuple(header[1:])


def write_npy(spec: AnyFigure, path: Path) -> None:
    with atomic_output(path) as tmp, open(tmp, "wb") as handle:
        np.save(handle, np.asarray(spec.values, dtype=np.float32))


WRITERS = {"png": write_png, "svg": write_svg, "pdf": write_pdf, "csv": write_csv, "npy": write_npy}


def parse_formats(text: str) -> list[str]:
    """'png,csv' -> ['png', 'csv']; raises ExportError naming an unknown format."""
    formats = [f.strip().lower().lstrip(".") for f in text.split(",") if f.strip()]
    if unknown := [f for f in formats if f not in WRITERS]:
        raise ExportError(f"unknown export format {unknown[0]!r}; choose from {', '.join(FORMATS)}")
    if not formats:
        raise ExportError(f"no export format given; choose from {', '.join(FORMATS)}")
    return list(dict.fromkeys(formats))


def _write(fmt: str, spec: AnyFigure, path: Path, scale: float) -> None:
    if fmt == "png":
        write_png(spec, path, scale)
    else:
        WRITERS[fmt](spec, path)


def export_figure(spec: AnyFigure, path: str | Path, scale: float = 2.0) -> Path:
    """Write one figure; the format comes from the file's suffix."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in WRITERS:
        raise ExportError(f"{path.name}: unknown export format {fmt!r}; choose from {', '.join(FORMATS)}")
    if spec.values.size == 0:
        raise ExportError("There is nothing to export yet: the heatmap is empty.")
    check_scale(scale)
    try:
        _write(fmt, spec, path, scale)
    except OSError as error:
        raise _failed(path, error) from None
    return path


class ExportCancelled(ExportError):
    """The user stopped a batch export; nothing was written."""


def export_batch(figures: Sequence[NamedFigure], folder: str | Path, formats: Sequence[str],
                 scale: float = 2.0, sidecar: dict[str, Any] | None = None,
                 progress: Callable[[int, int], bool] | None = None) -> list[Path]:
    """Write every figure in every format into ``folder`` (created if missing), plus a JSON sidecar.

    All files are written into a hidden staging folder first and moved in at the end. On any
    error (or when ``progress(done, total)`` returns False: cancelled) the folder is left as it
    was: files moved in are taken back and the ones they replaced restored.
    Returns the final paths (sidecar last).
    """
    folder = Path(folder)
    check_scale(scale)
    created = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".attnviz-export-", dir=folder))
    except OSError as error:
        raise _failed(folder, error) from None
    moved: list[Path] = []
    replaced: list[tuple[Path, Path]] = []  # (saved copy in staging, its place in folder)
    try:
        names: list[str] = []
        total = len(figures) * len(formats)
        for figure in figures:
            for fmt in formats:
                name = f"{figure.stem}.{fmt}"
                _write(fmt, figure.spec, staging / name, scale)
                names.append(name)
                if progress is not None and not progress(len(names), total):
                    raise ExportCancelled("Export cancelled: nothing was written.")
        if sidecar is not None:
            (staging / SIDECAR).write_text(json.dumps({**sidecar, "files": names}, indent=2, ensure_ascii=False)
                                           + "\n", encoding="utf-8")
            names.append(SIDECAR)
        for name in names:
            target = folder / name
            if target.exists():
                saved = staging / f".previous-{name}"
                target.replace(saved)
                replaced.append((saved, target))
            (staging / name).replace(target)
            moved.append(target)
    except BaseException as error:  # whatever stopped it (a full disk, Ctrl+C, a bug): leave no trace
        for path in moved:
            path.unlink(missing_ok=True)
        for saved, target in replaced:
            saved.replace(target)
        shutil.rmtree(staging, ignore_errors=True)
        if created:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only if empty: it was made for this export
        if isinstance(error, OSError):
            raise _failed(folder, error) from None
        raise
    shutil.rmtree(staging, ignore_errors=True)
    return moved


def copy_to_clipboard(spec: AnyFigure, scale: float = 2.0) -> None:
    """Put the figure on the clipboard as an image (needs a running QGuiApplication)."""
    if spec.values.size == 0:
        raise ExportError("There is nothing to copy yet: the heatmap is empty.")
    QtGui.QGuiApplication.clipboard().setImage(figure_image(spec, scale))
