"""Painting a figure description (:mod:`attnviz.figures.spec`) with QPainter: title, labels, cells, colour bar.

One painter routine serves PNG (any scale), SVG, PDF and the clipboard, in the window and headless
(``attnviz export``), so every output shows the same picture. Needs a QGuiApplication, no widget.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from attnviz.core.hf.vocab import CONTINUES
from attnviz.figures.attention import SINK_COLUMN
from attnviz.figures.spec import (
    AnyFigure,
    FigureSpec,
    GridSpec,
    LineSpec,
    StackSpec,
    TreeSpec,
    bar_ticks,
    end_value,
    nice_ticks,
    tick_text,
)
from attnviz.i18n import tr
from attnviz.render.fonts import with_cjk_fallback
from attnviz.render.line_painter import line_size, paint_lines

MASK_FILL = QtGui.QColor(225, 225, 225)  # masked cells: light grey with dark hatching, unlike any weight
MASK_HATCH = QtGui.QColor(90, 90, 90)
DIVIDER_PEN = QtGui.QPen(QtGui.QColor(230, 85, 13), 2.0)  # the prompt | answer boundary: orange, unlike any cell
BLANK = 0xFFFFFFFF  # a cell with no value (NaN: a masked score never computed) is left white
FONT_PIXELS = 12  # pixel sizes, not points: the same layout on screen, in PNG, SVG and PDF (1 px = 1 pt)
VECTOR_CELL_LIMIT = 128 * 128  # above this many cells, vector outputs embed the grid as an image
VECTOR_SEAM_OVERLAP = 0.4


#: attnviz's own maps; other names are pyqtgraph's (viridis, CET-D1, …).
CUSTOM_MAPS = {
    "mask": pg.ColorMap([0.0, 1.0], [(238, 238, 238), (66, 146, 198)]),  # masked: light grey; may attend: blue
}


def colour_map(name: str) -> pg.ColorMap:
    return CUSTOM_MAPS[name] if name in CUSTOM_MAPS else pg.colormap.get(name)


@cache
def lookup_table(colormap: str) -> np.ndarray:
    """(256, 4) uint8 RGBA colours of a colour map."""
    lut = colour_map(colormap).getLookupTable(nPts=256, alpha=True)
    return np.ascontiguousarray(lut, dtype=np.uint8)


@cache
def argb_table(colormap: str) -> np.ndarray:
    """(256,) uint32 colours as 0xAARRGGBB: one word per pixel of a QImage in ARGB32 format."""
    lut = lookup_table(colormap).astype(np.uint32)
    return (lut[:, 3] << 24) | (lut[:, 0] << 16) | (lut[:, 1] << 8) | lut[:, 2]


def colour_indices(values: np.ndarray, levels: tuple[float, float]) -> np.ndarray:
    """values mapped to 0…255 over ``levels`` (clipped; NaN -> 0), uint8 of the same shape."""
    low, high = levels
    scaled = np.subtract(values, low, dtype=np.float32)
    scaled *= 255.0 / (high - low)
    np.clip(scaled, 0, 255, out=scaled)
    blank = np.isnan(scaled)
    if blank.any():
        scaled[blank] = 0.0
    return scaled.astype(np.uint8)


def argb_pixels(values: np.ndarray, levels: tuple[float, float], colormap: str) -> np.ndarray:
    """values (Q, K) coloured: a C-contiguous uint32 (Q, K) array of 0xAARRGGBB words; NaN cells blank."""
    pixels = argb_table(colormap)[colour_indices(values, levels)]  # (indexing: 4× np.take's speed on uint8 indices)
    pixels = np.ascontiguousarray(pixels)  # (a transposed view's indices come out column-major: Qt needs rows)
    blank = np.isnan(values)
    if blank.any():
        pixels[blank] = BLANK
    return pixels


def qimage_of(pixels: np.ndarray) -> QtGui.QImage:
    """A QImage over ``pixels`` (Q, K) uint32 ARGB words, without copying: keep ``pixels`` alive.

    Colour maps are opaque, so the words are also valid premultiplied ARGB, the format Qt draws fastest. No
    pixels: a null image that holds nothing (one made over an empty buffer would keep the buffer for ever: Qt
    never hands an image with no pixels back to PySide6 for release).
    """
    rows, cols = pixels.shape
    if not (rows and cols):
        return QtGui.QImage()
    return QtGui.QImage(pixels.data, cols, rows, cols * 4, QtGui.QImage.Format.Format_ARGB32_Premultiplied)


def rgba_image(values: np.ndarray, levels: tuple[float, float], colormap: str) -> QtGui.QImage:
    """values (Q, K) as a Q-row, K-column image that owns its pixels."""
    return qimage_of(argb_pixels(values, levels, colormap)).copy()


def masked_runs(masked: np.ndarray) -> list[tuple[int, int, int]]:
    """masked (Q, K) bool as runs of masked cells along each row: (row, first column, count).

    A causal mask of T rows is T - 1 runs rather than T(T-1)/2 cells to draw."""
    masked = np.asarray(masked, dtype=bool)
    if masked.ndim != 2 or not masked.any():
        return []
    padded = np.zeros((masked.shape[0], masked.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = masked
    edges = np.diff(padded, axis=1)  # +1 where a run starts, -1 one past where it ends
    rows, starts = np.nonzero(edges == 1)
    _, ends = np.nonzero(edges == -1)
    return [(int(r), int(s), int(e - s)) for r, s, e in zip(rows, starts, ends, strict=True)]


MAX_LABEL_CHARS = 14  # on screen, longer tokens are shown cut with "…" (the hover read-out has them whole)
LABEL_GAP = 6  # px between two labels side by side on an axis
NUMERIC_SPACING = 2.0  # round values on a numeric query axis lie at least this many text lines apart


def cut_label(label: str) -> str:
    """``label`` cut to MAX_LABEL_CHARS: one 300-letter word must not squeeze the matrix to nothing."""
    return label if len(label) <= MAX_LABEL_CHARS else label[:MAX_LABEL_CHARS - 1] + "…"


def thinned(labels: tuple[str, ...], cell: float, text_height: float) -> list[tuple[int, str]]:
    """The labels that fit when cells are ``cell`` px apart: every n-th one, n the smallest of 1, 2, 5,
    10, 20, 50 … that keeps texts from overlapping (so a 256-wide axis reads 0, 50, 100 …)."""
    needed = max(1, math.ceil(text_height / max(cell, 1e-6)))
    every = next(m * 10 ** e for e in range(12) for m in (1, 2, 5) if m * 10 ** e >= needed)
    return [(i, labels[i]) for i in range(0, len(labels), every)]


def word_ticks(labels: Sequence[str], cell: float, text_height: float) -> list[tuple[float, str]]:
    """Subword pieces joined into their words ("▁tr", "·ans", "·former" → one label "▁transformer"), each word's
    label centred on its pieces, ``cell`` px apart; where even the words crowd, each word at least a text line
    from the one before. [] when no label continues a word (not pieces: :func:`thinned` stays)."""
    spans: list[list[Any]] = []  # [first piece, last piece, text]
    for index, label in enumerate(labels):
        if spans and len(label) > len(CONTINUES) and label.startswith(CONTINUES):
            spans[-1][1], spans[-1][2] = index, spans[-1][2] + label[len(CONTINUES):]
        else:
            spans.append([index, index, label])
    if len(spans) == len(labels):
        return []
    ticks: list[tuple[float, str]] = []
    for first, last, text in spans:
        centre = (first + last) / 2
        if not ticks or (centre - ticks[-1][0]) * cell >= text_height:
            ticks.append((centre, text))
    return ticks


def column_ticks(labels: tuple[str, ...], cell: float, line: float,
                 width_of: Callable[[str], float]) -> tuple[list[tuple[int, str]], bool]:
    """The key-axis labels for cells ``cell`` px wide and whether they are drawn rotated (reading
    upwards): level when the widest fits its cell, else rotated, all of them while a cell is at least a
    text line wide, every n-th one (:func:`thinned`) only below that. The screen and every export use it."""
    if not labels:
        return [], False
    widest = max(width_of(t) for t in labels) + LABEL_GAP
    if widest <= cell:
        return list(enumerate(labels)), False
    ticks = thinned(labels, cell, line)
    last = len(labels) - 1
    if labels[-1] == SINK_COLUMN and ticks[-1][0] != last:  # (a learned sink's column is no key: always named)
        room = math.ceil(line / max(cell, 1e-6))  # (cells a label takes: the ones before it give way)
        ticks = [(i, text) for i, text in ticks if last - i >= room] + [(last, labels[-1])]
    return ticks, True


def numeric_ticks(values: np.ndarray, length: float, room: float) -> list[tuple[float, str]]:
    """Round values along an axis whose len(values) cells (standing for increasing ``values``) span
    ``length`` px: (fractional cell index, text), both ends always labelled, round values between them
    where they keep ``room`` px (a label's extent along the axis) from each other and from the ends."""
    values = np.asarray(values, np.float64)
    count = len(values)
    if count == 0:
        return []
    low, high = float(values[0]), float(values[-1])
    first = (0.0, tick_text(end_value(low)))
    cell = length / count
    if count == 1 or (count - 1) * cell < room:
        return [first]
    most = max(2, int(length // max(room, 1.0)))
    inner: list[tuple[float, str]] = []
    for value in nice_ticks((low, high), most):
        position = float(np.interp(value, values, np.arange(count)))
        previous = inner[-1][0] if inner else 0.0
        if (position - previous) * cell >= room and (count - 1 - position) * cell >= room:
            inner.append((position, tick_text(value)))
    return [first, *inner, (count - 1.0, tick_text(end_value(high)))]


def numeric_label_width(values: np.ndarray, width_of: Callable[[str], float]) -> float:
    """The widest text :func:`numeric_ticks` can give for ``values`` (its ends and round values)."""
    values = np.asarray(values, np.float64)
    if not values.size:
        return 0.0
    low, high = float(values[0]), float(values[-1])
    texts = [tick_text(end_value(low)), tick_text(end_value(high)), *map(tick_text, nice_ticks((low, high), 12))]
    return max(width_of(t) for t in texts)


STEP_PART = re.compile(r"\bstep \d+")
ELLIPSIS = "…"


def step_part() -> re.Pattern[str]:
    """What "step N" reads as in the interface's language (the figures' titles say ``tr("step {step}")``)."""
    template = tr("step {step}")
    if template == "step {step}":
        return STEP_PART
    return re.compile(re.escape(template).replace(re.escape("{step}"), r"\d[\d,]*"))


def elided_title(metrics: QtGui.QFontMetricsF, text: str, width: float) -> str:
    """``text`` cut to ``width`` px with "…", keeping "step N" whole where the title has one (the part a
    lecture needs): 'transformer · cross-attention · layer 1 · head 1 · step 6' -> 'transformer · cr… · step 6'."""
    if metrics.horizontalAdvance(text) <= width:
        return text
    elide = QtCore.Qt.TextElideMode.ElideRight
    found = step_part().search(text)
    if found is None:
        return metrics.elidedText(text, elide, width)
    before, step, after = text[:found.start()].rstrip(" ·"), found.group(), text[found.end():]
    tail = text[len(before):found.start()] + step + after  # (with the separator before "step")
    room = width - metrics.horizontalAdvance(tail)
    if before and room >= metrics.horizontalAdvance(ELLIPSIS):  # the start cut, "step N …" whole
        return metrics.elidedText(before, elide, room) + tail
    lead = ELLIPSIS + text[len(before):found.start()] if before else ""
    room = width - metrics.horizontalAdvance(lead + step)
    if room >= 0:  # what follows the step cut too
        return lead + step + (metrics.elidedText(after, elide, room) if after else "")
    return metrics.elidedText(step + after, elide, width)


TITLE_SEPARATOR = " · "
_WIDE = "\u3000-\u9fff\uff00-\uffef"  # CJK characters and full-width punctuation
CJK = re.compile(f"[{_WIDE}]")
WRAP_UNITS = re.compile(f"[{_WIDE}]|[^\\s{_WIDE}]+|\\s+")  # a character, a Latin word or a space


def _greedy_lines(metrics: QtGui.QFontMetricsF, parts: list[str], separator: str, width: float) -> list[str]:
    """``parts`` joined by ``separator`` into as few lines of ``width`` px as a greedy fill makes."""
    lines: list[str] = []
    for part in parts:
        candidate = part if not lines else lines[-1] + separator + part
        if lines and metrics.horizontalAdvance(candidate) <= width:
            lines[-1] = candidate
        else:
            lines.append(part)
    return lines


def wrapped_title(metrics: QtGui.QFontMetricsF, text: str, width: float, max_lines: int = 2) -> list[str]:
    """``text`` in at most ``max_lines`` lines of ``width`` px, broken between its " · " fields (model · kind
    · layer · head · step) and, inside a field too long for a line, between words, so that nothing is lost
    while there is room; only what the last line cannot hold is cut, by :func:`elided_title` (which keeps
    "step N" whole)."""
    if max_lines <= 1 or metrics.horizontalAdvance(text) <= width:
        return [elided_title(metrics, text, width)]
    lines: list[str] = []
    for line in _greedy_lines(metrics, text.split(TITLE_SEPARATOR), TITLE_SEPARATOR, width):
        if metrics.horizontalAdvance(line) <= width:
            lines.append(line)
        elif CJK.search(line):  # Chinese breaks between characters (a Latin word stays whole), not at spaces
            units = WRAP_UNITS.findall(line)
            lines += [part.strip() for part in _greedy_lines(metrics, units, "", width)]
        else:
            lines += _greedy_lines(metrics, line.split(" "), " ", width)
    if len(lines) > max_lines:  # the last line takes the rest, cut
        end = 0
        for line in lines[:max_lines - 1]:
            end = text.index(line, end) + len(line)
        lines = [*lines[:max_lines - 1], text[end:].lstrip(" ·")]
    return [elided_title(metrics, line, width) for line in lines]


@dataclass(frozen=True)
class _Layout:
    """Geometry of one figure in logical pixels (scale 1)."""

    width: float
    height: float
    grid: QtCore.QRectF
    cell: float
    title_rect: QtCore.QRectF
    bar: QtCore.QRectF
    rotate_cols: bool
    title_text: str = ""  # the title as drawn: wrapped ("\n" between lines) where it is wider than the figure


def _fonts(pixels: int = FONT_PIXELS) -> tuple[QtGui.QFont, QtGui.QFont]:
    """The labels' font, ``pixels`` px high, and the title's (bold, 2 px larger)."""
    font = with_cjk_fallback(QtGui.QFont())  # Chinese titles and labels: glyphs from the carried font
    font.setPixelSize(pixels)
    bold = QtGui.QFont(font)
    bold.setBold(True)
    bold.setPixelSize(pixels + 2)
    return font, bold


MAX_CELL_PX = 36.0  # an exported map's largest cell. Not an overlay's: its picture's longer side is max_grid_px
# whatever the patch count (a Hugging Face folder's 4 × 4 patches were drawn 144 px wide beside the shipped ViT's 7 × 7
# at 252, and the Image dock, scaling each to fit, drew the smaller one's tick labels twice as large)


def _layout(spec: FigureSpec, font: QtGui.QFont, bold: QtGui.QFont) -> _Layout:
    rows, cols = spec.values.shape
    metrics = QtGui.QFontMetricsF(font)
    line = metrics.height()
    cell = max(1.0, spec.max_grid_px / max(rows, cols, 1))
    if spec.picture is None:  # (a map's cells stop at a text line's size or so; a picture fills max_grid_px)
        cell = min(MAX_CELL_PX, cell)
    row_ticks, col_ticks, rotate = _axis_ticks(spec, cell, metrics)
    row_width = max((metrics.horizontalAdvance(t) for _, t in row_ticks), default=0.0)
    col_width = max((metrics.horizontalAdvance(t) for _, t in col_ticks), default=0.0)
    col_height = col_width if rotate else line
    margin = 12.0
    left = margin + line + 4 + row_width + 6  # axis name, labels, gap
    bar_width = 14.0
    tick_width = max((metrics.horizontalAdvance(tick_text(v)) for v in bar_ticks(spec.levels)), default=0.0)
    if not spec.colour_bar:
        bar_width = tick_width = 0.0
    body_width = left + cols * cell + 16 + bar_width + 6 + tick_width + margin  # (what the cells and bar take)
    title_lines = title_lines_of(spec.title, bold, body_width - 2 * margin)
    title_height = (len(title_lines) + 0.6) * QtGui.QFontMetricsF(bold).height() if title_lines else 0.0
    # the colour bar's top value is centred on the bar's top edge: half a line more keeps it off the title
    top = margin + title_height + (line / 2 if spec.colour_bar and title_lines else 0.0)
    grid = QtCore.QRectF(left, top, cols * cell, rows * cell)
    bar = QtCore.QRectF(grid.right() + 16, top, bar_width,
                        max(grid.height(), spec.bar_min_px) if spec.colour_bar else 0.0)
    title_width = max((QtGui.QFontMetricsF(bold).horizontalAdvance(t) for t in title_lines), default=0.0) + 2 * margin
    width = max(bar.right() + 6 + tick_width + margin, title_width)
    height = max(grid.bottom(), bar.bottom()) + 6 + col_height + 4 + line + margin
    title_rect = QtCore.QRectF(margin, margin, width - 2 * margin, title_height)
    return _Layout(width, height, grid, cell, title_rect, bar, rotate, "\n".join(title_lines))


TITLE_WRAP_PX = 420.0  # an exported figure's title wider than the figure wraps to its width, never narrower than this
TITLE_MOST_LINES = 4  # lines an exported figure's title may take (the last one cut with "…" where it must)


def title_lines_of(title: str, bold: QtGui.QFont, body_width: float) -> list[str]:
    """An exported figure's title as lines: one while it fits ``body_width`` px (what the cells, labels and colour
    bar take) or TITLE_WRAP_PX, else wrapped to that width, so a long title no longer widens the picture into a
    mostly blank one: between its " · " fields (:func:`wrapped_title`) where that takes at most TITLE_MOST_LINES
    lines, else filled word by word (a Chinese title character by character); only the last line is cut."""
    if not title:
        return []
    metrics, width = QtGui.QFontMetricsF(bold), max(body_width, TITLE_WRAP_PX)
    by_fields = wrapped_title(metrics, title, width, max_lines=len(title))
    if len(by_fields) <= TITLE_MOST_LINES:
        return by_fields
    lines = [line.strip() for line in _greedy_lines(metrics, WRAP_UNITS.findall(title), "", width)]
    lines = [line for line in lines if line]
    if len(lines) > TITLE_MOST_LINES:  # the last line takes the rest, cut
        end = 0
        for line in lines[:TITLE_MOST_LINES - 1]:
            end = title.index(line, end) + len(line)
        lines = [*lines[:TITLE_MOST_LINES - 1], title[end:].strip()]
    return [elided_title(metrics, line, width) for line in lines]


def _axis_ticks(spec: FigureSpec, cell: float,
                metrics: QtGui.QFontMetricsF) -> tuple[list[tuple[float, str]], list[tuple[float, str]], bool]:
    """An exported figure's row and column labels (cell index, text) and whether the column labels are
    rotated: round values for numeric axes, else the tokens by the screen's rules."""
    rows, cols = spec.values.shape
    if not spec.ticks:
        return [], [], False
    line, width_of = metrics.height(), metrics.horizontalAdvance
    row_ticks: list[tuple[float, str]] = list(thinned(spec.row_labels, cell, line))
    if spec.row_values is not None:
        row_ticks = numeric_ticks(spec.row_values, rows * cell, NUMERIC_SPACING * line)
    if spec.col_values is not None:
        room = numeric_label_width(spec.col_values, width_of) + LABEL_GAP
        return row_ticks, numeric_ticks(spec.col_values, cols * cell, room), False
    col_ticks, rotate = column_ticks(spec.col_labels, cell, line, width_of)
    return row_ticks, list(col_ticks), rotate


def figure_size(spec: AnyFigure, font_pixels: int = FONT_PIXELS) -> QtCore.QSizeF:
    """The figure's size in logical pixels at scale 1; a lone heatmap's with its text ``font_pixels`` px high (the
    window's picture of one, scaled to fit, keeps its text at the window's size: gui/panels/image.py)."""
    if isinstance(spec, LineSpec):
        return line_size(spec, *_fonts())
    if isinstance(spec, TreeSpec):
        width, height, _boxes = tree_geometry(spec)
        return QtCore.QSizeF(width, height)
    if isinstance(spec, StackSpec):
        sizes = [figure_size(part) for part in spec.parts]
        return QtCore.QSizeF(max((s.width() for s in sizes), default=0.0), sum(s.height() for s in sizes))
    layout = _grid_layout(spec) if isinstance(spec, GridSpec) else _layout(spec, *_fonts(font_pixels))
    return QtCore.QSizeF(layout.width, layout.height)


def paint_figure(painter: QtGui.QPainter, spec: AnyFigure, vector: bool = False,
                 font_pixels: int = FONT_PIXELS) -> None:
    """Paint ``spec`` at the painter's origin, in logical pixels (scale the painter for resolution).

    vector: draw each cell as a rectangle (SVG/PDF) instead of one scaled image (PNG, clipboard).
    font_pixels: a lone heatmap's text size (:func:`figure_size`'s).
    """
    if isinstance(spec, GridSpec):
        _paint_grid(painter, spec, vector)
        return
    if isinstance(spec, StackSpec):
        _paint_stack(painter, spec, vector)
        return
    font, bold = _fonts()
    if isinstance(spec, LineSpec):
        paint_lines(painter, spec, font, bold)
        return
    if isinstance(spec, TreeSpec):
        paint_tree(painter, spec, font, bold)
        return
    if font_pixels != FONT_PIXELS:
        font, bold = _fonts(font_pixels)
    layout = _layout(spec, font, bold)
    rows, cols = spec.values.shape
    painter.save()
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
    painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing, True)
    painter.fillRect(QtCore.QRectF(0, 0, layout.width, layout.height), QtGui.QColor("white"))
    painter.setPen(QtGui.QColor("black"))
    if spec.title:
        painter.setFont(bold)
        painter.drawText(layout.title_rect, QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter,
                         layout.title_text)
    painter.setFont(font)
    _paint_cells(painter, spec, layout, vector)
    _paint_labels(painter, spec, layout, QtGui.QFontMetricsF(font))
    if spec.colour_bar:
        paint_colour_bar(painter, layout.bar, spec.levels, spec.colormap, QtGui.QFontMetricsF(font), vector)
    painter.setPen(QtGui.QPen(QtGui.QColor(60, 60, 60), 0.8))
    painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
    if rows and cols:
        painter.drawRect(layout.grid)
    painter.restore()


def _paint_stack(painter: QtGui.QPainter, spec: StackSpec, vector: bool) -> None:
    """Each part below the one before, on one white page as wide as the widest."""
    size = figure_size(spec)
    painter.fillRect(QtCore.QRectF(0, 0, size.width(), size.height()), QtGui.QColor("white"))
    top = 0.0
    for part in spec.parts:
        painter.save()
        painter.translate(0, top)
        paint_figure(painter, part, vector)
        painter.restore()
        top += figure_size(part).height()


def picture_image(pixels: np.ndarray) -> QtGui.QImage:
    """An (H, W, 3) float picture in [0, 1] as an opaque QImage."""
    rgb = (np.clip(np.asarray(pixels, np.float64), 0, 1) * 255 + 0.5).astype(np.uint32)
    argb = (0xFF << 24) | (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
    return qimage_of(np.ascontiguousarray(argb, dtype=np.uint32)).copy()  # (a copy: the words are freed here)


def _paint_cells(painter: QtGui.QPainter, spec: FigureSpec, layout: _Layout, vector: bool) -> None:
    rows, cols = spec.values.shape
    if not (rows and cols):
        return
    painter.save()
    if spec.picture is not None:  # an overlay: the picture first, stretched to the grid, the cells over it
        small = max(spec.picture.shape[:2]) < layout.grid.width()  # (a 28-pixel picture: its pixels, smoothed)
        painter.setRenderHint(QtGui.QPainter.RenderHint.SmoothPixmapTransform, small)
        painter.drawImage(layout.grid, picture_image(spec.picture))
        painter.setOpacity(min(max(spec.opacity, 0.0), 1.0))
    _paint_cell_colours(painter, spec, layout, vector)
    painter.restore()
    if spec.marked is not None:
        row, col = spec.marked
        painter.save()
        painter.setPen(QtGui.QPen(QtGui.QColor("white"), 2.0))
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        painter.drawRect(QtCore.QRectF(layout.grid.left() + col * layout.cell, layout.grid.top() + row * layout.cell,
                                       layout.cell, layout.cell))
        painter.setPen(QtGui.QPen(QtGui.QColor("black"), 1.0, QtCore.Qt.PenStyle.DashLine))
        painter.drawRect(QtCore.QRectF(layout.grid.left() + col * layout.cell, layout.grid.top() + row * layout.cell,
                                       layout.cell, layout.cell))
        painter.restore()


def _paint_cell_colours(painter: QtGui.QPainter, spec: FigureSpec, layout: _Layout, vector: bool) -> None:
    rows, cols = spec.values.shape
    if vector and rows * cols <= VECTOR_CELL_LIMIT:
        lut = lookup_table(spec.colormap)
        index = colour_indices(spec.values, spec.levels)
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
        overlap = VECTOR_SEAM_OVERLAP  # neighbouring cells overlap slightly: no hairline seams in viewers
        blank = np.isnan(spec.values)
        for r in range(rows):
            for c in range(cols):
                if blank[r, c]:
                    continue  # no value: the white background shows
                red, green, blue, alpha = (int(v) for v in lut[index[r, c]])
                painter.setBrush(QtGui.QColor(red, green, blue, alpha))
                painter.drawRect(QtCore.QRectF(layout.grid.left() + c * layout.cell,
                                               layout.grid.top() + r * layout.cell, layout.cell + overlap,
                                               layout.cell + overlap))
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
    else:
        painter.setRenderHint(QtGui.QPainter.RenderHint.SmoothPixmapTransform, False)
        painter.drawImage(layout.grid, rgba_image(spec.values, spec.levels, spec.colormap))
    if spec.masked is not None and np.any(spec.masked):
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        cells = [QtCore.QRectF(layout.grid.left() + first * layout.cell, layout.grid.top() + row * layout.cell,
                               count * layout.cell, layout.cell) for row, first, count in masked_runs(spec.masked)]
        for brush in (QtGui.QBrush(MASK_FILL), QtGui.QBrush(MASK_HATCH, QtCore.Qt.BrushStyle.BDiagPattern)):
            painter.setBrush(brush)
            for rect in cells:
                painter.drawRect(rect)
    if spec.divider:
        painter.setPen(DIVIDER_PEN)
        painter.drawLines(divider_lines(layout.grid, rows, cols, spec.divider))


def divider_lines(grid: QtCore.QRectF, rows: int, cols: int, divider: int) -> list[QtCore.QLineF]:
    """The lines that mark a figure's ``divider`` (FigureSpec.divider) on a cell ``grid`` of rows × cols:
    one across before that row and one down before that column, where they fall inside the grid."""
    lines = []
    if 0 < divider < rows:
        y = grid.top() + divider * grid.height() / rows
        lines.append(QtCore.QLineF(grid.left(), y, grid.right(), y))
    if 0 < divider < cols:
        x = grid.left() + divider * grid.width() / cols
        lines.append(QtCore.QLineF(x, grid.top(), x, grid.bottom()))
    return lines


def _paint_labels(painter: QtGui.QPainter, spec: FigureSpec, layout: _Layout, metrics: QtGui.QFontMetricsF) -> None:
    grid, cell, line = layout.grid, layout.cell, metrics.height()
    align_right = QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter
    painter.setPen(QtGui.QColor("black"))
    row_ticks, col_ticks, _rotate = _axis_ticks(spec, cell, metrics)
    shown_rows = len(spec.row_labels) - spec.hidden_rows
    for i, text in row_ticks:
        if i >= shown_rows:
            continue  # (a step not decoded yet: its label keeps its room, unwritten)
        y = grid.top() + (i + 0.5) * cell
        painter.drawText(QtCore.QRectF(0, y - line / 2, grid.left() - 6, line), align_right, text)
    for i, text in col_ticks:
        x = grid.left() + (i + 0.5) * cell
        if layout.rotate_cols:  # read bottom-to-top, ending just under the grid
            painter.save()
            painter.translate(x, grid.bottom() + 6)
            painter.rotate(-90)
            painter.drawText(QtCore.QRectF(-metrics.horizontalAdvance(text), -line / 2,
                                           metrics.horizontalAdvance(text), line), align_right, text)
            painter.restore()
        else:
            painter.drawText(QtCore.QRectF(x - cell / 2 - 20, grid.bottom() + 4, cell + 40, line),
                             QtCore.Qt.AlignmentFlag.AlignHCenter | QtCore.Qt.AlignmentFlag.AlignTop, text)
    painter.setPen(QtGui.QColor(90, 90, 90))
    bottom = layout.height - 12 - line
    painter.drawText(QtCore.QRectF(grid.left(), bottom, grid.width(), line),
                     QtCore.Qt.AlignmentFlag.AlignHCenter, spec.col_axis)
    painter.save()
    painter.translate(12, grid.center().y())
    painter.rotate(-90)
    painter.drawText(QtCore.QRectF(-grid.height() / 2, 0, grid.height(), line),
                     QtCore.Qt.AlignmentFlag.AlignHCenter, spec.row_axis)
    painter.restore()


def colour_bar_ticks(bar: QtCore.QRectF, levels: tuple[float, float], line: float) -> list[tuple[float, float]]:
    """(value, y) of the colour bar's labelled ticks: both ends always, the round values between them
    where their text does not run into an end's."""
    low, high = levels
    span = high - low if high > low else 1.0
    placed = [(v, bar.bottom() - (min(max(v, low), high) - low) / span * bar.height()) for v in bar_ticks(levels)]
    if len(placed) < 3:
        return placed
    first, last = placed[0][1], placed[-1][1]
    inner = [(v, y) for v, y in placed[1:-1] if abs(y - first) >= line and abs(y - last) >= line]
    return [placed[0], *inner, placed[-1]]


def paint_colour_bar(painter: QtGui.QPainter, bar: QtCore.QRectF, levels: tuple[float, float], colormap: str,
                     metrics: QtGui.QFontMetricsF, vector: bool = False) -> None:
    """The colour scale in ``bar`` (high at the top) with round ticks and their values on its right."""
    low, high = levels
    ramp = np.linspace(high, low, 256, dtype=np.float32)[:, None]  # top = high
    if vector:
        lut = lookup_table(colormap)
        step = bar.height() / 64
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        for k in range(64):
            red, green, blue, alpha = (int(v) for v in lut[255 - k * 4])
            painter.setBrush(QtGui.QColor(red, green, blue, alpha))
            painter.drawRect(QtCore.QRectF(bar.left(), bar.top() + k * step, bar.width(), step + VECTOR_SEAM_OVERLAP))
    else:
        painter.drawImage(bar, rgba_image(ramp, levels, colormap))
    painter.setPen(QtGui.QPen(QtGui.QColor(60, 60, 60), 0.8))
    painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
    painter.drawRect(bar)
    line = metrics.height()
    for value, y in colour_bar_ticks(bar, levels, line):
        painter.drawLine(QtCore.QPointF(bar.right(), y), QtCore.QPointF(bar.right() + 3, y))
        painter.drawText(QtCore.QRectF(bar.right() + 5, y - line / 2, 200, line),
                         QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter,
                         tick_text(value))


@dataclass(frozen=True)
class _GridLayout:
    """Geometry of a GridSpec at scale 1: panel size, where the panels start, the shared bar."""

    width: float
    height: float
    panel: QtCore.QSizeF
    origin: QtCore.QPointF
    title_rect: QtCore.QRectF
    bar: QtCore.QRectF


def _grid_layout(spec: GridSpec) -> _GridLayout:
    font, bold = _fonts()
    metrics = QtGui.QFontMetricsF(font)
    margin = 12.0
    title_height = QtGui.QFontMetricsF(bold).height() * 1.6 if spec.title else 0.0
    sizes = [figure_size(p) for p in spec.panels]
    panel = QtCore.QSizeF(max((s.width() for s in sizes), default=0.0), max((s.height() for s in sizes), default=0.0))
    rows = len(spec.row_names)
    origin = QtCore.QPointF(margin, margin + title_height)
    grid_width, grid_height = spec.columns * panel.width(), rows * panel.height()
    bar = QtCore.QRectF(origin.x() + grid_width + 16, origin.y() + 12, 14.0, max(grid_height - 24, 120.0))
    tick_width = max((metrics.horizontalAdvance(tick_text(v)) for v in bar_ticks(spec.levels)), default=0.0)
    if not spec.shared_bar:
        bar, tick_width = QtCore.QRectF(origin.x() + grid_width, origin.y(), 0.0, 0.0), 0.0
    title_width = QtGui.QFontMetricsF(bold).horizontalAdvance(spec.title) + 2 * margin
    width = max(bar.right() + 6 + tick_width + margin, title_width)
    height = max(origin.y() + grid_height, bar.bottom()) + margin
    return _GridLayout(width, height, panel, origin, QtCore.QRectF(margin, margin, width - 2 * margin, title_height),
                       bar)


def _paint_grid(painter: QtGui.QPainter, spec: GridSpec, vector: bool) -> None:
    font, bold = _fonts()
    layout = _grid_layout(spec)
    painter.save()
    painter.fillRect(QtCore.QRectF(0, 0, layout.width, layout.height), QtGui.QColor("white"))
    painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing, True)
    if spec.title:
        painter.setFont(bold)
        painter.setPen(QtGui.QColor("black"))
        painter.drawText(layout.title_rect, QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter,
                         spec.title)
    for index, panel in enumerate(spec.panels):
        row, col = divmod(index, spec.columns)
        painter.save()
        painter.translate(layout.origin.x() + col * layout.panel.width(),
                          layout.origin.y() + row * layout.panel.height())
        paint_figure(painter, panel, vector)
        painter.restore()
    painter.setFont(font)
    if spec.shared_bar:
        paint_colour_bar(painter, layout.bar, spec.levels, spec.colormap, QtGui.QFontMetricsF(font), vector)
    painter.restore()


def figure_image(spec: AnyFigure, scale: float = 1.0) -> QtGui.QImage:
    """The figure as an image of ``scale`` × its logical size (PNG export, clipboard)."""
    size = figure_size(spec)
    image = QtGui.QImage(max(1, math.ceil(size.width() * scale)), max(1, math.ceil(size.height() * scale)),
                         QtGui.QImage.Format.Format_ARGB32)
    image.fill(QtGui.QColor("white"))
    painter = QtGui.QPainter(image)
    try:  # (ended before the image can go, whatever stops the painting: Ctrl+C mid-figure crashed Qt)
        painter.scale(scale, scale)
        paint_figure(painter, spec)
    finally:
        painter.end()
    return image


TREE_COLUMN, TREE_ROW, TREE_BOX = 104.0, 40.0, QtCore.QSizeF(84.0, 32.0)  # logical px per step, per leaf; a node
TREE_MARGIN, TREE_TITLE = 12.0, 30.0
BEST_COLOUR, SELECTED_COLOUR, FADED = QtGui.QColor(31, 119, 180), QtGui.QColor(214, 95, 0), 0.35


def tree_geometry(spec: TreeSpec) -> tuple[float, float, list[QtCore.QRectF]]:
    """The tree's size at scale 1 and each node's box (the painter and the view's clicks use these)."""
    boxes = [QtCore.QRectF(TREE_MARGIN + column * TREE_COLUMN, TREE_MARGIN + TREE_TITLE + row * TREE_ROW,
                           TREE_BOX.width(), TREE_BOX.height()) for column, row in zip(spec.columns, spec.rows,
                                                                                       strict=True)]
    title = QtGui.QFontMetricsF(_fonts()[1]).horizontalAdvance(spec.title) + 2 * TREE_MARGIN
    width = max(max((b.right() for b in boxes), default=0.0) + TREE_MARGIN, title)
    height = max((b.bottom() for b in boxes), default=TREE_TITLE) + TREE_MARGIN
    return width, height, boxes


def paint_tree(painter: QtGui.QPainter, spec: TreeSpec, font: QtGui.QFont, bold: QtGui.QFont) -> None:
    """Nodes as boxes (token, log p) joined to their parents; the best path blue, pruned branches faded,
    ended hypotheses with a double border, the selected node outlined in orange."""
    width, height, boxes = tree_geometry(spec)
    painter.save()
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
    painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing, True)
    painter.fillRect(QtCore.QRectF(0, 0, width, height), QtGui.QColor("white"))
    painter.setFont(bold)
    painter.setPen(QtGui.QColor("black"))
    painter.drawText(QtCore.QRectF(TREE_MARGIN, TREE_MARGIN / 2, width, TREE_TITLE),
                     QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter, spec.title)
    for node, parent, box in zip(spec.nodes, spec.parents, boxes, strict=True):
        if parent < 0:
            continue
        colour = QtGui.QColor(BEST_COLOUR if node.best else QtGui.QColor(120, 120, 120))
        colour.setAlphaF(FADED if node.pruned else 1.0)
        painter.setPen(QtGui.QPen(colour, 2.0 if node.best else 1.0))
        start = boxes[parent]
        painter.drawLine(QtCore.QPointF(start.right(), start.center().y()),
                         QtCore.QPointF(box.left(), box.center().y()))
    small = QtGui.QFont(font)
    small.setPointSizeF(max(6.0, font.pointSizeF() * 0.8))
    for index, (node, box) in enumerate(zip(spec.nodes, boxes, strict=True)):
        painter.setOpacity(FADED if node.pruned else 1.0)
        border = BEST_COLOUR if node.best else QtGui.QColor(120, 120, 120)
        if index == spec.selected:
            border = SELECTED_COLOUR
        painter.setPen(QtGui.QPen(border, 2.5 if index == spec.selected or node.best else 1.0))
        painter.setBrush(QtGui.QColor(235, 243, 250) if node.best else QtGui.QColor("white"))
        painter.drawRoundedRect(box, 5, 5)
        if node.finished:
            painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(box.adjusted(3, 3, -3, -3), 3, 3)
        painter.setPen(QtGui.QColor("black"))
        painter.setFont(bold if node.best else font)
        metrics = QtGui.QFontMetricsF(painter.font())
        top = QtCore.QRectF(box.left() + 4, box.top() + 2, box.width() - 8, box.height() / 2)
        painter.drawText(top, QtCore.Qt.AlignmentFlag.AlignCenter,
                         metrics.elidedText(node.token, QtCore.Qt.TextElideMode.ElideRight, top.width()))
        if node.tokens:
            painter.setFont(small)
            painter.setPen(QtGui.QColor(90, 90, 90))
            painter.drawText(QtCore.QRectF(box.left(), box.center().y(), box.width(), box.height() / 2 - 2),
                             QtCore.Qt.AlignmentFlag.AlignCenter, f"log p {node.log_prob:.2f}")
    painter.setOpacity(1.0)
    painter.restore()


def cell_at(spec: AnyFigure, x: float, y: float, font_pixels: int = FONT_PIXELS) -> tuple[int, int, int] | None:
    """The cell under point (x, y) of ``spec`` painted at scale 1 (:func:`paint_figure`, a lone heatmap's text
    ``font_pixels`` high): (panel, row, column) — panel 0 for a lone heatmap, a GridSpec's panel index otherwise — or
    None off every cell grid."""
    if isinstance(spec, FigureSpec):
        return _cell_in(spec, _layout(spec, *_fonts(font_pixels)), x, y, 0)
    if isinstance(spec, GridSpec) and spec.panels:
        layout = _grid_layout(spec)
        col = math.floor((x - layout.origin.x()) / max(layout.panel.width(), 1e-9))
        row = math.floor((y - layout.origin.y()) / max(layout.panel.height(), 1e-9))
        index = row * spec.columns + col
        if not (0 <= col < spec.columns and 0 <= index < len(spec.panels)):
            return None
        panel = spec.panels[index]
        return _cell_in(panel, _layout(panel, *_fonts()), x - layout.origin.x() - col * layout.panel.width(),
                        y - layout.origin.y() - row * layout.panel.height(), index)
    return None


def _cell_in(spec: FigureSpec, layout: _Layout, x: float, y: float, panel: int) -> tuple[int, int, int] | None:
    rows, cols = spec.values.shape
    if not layout.grid.contains(QtCore.QPointF(x, y)) or not (rows and cols):
        return None
    row = min(int((y - layout.grid.top()) / layout.cell), rows - 1)
    col = min(int((x - layout.grid.left()) / layout.cell), cols - 1)
    return panel, row, col
