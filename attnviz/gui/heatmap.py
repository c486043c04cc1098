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

The widget is assembled here from its parts by role, each a class the next builds on: the fonts, the layout and which
cell lies where (gui/heatmap_layout.py), the read-out of the cell under the pointer (gui/heatmap_readout.py), zoom and
the overview of long maps (gui/heatmap_zoom.py) and the painting, colour bar included (gui/heatmap_painting.py);
:class:`Heatmap` holds the state they share, takes a new figure and offers the export from its context menu.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.figures.spec import FigureSpec, empty_figure
from attnviz.gui.heatmap_layout import (  # noqa: F401  (the heatmap's names, where panels and tests have them)
    KEPT_SIZES,
    KEPT_TEXT_SIZES,
    MARGIN,
    HeatmapLayout,
    label_and_title_fonts,
)
from attnviz.gui.heatmap_painting import PaintedHeatmap
from attnviz.gui.heatmap_readout import position_text  # noqa: F401
from attnviz.gui.heatmap_zoom import all_pooled, max_pooled, shown_range, visible_ticks  # noqa: F401
from attnviz.i18n import tr
from attnviz.render.figure_painter import argb_pixels, cut_label, masked_runs, qimage_of

KEPT_LABELS = 2048  # labels kept per size (a 1,024-token sentence's, with room); one more: that size's are dropped


class Heatmap(PaintedHeatmap):
    """Shows one :class:`FigureSpec`. Emits ``hovered(row, col)`` when the pointer enters a cell, and
    again with the same cell when a new figure replaces the old under a still pointer (-1, -1 when it
    leaves or the cell is gone), and ``export_requested`` / ``copy_requested`` with the figure on show
    (from its context menu)."""

    export_requested = QtCore.Signal(object)  # FigureSpec
    copy_requested = QtCore.Signal(object)  # FigureSpec

    def __init__(self, parent: QtWidgets.QWidget | None = None, colour_bar: bool = True):
        super().__init__(parent)
        self.title_lines = 2  # a title wraps between its fields before anything is cut
        self.cells_are_positions = True  # the read-out names a cell's positions (False: a grid of heads)
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
        self._most_labels = KEPT_LABELS
        self._fonts()
        self._ask_for_room()

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
