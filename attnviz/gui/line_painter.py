"""Painting a line plot (:class:`attnviz.figures.spec.LineSpec`) with QPainter: title, axes with round
ticks, the series (lines, points or bars) and a legend. The same routine serves PNG, SVG, PDF and the
clipboard, like the heatmaps' painter."""

from __future__ import annotations

import math

import numpy as np
from PySide6 import QtCore, QtGui

from attnviz.figures.spec import LineSpec, nice_ticks, tick_text

SIZE = QtCore.QSizeF(640, 420)  # logical pixels at scale 1
MARGINS = (64.0, 36.0, 18.0, 48.0)  # left, top, right, bottom: room for tick labels and axis names
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf"]  # matplotlib's tab10: what readers of the book know


def line_size(_spec: LineSpec) -> QtCore.QSizeF:
    return QtCore.QSizeF(SIZE)


def _range(values: list[np.ndarray], fixed: tuple[float, float] | None = None) -> tuple[float, float]:
    if fixed is not None:
        return fixed
    finite = np.concatenate([v[np.isfinite(v)] for v in values]) if values else np.zeros(0)
    if not finite.size:
        return (0.0, 1.0)
    low, high = float(finite.min()), float(finite.max())
    if low == high:
        low, high = low - 0.5, high + 0.5
    pad = (high - low) * 0.05
    return (low - pad, high + pad)


def paint_lines(painter: QtGui.QPainter, spec: LineSpec, font: QtGui.QFont, bold: QtGui.QFont) -> None:
    """Paint ``spec`` at the painter's origin in logical pixels."""
    left, top, right, bottom = MARGINS
    plot = QtCore.QRectF(left, top, SIZE.width() - left - right, SIZE.height() - top - bottom)
    xs = [np.asarray(s.x, np.float64) for s in spec.series]
    ys = [np.asarray(s.y, np.float64) for s in spec.series]
    has_bars = any(s.style == "bars" for s in spec.series)
    x_low, x_high = _range(xs)
    y_low, y_high = _range([*ys, np.zeros(1)] if has_bars else ys, spec.y_range)

    def to_px(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (plot.left() + (x - x_low) / (x_high - x_low) * plot.width(),
                plot.bottom() - (y - y_low) / (y_high - y_low) * plot.height())

    painter.save()
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
    painter.fillRect(QtCore.QRectF(QtCore.QPointF(0, 0), SIZE), QtGui.QColor("white"))
    metrics = QtGui.QFontMetricsF(font)
    line = metrics.height()
    painter.setPen(QtGui.QColor("black"))
    painter.setFont(bold)
    painter.drawText(QtCore.QRectF(left, 6, plot.width(), top - 10),
                     QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter, spec.title)
    painter.setFont(font)
    grid_pen = QtGui.QPen(QtGui.QColor(225, 225, 225), 0.8)
    for value in nice_ticks((x_low, x_high), 7):
        x = to_px(np.array([value]), np.array([y_low]))[0][0]
        painter.setPen(grid_pen)
        painter.drawLine(QtCore.QPointF(x, plot.top()), QtCore.QPointF(x, plot.bottom()))
        painter.setPen(QtGui.QColor("black"))
        painter.drawText(QtCore.QRectF(x - 40, plot.bottom() + 3, 80, line), QtCore.Qt.AlignmentFlag.AlignHCenter,
                         tick_text(value))
    for value in nice_ticks((y_low, y_high), 6):
        y = to_px(np.array([x_low]), np.array([value]))[1][0]
        painter.setPen(grid_pen)
        painter.drawLine(QtCore.QPointF(plot.left(), y), QtCore.QPointF(plot.right(), y))
        painter.setPen(QtGui.QColor("black"))
        painter.drawText(QtCore.QRectF(0, y - line / 2, left - 6, line),
                         QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter, tick_text(value))
    painter.drawText(QtCore.QRectF(left, SIZE.height() - line - 4, plot.width(), line),
                     QtCore.Qt.AlignmentFlag.AlignHCenter, spec.x_label)
    painter.save()
    painter.translate(12, plot.center().y())
    painter.rotate(-90)
    painter.drawText(QtCore.QRectF(-plot.height() / 2, -line / 2, plot.height(), line),
                     QtCore.Qt.AlignmentFlag.AlignHCenter, spec.y_label)
    painter.restore()
    painter.setClipRect(plot.adjusted(-1, -1, 1, 1))
    bar_width = _bar_width(xs, plot.width() / (x_high - x_low), sum(s.style == "bars" for s in spec.series))
    bar_index = 0
    for index, (series, x, y) in enumerate(zip(spec.series, xs, ys, strict=True)):
        colour = QtGui.QColor(PALETTE[index % len(PALETTE)])
        px, py = to_px(x, y)
        if series.style == "bars":
            zero = to_px(np.array([x_low]), np.array([max(y_low, 0.0)]))[1][0]
            painter.setPen(QtCore.Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            offset = (bar_index - 0.5 * (sum(s.style == "bars" for s in spec.series) - 1)) * bar_width
            for bx, by in zip(px, py, strict=True):
                if math.isfinite(by):
                    painter.drawRect(QtCore.QRectF(bx + offset - bar_width / 2, min(by, zero), bar_width,
                                                   abs(zero - by)))
            bar_index += 1
        elif series.style == "points":
            painter.setPen(QtCore.Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            for bx, by in zip(px, py, strict=True):
                if math.isfinite(bx) and math.isfinite(by):
                    painter.drawEllipse(QtCore.QPointF(bx, by), 2.6, 2.6)
        else:
            pen = QtGui.QPen(colour, 1.8)
            if series.style == "dashed":
                pen.setStyle(QtCore.Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            path = QtGui.QPainterPath()
            drawing = False
            for bx, by in zip(px, py, strict=True):
                if not (math.isfinite(bx) and math.isfinite(by)):
                    drawing = False  # a gap (NaN), as where a kernel sees no training point
                    continue
                path.lineTo(bx, by) if drawing else path.moveTo(bx, by)
                drawing = True
            painter.drawPath(path)
    painter.setClipping(False)
    painter.setPen(QtGui.QPen(QtGui.QColor(60, 60, 60), 0.8))
    painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
    painter.drawRect(plot)
    _paint_legend(painter, spec, plot, metrics)
    painter.restore()


def _bar_width(xs: list[np.ndarray], px_per_unit: float, bar_series: int) -> float:
    """Bars of one x side by side across the bar series, filling 80 % of the smallest x spacing."""
    spacing = min((float(np.diff(np.unique(x)).min()) for x in xs if np.unique(x).size > 1), default=1.0)
    return max(1.0, 0.8 * spacing * px_per_unit / max(bar_series, 1))


def _paint_legend(painter: QtGui.QPainter, spec: LineSpec, plot: QtCore.QRectF, metrics: QtGui.QFontMetricsF) -> None:
    named = [(i, s) for i, s in enumerate(spec.series) if s.name]
    if not named:
        return
    line = metrics.height()
    width = max(metrics.horizontalAdvance(s.name) for _, s in named) + 34
    box = QtCore.QRectF(plot.right() - width - 8, plot.top() + 8, width, line * len(named) + 8)
    painter.setPen(QtGui.QPen(QtGui.QColor(190, 190, 190), 0.8))
    painter.setBrush(QtGui.QColor(255, 255, 255, 225))
    painter.drawRect(box)
    for row, (index, series) in enumerate(named):
        y = box.top() + 4 + row * line + line / 2
        colour = QtGui.QColor(PALETTE[index % len(PALETTE)])
        if series.style == "points":  # the swatch looks like the series: a dot, a dashed line, a bar
            painter.setPen(QtCore.Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            painter.drawEllipse(QtCore.QPointF(box.left() + 15, y), 3.5, 3.5)
        elif series.style == "bars":
            painter.fillRect(QtCore.QRectF(box.left() + 10, y - line * 0.3, 10, line * 0.6), colour)
        else:
            pen = QtGui.QPen(colour, 2.2)
            if series.style == "dashed":
                pen.setStyle(QtCore.Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.drawLine(QtCore.QPointF(box.left() + 6, y), QtCore.QPointF(box.left() + 24, y))
        painter.setPen(QtGui.QColor("black"))
        painter.drawText(QtCore.QRectF(box.left() + 30, y - line / 2, width, line),
                         QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter, series.name)
