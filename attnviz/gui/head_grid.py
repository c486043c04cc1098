"""All heads on screen: a layers × heads grid of small query × key heatmaps (a :class:`GridSpec`) with one
shared colour bar, the masked-cell overlay, token labels on the outer row and column, and a hover
read-out (layer, head, query, key, weight). Painted with QPainter like :mod:`attnviz.gui.heatmap`, by the
same rules (:func:`column_ticks`, :func:`thinned`), in the widget's own font.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.figures.spec import FigureSpec, GridSpec, bar_ticks, tick_text
from attnviz.gui.heatmap_layout import label_and_title_fonts
from attnviz.gui.text_size import scaled_font
from attnviz.i18n import N_, tr
from attnviz.render.figure_painter import (
    DIVIDER_PEN,
    MASK_FILL,
    MASK_HATCH,
    argb_pixels,
    column_ticks,
    cut_label,
    divider_lines,
    elided_title,
    masked_runs,
    paint_colour_bar,
    qimage_of,
    thinned,
)

MARGIN = 6  # px around the grid
GAP = 8  # px between two panels
BAR_WIDTH, BAR_GAP = 14, 10  # px: the shared colour bar and its distance from the panels
ROTATED_SHARE = 0.25  # rotated key labels take at most this share of the height under the title
NAME_COLOUR = QtGui.QColor(90, 90, 90)
FRAME_PEN = QtGui.QPen(QtGui.QColor(60, 60, 60), 0.8)
HOVER_PEN = QtGui.QPen(QtGui.QColor(255, 80, 40), 2)
CROSS_PEN = QtGui.QPen(QtGui.QColor(255, 255, 255, 170), 1, QtCore.Qt.PenStyle.DashLine)
# The read-out's value, by HeadGrid.value_name (an id: "weight" or "score"; shown through tr())
VALUE_TEXTS = {"weight": N_("weight {value:.4f}"), "score": N_("score {value:.4f}")}


@dataclass(frozen=True)
class GridLayout:
    """Where the grid's parts lie, in widget pixels: panels[layer][head] (each panel's cells)."""

    title: QtCore.QRectF
    title_text: str
    panels: list[list[QtCore.QRectF]]
    bar: QtCore.QRectF  # empty when there is nothing to colour
    row_ticks: list[tuple[int, str]]  # query labels left of the first column of panels
    col_ticks: list[tuple[int, str]]  # key labels under the last row of panels
    rotated: bool  # the key labels read upwards
    label_height: float  # px under the last row taken by the key labels
    name_height: float = 0.0  # px of a line of the layer and head names (a Chinese name's is taller than a line)


LABEL_SCALES = (1.0, 0.9, 0.8, 0.7)  # of the widget's font: the token labels shrink to this before any is thinned


class HeadGrid(QtWidgets.QWidget):
    """Shows a layers × heads :class:`GridSpec`. ``hovered(layer, head, row, col)`` when the pointer
    enters a cell (all -1 when it leaves the cells); ``picked(layer, head)`` when a panel is clicked;
    ``export_requested`` / ``copy_requested`` from its context menu."""

    hovered = QtCore.Signal(int, int, int, int)
    picked = QtCore.Signal(int, int)
    export_requested = QtCore.Signal()
    copy_requested = QtCore.Signal()
    toggle_requested = QtCore.Signal(int, int)  # (layer, head): switch that head off, or on again

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Expanding)
        self.spec: GridSpec | None = None
        self.shape = (0, 0)  # layers, heads
        self._images: list[tuple[np.ndarray, QtGui.QImage]] = []  # per panel: its pixels and an image over them
        self._runs: list[list[tuple[int, int, int]]] = []  # each panel's masked cells (a layer may have its own)
        self._divider = 0  # FigureSpec.divider of the panels: the prompt | answer line
        self._layout: GridLayout | None = None
        self._hover = (-1, -1, -1, -1)
        self.hint = ""  # shown in the middle while the matrices have no cells ("Press Step (F10) …")
        self.message = ""  # shown in the middle instead of a grid ("Computing all heads…")
        self.value_name = "weight"  # what the cells hold, for the read-out (a key of VALUE_TEXTS)
        # (layer, head) -> whether that head is off now (None: this model's heads cannot be switched off here)
        self.switchable: Callable[[int, int], bool | None] | None = None
        self._fonts()

    def _fonts(self) -> None:
        """Labels in the widget's font, the title in its bold: app-wide font scaling reaches the grid."""
        self.label_font, self.title_font, self._metrics, self._title_metrics = label_and_title_fonts(self)

    # -- content ----------------------------------------------------------------------------
    def show_grid(self, spec: GridSpec, coloured: tuple[np.ndarray, ...] | None = None) -> None:
        """Draw a layers × heads grid figure (its panels' values and masks, its shared colour range).
        coloured: each panel's pixels made on the worker (:func:`attnviz.gui.grid_pixels.grid_picture`),
        else they are made here."""
        self.spec, self.message = spec, ""
        self.shape = (len(spec.row_names), spec.columns)
        self._images = []
        for index, panel in enumerate(spec.panels):
            pixels = coloured[index] if coloured is not None else \
                argb_pixels(np.asarray(panel.values, np.float32), spec.levels, spec.colormap) \
                if panel.values.size else np.zeros((0, 0), np.uint32)
            self._images.append((pixels, qimage_of(pixels)))
        first = spec.panels[0] if spec.panels else None
        self._runs = [masked_runs(panel.masked) if panel.masked is not None and panel.values.size else []
                      for panel in spec.panels]
        self._divider = first.divider if first is not None else 0
        self._layout = None
        self._hover = (-1, -1, -1, -1)
        self.update()

    def show_message(self, message: str) -> None:
        """Show ``message`` instead of a grid (while the worker makes its colours)."""
        self.spec, self.shape, self._images, self._runs, self.message = None, (0, 0), [], [], message
        self._layout = None
        self._hover = (-1, -1, -1, -1)
        self.update()

    def _first(self) -> FigureSpec | None:
        return self.spec.panels[0] if self.spec is not None and self.spec.panels else None

    def _cells(self) -> tuple[int, int]:
        first = self._first()
        return first.values.shape if first is not None and first.values.ndim == 2 else (0, 0)

    # -- geometry ---------------------------------------------------------------------------
    def figure_layout(self) -> GridLayout:
        """The layout for the widget's current size (kept until the figure, the size or the font changes)."""
        if self._layout is None:
            size = QtCore.QSizeF(self.width(), self.height())
            rows, cols = self._cells()
            least = QtGui.QFontMetricsF(scaled_font(QtGui.QFont(self.font()), LABEL_SCALES[-1])).height()
            hopeless = rows * least > size.height() or cols * least > size.width()  # (thinned at any scale)
            layout = None
            for scale in (1.0,) if hopeless else LABEL_SCALES:  # as large as shows every label, down to the least
                self._scale_labels(scale)
                layout = self._compute_layout(size)
                first = self._first()
                labels = first.col_labels if first is not None else ()
                whole = not layout.rotated or all(text == cut_label(labels[int(i)]) for i, text in layout.col_ticks)
                if len(layout.row_ticks) >= rows and len(layout.col_ticks) >= cols and whole:
                    break
            else:
                if not hopeless:  # none shows them all: the widget's font, thinned, as a heatmap does
                    self._scale_labels(1.0)
                    layout = self._compute_layout(size)
            assert layout is not None
            self._layout = layout
        return self._layout

    def _scale_labels(self, scale: float) -> None:
        """Token labels (and the colour bar's) at ``scale`` × the widget's font; the title and names keep it."""
        font = scaled_font(QtGui.QFont(self.font()), scale)
        if font != self.label_font:
            self.label_font, self._metrics = font, QtGui.QFontMetricsF(font)

    def _compute_layout(self, size: QtCore.QSizeF) -> GridLayout:
        line = self._metrics.height()
        spec, first = self.spec, self._first()
        title_width = max(size.width() - 2 * MARGIN, 1)
        title_text = elided_title(self._title_metrics, spec.title, title_width) if spec is not None else ""
        title = QtCore.QRectF(MARGIN, 2, title_width, self._line_height(self._title_metrics, (title_text,)) + 4)
        layers, heads = self.shape
        rows, cols = self._cells()
        if spec is None or first is None or not (layers and heads and rows and cols):
            return GridLayout(title, title_text, [], QtCore.QRectF(), [], [], False, 0.0)
        row_labels, col_labels = tuple(map(cut_label, first.row_labels)), tuple(map(cut_label, first.col_labels))
        label_width = max((self._metrics.horizontalAdvance(t) for t in row_labels), default=0.0)
        name_height = self._line_height(self._metrics, (*spec.col_names, *spec.row_names))
        top = title.bottom() + 2 + name_height + 1  # the head names
        left = MARGIN + name_height + 4 + label_width + 4  # layer names, query labels
        bar_room = BAR_GAP + BAR_WIDTH + 5 + max(self._metrics.horizontalAdvance(tick_text(v))
                                                 for v in bar_ticks(spec.levels))
        panel_width = max((size.width() - MARGIN - bar_room - left - (heads - 1) * GAP) / heads, 1.0)
        col_ticks, rotated = column_ticks(col_labels, panel_width / cols, line, self._metrics.horizontalAdvance)
        below = size.height() - MARGIN - top
        label_height = line
        if rotated:
            widest = max((self._metrics.horizontalAdvance(t) for _, t in col_ticks), default=0.0)
            label_height = min(widest, max(2 * line, ROTATED_SHARE * below))
            elide = QtCore.Qt.TextElideMode.ElideRight
            col_ticks = [(i, self._metrics.elidedText(t, elide, label_height)) for i, t in col_ticks]
        panel_height = max((below - label_height - 2 - (layers - 1) * GAP) / layers, 1.0)
        row_ticks = thinned(row_labels, panel_height / rows, line)
        panels = [[QtCore.QRectF(left + h * (panel_width + GAP), top + layer * (panel_height + GAP), panel_width,
                                 panel_height) for h in range(heads)] for layer in range(layers)]
        grid_bottom = panels[-1][0].bottom()
        bar = QtCore.QRectF(panels[0][-1].right() + BAR_GAP, top, BAR_WIDTH, max(grid_bottom - top, 1.0))
        return GridLayout(title, title_text, panels, bar, row_ticks, col_ticks, rotated, label_height, name_height)

    @staticmethod
    def _line_height(metrics: QtGui.QFontMetricsF, texts: tuple[str, ...]) -> float:
        """The height in px of a line holding each of ``texts``: the font's, or taller where a text draws glyphs from
        another font (Chinese names from the carried CJK font: "第 1 个头" is 17 px high in a 14 px line; in a line's
        room it ran into the panels under it)."""
        return max([metrics.height(), *(metrics.boundingRect(text).height() for text in texts if text)])

    def cell_at(self, pos: QtCore.QPointF) -> tuple[int, int, int, int]:
        """(layer, head, query row, key column) under widget position ``pos``, or all -1."""
        rows, cols = self._cells()
        for layer, panels in enumerate(self.figure_layout().panels):
            for head, rect in enumerate(panels):
                if rect.contains(pos):
                    row = min(int((pos.y() - rect.top()) / rect.height() * rows), rows - 1)
                    col = min(int((pos.x() - rect.left()) / rect.width() * cols), cols - 1)
                    return (layer, head, row, col)
        return (-1, -1, -1, -1)

    def cell_rect(self, layer: int, head: int, row: int, col: int) -> QtCore.QRectF:
        """Cell (row, col) of panel (layer, head), in widget pixels."""
        rect = self.figure_layout().panels[layer][head]
        rows, cols = self._cells()
        width, height = rect.width() / cols, rect.height() / rows
        return QtCore.QRectF(rect.left() + col * width, rect.top() + row * height, width, height)

    def read_out(self, layer: int, head: int, row: int, col: int) -> str:
        """'layer 1 · head 2 · query je → key i: weight 0.8123' (or 'masked') for one cell, plain text."""
        spec, first = self.spec, self._first()
        if spec is None or first is None or not (0 <= layer < self.shape[0] and 0 <= head < self.shape[1]):
            return ""
        rows, cols = self._cells()
        if not (0 <= row < rows and 0 <= col < cols):
            return ""
        panel = spec.panels[layer * spec.columns + head]
        number = float(panel.values[row, col])
        # a masked cell, or a masked score that was never computed (NaN: the overlay may be off)
        masked = (panel.masked is not None and bool(panel.masked[row, col])) or np.isnan(number)
        if masked:
            value = tr("masked")
        elif self.value_name in VALUE_TEXTS:
            value = tr(VALUE_TEXTS[self.value_name]).format(value=number)
        else:
            value = f"{self.value_name} {number:.4f}"
        return tr("{layer} · {head} · query {query} → key {key}: {value}").format(
            layer=spec.row_names[layer], head=spec.col_names[head], query=first.row_labels[row],
            key=first.col_labels[col], value=value)

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(160, 120)

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(320, 260)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        self._layout = None
        super().resizeEvent(event)

    def changeEvent(self, event: QtCore.QEvent) -> None:
        if event.type() == QtCore.QEvent.Type.FontChange:
            self._fonts()
            self._layout = None
        super().changeEvent(event)

    # -- painting ---------------------------------------------------------------------------
    def paintEvent(self, _event: QtGui.QPaintEvent) -> None:
        layout = self.figure_layout()
        painter = QtGui.QPainter(self)
        painter.fillRect(self.rect(), QtGui.QColor("white"))
        painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing, True)
        painter.setPen(QtGui.QColor("black"))
        painter.setFont(self.title_font)
        painter.drawText(layout.title, QtCore.Qt.AlignmentFlag.AlignHCenter | QtCore.Qt.AlignmentFlag.AlignVCenter,
                         layout.title_text)
        spec = self.spec
        if spec is not None and layout.panels:
            painter.setFont(self.label_font)
            self._paint_panels(painter, layout)
            self._paint_names(painter, layout, spec)
            self._paint_labels(painter, layout)
            paint_colour_bar(painter, layout.bar, spec.levels, spec.colormap, self._metrics)
        elif self.hint or self.message:
            painter.setPen(NAME_COLOUR)
            painter.setFont(self.label_font)
            room = QtCore.QRectF(self.rect()).adjusted(MARGIN, layout.title.bottom(), -MARGIN, -MARGIN)
            painter.drawText(room, QtCore.Qt.AlignmentFlag.AlignCenter | QtCore.Qt.TextFlag.TextWordWrap,
                             self.message if spec is None and self.message else self.hint)
        painter.end()

    def _paint_panels(self, painter: QtGui.QPainter, layout: GridLayout) -> None:
        rows, cols = self._cells()
        for layer, panels in enumerate(layout.panels):
            for head, rect in enumerate(panels):
                painter.drawImage(rect, self._images[layer * self.shape[1] + head][1])
                runs = self._runs[layer * self.shape[1] + head] if self._runs else []
                if runs:
                    width, height = rect.width() / cols, rect.height() / rows
                    cells = [QtCore.QRectF(rect.left() + first * width, rect.top() + row * height, count * width,
                                           height) for row, first, count in runs]
                    painter.setPen(QtCore.Qt.PenStyle.NoPen)
                    for brush in (QtGui.QBrush(MASK_FILL), QtGui.QBrush(MASK_HATCH, QtCore.Qt.BrushStyle.BDiagPattern)):
                        painter.setBrush(brush)
                        painter.drawRects(cells)
                if self._divider:
                    painter.setPen(DIVIDER_PEN)
                    painter.drawLines(divider_lines(rect, rows, cols, self._divider))
                painter.setPen(FRAME_PEN)
                painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
                painter.drawRect(rect)
        layer, head, row, col = self._hover
        if layer >= 0:
            painter.setPen(HOVER_PEN)
            painter.drawRect(layout.panels[layer][head])
            centre = self.cell_rect(layer, head, row, col).center()
            rect = layout.panels[layer][head]
            painter.setPen(CROSS_PEN)
            painter.drawLine(QtCore.QPointF(rect.left(), centre.y()), QtCore.QPointF(rect.right(), centre.y()))
            painter.drawLine(QtCore.QPointF(centre.x(), rect.top()), QtCore.QPointF(centre.x(), rect.bottom()))

    def _paint_names(self, painter: QtGui.QPainter, layout: GridLayout, spec: GridSpec) -> None:
        """'head N' over each column of panels (cut with "…" to its panel and the gaps beside it), 'layer N'
        (reading upwards) left of each row, each in a line as tall as its glyphs need."""
        line = layout.name_height
        painter.setPen(NAME_COLOUR)
        elide = QtCore.Qt.TextElideMode.ElideRight
        for head, rect in enumerate(layout.panels[0]):
            room = QtCore.QRectF(rect.left() - GAP / 2, rect.top() - line - 1, rect.width() + GAP, line)
            painter.drawText(room, QtCore.Qt.AlignmentFlag.AlignHCenter | QtCore.Qt.AlignmentFlag.AlignBottom,
                             self._metrics.elidedText(spec.col_names[head], elide, room.width()))
        for layer, panels in enumerate(layout.panels):
            rect = panels[0]
            painter.save()
            painter.translate(MARGIN, rect.center().y())
            painter.rotate(-90)
            painter.drawText(QtCore.QRectF(-rect.height() / 2, 0, rect.height(), line),
                             QtCore.Qt.AlignmentFlag.AlignHCenter, spec.row_names[layer])
            painter.restore()

    def _paint_labels(self, painter: QtGui.QPainter, layout: GridLayout) -> None:
        """Query labels left of every panel of the first column, key labels under the last row."""
        rows, cols = self._cells()
        line = self._metrics.height()
        painter.setPen(QtGui.QColor("black"))
        right = QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter
        for panels in layout.panels:
            rect = panels[0]
            for i, text in layout.row_ticks:
                y = rect.top() + (i + 0.5) * rect.height() / rows
                painter.drawText(QtCore.QRectF(0, y - line / 2, rect.left() - 4, line), right, text)
        for rect in layout.panels[-1]:
            for i, text in layout.col_ticks:
                x = rect.left() + (i + 0.5) * rect.width() / cols
                width = self._metrics.horizontalAdvance(text)
                if layout.rotated:
                    painter.save()
                    painter.translate(x, rect.bottom() + 2 + width)
                    painter.rotate(-90)
                    painter.drawText(QtCore.QRectF(0, -line / 2, width + 1, line), right, text)
                    painter.restore()
                else:
                    painter.drawText(QtCore.QRectF(x - width / 2 - 1, rect.bottom() + 2, width + 2, line),
                                     QtCore.Qt.AlignmentFlag.AlignHCenter, text)

    # -- pointer ----------------------------------------------------------------------------
    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:
        cell = self.cell_at(event.position())
        if cell != self._hover:
            self._hover = cell
            self.update()
            self.hovered.emit(*cell)
        super().mouseMoveEvent(event)

    def leaveEvent(self, event: QtCore.QEvent) -> None:
        if self._hover != (-1, -1, -1, -1):
            self._hover = (-1, -1, -1, -1)
            self.update()
            self.hovered.emit(*self._hover)
        super().leaveEvent(event)

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        if event.button() == QtCore.Qt.MouseButton.LeftButton:
            layer, head, _row, _col = self.cell_at(event.position())
            if layer >= 0:
                self.picked.emit(layer, head)
        super().mousePressEvent(event)

    def event(self, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.ToolTip:  # the read-out at the pointer; the whole title
            assert isinstance(event, QtGui.QHelpEvent)
            at = QtCore.QPointF(event.pos())
            layout = self.figure_layout()
            text = self.read_out(*self.cell_at(at))
            full = self.spec.title if self.spec is not None else ""
            if not text and layout.title.contains(at) and layout.title_text != full:
                text = full
            if text:
                QtWidgets.QToolTip.showText(event.globalPos(), text, self)
            else:
                QtWidgets.QToolTip.hideText()
            return True
        return super().event(event)

    def contextMenuEvent(self, event: QtGui.QContextMenuEvent) -> None:
        menu = QtWidgets.QMenu(self)
        layer, head, _row, _col = self.cell_at(QtCore.QPointF(event.pos()))
        off = self.switchable(layer, head) if layer >= 0 and self.switchable is not None else None
        if off is not None:  # (a model whose heads can be switched off)
            text = tr("Switch head {layer}.{head} on again") if off else tr("Switch head {layer}.{head} off")
            toggle = menu.addAction(text.format(layer=layer + 1, head=head + 1))
            toggle.triggered.connect(lambda _checked=False: self.toggle_requested.emit(layer, head))
            menu.addSeparator()
        for text, signal in ((tr("Export all heads as one picture or table…"), self.export_requested),
                             (tr("Copy picture"), self.copy_requested)):
            action = menu.addAction(text)
            action.setEnabled(self.shape[0] * self.shape[1] > 0)
            action.triggered.connect(lambda _checked=False, s=signal: s.emit())
        menu.exec(event.globalPos())
