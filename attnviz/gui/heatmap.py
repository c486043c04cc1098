"""A query × key heatmap on screen: the figure description (:class:`FigureSpec`) painted with QPainter.

The same pieces as the exported picture (cell colours, masked-cell hatching, colour bar, thinned token
labels), laid out to fill the widget instead of at a fixed cell size; plus a hover read-out signal, a
crosshair, an outlined row range and a context menu. Painting one figure takes about a millisecond
(no scene graph, no per-step layout): a decoding step redraws only the heatmaps whose figure changed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.figures.spec import FigureSpec, bar_ticks, empty_figure, tick_text
from attnviz.i18n import tr
from attnviz.render.figure_painter import (
    DIVIDER_PEN,
    LABEL_GAP,
    MASK_FILL,
    MASK_HATCH,
    NUMERIC_SPACING,
    argb_pixels,
    column_ticks,
    cut_label,
    divider_lines,
    masked_runs,
    numeric_label_width,
    numeric_ticks,
    paint_colour_bar,
    qimage_of,
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
KEPT_LABELS = 2048  # labels kept per size (a 1,024-token sentence's, with room); one more: that size's are dropped
ROW_BOX_PEN = QtGui.QPen(QtGui.QColor(255, 80, 40), 2)
CROSS_PEN = QtGui.QPen(QtGui.QColor(255, 255, 255, 170), 1, QtCore.Qt.PenStyle.DashLine)
FRAME_PEN = QtGui.QPen(QtGui.QColor(60, 60, 60), 0.8)
AXIS_NAME_COLOUR = QtGui.QColor(90, 90, 90)


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


WHITE = QtGui.QColor("white")


def label_and_title_fonts(widget: QtWidgets.QWidget) -> tuple[QtGui.QFont, QtGui.QFont, QtGui.QFontMetricsF,
                                                               QtGui.QFontMetricsF]:
    """Labels in the widget's own font, the title in its bold, and their metrics: an app-wide font size
    (presentation mode) reaches what the widget paints."""
    label, title = QtGui.QFont(widget.font()), QtGui.QFont(widget.font())
    title.setBold(True)
    return label, title, QtGui.QFontMetricsF(label), QtGui.QFontMetricsF(title)


class Heatmap(QtWidgets.QWidget):
    """Shows one :class:`FigureSpec`. Emits ``hovered(row, col)`` when the pointer enters a cell, and
    again with the same cell when a new figure replaces the old under a still pointer (-1, -1 when it
    leaves or the cell is gone), and ``export_requested`` / ``copy_requested`` with the figure on show
    (from its context menu)."""

    hovered = QtCore.Signal(int, int)
    clicked = QtCore.Signal(int, int)  # a cell clicked with the left button: (row, column)
    export_requested = QtCore.Signal(object)  # FigureSpec
    copy_requested = QtCore.Signal(object)  # FigureSpec

    def __init__(self, parent: QtWidgets.QWidget | None = None, colour_bar: bool = True):
        super().__init__(parent)
        self.title_lines = 2  # a title wraps between its fields before anything is cut
        # (largest, smallest) label size in px: the largest that shows every label (the lecture view); None:
        # the widget's font
        self.label_pixels: tuple[int, int] | None = None
        self.setMouseTracking(True)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_OpaquePaintEvent)  # every pixel is painted
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Expanding)
        self.has_colour_bar = colour_bar
        self.spec: FigureSpec = empty_figure("")
        self.values = np.zeros((0, 0), dtype=np.float32)
        self.row_labels: tuple[str, ...] = ()
        self.col_labels: tuple[str, ...] = ()
        self.highlighted_rows: tuple[int, int] | None = None  # (first, count) outlined
        self.highlighted_column: int | None = None  # outlined (a key hovered in a linked view)
        self.linked_cell: tuple[int, int] | None = None  # a crosshair shown for a linked heatmap's pointer
        self._pixels = np.zeros((0, 0), np.uint32)
        self._image = qimage_of(self._pixels)
        self._runs: list[tuple[int, int, int]] = []  # masked cells: (row, first column, count)
        self._shown_labels: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
        self._layout: HeatmapLayout | None = None
        self._least = QtCore.QSize(0, 0)
        self._bar_width: float | None = None
        self._smoothed: tuple[tuple, QtGui.QImage] | None = None
        self._figure_count = 0  # figures shown so far: what the kept smoothed image belongs to
        self._hover = (-1, -1)
        self._pointer: QtCore.QPointF | None = None
        self.hint = ""  # shown in the middle while the figure has no cells ("Press Step (F10) …")
        self._kept_widths: dict[tuple, dict[str, float]] = {}  # per label size (font key): label -> width, px
        self._kept_texts: dict[tuple, dict[str, QtGui.QStaticText]] = {}  # per label size: label -> laid-out text
        self._fonts()
        self._ask_for_room()

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
            if len(self._widths) >= KEPT_LABELS:
                self._widths.clear()
            width = self._widths[text] = self._metrics.horizontalAdvance(text)
        return width

    def _static(self, text: str) -> QtGui.QStaticText:
        if self._texts is None:
            self._texts = _recent(self._kept_texts, self._font_key, KEPT_TEXT_SIZES)
        static = self._texts.get(text)
        if static is None:
            if len(self._texts) >= KEPT_LABELS:
                self._texts.clear()
            static = self._texts[text] = QtGui.QStaticText(text)
            static.setTextFormat(QtCore.Qt.TextFormat.PlainText)
            static.prepare(QtGui.QTransform(), self.label_font)
        return static

    def kept_labels(self) -> tuple[int, int]:
        """How many label widths and laid-out label texts the heatmap keeps, over all label sizes (bounded)."""
        return (sum(map(len, self._kept_widths.values())),
                sum(map(len, self._kept_texts.values())))

    # -- content ----------------------------------------------------------------------------
    def show_figure(self, spec: FigureSpec) -> None:
        """Show ``spec``; only a changed figure is repainted, and only a changed size of the labels
        asks the dock for a new layout."""
        if spec is self.spec:
            return
        values = np.asarray(spec.values, dtype=np.float32)
        self.spec, self.values = spec, values
        self.row_labels, self.col_labels = spec.row_labels, spec.col_labels
        if values.ndim == 2 and values.size:
            # Coloured here with a 256-entry table into words Qt draws without converting.
            self._pixels = argb_pixels(values, spec.levels, spec.colormap)
        else:
            self._pixels = np.zeros((0, 0), np.uint32)
        self._image = qimage_of(self._pixels)
        self._figure_count += 1
        self._runs = masked_runs(spec.masked) if spec.masked is not None and values.size else []
        labels = (tuple(map(cut_label, spec.row_labels)), tuple(map(cut_label, spec.col_labels)))
        self._shown_labels = labels
        if self.highlighted_rows is not None and sum(self.highlighted_rows) > self._pixels.shape[0]:
            self.highlighted_rows = None
        self._layout = None
        self._bar_width = None
        self._ask_for_room()
        self._refresh_hover()
        self.update()

    def title_text(self) -> str:
        return self.spec.title

    def set_label_pixels(self, pixels: tuple[int, int] | None) -> None:
        """Labels at the largest size in (largest, smallest) px that shows them all (None: the widget's font)."""
        if pixels == self.label_pixels:
            return
        self.label_pixels = pixels
        self._fonts(None if pixels is None else pixels[0])
        self._layout = None
        self._bar_width = None
        self._ask_for_room()
        self.update()

    def set_hint(self, text: str) -> None:
        """The line shown in the middle while the figure has no cells ("" for none)."""
        if text != self.hint:
            self.hint = text
            self.update()

    def cell_text(self, row: int, col: int) -> str:
        """The hover read-out of cell (row, col): its query and key (whole, never cut) and its value."""
        rows, cols = self.values.shape if self.values.ndim == 2 else (0, 0)
        if not (0 <= row < rows and 0 <= col < cols):
            return ""
        query = self.row_labels[row] if row < len(self.row_labels) else str(row)
        key = self.col_labels[col] if col < len(self.col_labels) else str(col)
        masked = self.spec.masked is not None and bool(self.spec.masked[row, col])
        value = tr("masked") if masked else f"{float(self.values[row, col]):.4g}"
        return tr("{row_axis} {query} → {col_axis} {key}: {value}").format(
            row_axis=self.spec.row_axis, query=query, col_axis=self.spec.col_axis, key=key, value=value)

    def highlight_row(self, row: int | None) -> None:
        """Outline query row ``row`` (None hides the outline)."""
        self.highlight_rows(row, 1)

    def highlight_rows(self, first: int | None, count: int) -> None:
        """Outline ``count`` rows from ``first`` (None or rows outside the matrix: no outline)."""
        rows = self.values.shape[0] if self.values.ndim == 2 else 0
        wanted = (first, count) if first is not None and count > 0 and first >= 0 and first + count <= rows \
            else None
        if wanted != self.highlighted_rows:
            self.highlighted_rows = wanted
            self.update()

    # -- geometry ---------------------------------------------------------------------------
    def highlight_column(self, column: int | None) -> None:
        """Outline column ``column`` (None, or a column outside the matrix: no outline)."""
        columns = self.values.shape[1] if self.values.ndim == 2 else 0
        wanted = column if column is not None and 0 <= column < columns else None
        if wanted != self.highlighted_column:
            self.highlighted_column = wanted
            self.update()

    def show_linked_cell(self, row: int, col: int) -> None:
        """Draw the crosshair at (row, col) for a pointer over a linked heatmap ((-1, -1): none)."""
        rows, cols = self.values.shape if self.values.ndim == 2 else (0, 0)
        wanted = (row, col) if 0 <= row < rows and 0 <= col < cols else None
        if wanted != self.linked_cell:
            self.linked_cell = wanted
            self.update()

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
        title_lines = wrapped_title(self._title_metrics, self.spec.title, title_width, self.title_lines)
        title_height = len(title_lines) * self._title_metrics.height() + 4
        title = QtCore.QRectF(MARGIN, 2, title_width, title_height)
        title_text = "\n".join(title_lines)
        rows, cols = self.values.shape if self.values.ndim == 2 else (0, 0)
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

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        self._layout = None
        super().resizeEvent(event)

    def changeEvent(self, event: QtCore.QEvent) -> None:
        if event.type() == QtCore.QEvent.Type.FontChange:
            self._fonts(self._label_pixels)
            self._layout = None
            self._bar_width = None
            self._ask_for_room()
        super().changeEvent(event)

    def cell_rect(self, row: int, col: int) -> QtCore.QRectF:
        """Cell (row, col) in widget pixels."""
        grid = self.figure_layout().grid
        rows, cols = self.values.shape
        width, height = grid.width() / cols, grid.height() / rows
        return QtCore.QRectF(grid.left() + col * width, grid.top() + row * height, width, height)

    def cell_at(self, pos: QtCore.QPointF) -> tuple[int, int]:
        """The (row, col) under widget position ``pos``, or (-1, -1)."""
        grid = self.figure_layout().grid
        if self.values.ndim != 2 or not self.values.size or not grid.contains(pos):
            return (-1, -1)
        rows, cols = self.values.shape
        row = min(int((pos.y() - grid.top()) / grid.height() * rows), rows - 1)
        col = min(int((pos.x() - grid.left()) / grid.width() * cols), cols - 1)
        return (row, col)

    # -- painting ---------------------------------------------------------------------------
    def paintEvent(self, _event: QtGui.QPaintEvent) -> None:
        layout = self.figure_layout()
        painter = QtGui.QPainter(self)
        self._fill_around(painter, layout.grid)
        painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing, True)
        painter.setPen(QtGui.QColor("black"))
        painter.setFont(self.title_font)
        painter.drawText(layout.title, QtCore.Qt.AlignmentFlag.AlignHCenter | QtCore.Qt.AlignmentFlag.AlignVCenter,
                         layout.title_text)
        if layout.grid.isEmpty():
            if self.hint:  # what to do to fill the empty figure, in the middle of the widget
                painter.setPen(AXIS_NAME_COLOUR)
                painter.setFont(self.label_font)
                room = QtCore.QRectF(self.rect()).adjusted(MARGIN, layout.title.bottom(), -MARGIN, -MARGIN)
                painter.drawText(room, QtCore.Qt.AlignmentFlag.AlignCenter | QtCore.Qt.TextFlag.TextWordWrap, self.hint)
            painter.end()
            return
        grid = layout.grid
        painter.drawImage(grid, self._shown_image(grid))
        self._paint_masked(painter, grid)
        if self.spec.divider:
            painter.setPen(DIVIDER_PEN)
            painter.drawLines(divider_lines(grid, *self.values.shape, self.spec.divider))
        painter.setPen(FRAME_PEN)
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        painter.drawRect(grid)
        if self.highlighted_rows is not None:
            first, count = self.highlighted_rows
            box = self.cell_rect(first, 0).united(self.cell_rect(first + count - 1, self.values.shape[1] - 1))
            painter.setPen(ROW_BOX_PEN)
            painter.drawRect(box)
        column = self.highlighted_column
        if column is not None and column < self.values.shape[1]:
            painter.setPen(ROW_BOX_PEN)
            painter.drawRect(self.cell_rect(0, column).united(self.cell_rect(self.values.shape[0] - 1, column)))
        cross = self._hover if self._hover != (-1, -1) else self.linked_cell
        if cross is not None and cross[0] < self.values.shape[0] and cross[1] < self.values.shape[1]:
            centre = self.cell_rect(*cross).center()
            painter.setPen(CROSS_PEN)
            painter.drawLine(QtCore.QPointF(grid.left(), centre.y()), QtCore.QPointF(grid.right(), centre.y()))
            painter.drawLine(QtCore.QPointF(centre.x(), grid.top()), QtCore.QPointF(centre.x(), grid.bottom()))
        painter.setFont(self.label_font)
        self._paint_labels(painter, layout)
        if not layout.bar.isEmpty():
            self._paint_bar(painter, layout.bar)
        painter.end()

    def _fill_around(self, painter: QtGui.QPainter, grid: QtCore.QRectF) -> None:
        """White everywhere but the cell grid, which the cells' image covers (filling it too costs a
        tenth of a millisecond per paint of a large heatmap)."""
        whole = self.rect()
        if grid.isEmpty():
            painter.fillRect(whole, WHITE)
            return
        cells = grid.toAlignedRect().adjusted(1, 1, -1, -1)  # (its edge pixels are filled, then framed)
        for band in (QtCore.QRect(whole.left(), whole.top(), whole.width(), cells.top() - whole.top()),
                     QtCore.QRect(whole.left(), cells.bottom() + 1, whole.width(), whole.bottom() - cells.bottom()),
                     QtCore.QRect(whole.left(), cells.top(), cells.left() - whole.left(), cells.height()),
                     QtCore.QRect(cells.right() + 1, cells.top(), whole.right() - cells.right(), cells.height())):
            if band.isValid():
                painter.fillRect(band, WHITE)

    def _shown_image(self, grid: QtCore.QRectF) -> QtGui.QImage:
        """The cells to draw into ``grid``: as they are (drawn nearest-neighbour, so every cell is a sharp
        block) unless there are more cells than pixels; then averaged down once per size, because
        sampling every n-th column would show stripes that are not in the data."""
        rows, cols = self._pixels.shape
        ratio = self.devicePixelRatioF()
        width, height = max(1, round(grid.width() * ratio)), max(1, round(grid.height() * ratio))
        if cols <= width and rows <= height:
            return self._image
        key = (self._figure_count, width, height)
        if self._smoothed is None or self._smoothed[0] != key:
            smooth = self._image.scaled(width, height, QtCore.Qt.AspectRatioMode.IgnoreAspectRatio,
                                        QtCore.Qt.TransformationMode.SmoothTransformation)
            self._smoothed = (key, smooth)
        return self._smoothed[1]

    def _paint_masked(self, painter: QtGui.QPainter, grid: QtCore.QRectF) -> None:
        if not self._runs:
            return
        rows, cols = self.values.shape
        width, height = grid.width() / cols, grid.height() / rows
        cells = [QtCore.QRectF(grid.left() + first * width, grid.top() + row * height, count * width, height)
                 for row, first, count in self._runs]
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        for brush in (QtGui.QBrush(MASK_FILL), QtGui.QBrush(MASK_HATCH, QtCore.Qt.BrushStyle.BDiagPattern)):
            painter.setBrush(brush)
            painter.drawRects(cells)

    def _paint_labels(self, painter: QtGui.QPainter, layout: HeatmapLayout) -> None:
        grid, line = layout.grid, self._metrics.height()
        rows, cols = self.values.shape
        painter.setPen(QtGui.QColor("black"))
        cell_height, cell_width = grid.height() / rows, grid.width() / cols
        for i, text in layout.row_ticks:  # right-aligned against the cells, centred on the row
            y = grid.top() + (i + 0.5) * cell_height - line / 2
            painter.drawStaticText(QtCore.QPointF(grid.left() - 4 - self._width(text), y), self._static(text))
        for i, text in layout.col_ticks:  # centred under the column; rotated: reading upwards to the cells
            x = grid.left() + (i + 0.5) * cell_width
            if layout.rotated:
                painter.save()
                painter.translate(x - line / 2, grid.bottom() + 2 + self._width(text))
                painter.rotate(-90)
                painter.drawStaticText(QtCore.QPointF(0, 0), self._static(text))
                painter.restore()
            else:
                painter.drawStaticText(QtCore.QPointF(x - self._width(text) / 2, grid.bottom() + 2), self._static(text))
        painter.setPen(AXIS_NAME_COLOUR)
        name_width = self._width(self.spec.col_axis) + 4  # centred under the cells, never cut by them
        name_top = grid.bottom() + 2 + max(layout.col_label_height, line)
        painter.drawText(QtCore.QRectF(grid.center().x() - name_width / 2, name_top, name_width, line),
                         QtCore.Qt.AlignmentFlag.AlignHCenter, self.spec.col_axis)
        painter.save()
        painter.translate(MARGIN, grid.center().y())
        painter.rotate(-90)
        painter.drawText(QtCore.QRectF(-grid.height() / 2, 0, grid.height(), line),
                         QtCore.Qt.AlignmentFlag.AlignHCenter, self.spec.row_axis)
        painter.restore()

    def _paint_bar(self, painter: QtGui.QPainter, bar: QtCore.QRectF) -> None:
        """The colour bar and its ticks, drawn once per range, colour map and height (a kept pixmap)."""
        ratio = self.devicePixelRatioF()
        key = (self.spec.levels, self.spec.colormap, bar.height(), ratio)
        if self._bar_picture is None or self._bar_picture[0] != key:
            room = self._bar_room() - BAR_GAP + 2
            height = bar.height() + 2 * self._metrics.height()  # a line above and below: the end ticks' text
            pixmap = QtGui.QPixmap(math.ceil(room * ratio), math.ceil(height * ratio))
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(QtCore.Qt.GlobalColor.transparent)  # it reaches into the title's row: see through
            bar_painter = QtGui.QPainter(pixmap)
            bar_painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing, True)
            bar_painter.setFont(self.label_font)
            paint_colour_bar(bar_painter, QtCore.QRectF(1, self._metrics.height(), BAR_WIDTH, bar.height()),
                             self.spec.levels, self.spec.colormap, self._metrics)
            bar_painter.end()
            self._bar_picture = (key, pixmap)
        painter.drawPixmap(QtCore.QPointF(bar.left() - 1, bar.top() - self._metrics.height()), self._bar_picture[1])

    # -- pointer ----------------------------------------------------------------------------
    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:
        self._pointer = event.position()
        cell = self.cell_at(self._pointer)
        if cell != self._hover:
            self._set_hover(cell)
        super().mouseMoveEvent(event)

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        if event.button() == QtCore.Qt.MouseButton.LeftButton:
            cell = self.cell_at(event.position())
            if cell != (-1, -1):
                self.clicked.emit(*cell)
        super().mousePressEvent(event)

    def leaveEvent(self, event: QtCore.QEvent) -> None:
        self._pointer = None
        if self._hover != (-1, -1):
            self._set_hover((-1, -1))
        super().leaveEvent(event)

    def _refresh_hover(self) -> None:
        """A new figure under a pointer that has not moved: report the cell again (its value changed)."""
        self._layout = None
        cell = self.cell_at(self._pointer) if self._pointer is not None else (-1, -1)
        if cell != (-1, -1) or self._hover != (-1, -1):
            self._set_hover(cell)

    def _set_hover(self, cell: tuple[int, int]) -> None:
        self._hover = cell
        self.update()
        self.hovered.emit(*cell)

    def event(self, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.ToolTip:  # the whole title, when it is shown cut
            layout = self.figure_layout()
            assert isinstance(event, QtGui.QHelpEvent)
            at = QtCore.QPointF(event.pos())
            cell = self.cell_at(at)
            if layout.title.contains(at) and layout.title_text != self.spec.title:
                QtWidgets.QToolTip.showText(event.globalPos(), self.spec.title, self)
            elif cell != (-1, -1):  # every cell reads out, its labels shown or thinned away
                note = f"\n{self.toolTip()}" if self.toolTip() else ""  # (the widget's own explanation under it)
                QtWidgets.QToolTip.showText(event.globalPos(), self.cell_text(*cell) + note, self)
            elif self.toolTip():
                QtWidgets.QToolTip.showText(event.globalPos(), self.toolTip(), self)
            else:
                QtWidgets.QToolTip.hideText()
            return True
        return super().event(event)

    def contextMenuEvent(self, event: QtGui.QContextMenuEvent) -> None:
        menu = QtWidgets.QMenu(self)
        has_data = self.spec.values.size > 0
        for text, signal in ((tr("Export picture or numbers…"), self.export_requested),
                             (tr("Copy picture"), self.copy_requested)):
            action = menu.addAction(text)
            action.setEnabled(has_data)
            action.triggered.connect(lambda _checked=False, s=signal: s.emit(self.spec))
        menu.exec(event.globalPos())
