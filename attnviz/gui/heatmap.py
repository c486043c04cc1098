"""A query × key heatmap on screen: the figure description (:class:`FigureSpec`) painted with QPainter.

The same pieces as the exported picture (cell colours, masked-cell hatching, colour bar, thinned token
labels), laid out to fill the widget instead of at a fixed cell size; plus a hover read-out signal, a
crosshair, an outlined row range and a context menu. Painting one figure takes about a millisecond
(no scene graph, no per-step layout): a decoding step redraws only the heatmaps whose figure changed.

Zoom (issue 49): where the token labels are thinned, the mouse wheel zooms around the pointer, a drag pans, a
double-click, Esc or the context menu go back to the whole map. A large map (over LARGE_CELLS cells: a 4,096-token
prompt's is 16.8 M) is never coloured whole: what is on show is max-pooled down to the widget's pixels (max, not
mean: a lone strong weight among thousands of near-zero ones stays visible) and coloured, and the visible region is
drawn at full resolution, every cell a sharp block, once its cells are larger than a pixel; the masked cells'
hatching is worked out for what is drawn (a pooled block is hatched when all its cells are masked).
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
LARGE_CELLS = 1 << 20  # a map with more cells is coloured only as seen (pooled to the widget's pixels)
MIN_VIEW_CELLS = 4  # zoomed in as far as this many cells across
ZOOM_STEP = 1.25  # the view shrinks by this per wheel notch
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
MESSAGE_LINES = 8  # lines a figure without cells may take for its message ("Not at this length: …")


def max_pooled(values: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """values (Q, K) reduced to the max over blocks of ``rows`` × ``cols`` cells (the last ones cut short), as float32
    (ceil(Q / rows), ceil(K / cols)). NaN cells (masked scores) are left out of a block's max; a block of only NaN stays
    NaN. Max rather than mean: one strong weight among near-zero ones keeps its colour in the overview.

    Made with one whole-array ``fmax`` per cell of a block's side (``values[:, k::cols]``), never a padded copy nor a
    reduction over a short inner axis: the overview of a 2,720-token prompt's map is painted on the GUI thread, and
    those took it most of a second."""
    values = np.asarray(values, np.float32)
    if rows == 1 and cols == 1:
        return values
    return _block_reduce(_block_reduce(values, cols, 1, np.fmax), rows, 0, np.fmax)


def _block_reduce(values: np.ndarray, size: int, axis: int, combine: np.ufunc) -> np.ndarray:
    """``values`` reduced by ``combine`` (fmax, logical_and …) over blocks of ``size`` along ``axis`` (the last block
    cut short): ceil(n / size) along that axis."""
    if size == 1:
        return values
    every = [slice(None)] * values.ndim
    every[axis] = slice(0, None, size)
    reduced = values[tuple(every)].copy()
    for offset in range(1, min(size, values.shape[axis])):
        every[axis] = slice(offset, None, size)
        part = values[tuple(every)]  # (one block fewer where the last block is cut short before ``offset``)
        head = [slice(None)] * values.ndim
        head[axis] = slice(0, part.shape[axis])
        target = reduced[tuple(head)]
        combine(target, part, out=target)
    return reduced


def all_pooled(masked: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """masked (Q, K) bool reduced to blocks of ``rows`` × ``cols`` cells: True where every cell of the block is."""
    masked = np.asarray(masked, bool)
    if rows == 1 and cols == 1:
        return masked
    return _block_reduce(_block_reduce(masked, cols, 1, np.logical_and), rows, 0, np.logical_and)


def visible_ticks(labels: Sequence[str], first: int, last: int, cell: float, room: float) -> list[tuple[int, str]]:
    """The labels of cells ``first`` .. ``last`` - 1 that fit ``cell`` px apart, each needing ``room`` px: every
    n-th one as :func:`thinned` picks them (n of 1, 2, 5, 10 …), at multiples of n so that panning keeps them put."""
    needed = max(1, math.ceil(room / max(cell, 1e-6)))
    every = next(m * 10 ** e for e in range(12) for m in (1, 2, 5) if m * 10 ** e >= needed)
    return [(i, labels[i]) for i in range(-(-first // every) * every, min(last, len(labels)), every)]


def position_text(row: int, col: int) -> str:
    """Cell (row, col) as the positions a reader counts, from 1: "position 1,501 → 701"."""
    return tr("position {row:,} → {col:,}").format(row=row + 1, col=col + 1)


def shown_range(axis: str, first: float, count: float, total: int) -> str:
    """An axis name with the positions of the cells on show, counted from 1: "keys 1,201–1,260 of 4,096" (a cell
    counts once at least half of it is on show)."""
    low = min(max(math.floor(first + 0.5), 0), total - 1)
    high = min(max(math.ceil(first + count - 0.5), low + 1), total)
    return tr("{axis} {first:,}–{last:,} of {count:,}").format(axis=axis, first=low + 1, last=high, count=total)


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
        # Zoom: the cells on show, (first column, first row, columns, rows) in cells, fractional; None: the whole map
        self._view: tuple[float, float, float, float] | None = None
        self._view_shape: tuple[int, ...] = (0, 0)  # of the last map with cells: what the view is a region of
        self._region: tuple[tuple, np.ndarray, QtGui.QImage, QtCore.QRectF, list[tuple[int, int, int]]] | None = None
        self._pooled_mask: tuple[np.ndarray, tuple[int, int], np.ndarray] | None = None  # (mask, block, pooled)
        self._press: tuple[QtCore.QPointF, tuple[float, float, float, float]] | None = None  # a drag's start
        self._dragged = False
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
        if values.size and values.shape != self._view_shape:
            self._set_view(None)  # (the same shape: another layer or head of the same text keeps the region on show,
            # also past the empty "computing…" figure shown while a long prompt's map is computed)
        if values.size:
            self._view_shape = values.shape
        self.spec, self.values = spec, values
        self.row_labels, self.col_labels = spec.row_labels, spec.col_labels
        self._region = None
        if values.ndim == 2 and values.size and not self.is_large():
            # Coloured here with a 256-entry table into words Qt draws without converting.
            self._pixels = argb_pixels(values, spec.levels, spec.colormap)
        else:  # (a large map: only what is on show is coloured, when painted)
            self._pixels = np.zeros((0, 0), np.uint32)
        self._image = qimage_of(self._pixels)
        self._figure_count += 1
        self._runs = masked_runs(spec.masked) if spec.masked is not None and self._pixels.size else []
        labels = (tuple(map(cut_label, spec.row_labels)), tuple(map(cut_label, spec.col_labels)))
        self._shown_labels = labels
        if self.highlighted_rows is not None and sum(self.highlighted_rows) > (len(values) if values.ndim == 2 else 0):
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
        cell = tr("{row_axis} {query} → {col_axis} {key}: {value}").format(
            row_axis=self.spec.row_axis, query=query, col_axis=self.spec.col_axis, key=key, value=value)
        return f"{cell} · {position_text(row, col)}"  # (where it is: in a long map the tokens repeat)

    def axis_names(self) -> tuple[str, str]:
        """The row and column axis names as drawn: zoomed in, each says which positions are on show ("keys 1,201–
        1,260 of 4,096"), so a zoomed long map tells where it is."""
        if self._view is None or self.values.ndim != 2:
            return self.spec.row_axis, self.spec.col_axis
        x, y, width, height = self._view
        rows, cols = self.values.shape
        return (shown_range(self.spec.row_axis, y, height, rows), shown_range(self.spec.col_axis, x, width, cols))

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

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        self._layout = None
        super().resizeEvent(event)
        if self._pointer is not None:  # (the dock laid out again under a still pointer: the read-out names the cell
            cell = self.cell_at(self._pointer)  # now under it, as the tooltip does)
            if cell != self._hover:
                self._set_hover(cell)

    def changeEvent(self, event: QtCore.QEvent) -> None:
        if event.type() == QtCore.QEvent.Type.FontChange:
            self._fonts(self._label_pixels)
            self._layout = None
            self._bar_width = None
            self._ask_for_room()
        super().changeEvent(event)

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

    # -- zoom -------------------------------------------------------------------------------
    def is_large(self) -> bool:
        """More cells than are coloured whole: only what is on show is (pooled to the widget's pixels)."""
        return self.values.ndim == 2 and self.values.size > LARGE_CELLS

    def view_region(self) -> tuple[float, float, float, float]:
        """The cells on show: (first column, first row, columns, rows), fractional (the whole map unless zoomed)."""
        rows, cols = self.values.shape if self.values.ndim == 2 else (0, 0)
        return self._view if self._view is not None else (0.0, 0.0, float(cols), float(rows))

    def is_zoomed(self) -> bool:
        return self._view is not None

    def zoomable(self) -> bool:
        """Zoom is offered where there is more to see: the token labels thinned (or a large map), or zoomed already."""
        if self.values.ndim != 2 or max(self.values.shape, default=0) <= MIN_VIEW_CELLS:
            return False
        return self._view is not None or self.is_large() or not self._whole(self.figure_layout())

    def zoom_at(self, pos: QtCore.QPointF, factor: float) -> None:
        """Zoom by ``factor`` (> 1: in) keeping the point of the map under widget position ``pos`` where it is."""
        grid = self.figure_layout().grid
        if grid.isEmpty() or self.values.ndim != 2 or not self.values.size:
            return
        rows, cols = self.values.shape
        x, y, width, height = self.view_region()
        across = (pos.x() - grid.left()) / grid.width()
        down = (pos.y() - grid.top()) / grid.height()
        new_width = min(max(width / factor, min(cols, MIN_VIEW_CELLS)), cols)
        new_height = min(max(height / factor, min(rows, MIN_VIEW_CELLS)), rows)
        new_x = min(max(x + across * width - across * new_width, 0.0), cols - new_width)
        new_y = min(max(y + down * height - down * new_height, 0.0), rows - new_height)
        self._set_view((new_x, new_y, new_width, new_height))

    def pan_by(self, dx: float, dy: float) -> None:
        """Move the region on show by (dx, dy) widget pixels (the map follows the pointer)."""
        grid = self.figure_layout().grid
        if self._view is None or grid.isEmpty():
            return
        rows, cols = self.values.shape
        x, y, width, height = self._view
        x = min(max(x - dx / grid.width() * width, 0.0), cols - width)
        y = min(max(y - dy / grid.height() * height, 0.0), rows - height)
        self._set_view((x, y, width, height))

    def reset_zoom(self) -> None:
        """Back to the whole map."""
        self._set_view(None)

    def _set_view(self, view: tuple[float, float, float, float] | None) -> None:
        if view is not None and self.values.ndim == 2 and view[2] >= self.values.shape[1] \
                and view[3] >= self.values.shape[0]:
            view = None  # (zoomed all the way out: the whole map, drawn as unzoomed)
        if view == self._view:
            return
        self._view = view
        # Focus only while zoomed (Esc goes back); unzoomed, the heatmap takes no focus, as before zoom was added
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus if view is None else QtCore.Qt.FocusPolicy.ClickFocus)
        self._region = None
        if self._pointer is not None:
            cell = self.cell_at(self._pointer)
            if cell != self._hover:
                self._set_hover(cell)
        self.update()

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
        matrix = self._matrix_rect()
        if self._view is None and not self.is_large():
            painter.drawImage(grid, self._shown_image(grid))
            self._paint_masked(painter, grid)
        else:
            self._paint_region(painter, grid)
        if self._view is not None:
            painter.setClipRect(grid.adjusted(-2, -2, 2, 2))  # (outlines and crosshair of cells on show only)
        if self.spec.divider:
            painter.setPen(DIVIDER_PEN)
            painter.drawLines(divider_lines(matrix, *self.values.shape, self.spec.divider))
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
        painter.setClipping(False)
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

    def _region_picture(self, grid: QtCore.QRectF) -> tuple[QtGui.QImage, QtCore.QRectF, list[tuple[int, int, int]]]:
        """The cells on show coloured for ``grid``: the image, the part of it to draw into the grid and its masked
        runs (image rows and columns). The cells of the region are coloured as they are once there are no more of
        them than pixels (each drawn as a sharp block), else max-pooled down to the pixels first; kept until the
        figure, the region or the size changes."""
        rows, cols = self.values.shape
        x, y, width, height = self.view_region()
        first_col, first_row = math.floor(x), math.floor(y)
        last_col, last_row = min(cols, math.ceil(x + width)), min(rows, math.ceil(y + height))
        ratio = self.devicePixelRatioF()
        pixels_across, pixels_down = max(1, round(grid.width() * ratio)), max(1, round(grid.height() * ratio))
        across = max(1, math.ceil(width / pixels_across))  # cells per pooled block (1: every cell as it is)
        down = max(1, math.ceil(height / pixels_down))
        key = (self._figure_count, first_col, first_row, last_col, last_row, across, down)
        if self._region is None or self._region[0] != key:
            values = self.values[first_row:last_row, first_col:last_col]
            colours = np.ascontiguousarray(argb_pixels(max_pooled(values, down, across), self.spec.levels,
                                                       self.spec.colormap))
            runs: list[tuple[int, int, int]] = []
            if self.spec.masked is not None:
                masked = np.asarray(self.spec.masked)
                whole = (first_row, first_col, last_row, last_col) == (0, 0, rows, cols)
                if whole and (across, down) != (1, 1):  # the overview's mask, kept while the next map has the same
                    kept = self._pooled_mask
                    if kept is None or kept[1] != (down, across) or not (
                            kept[0] is masked or np.array_equal(kept[0], masked)):
                        kept = self._pooled_mask = (masked, (down, across), all_pooled(masked, down, across))
                    pooled_mask = kept[2]
                else:
                    pooled_mask = all_pooled(masked[first_row:last_row, first_col:last_col], down, across)
                runs = masked_runs(pooled_mask)
            source = QtCore.QRectF((x - first_col) / across, (y - first_row) / down, width / across, height / down)
            self._region = (key, colours, qimage_of(colours), source, runs)
        return self._region[2], self._region[3], self._region[4]

    def _paint_region(self, painter: QtGui.QPainter, grid: QtCore.QRectF) -> None:
        """The cells on show (zoomed, or a large map's overview) and their masked cells' hatching."""
        image, source, runs = self._region_picture(grid)
        painter.drawImage(grid, image, source)  # (nearest neighbour: a cell larger than a pixel is a sharp block)
        if not runs:
            return
        width, height = grid.width() / source.width(), grid.height() / source.height()
        left, top = grid.left() - source.left() * width, grid.top() - source.top() * height
        cells = [QtCore.QRectF(left + first * width, top + row * height, count * width, height)
                 for row, first, count in runs]
        painter.save()
        painter.setClipRect(grid)
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        for brush in (QtGui.QBrush(MASK_FILL), QtGui.QBrush(MASK_HATCH, QtCore.Qt.BrushStyle.BDiagPattern)):
            painter.setBrush(brush)
            painter.drawRects(cells)
        painter.restore()

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
        matrix = self._matrix_rect()
        cell_height, cell_width = matrix.height() / rows, matrix.width() / cols
        row_ticks, col_ticks = self._ticks(layout)
        for i, text in row_ticks:  # right-aligned against the cells, centred on the row
            y = matrix.top() + (i + 0.5) * cell_height - line / 2
            painter.drawStaticText(QtCore.QPointF(grid.left() - 4 - self._width(text), y), self._static(text))
        for i, text in col_ticks:  # centred under the column; rotated: reading upwards to the cells
            x = matrix.left() + (i + 0.5) * cell_width
            if layout.rotated:
                painter.save()
                painter.translate(x - line / 2, grid.bottom() + 2 + self._width(text))
                painter.rotate(-90)
                painter.drawStaticText(QtCore.QPointF(0, 0), self._static(text))
                painter.restore()
            else:
                painter.drawStaticText(QtCore.QPointF(x - self._width(text) / 2, grid.bottom() + 2), self._static(text))
        painter.setPen(AXIS_NAME_COLOUR)
        row_name, col_name = self.axis_names()
        name_width = self._width(col_name) + 4  # centred under the cells, never cut by them
        name_top = grid.bottom() + 2 + max(layout.col_label_height, line)
        painter.drawText(QtCore.QRectF(grid.center().x() - name_width / 2, name_top, name_width, line),
                         QtCore.Qt.AlignmentFlag.AlignHCenter, col_name)
        painter.save()
        painter.translate(MARGIN, grid.center().y())
        painter.rotate(-90)
        painter.drawText(QtCore.QRectF(-grid.height() / 2, 0, grid.height(), line),
                         QtCore.Qt.AlignmentFlag.AlignHCenter, row_name)
        painter.restore()

    def _ticks(self, layout: HeatmapLayout) -> tuple[list[tuple[float, str]], list[tuple[float, str]]]:
        """The row and column labels to draw: the layout's for the whole map; zoomed, those of the rows and columns
        on show, thinned by the same rule for cells that size (so every label appears once a cell is a text line)."""
        if self._view is None:
            return layout.row_ticks, layout.col_ticks
        x, y, width, height = self._view
        grid, line = layout.grid, self._metrics.height()
        cell_width, cell_height = grid.width() / width, grid.height() / height

        def on_show(ticks: Sequence[tuple[float, str]], first: float, count: float) -> list[tuple[float, str]]:
            return [(i, text) for i, text in ticks if first <= i + 0.5 <= first + count]

        row_ticks: list[tuple[float, str]]
        if self.spec.row_values is not None:
            row_ticks = on_show(numeric_ticks(self.spec.row_values, cell_height * self.values.shape[0],
                                              NUMERIC_SPACING * line), y, height)
        else:
            row_ticks = on_show(visible_ticks(self._shown_labels[0], int(y), math.ceil(y + height), cell_height,
                                              line), y, height)
        col_ticks: list[tuple[float, str]]
        if self.spec.col_values is not None:
            room = numeric_label_width(self.spec.col_values, self._width) + LABEL_GAP
            col_ticks = on_show(numeric_ticks(self.spec.col_values, cell_width * self.values.shape[1], room), x, width)
        else:
            labels, first, last = self._shown_labels[1], int(x), math.ceil(x + width)
            room = line if layout.rotated else max((self._width(t) for t in labels[first:last]), default=0) + LABEL_GAP
            col_ticks = on_show(visible_ticks(labels, first, last, cell_width, room), x, width)
            if layout.rotated:  # (cut with "…" to the room under the cells, as the whole map's)
                elide = QtCore.Qt.TextElideMode.ElideRight
                col_ticks = [(i, t if self._width(t) <= layout.col_label_height else
                              self._metrics.elidedText(t, elide, layout.col_label_height)) for i, t in col_ticks]
        return row_ticks, col_ticks

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
        if self._press is not None and self._view is not None \
                and event.buttons() & QtCore.Qt.MouseButton.LeftButton:  # a drag pans the zoomed map
            start, view = self._press
            moved = self._pointer - start
            if self._dragged or moved.manhattanLength() >= QtWidgets.QApplication.startDragDistance():
                if not self._dragged:
                    self._dragged = True
                    self.setCursor(QtCore.Qt.CursorShape.ClosedHandCursor)
                self._view = view  # (panned from where the drag began)
                self.pan_by(moved.x(), moved.y())
        cell = self.cell_at(self._pointer)
        if cell != self._hover:
            self._set_hover(cell)
        super().mouseMoveEvent(event)

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        if event.button() == QtCore.Qt.MouseButton.LeftButton:
            cell = self.cell_at(event.position())
            if self._view is not None:  # zoomed: a click inspects on release, a drag pans
                self._press, self._dragged = (event.position(), self._view), False
            elif cell != (-1, -1):
                self.clicked.emit(*cell)
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:
        if event.button() == QtCore.Qt.MouseButton.LeftButton and self._press is not None:
            if not self._dragged:
                cell = self.cell_at(event.position())
                if cell != (-1, -1):
                    self.clicked.emit(*cell)
            else:
                self.unsetCursor()
            self._press, self._dragged = None, False
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QtGui.QMouseEvent) -> None:
        if self._view is not None and event.button() == QtCore.Qt.MouseButton.LeftButton:
            self.reset_zoom()
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:
        """Zoom around the pointer where the map is zoomable; elsewhere the wheel goes on (a scrolled dock scrolls)."""
        notches = event.angleDelta().y() / 120
        if not notches or not self.figure_layout().grid.contains(event.position()) or not self.zoomable():
            event.ignore()
            return
        self.zoom_at(event.position(), ZOOM_STEP ** notches)
        event.accept()

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:
        if event.key() == QtCore.Qt.Key.Key_Escape and self._view is not None:
            self.reset_zoom()
            event.accept()
            return
        super().keyPressEvent(event)

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
        if self._view is not None:
            menu.addAction(tr("Show the whole map")).triggered.connect(self.reset_zoom)
        menu.exec(event.globalPos())
