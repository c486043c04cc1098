"""Where each part of a heatmap lies: the label and title fonts (shrunk to show every token label where they can),
the title, the cells, the token labels (thinned, rotated or cut by the exports' rules) and the colour bar's room, and
which cell lies under a point. The layout is worked out once per figure and size (:class:`HeatmapLayout`); the token
labels' widths and laid-out texts are kept per label size (bounded), because tokens repeat from step to step.

The lowest of the heatmap's parts (gui/heatmap.py assembles them): it reads the state the :class:`Heatmap` sets up
(the figure, its values, the zoom's region) and paints nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.figures.spec import FigureSpec, bar_ticks, tick_text
from attnviz.render.figure_painter import (
    LABEL_GAP,
    NUMERIC_SPACING,
    column_ticks,
    cut_label,
    numeric_label_width,
    numeric_ticks,
    thinned,
    word_ticks,
    wrapped_title,
)

MARGIN = 6  # px around the figure
BAR_WIDTH = 14  # px of the colour bar
BAR_GAP = 10  # px between the cells and the colour bar
BAR_TEXT_SLACK = 4  # px after the widest tick value: a glyph's ink can reach past its advance (was cut at the edge)
LEAST_LABEL_SCALE = 0.7  # token labels shrink to this share of the widget's font before any is thinned
MIN_LABEL_PIXELS = 8  # and never below this
MIN_GRID = 64  # px: the cell area is never smaller than this on either side
ROTATED_SHARE = 0.4  # rotated key labels take at most this share of the height under the title
KEPT_SIZES = 16  # label sizes whose label widths are kept (the lecture view tries a dozen sizes for one figure)
KEPT_TEXT_SIZES = 2  # label sizes whose laid-out texts are kept (the one on show and the one before it: F5 and back)
MESSAGE_LINES = 8  # lines a figure without cells may take for its message ("Not at this length: …")


def _recent(kept: dict[tuple, dict], key: tuple, most: int) -> dict:
    """``kept[key]`` (a new empty dict if missing), now the most recently used; beyond ``most`` keys, the least
    recently used are dropped."""
    value = kept.pop(key, None)
    kept[key] = value = {} if value is None else value
    while len(kept) > most:
        del kept[next(iter(kept))]
    return value

@dataclass(frozen=True)
class HeatmapLayout:
    """Where each part of the figure lies in the widget, in widget pixels."""

    title: QtCore.QRectF
    title_text: str  # wrapped to the widget's width ("\n" between lines), cut only where lines run out
    grid: QtCore.QRectF  # the cells (empty when the figure has none)
    bar: QtCore.QRectF  # the colour bar (empty when not shown)
    row_ticks: list[tuple[float, str]]  # (cell index, text): a round value of a numeric axis lies between cells
    col_ticks: list[tuple[float, str]]
    label_width: float  # of the row labels, right-aligned against the grid
    rotated: bool = False  # the column labels read upwards, ending just under the cells
    col_label_height: float = 0.0  # px under the cells taken by the column labels


def label_and_title_fonts(widget: QtWidgets.QWidget) -> tuple[QtGui.QFont, QtGui.QFont, QtGui.QFontMetricsF,
                                                               QtGui.QFontMetricsF]:
    """Labels in the widget's own font, the title in its bold, and their metrics: an app-wide font size
    (presentation mode) reaches what the widget paints."""
    label, title = QtGui.QFont(widget.font()), QtGui.QFont(widget.font())
    title.setBold(True)
    return label, title, QtGui.QFontMetricsF(label), QtGui.QFontMetricsF(title)


class HeatmapGeometry(QtWidgets.QWidget):
    """The fonts, the layout and the cell geometry of a heatmap widget (the state is :class:`Heatmap`'s)."""

    spec: FigureSpec
    values: np.ndarray  # (Q, K) float32: the cells
    title_lines: int
    label_pixels: tuple[int, int] | None
    has_colour_bar: bool
    _shown_labels: tuple[tuple[str, ...], tuple[str, ...]]  # (row, column) labels cut to their shown length
    _layout: HeatmapLayout | None
    _least: QtCore.QSize
    _bar_width: float | None
    _view: tuple[float, float, float, float] | None  # the zoom's region (gui/heatmap_zoom.py), None: the whole map
    _kept_widths: dict[tuple, dict[str, float]]
    _kept_texts: dict[tuple, dict[str, QtGui.QStaticText]]
    _most_labels: int  # labels kept per label size

    def _fonts(self, pixels: int | None = None, title_too: bool = True) -> None:
        """The label and title fonts: the widget's, or labels ``pixels`` px high (title_too: the title a tenth
        larger; else the widget's bold)."""
        self.label_font, self.title_font, self._metrics, self._title_metrics = label_and_title_fonts(self)
        if pixels is not None:
            self.label_font.setPixelSize(pixels)
            self._metrics = QtGui.QFontMetricsF(self.label_font)
            if title_too:
                self.title_font.setPixelSize(round(pixels * 1.1))
                self._title_metrics = QtGui.QFontMetricsF(self.title_font)
        self._label_pixels, self._title_too = pixels, title_too
        # Tokens repeat from step to step: their widths and laid-out texts are kept, per label size (a repaint
        # then costs a third of what measuring and shaping every label again does). Bounded: the widths of the
        # KEPT_SIZES sizes used last, the laid-out texts (2.4 kB each) of the KEPT_TEXT_SIZES sizes painted last.
        self._font_key = (pixels, title_too, self.font().key())
        self._widths = _recent(self._kept_widths, self._font_key, KEPT_SIZES)
        self._texts: dict[str, QtGui.QStaticText] | None = None  # chosen when a label is first painted (_static)
        self._bar_picture: tuple[tuple, QtGui.QPixmap] | None = None
        self._bar_width = None  # (measured in the fonts just set: a stale one cut the bar's values)
    def _width(self, text: str) -> float:
        width = self._widths.get(text)
        if width is None:
            if len(self._widths) >= self._most_labels:
                self._widths.clear()
            width = self._widths[text] = self._metrics.horizontalAdvance(text)
        return width

    def _static(self, text: str) -> QtGui.QStaticText:
        if self._texts is None:
            self._texts = _recent(self._kept_texts, self._font_key, KEPT_TEXT_SIZES)
        static = self._texts.get(text)
        if static is None:
            if len(self._texts) >= self._most_labels:
                self._texts.clear()
            static = self._texts[text] = QtGui.QStaticText(text)
            static.setTextFormat(QtCore.Qt.TextFormat.PlainText)
            static.prepare(QtGui.QTransform(), self.label_font)
        return static

    def kept_labels(self) -> tuple[int, int]:
        """How many label widths and laid-out label texts the heatmap keeps, over all label sizes (bounded)."""
        return (sum(map(len, self._kept_widths.values())),
                sum(map(len, self._kept_texts.values())))
    # -- layout ---------------------------------------------------------------------------
    def figure_layout(self) -> HeatmapLayout:
        """The layout for the widget's current size (cached until the figure or the size changes)."""
        if self._layout is None:
            size = QtCore.QSizeF(self.width(), self.height())
            if self.label_pixels is not None:
                self._layout = self._fit_labels(size, *self.label_pixels)
            else:
                self._layout = self._shrunk_to_fit(size)
        return self._layout

    def _shrunk_to_fit(self, size: QtCore.QSizeF) -> HeatmapLayout:
        """The layout in the widget's font; where that thins or cuts token labels, the labels a size smaller,
        down to LEAST_LABEL_SCALE of it, as long as that shows them all (else the widget's font, thinned)."""
        if self._label_pixels is not None:
            self._fonts()
        layout = self._compute_layout(size)
        full = QtGui.QFontInfo(self.label_font).pixelSize()
        least = max(MIN_LABEL_PIXELS, round(LEAST_LABEL_SCALE * full))
        if self._whole(layout) or least >= full or self._too_many(size, least):
            return layout  # (all shown, or too many even at the least size: no time spent trying)
        smaller = self._first_whole(size, list(range(full - 1, least - 1, -1)), title_too=False)
        if smaller is not None:
            return smaller
        self._fonts()
        self._bar_width = None
        return layout

    def _fit_labels(self, size: QtCore.QSizeF, largest: int, smallest: int) -> HeatmapLayout:
        """The layout with the largest label font from ``largest`` down to ``smallest`` px that shows every
        token label on both axes whole (at ``smallest``: what that size shows)."""
        sizes = [smallest] if self._too_many(size, smallest) else list(range(largest, smallest - 1, -1))
        return self._first_whole(size, sizes, title_too=True) or self._compute_layout(size)  # (fonts: smallest)

    def _first_whole(self, size: QtCore.QSizeF, pixel_sizes: Sequence[int], title_too: bool) -> HeatmapLayout | None:
        """The layout at the first of ``pixel_sizes`` (label px, largest first) that shows every label whole, or None
        (the fonts left at the last size). Found by halving the sizes (a smaller size never shows fewer labels
        whole): the lecture view's dozen sizes cost four layouts, not twelve, each time the map changes."""
        found: tuple[int, HeatmapLayout] | None = None
        low, high = 0, len(pixel_sizes) - 1
        while low <= high:
            middle = (low + high) // 2
            layout = self._layout_at(size, pixel_sizes[middle], title_too)
            if self._whole(layout):
                found, high = (pixel_sizes[middle], layout), middle - 1
            else:
                low = middle + 1
        if found is None:
            if pixel_sizes:
                self._layout_at(size, pixel_sizes[-1], title_too)
            return None
        if (found[0], title_too) != (self._label_pixels, self._title_too):  # (a smaller size was tried after it)
            self._fonts(found[0], title_too)
            self._bar_width = None
        return found[1]

    def _layout_at(self, size: QtCore.QSizeF, pixels: int, title_too: bool) -> HeatmapLayout:
        """The layout with labels ``pixels`` px high (the fonts set to that size)."""
        if (pixels, title_too) != (self._label_pixels, self._title_too):
            self._fonts(pixels, title_too)
            self._bar_width = None
        return self._compute_layout(size)

    def _too_many(self, size: QtCore.QSizeF, pixels: float) -> bool:
        """More tokens on an axis than labels ``pixels`` px high can show in ``size``."""
        rows, cols = self.values.shape if self.values.ndim == 2 else (0, 0)
        return rows * pixels > size.height() or cols * pixels > size.width()

    def _whole(self, layout: HeatmapLayout) -> bool:
        """Every token label on both axes shown and uncut (a numeric axis shows round values: whole)."""
        rows, cols = self.values.shape if self.values.ndim == 2 else (0, 0)
        rows_whole = self.spec.row_values is not None or len(layout.row_ticks) >= rows
        uncut = not layout.rotated or all(
            tick == label for (_, tick), label in zip(layout.col_ticks, self._shown_labels[1], strict=False))
        columns_whole = self.spec.col_values is not None or (len(layout.col_ticks) >= cols and uncut)
        return rows_whole and columns_whole

    def _compute_layout(self, size: QtCore.QSizeF) -> HeatmapLayout:
        """The same rules as the exports (:func:`column_ticks`): every label while a cell is a text line
        wide, key labels rotated when the widest does not fit its cell, thinned only below a line."""
        line = self._metrics.height()
        title_width = max(size.width() - 2 * MARGIN, 1)
        rows, cols = self.values.shape if self.values.ndim == 2 else (0, 0)
        most = self.title_lines if rows and cols else MESSAGE_LINES  # (a figure with no cells is its message, whole)
        title_lines = wrapped_title(self._title_metrics, self.spec.title, title_width, most)
        title_height = len(title_lines) * self._title_metrics.height() + 4
        title = QtCore.QRectF(MARGIN, 2, title_width, title_height)
        title_text = "\n".join(title_lines)
        if not (rows and cols):
            return HeatmapLayout(title, title_text, QtCore.QRectF(), QtCore.QRectF(), [], [], 0.0)
        row_labels, col_labels = self._shown_labels
        top = title.bottom() + 2
        label_width = self._row_label_width()
        left = MARGIN + line + 4 + label_width + 4  # axis name, labels, gap
        right = size.width() - MARGIN - self._bar_room()
        grid_width = max(right - left, 1.0)
        col_ticks: list[tuple[float, str]]
        if self.spec.col_values is not None:  # round values of the numbers the columns stand for
            room = numeric_label_width(self.spec.col_values, self._width) + LABEL_GAP
            col_ticks, rotated = numeric_ticks(self.spec.col_values, grid_width, room), False
        else:
            token_ticks, rotated = column_ticks(col_labels, grid_width / cols, line, self._width)
            col_ticks = list(token_ticks)
            if len(col_ticks) < cols and (words := word_ticks(col_labels, grid_width / cols, line)):
                col_ticks, rotated = words, True  # (subword pieces: whole words, not every n-th piece)
        below = size.height() - MARGIN - line - top  # the cells and their key labels (the axis name under)
        label_height = line
        if rotated:
            widest = max((self._width(t) for _, t in col_ticks), default=0.0)
            # a share of the height, or all the rows leave at a line each (one row of coverage: nearly all);
            # longer tokens are cut with "…"
            label_height = min(widest, max(2 * line, ROTATED_SHARE * below, below - 4 - rows * line))
            if label_height < widest:
                elide = QtCore.Qt.TextElideMode.ElideRight
                col_ticks = [(i, self._metrics.elidedText(t, elide, label_height)) for i, t in col_ticks]
        grid_height = max(below - label_height - 4, 1.0)
        row_ticks: list[tuple[float, str]] = list(thinned(row_labels, grid_height / rows, line))
        if len(row_ticks) < rows and (words := word_ticks(row_labels, grid_height / rows, line)):
            elide = QtCore.Qt.TextElideMode.ElideRight  # (a word is wider than its pieces: cut to their room)
            row_ticks = [(i, self._metrics.elidedText(text, elide, label_width)) for i, text in words]
        if self.spec.row_values is not None:
            row_ticks = numeric_ticks(self.spec.row_values, grid_height, NUMERIC_SPACING * line)
        grid = QtCore.QRectF(left, top, grid_width, grid_height)
        bar = QtCore.QRectF()
        if self._shows_colour_bar():
            bar = QtCore.QRectF(grid.right() + BAR_GAP, top, BAR_WIDTH, grid_height)
        return HeatmapLayout(title, title_text, grid, bar, row_ticks, col_ticks, label_width, rotated,
                             label_height)

    def _row_label_width(self) -> float:
        """The widest query label (of all of them: the cells' width must not depend on their height)."""
        if self.spec.row_values is not None:
            return numeric_label_width(self.spec.row_values, self._width)
        labels = self._shown_labels[0]
        words = [cut_label(text) for _, text in word_ticks(labels, math.inf, 0.0)]  # (pieces: the words they make)
        return max((self._width(t) for t in (*labels, *words)), default=0.0)

    def _shows_colour_bar(self) -> bool:
        return self.has_colour_bar and self.spec.colour_bar and self.values.size > 0

    def _bar_room(self) -> float:
        """Width right of the cells: gap, bar, tick marks and the widest tick value."""
        if not self._shows_colour_bar():
            return 0.0
        if self._bar_width is None:
            self._bar_width = max(self._width(tick_text(v)) for v in bar_ticks(self.spec.levels))
        return BAR_GAP + BAR_WIDTH + 5 + self._bar_width + BAR_TEXT_SLACK

    def minimumSizeHint(self) -> QtCore.QSize:
        """The smallest size that shows the whole figure: labels, a MIN_GRID cell area and the colour bar
        (the title elides). Worked out once per figure: layouts ask for it often."""
        return self._least

    def _minimum_size(self) -> QtCore.QSize:
        line = self._metrics.height()
        title = self._title_metrics.height() + 6
        if not self.values.size:
            return QtCore.QSize(80, math.ceil(title + MARGIN))
        label_width = self._row_label_width()
        width = MARGIN + line + 4 + label_width + 4 + MIN_GRID + self._bar_room() + MARGIN
        height = title + MIN_GRID + 2 * line + 2 + MARGIN
        return QtCore.QSize(math.ceil(width), math.ceil(height))

    def sizeHint(self) -> QtCore.QSize:
        return self.minimumSizeHint().expandedTo(QtCore.QSize(320, 260))

    def _ask_for_room(self) -> None:
        least = self._minimum_size()
        if least != self._least:  # the layout is only asked again when the labels need other room
            self._least = least
            self.updateGeometry()

    def changeEvent(self, event: QtCore.QEvent) -> None:
        if event.type() == QtCore.QEvent.Type.FontChange:
            self._fonts(self._label_pixels)
            self._layout = None
            self._bar_width = None
            self._ask_for_room()
        super().changeEvent(event)

    # -- cells ----------------------------------------------------------------------------
    def cell_rect(self, row: int, col: int) -> QtCore.QRectF:
        """Cell (row, col) in widget pixels (zoomed: where it lies, maybe outside the cells on show)."""
        grid = self._matrix_rect()
        rows, cols = self.values.shape
        width, height = grid.width() / cols, grid.height() / rows
        return QtCore.QRectF(grid.left() + col * width, grid.top() + row * height, width, height)

    def cell_at(self, pos: QtCore.QPointF) -> tuple[int, int]:
        """The (row, col) under widget position ``pos``, or (-1, -1)."""
        grid = self.figure_layout().grid
        if self.values.ndim != 2 or not self.values.size or not grid.contains(pos):
            return (-1, -1)
        rows, cols = self.values.shape
        if self._view is None:
            row = min(int((pos.y() - grid.top()) / grid.height() * rows), rows - 1)
            col = min(int((pos.x() - grid.left()) / grid.width() * cols), cols - 1)
            return (row, col)
        x, y, width, height = self._view
        row = min(max(int(y + (pos.y() - grid.top()) / grid.height() * height), 0), rows - 1)
        col = min(max(int(x + (pos.x() - grid.left()) / grid.width() * width), 0), cols - 1)
        return (row, col)

    def _matrix_rect(self) -> QtCore.QRectF:
        """The whole matrix in widget pixels: the cell grid, or zoomed, the larger rectangle it is a window on."""
        grid = self.figure_layout().grid
        if self._view is None:
            return grid
        rows, cols = self.values.shape
        x, y, width, height = self._view
        cell_width, cell_height = grid.width() / width, grid.height() / height
        return QtCore.QRectF(grid.left() - x * cell_width, grid.top() - y * cell_height, cols * cell_width,
                             rows * cell_height)
