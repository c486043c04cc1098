"""Writing heatmaps out: pictures (PNG at any scale, SVG, PDF) and numbers (CSV, NPY).

Every file is written atomically (temporary file, then rename). A batch (``export_batch``) is built
in a hidden folder beside its destination and moved in only when every file is complete, so a
failure leaves nothing half-written. Problems raise :class:`ExportError` with a readable message.

Numbers need no Qt: this module imports none. Pictures are painted by :mod:`attnviz.render.pictures`, reached only
when one is asked for, through :func:`attnviz.render.offscreen.picture_painters` (which starts Qt, or says in one
sentence why it cannot).
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import json
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from attnviz.core import replace
from attnviz.core.safe_output import atomic_output, check_folder, kind_of, probe_folder
from attnviz.figures.spec import AnyFigure, GridSpec, LineSpec, NamedFigure, StackSpec, TreeSpec
from attnviz.i18n import N_, tr
from attnviz.render.export_error import ExportError

FORMATS = ("png", "svg", "pdf", "csv", "npy")
SIDECAR = "attnviz-export.json"


class WouldReplace(ExportError):
    """The export would replace files that exist; ``paths`` lists them (the caller asks, or --force)."""

    def __init__(self, message: str, paths: list[Path]):
        super().__init__(message)
        self.paths = paths


_REASONS = {errno.ENOSPC: N_("the disk is full"), errno.EDQUOT: N_("the disk quota is used up"),
            errno.EROFS: N_("the disk is read-only"), errno.EACCES: N_("permission denied"),
            errno.EPERM: N_("permission denied"), errno.EISDIR: N_("a folder has that name"),
            errno.ENAMETOOLONG: N_("the name is too long")}


def cannot_write(path: Path, error: OSError) -> ExportError:
    """The ExportError to raise for ``error`` met while writing ``path``: "Cannot write PATH: REASON", the
    reason in words (the disk is full, permission denied, …) where the errno is a common one."""
    known = _REASONS.get(error.errno or 0)
    reason = tr(known) if known else error.strerror or str(error)
    return ExportError(tr("Cannot write {path}: {reason}").format(path=path, reason=reason))


MIN_SCALE, MAX_SCALE = 0.25, 8.0  # PNG scale: 8× a 1,000-pixel figure is already 64 megapixels


def check_scale(scale: float) -> float:
    """``scale`` if it is a PNG scale attnviz writes, else ExportError saying which are."""
    if not (isinstance(scale, int | float) and math.isfinite(scale) and MIN_SCALE <= scale <= MAX_SCALE):
        raise ExportError(tr("the PNG scale must be a number from {low:g} to {high:g}, got {scale!r}").format(
            low=MIN_SCALE, high=MAX_SCALE, scale=scale))
    return float(scale)


def _save(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically and durably: a full disk raises OSError(ENOSPC) here, before
    the rename, so an earlier file of that name is never replaced by a truncated one. A name that is not a
    regular file (a FIFO, a device, a folder) or not in a folder on disk is refused first (core.files)."""
    with atomic_output(path) as tmp, open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _pictures():
    """The Qt painters (:mod:`attnviz.render.pictures`), Qt started on first use."""
    from attnviz.render.offscreen import picture_painters

    return picture_painters()


def png_bytes(spec: AnyFigure, scale: float = 2.0) -> bytes:
    """The figure as PNG, encoded in memory (imports Qt)."""
    return bytes(_pictures().png_bytes(spec, scale))


def svg_bytes(spec: AnyFigure) -> bytes:
    """The figure as SVG (imports Qt)."""
    return bytes(_pictures().svg_bytes(spec))


def pdf_bytes(spec: AnyFigure) -> bytes:
    """The figure as PDF (imports Qt)."""
    return bytes(_pictures().pdf_bytes(spec))


def write_png(spec: AnyFigure, path: Path, scale: float = 2.0) -> None:
    _save(path, png_bytes(spec, scale))


def write_svg(spec: AnyFigure, path: Path) -> None:
    _save(path, svg_bytes(spec))


def write_pdf(spec: AnyFigure, path: Path) -> None:
    _save(path, pdf_bytes(spec))


def write_csv(spec: AnyFigure, path: Path) -> None:
    _save(path, csv_bytes(spec))


def csv_bytes(spec: AnyFigure) -> bytes:
    """A table: header ``query \\ key, k1, k2, …``, then one row per query: its token and its values.

    A grid (all heads) gets two more leading columns naming each row's panel, e.g. ``layer 1, head 2``.
    """
    if isinstance(spec, StackSpec):
        if all(isinstance(part, LineSpec) for part in spec.parts):  # stacked plots: every series, long format
            rows = [line for part in spec.parts for line in csv_bytes(part).decode("utf-8").splitlines()[1:]]
            first = spec.parts[0]
            header = f"series,{first.x_label},value" if isinstance(first, LineSpec) else "series,x,value"
            return ("\r\n".join([header, *rows]) + "\r\n").encode("utf-8")
        return csv_bytes(spec.parts[0])  # a map over its curves: the map's numbers
    handle = io.StringIO(newline="")
    writer = csv.writer(handle)
    if isinstance(spec, LineSpec):  # a line plot: one row per point, long format
        writer.writerow(["series", spec.x_label, spec.y_label])
        for series in spec.series:
            for x, y in zip(np.asarray(series.x).ravel(), np.asarray(series.y).ravel(), strict=True):
                writer.writerow([series.name, f"{float(x):.9g}", f"{float(y):.9g}"])
    elif isinstance(spec, TreeSpec):  # one row per node: its hypothesis and how it fared
        writer.writerow(["hypothesis", "token", "step", "log_prob", "pruned", "ended", "best"])
        for node in spec.nodes:
            writer.writerow([" ".join(node.tokens), node.token, len(node.tokens), f"{node.log_prob:.9g}",
                             int(node.pruned), int(node.finished), int(node.best)])
    elif isinstance(spec, GridSpec):
        first = spec.panels[0]
        writer.writerow([*spec.name_columns, f"{first.row_axis} \\ {first.col_axis}", *first.col_labels])
        for index, panel in enumerate(spec.panels):
            names = [spec.row_names[index // spec.columns], spec.col_names[index % spec.columns]]
            for label, row in zip(panel.row_labels, panel.values, strict=True):
                writer.writerow([*names, label, *(f"{float(v):.9g}" for v in row)])
    else:
        writer.writerow([f"{spec.row_axis} \\ {spec.col_axis}", *spec.col_labels])
        for label, row in zip(spec.row_labels, spec.values, strict=True):
            writer.writerow([label, *(f"{float(v):.9g}" for v in row)])
    return handle.getvalue().encode("utf-8")


def read_csv(path: Path) -> tuple[np.ndarray, tuple[str, ...], tuple[str, ...]]:
    """Values (Q, K), row labels and column labels of a file written by :func:`write_csv`."""
    with open(path, newline="", encoding="utf-8") as handle:
        header, *rows = list(csv.reader(handle))
    values = np.array([[float(v) for v in row[1:]] for row in rows], dtype=np.float32).reshape(len(rows), -1)
    return values, tuple(row[0] for row in rows), tuple(header[1:])


def write_npy(spec: AnyFigure, path: Path) -> None:
    _save(path, npy_bytes(spec, path.name))


def npy_bytes(spec: AnyFigure, name: str = "") -> bytes:
    if isinstance(spec, StackSpec):
        return npy_bytes(spec.parts[0], name)
    if isinstance(spec, LineSpec | TreeSpec):
        message = (tr("{name}: the numbers of a line plot are exported as CSV, not NPY") if isinstance(spec, LineSpec)
                   else tr("{name}: the numbers of a tree are exported as CSV, not NPY"))
        raise ExportError(message.format(name=name or "NPY"))
    handle = io.BytesIO()
    np.save(handle, np.asarray(spec.values, dtype=np.float32))
    return handle.getvalue()


WRITERS = {"png": write_png, "svg": write_svg, "pdf": write_pdf, "csv": write_csv, "npy": write_npy}


def parse_formats(text: str) -> list[str]:
    """'png,csv' -> ['png', 'csv']; raises ExportError naming an unknown format."""
    formats = [f.strip().lower().lstrip(".") for f in text.split(",") if f.strip()]
    if unknown := [f for f in formats if f not in WRITERS]:
        raise ExportError(tr("unknown export format {format!r}; choose from {formats}").format(
            format=unknown[0], formats=", ".join(FORMATS)))
    if not formats:
        raise ExportError(tr("no export format given; choose from {formats}").format(formats=", ".join(FORMATS)))
    return list(dict.fromkeys(formats))


def encode(fmt: str, spec: AnyFigure, scale: float = 2.0) -> bytes:
    """The figure as the bytes of a ``fmt`` file (png, svg, pdf, csv or npy)."""
    if fmt == "png":
        return png_bytes(spec, scale)
    encoders: dict[str, Callable[[AnyFigure], bytes]] = {"svg": svg_bytes, "pdf": pdf_bytes, "csv": csv_bytes,
                                                         "npy": npy_bytes}
    return encoders[fmt](spec)


def _write(fmt: str, spec: AnyFigure, path: Path, scale: float) -> None:
    if fmt == "png":
        write_png(spec, path, scale)
    else:
        WRITERS[fmt](spec, path)


def figure_bytes(spec: AnyFigure, path: str | Path, scale: float = 2.0) -> bytes:
    """The file :func:`export_figure` would write to ``path`` (format from its suffix), encoded in memory.
    Drawing uses Qt's fonts, so the window does it; :func:`save_bytes` writes the file, off its thread."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in WRITERS:
        raise ExportError(tr("{name}: unknown export format {format!r}; choose from {formats}").format(
            name=path.name, format=fmt, formats=", ".join(FORMATS)))
    if spec.values.size == 0:
        raise ExportError(tr("There is nothing to export yet: the heatmap is empty."))
    try:
        return encode(fmt, spec, check_scale(scale))
    except OSError as error:
        raise cannot_write(path, error) from None


def save_bytes(path: str | Path, data: bytes, replace: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically; a refused or failed write raises ExportError, and an existing
    file :class:`WouldReplace` unless ``replace``."""
    path = Path(path)
    if not replace and os.path.lexists(path):
        raise WouldReplace(tr("{path} exists").format(path=path), [path])
    try:
        _save(path, data)
    except OSError as error:
        raise cannot_write(path, error) from None
    return path


def export_figure(spec: AnyFigure, path: str | Path, scale: float = 2.0) -> Path:
    """Write one figure; the format comes from the file's suffix."""
    return save_bytes(path, figure_bytes(spec, path, scale))


class ExportCancelled(ExportError):
    """The user stopped a batch export; nothing was written."""


def check_output_folder(folder: str | Path) -> None:
    """ExportError, before any work, when files cannot be written into ``folder``: a file, a FIFO or a dangling link
    by that name, a parent that is a file, a read-only or full disk, no permission (:func:`attnviz.core.safe_output.
    probe_folder`). Leaves nothing behind (a missing folder is not made here)."""
    try:
        probe_folder(folder)
    except OSError as error:
        raise cannot_write(Path(folder), error) from None


def batch_targets_in_the_way(folder: Path, names: Sequence[str]) -> list[Path]:
    """The entries of ``folder`` (files or not) that have one of ``names``."""
    return [folder / name for name in names if os.path.lexists(folder / name)]


def formats_for(spec: AnyFigure, formats: Sequence[str]) -> list[str]:
    """The asked formats that apply to ``spec`` (a line plot's numbers are CSV, never NPY)."""
    return [fmt for fmt in formats if not (fmt == "npy" and isinstance(spec, LineSpec | TreeSpec))]


def batch_names(figures: Sequence[NamedFigure], formats: Sequence[str], sidecar: bool = True,
                extra: Sequence[str] = ()) -> list[str]:
    """The file names :func:`export_batch` writes for these figures and formats."""
    return ([f"{figure.stem}.{fmt}" for figure in figures for fmt in formats_for(figure.spec, formats)]
            + list(extra) + ([SIDECAR] if sidecar else []))


def export_batch(figures: Sequence[NamedFigure], folder: str | Path, formats: Sequence[str],
                 scale: float = 2.0, sidecar: dict[str, Any] | None = None,
                 progress: Callable[[int, int], bool] | None = None, overwrite: bool = False,
                 extra_files: dict[str, bytes] | None = None) -> list[Path]:
    """Write every figure in every format into ``folder`` (created if missing), plus a JSON sidecar.

    Files of those names already there are replaced only with ``overwrite`` (else :class:`WouldReplace`
    lists them); a folder or anything else that is not a regular file of such a name is never touched
    (ExportError naming it), nor a folder that is not on disk (``/proc``…).

    All files are written into a hidden staging folder first and moved in at the end as one
    transaction (:mod:`attnviz.core.replace`). On any error, signal or cancel (``progress(done, total)``
    returned False) the folder is left as it was; an export killed outright is undone by the next one.
    Returns the final paths (sidecar last).
    """
    check_scale(scale)
    extra_files = extra_files or {}

    def fill(staging: Path) -> list[str]:
        names: list[str] = []
        total = sum(len(formats_for(figure.spec, formats)) for figure in figures)
        for figure in figures:
            for fmt in formats_for(figure.spec, formats):
                name = f"{figure.stem}.{fmt}"
                _write(fmt, figure.spec, staging / name, scale)
                names.append(name)
                if progress is not None and not progress(len(names), total):
                    raise ExportCancelled(tr("Export cancelled: nothing was written."))
        for name, data in extra_files.items():  # (an index page, say)
            _save(staging / name, data)
            names.append(name)
        if sidecar is not None:
            _save(staging / SIDECAR, _sidecar_bytes(sidecar, names))
            names.append(SIDECAR)
        return names

    return _into_folder(Path(folder), batch_names(figures, formats, sidecar is not None, list(extra_files)),
                        overwrite, fill)


def _sidecar_bytes(sidecar: dict[str, Any], names: list[str]) -> bytes:
    """The sidecar as UTF-8 JSON. A file name that is not UTF-8 (its bytes held as lone surrogates, as Python reads
    such names) is written as its JSON escape (``\\udcff``): valid JSON that reads back as the same name."""
    text = json.dumps({**sidecar, "files": names}, indent=2, ensure_ascii=False) + "\n"
    return text.encode("utf-8", "backslashreplace")


def render_batch(figures: Sequence[NamedFigure], formats: Sequence[str], scale: float = 2.0,
                 sidecar: dict[str, Any] | None = None,
                 progress: Callable[[int, int], bool] | None = None) -> dict[str, bytes]:
    """The files :func:`export_batch` writes, encoded in memory (name -> bytes, sidecar last), for
    :func:`write_files_into` to write elsewhere; ``progress`` as there (False: ExportCancelled)."""
    check_scale(scale)
    files: dict[str, bytes] = {}
    total = sum(len(formats_for(figure.spec, formats)) for figure in figures)
    for figure in figures:
        for fmt in formats_for(figure.spec, formats):
            name = f"{figure.stem}.{fmt}"
            try:
                files[name] = encode(fmt, figure.spec, scale)
            except OSError as error:
                raise cannot_write(Path(name), error) from None
            if progress is not None and not progress(len(files), total):
                raise ExportCancelled(tr("Export cancelled: nothing was written."))
    if sidecar is not None:
        files[SIDECAR] = _sidecar_bytes(sidecar, list(files))
    return files


def write_files_into(folder: str | Path, files: dict[str, bytes], overwrite: bool = False) -> list[Path]:
    """Write ``files`` (name -> bytes) into ``folder`` as :func:`export_batch` does: all or nothing,
    existing files replaced only with ``overwrite``. Returns their paths, in order."""

    def fill(staging: Path) -> list[str]:
        for name, data in files.items():
            _save(staging / name, data)
        return list(files)

    return _into_folder(Path(folder), list(files), overwrite, fill)


def _into_folder(folder: Path, names: list[str], overwrite: bool, fill: Callable[[Path], list[str]]) -> list[Path]:
    """Check ``folder`` and the ``names`` to write there, let ``fill`` write them into a staging folder
    inside it, then move them in; on any error put everything back as it was."""
    try:
        check_folder(folder)
    except OSError as error:
        raise cannot_write(folder, error) from None
    existing = batch_targets_in_the_way(folder, names)
    if blocked := [path for path in existing if path.is_symlink() or not path.is_file()]:
        kind = kind_of(os.lstat(blocked[0]).st_mode)
        raise ExportError(tr("{path} exists and is not a regular file (it is {kind}): attnviz never replaces it; "
                             "rename it or choose another folder").format(path=blocked[0], kind=kind))
    if existing and not overwrite:
        raise WouldReplace(tr("{count} file(s) in {folder} would be replaced, e.g. {name}").format(
            count=len(existing), folder=folder, name=existing[0].name), existing)
    created = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        replace.recover(folder)  # what an export killed here (SIGKILL, power cut) left half-done
        with replace.staging_in(folder) as staging:  # deleted (and any commit rolled back) when it ends
            names = fill(staging)
            return replace.commit(staging, folder, names)  # every new file in place, or every old one back
    except BaseException as error:  # whatever stopped it (a full disk, Ctrl+C, a bug): leave no trace
        if created:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only if empty: it was made for this export
        if isinstance(error, OSError):
            raise cannot_write(folder, error) from None
        raise
