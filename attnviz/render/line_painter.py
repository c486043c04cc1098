"""Painting a line plot (:class:`attnviz.figures.spec.LineSpec`) with QPainter: title, axes with round
ticks, the series (lines, points or bars) and a legend. The same routine serves PNG, SVG, PDF and the
clipboard, like the heatmaps' painter."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6 import QtCore, QtGui

from attnviz.figures.spec import LineSpec, nice_ticks, tick_text

SIZE = QtCore.QSizeF(640, 420)  # logical pixels at scale 1: the plot area is this less the margins
MARGINS = (64.0, 36.0, 18.0, 48.0)  # left, top, right, bottom: room for tick labels and axis names
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf"]  # matplotlib's tab10: what readers of the book know
LEGEND_INSET = 8.0  # px between a legend inside the plot and the plot's frame
LEGEND_OUTSIDE_GAP = 12.0  # px between the plot and a legend beside it (when no corner is free of data)


@dataclass(frozen=True)
class LineLayout:
    """Where a line plot's parts lie at scale 1: the whole figure, the plot area, the legend (empty when
    no series is named), the axes' ranges."""

    size: QtCore.QSizeF
    plot: QtCore.QRectF
    legend: QtCore.QRectF
    x_range: tuple[float, float]
    y_range: tuple[float, float]


def line_size(spec: LineSpec, font: QtGui.QFont, bold: QtGui.QFont) -> QtCore.QSizeF:
    return line_layout(spec, font, bold).size


def line_layout(spec: LineSpec, font: QtGui.QFont, bold: QtGui.QFont) -> LineLayout:
    """The plot area keeps its size; the figure grows to show the whole title, the widest y tick value,
    and a legend beside the plot when no corner inside it is free of data (a legend hides nothing)."""
    metrics = QtGui.QFontMetricsF(font)
    left, top, right, bottom = MARGINS
    xs, ys, has_bars = _data(spec)
    x_range = _range(xs)
    y_range = _range([*ys, np.zeros(1)] if has_bars else ys, spec.y_range)
    widest_y = max((metrics.horizontalAdvance(tick_text(v)) for v in nice_ticks(y_range, 6)), default=0.0)
    left = max(left, metrics.height() + 8 + widest_y + 8)  # axis name, tick values, gap
    plot = QtCore.QRectF(left, top, SIZE.width() - MARGINS[0] - right, SIZE.height() - top - bottom)
    legend = _legend_rect(spec, plot, metrics, x_range, y_range)
    width = max(plot.right() + right, QtGui.QFontMetricsF(bold).horizontalAdvance(spec.title) + left + right,
                legend.right() + right)
    return LineLayout(QtCore.QSizeF(width, SIZE.height()), plot, legend, x_range, y_range)


def _data(spec: LineSpec) -> tuple[list[np.ndarray], list[np.ndarray], bool]:
    xs = [np.asarray(s.x, np.float64) for s in spec.series]
    ys = [np.asarray(s.y, np.float64) for s in spec.series]
    return xs, ys, any(s.style == "bars" for s in spec.series)


def _to_px(plot: QtCore.QRectF, x_range: tuple[float, float], y_range: tuple[float, float], x: np.ndarray,
           y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    (x_low, x_high), (y_low, y_high) = x_range, y_range
    return (plot.left() + (x - x_low) / (x_high - x_low) * plot.width(),
            plot.bottom() - (y - y_low) / (y_high - y_low) * plot.height())


def data_points(spec: LineSpec, plot: QtCore.QRectF, x_range: tuple[float, float],
                y_range: tuple[float, float]) -> np.ndarray:
    """(N, 2) pixel positions covered by the data: every point, lines sampled every 2 px, bars filled
    every 2 px from the axis; what a legend must not cover."""
    xs, ys, _bars = _data(spec)
    zero = float(_to_px(plot, x_range, y_range, np.zeros(1), np.array([max(y_range[0], 0.0)]))[1][0])
    found = []
    for series, x, y in zip(spec.series, xs, ys, strict=True):
        px, py = _to_px(plot, x_range, y_range, x, y)
        keep = np.isfinite(px) & np.isfinite(py)
        if series.style == "bars":  # the whole group of bars at each x
            group = _bar_width(xs, plot.width() / (x_range[1] - x_range[0]), 1)
            for bx, by in zip(px[keep], py[keep], strict=True):
                gx, gy = np.meshgrid(np.arange(bx - group / 2, bx + group / 2 + 1, 2.0),
                                     np.arange(min(by, zero), max(by, zero) + 1, 2.0))
                found.append(np.stack([gx.ravel(), gy.ravel()], axis=1))
            continue
        found.append(np.stack([px[keep], py[keep]], axis=1))
        if series.style != "points":
            for (x0, y0), (x1, y1), ok in zip(zip(px[:-1], py[:-1], strict=True), zip(px[1:], py[1:], strict=True),
                                              keep[:-1] & keep[1:], strict=True):
                if ok:
                    count = int(min(math.hypot(x1 - x0, y1 - y0) / 2, 2000)) + 1
                    t = np.linspace(0.0, 1.0, count + 1)
                    found.append(np.stack([x0 + t * (x1 - x0), y0 + t * (y1 - y0)], axis=1))
    return np.concatenate(found) if found else np.zeros((0, 2))


def _legend_rect(spec: LineSpec, plot: QtCore.QRectF, metrics: QtGui.QFontMetricsF, x_range: tuple[float, float],
                 y_range: tuple[float, float]) -> QtCore.QRectF:
    """The first corner of the plot (top right, top left, bottom right, bottom left, then the middle of the
    top and bottom edges) where the legend covers no data, else beside the plot on its right."""
    named = [s for s in spec.series if s.name]
    if not named:
        return QtCore.QRectF()
    width = max(metrics.horizontalAdvance(s.name) for s in named) + 34
    height = metrics.height() * len(named) + 8
    inset = LEGEND_INSET
    lefts = (plot.right() - width - inset, plot.left() + inset, plot.center().x() - width / 2)
    tops = (plot.top() + inset, plot.bottom() - height - inset)
    candidates = [QtCore.QRectF(x, y, width, height) for x, y in ((lefts[0], tops[0]), (lefts[1], tops[0]),
                                                                   (lefts[0], tops[1]), (lefts[1], tops[1]),
                                                                   (lefts[2], tops[0]), (lefts[2], tops[1]))]
    points = data_points(spec, plot, x_range, y_range)
    for box in candidates:
        grown = box.adjusted(-3, -3, 3, 3)
        inside = ((points[:, 0] >= grown.left()) & (points[:, 0] <= grown.right()) & (points[:, 1] >= grown.top())
                  & (points[:, 1] <= grown.bottom()))
        if not inside.any():
            return box
    return QtCore.QRectF(plot.right() + LEGEND_OUTSIDE_GAP, plot.top(), width, height)


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
    layout = line_layout(spec, font, bold)
    plot, size = layout.plot, layout.size
    left, top = plot.left(), plot.top()
    xs, ys, _bars = _data(spec)
    (x_low, x_high), (y_low, y_high) = layout.x_range, layout.y_range

    def to_px(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _to_px(plot, layout.x_range, layout.y_range, x, y)

    painter.save()
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
    painter.fillRect(QtCore.QRectF(QtCore.QPointF(0, 0), size), QtGui.QColor("white"))
    metrics = QtGui.QFontMetricsF(font)
    line = metrics.height()
    painter.setPen(QtGui.QColor("black"))
    painter.setFont(bold)
    painter.drawText(QtCore.QRectF(left, 6, size.width() - left, top - 10),
                     QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter, spec.title)
    painter.setFont(font)
    grid_pen = QtGui.QPen(QtGui.QColor(225, 225, 225), 0.8)
    x_ticks = spec.x_ticks if spec.x_ticks is not None else tuple(
        (value, tick_text(value)) for value in nice_ticks((x_low, x_high), 7))
    for value, text in x_ticks:
        x = to_px(np.array([value]), np.array([y_low]))[0][0]
        painter.setPen(grid_pen)
        painter.drawLine(QtCore.QPointF(x, plot.top()), QtCore.QPointF(x, plot.bottom()))
        painter.setPen(QtGui.QColor("black"))
        painter.drawText(QtCore.QRectF(x - 40, plot.bottom() + 3, 80, line), QtCore.Qt.AlignmentFlag.AlignHCenter,
                         text)
    for value in nice_ticks((y_low, y_high), 6):
        y = to_px(np.array([x_low]), np.array([value]))[1][0]
        painter.setPen(grid_pen)
        painter.drawLine(QtCore.QPointF(plot.left(), y), QtCore.QPointF(plot.right(), y))
        painter.setPen(QtGui.QColor("black"))
        painter.drawText(QtCore.QRectF(0, y - line / 2, left - 6, line),
                         QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter, tick_text(value))
    painter.drawText(QtCore.QRectF(left, size.height() - line - 4, plot.width(), line),
                     QtCore.Qt.AlignmentFlag.AlignHCenter, spec.x_label)
    painter.save()
    painter.translate(4 + line / 2, plot.center().y())
    painter.rotate(-90)
    painter.drawText(QtCore.QRectF(-plot.height() / 2, -line / 2, plot.height(), line),
                     QtCore.Qt.AlignmentFlag.AlignHCenter, spec.y_label)
    painter.restore()
    painter.setClipRect(plot.adjusted(-1, -1, 1, 1))
    side_by_side = _bars_side_by_side(spec)
    bar_width = _bar_width(xs, plot.width() / (x_high - x_low), side_by_side)
    bar_index = 0
    for index, (series, x, y) in enumerate(zip(spec.series, xs, ys, strict=True)):
        colour = QtGui.QColor(PALETTE[index % len(PALETTE)])
        px, py = to_px(x, y)
        if series.style == "bars":
            zero = to_px(np.array([x_low]), np.array([max(y_low, 0.0)]))[1][0]
            painter.setPen(QtCore.Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            offset = (bar_index - 0.5 * (side_by_side - 1)) * bar_width if side_by_side > 1 else 0.0
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
    _paint_legend(painter, spec, layout.legend, metrics)
    painter.restore()


def _bars_side_by_side(spec: LineSpec) -> int:
    """How many bar series stand side by side at one x: all of them where two share an x (grouped bars), else 1
    (series over different x, such as one series per kind of head, each bar centred on its own x)."""
    bars = [np.asarray(s.x, np.float64) for s in spec.series if s.style == "bars"]
    seen: set[float] = set()
    for x in bars:
        values = set(x[np.isfinite(x)].tolist())
        if seen & values:
            return len(bars)
        seen |= values
    return 1


def _bar_width(xs: list[np.ndarray], px_per_unit: float, bar_series: int) -> float:
    """Bars of one x side by side across the bar series, filling 80 % of the smallest x spacing."""
    spacing = min((float(np.diff(np.unique(x)).min()) for x in xs if np.unique(x).size > 1), default=1.0)
    return max(1.0, 0.8 * spacing * px_per_unit / max(bar_series, 1))


def _paint_legend(painter: QtGui.QPainter, spec: LineSpec, box: QtCore.QRectF, metrics: QtGui.QFontMetricsF) -> None:
    named = [(i, s) for i, s in enumerate(spec.series) if s.name]
    if not named or box.isEmpty():
        return
    line = metrics.height()
    width = box.width()
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
