"""Pictures of figures: PNG (any scale), SVG and PDF encoded in memory, and the clipboard's image, painted with
QPainter (:mod:`attnviz.render.figure_painter`). Imports Qt: reach it through :func:`attnviz.render.offscreen.
picture_painters`, which starts the process's Qt application when there is none (the window has one), so that a
command that writes only numbers never imports Qt."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtSvg

from attnviz.figures.spec import AnyFigure
from attnviz.i18n import tr
from attnviz.render.export_error import ExportError
from attnviz.render.figure_painter import figure_image, figure_size, paint_figure
from attnviz.render.fonts import name_fonts_in_svg


def _buffer() -> tuple[QtCore.QByteArray, QtCore.QBuffer]:
    data = QtCore.QByteArray()
    buffer = QtCore.QBuffer(data)
    buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    return data, buffer


def png_bytes(spec: AnyFigure, scale: float = 2.0) -> bytes:
    """The figure as PNG, encoded in memory (Qt's own file errors say only "Unknown error")."""
    data, buffer = _buffer()
    writer = QtGui.QImageWriter(buffer, b"png")
    if not writer.write(figure_image(spec, scale)):
        raise OSError(0, tr("the PNG could not be encoded ({error})").format(error=writer.errorString()))
    buffer.close()
    return bytes(data.data())


def _paint_vector(device: QtGui.QPaintDevice, spec: AnyFigure, kind: str) -> None:
    """Paint the figure with vector cells onto an SVG generator or a PDF writer."""
    painter = QtGui.QPainter()
    if not painter.begin(device):
        raise OSError(0, tr("the {kind} could not be started").format(kind=kind))
    try:
        paint_figure(painter, spec, vector=True)
    finally:  # (ended before its device can go, whatever stops the painting)
        finished = painter.end()
    if not finished:
        raise OSError(0, tr("the {kind} could not be finished").format(kind=kind))


def svg_bytes(spec: AnyFigure) -> bytes:
    size = figure_size(spec)
    data, buffer = _buffer()
    generator = QtSvg.QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(size.toSize())
    generator.setViewBox(QtCore.QRectF(QtCore.QPointF(0, 0), size))
    generator.setTitle(spec.title)
    generator.setDescription("attnviz heatmap")
    _paint_vector(generator, spec, "SVG")
    svg = name_fonts_in_svg(bytes(data.data()))
    if not svg.rstrip().endswith(b"</svg>"):
        raise OSError(0, tr("the SVG came out incomplete"))
    return svg


def pdf_bytes(spec: AnyFigure) -> bytes:
    size = figure_size(spec)  # logical pixels, drawn as points (72 per inch)
    data, buffer = _buffer()
    writer = QtGui.QPdfWriter(buffer)
    writer.setResolution(72)
    writer.setPageSize(QtGui.QPageSize(size, QtGui.QPageSize.Unit.Point, spec.title or "attnviz"))
    writer.setPageMargins(QtCore.QMarginsF(0, 0, 0, 0))
    writer.setTitle(spec.title)
    writer.setCreator("attnviz")
    _paint_vector(writer, spec, "PDF")
    del writer  # the PDF is complete once its writer is gone
    pdf = bytes(data.data())
    if not pdf.rstrip().endswith(b"%%EOF"):
        raise OSError(0, tr("the PDF came out incomplete"))
    return pdf


def copy_to_clipboard(spec: AnyFigure, scale: float = 2.0) -> None:
    """Put the figure on the clipboard as an image (needs a running QGuiApplication)."""
    if spec.values.size == 0:
        raise ExportError(tr("There is nothing to copy yet: the heatmap is empty."))
    QtGui.QGuiApplication.clipboard().setImage(figure_image(spec, scale))
