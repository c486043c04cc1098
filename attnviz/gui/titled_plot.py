"""A pyqtgraph plot that never clips: its title elides to the widget's width (the full text is the
title's tooltip; "step N" is kept), category labels on the bottom axis follow the heatmaps' rule (level
when they fit, else rotated, every one while a bar is a text line wide, every 1st, 2nd, 5th … one only
below that), and the widget's minimum size is what shows the whole plot, so a narrow dock cannot cut off
the last column or the colour bar (pyqtgraph lays out at its minimum size and clips the overflow).
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.gui.text_size import graphics_font
from attnviz.i18n import tr
from attnviz.render.figure_painter import column_ticks, cut_label, thinned, wrapped_title

# Titles, legends, axis labels and ticks in near-black (pyqtgraph's default is light grey, 2.9:1 on white, too
# weak on a projector): 16.1:1 on the plots' white, past WCAG AA's 4.5:1.
PLOT_TEXT = (33, 33, 33)
pg.setConfigOption("foreground", PLOT_TEXT)
TITLE_LINES = 2  # a title wraps between its fields before anything is cut …
WRAP_HEIGHT = 200  # … in a plot at least this tall (px); a shorter one is cut to one line, "step N" kept
TITLE_MARGIN = 8  # px kept free on each side of an elided title
ROTATED_SHARE = 0.3  # rotated category labels take at most this share of the plot's height


def legend_below(plot: pg.PlotItem, columns: int = 2) -> pg.LegendItem:
    """A legend under ``plot``'s x axis, in the plot's own layout: it never covers data. Series added
    with a ``name`` join it; its text is the size of the plot's font."""
    font = plot.getAxis("bottom").font()
    size = font.pointSizeF() if font.pointSizeF() > 0 else QtGui.QFont().pointSizeF()
    legend = pg.LegendItem(colCount=columns, labelTextSize=f"{size:g}pt", frame=False)
    plot.layout.addItem(legend, 4, 1)
    plot.legend = legend
    return legend


MAX_TURNS = 4  # changes of the labels shown in a widget of one size before they stay (TitledPlot._turns)

class ValueAxis(pg.AxisItem):
    """A vertical value axis whose labelled ticks stay two text lines apart: pyqtgraph spaces ticks by the
    axis's length alone, so a short plot in large text had its labels on top of each other ("1.0 0.8 0.6")."""

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, float]]:
        font = self.style.get("tickFont") or QtWidgets.QApplication.font()
        room = 2 * QtGui.QFontMetricsF(font).height()  # a label and a line of space
        return spaced_ticks(minVal, maxVal, size, room)


def spaced_ticks(low: float, high: float, size: float, room: float) -> list[tuple[float, float]]:
    """pyqtgraph's tick spacing for an axis ``size`` px long over [low, high], with at most one labelled tick per
    ``room`` px (a round step: 1, 2 or 5 × 10^n); [] for an empty or infinite range."""
    span = abs(high - low)
    if span == 0 or not np.isfinite(span):
        return []
    fewest = max(1.0, min(size / room, 2.25 * np.sqrt(max(size, 1.0) / 300) + 2.25))  # (pyqtgraph's most)
    raw = span / fewest
    power = 10.0 ** np.floor(np.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw - 1e-12)
    return [(float(step), 0.0)]


class CategoryAxis(pg.AxisItem):
    """An axis whose category labels can read upwards (``set_rotated``), ending just under the axis line;
    otherwise pyqtgraph's own level labels."""

    def __init__(self, orientation: str):
        super().__init__(orientation)
        self.rotated: list[tuple[int, str]] = []  # (position, text) drawn rotated; empty: level labels

    def set_rotated(self, ticks: list[tuple[int, str]], height: float) -> None:
        """Draw ``ticks`` rotated in ``height`` px of text room (their tick marks stay where they were)."""
        self.rotated = ticks
        self.setTicks([[(i, "") for i, _ in ticks]])
        label = self.label.boundingRect().height() * 0.8 if self.label.isVisible() else 0.0
        self.setHeight(int(np.ceil(height + 6 + label)))

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, float]]:
        """A numeric axis (no categories): labelled ticks at least their widest label and two spaces apart (in a
        narrow plot pyqtgraph's ran together, "0.20.40.60.8")."""
        if self.orientation not in ("bottom", "top"):
            return super().tickSpacing(minVal, maxVal, size)
        metrics = QtGui.QFontMetricsF(self.style.get("tickFont") or QtWidgets.QApplication.font())
        widest = max(metrics.horizontalAdvance(f"{value:g}") for value in (minVal, maxVal, (minVal + maxVal) / 2,
                                                                            -abs(maxVal - minVal) / 7))
        return spaced_ticks(minVal, maxVal, size, widest + 2 * metrics.horizontalAdvance("0"))

    def set_level(self, ticks: list[tuple[int, str]]) -> None:
        self.rotated = []
        self.setTicks([ticks])
        self.setHeight(None)

    def drawPicture(self, p: QtGui.QPainter, axisSpec, tickSpecs, textSpecs) -> None:
        super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
        view = self.linkedView()
        if not self.rotated or view is None:
            return
        metrics = QtGui.QFontMetricsF(p.font())
        line = metrics.height()
        p.setPen(self.textPen())
        for position, text in self.rotated:
            x = self.mapFromScene(view.mapViewToScene(QtCore.QPointF(position, 0))).x()
            width = metrics.horizontalAdvance(text)
            p.save()
            p.translate(x, 3 + width)
            p.rotate(-90)
            p.drawText(QtCore.QRectF(0, -line / 2, width + 1, line),
                       QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter, text)
            p.restore()


class TitledPlot(pg.GraphicsLayoutWidget):
    """One :class:`pg.PlotItem` (``plot``) under an elided title (``set_title``)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None, title: str = ""):
        super().__init__(parent)
        self.setBackground("w")
        self.title = pg.LabelItem(" ")
        self.addItem(self.title, row=0, col=0)
        self.bottom_axis = CategoryAxis("bottom")
        # (enableMenu=False: pyqtgraph's menus are never shown, the window's PlotMenu is; not building them saves a
        # third of the plot's making)
        self.plot: pg.PlotItem = self.addPlot(row=1, col=0, axisItems={"bottom": self.bottom_axis,
                                                                        "left": ValueAxis("left")}, enableMenu=False)
        self.plot.hideButtons()
        self.wrap_height = WRAP_HEIGHT  # px: in a plot at least this tall the title wraps onto TITLE_LINES lines
        self._title_text = ""
        self._title_shown = ""
        self._least = QtCore.QSize()
        self._categories: dict[str, tuple[str, ...]] = {}
        self._ticks: dict[str, tuple[list[tuple[int, str]], bool, float]] = {}
        # Changes of the labels shown (level or rotated, all or every n-th) since the labels or the widget's
        # size last changed. Each changes the axis's height, which can change the other axis's width, hence
        # the cells' width, and change them back: after MAX_TURNS they stay (else the layout swings for ever).
        self._turns: dict[str, int] = {}
        self.plot.getViewBox().sigResized.connect(self._update_category_ticks)
        self.set_title(title)

    # -- title ------------------------------------------------------------------------------
    def set_title(self, text: str) -> None:
        if text == self._title_text:
            return
        self._title_text = text
        self.title.setToolTip(text)
        self._fit_title()

    def title_text(self) -> str:
        return self._title_text

    def _fit_title(self) -> None:
        """Show the title wrapped to the widget's width, cut only where its lines run out (only a changed text
        re-lays out the plot)."""
        metrics = QtGui.QFontMetricsF(self.title.item.font())
        room = max(self.viewport().width() - 2 * TITLE_MARGIN, 10)
        lines = TITLE_LINES if self.height() >= self.wrap_height else 1  # (a short plot keeps its height)
        text = "\n".join(wrapped_title(metrics, self._title_text, room, lines))
        if text != self._title_shown:
            self._title_shown = text
            self.title.setText("<br>".join(map(html.escape, text.split("\n"))) or " ")

    def shown_title(self) -> str:
        """The title as drawn: its lines joined by "\n"."""
        return self._title_shown

    def set_text_font(self, font: QtGui.QFont | None) -> None:
        """Title, axes and legend in ``font`` (the lecture view's larger text); None: the application's."""
        graphics_font(self, font if font is not None else QtWidgets.QApplication.font())

    def fonts_changed(self) -> None:
        """The application font changed (presentation mode): elide the title again in the new font."""
        self._title_shown = ""
        self._fit_title()

    # -- category axes ----------------------------------------------------------------------
    def set_categories(self, axis: str, labels: tuple[str, ...]) -> None:
        """Label positions 0, 1, 2 … of ``axis`` ("left" or "bottom") with ``labels``, thinned to fit and
        each cut to MAX_LABEL_CHARS (a 300-letter word would otherwise squeeze the matrix to nothing)."""
        labels = tuple(map(cut_label, labels))
        if self._categories.get(axis) == labels:
            return
        self._categories[axis] = labels
        self._turns[axis] = 0
        self._update_category_ticks()  # (a wider axis is noticed after the paint: see paintEvent)

    def _update_category_ticks(self, *_args) -> None:
        box = self.plot.getViewBox().sceneBoundingRect()
        for axis, labels in self._categories.items():
            item = self.plot.getAxis(axis)
            metrics = QtGui.QFontMetricsF(item.font())
            rotated = False
            if axis == "left":
                ticks = thinned(labels, box.height() / max(len(labels), 1), metrics.height())
            else:
                ticks, rotated = column_ticks(labels, box.width() / max(len(labels), 1), metrics.height(),
                                              metrics.horizontalAdvance)
            height = 0.0
            previous = self._ticks.get(axis)
            if previous is not None and (previous[1], len(previous[0])) != (rotated, len(ticks)):
                if self._turns.get(axis, 0) >= MAX_TURNS:
                    continue  # (swinging between two layouts in a widget of one size: keep what is drawn)
                self._turns[axis] = self._turns.get(axis, 0) + 1
            if rotated:  # long tokens cut with "…" to a share of the plot's height
                widest = max((metrics.horizontalAdvance(t) for _, t in ticks), default=0.0)
                height = min(widest, max(2 * metrics.height(), ROTATED_SHARE * self.viewport().height()))
                elide = QtCore.Qt.TextElideMode.ElideRight
                ticks = [(i, metrics.elidedText(t, elide, height)) for i, t in ticks]
            if (ticks, rotated, height) != self._ticks.get(axis):
                self._ticks[axis] = (ticks, rotated, height)
                if rotated and isinstance(item, CategoryAxis):
                    item.set_rotated(ticks, height)
                elif isinstance(item, CategoryAxis):
                    item.set_level(ticks)
                else:
                    item.setTicks([ticks])

    def category_ticks(self, axis: str) -> tuple[list[tuple[int, str]], bool]:
        """The labels shown on ``axis`` now and whether they read upwards."""
        ticks, rotated, _height = self._ticks.get(axis, ([], False, 0.0))
        return ticks, rotated

    # -- size -------------------------------------------------------------------------------
    def minimumSizeHint(self) -> QtCore.QSize:
        """The smallest size that shows the whole plot: axes, data area and colour bar (the title elides)."""
        least = self.plot.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize)
        title = self.title.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize).height()
        left, top, right, bottom = self.ci.layout.getContentsMargins()
        return QtCore.QSize(int(np.ceil(least.width() + left + right)) + 2,
                            int(np.ceil(least.height() + title + top + bottom)) + 2)

    def resizeEvent(self, event: QtGui.QResizeEvent | None) -> None:
        if hasattr(self, "title"):  # pyqtgraph resizes once inside its own __init__
            self._fit_title()
            self._turns = dict.fromkeys(self._turns, 0)  # a new size: the labels may change again
        super().resizeEvent(event)

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        super().paintEvent(event)
        # pyqtgraph widens an axis for its labels while painting: ask the layout for room when it does.
        least = self.minimumSizeHint()
        if least != self._least:
            self._least = least
            self.updateGeometry()


class PlotMenu(QtCore.QObject):
    """attnviz's own context menu for a pyqtgraph view, in the interface's language, in place of pyqtgraph's
    (English-only "View All", "Mouse Mode", "Export…", whose dialog writes files attnviz does not check):
    "Copy picture" and "Show all data" (the view's full range)."""

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        view = watched.parent() if isinstance(watched.parent(), pg.GraphicsView) else watched
        if event.type() == QtCore.QEvent.Type.ContextMenu and isinstance(view, pg.GraphicsView):
            menu = QtWidgets.QMenu(view)
            menu.setObjectName("attnviz_plot_menu")
            menu.addAction(tr("Copy picture"), lambda: QtWidgets.QApplication.clipboard().setPixmap(view.grab()))
            menu.addAction(tr("Show all data"), lambda: _show_all(view))
            menu.popup(event.globalPos())  # type: ignore[attr-defined]
            return True
        return False


def _show_all(view: pg.GraphicsView) -> None:
    for item in view.scene().items():
        if isinstance(item, pg.ViewBox):
            item.autoRange()


def own_plot_menus(root: QtWidgets.QWidget) -> None:
    """Every pyqtgraph view under ``root``: pyqtgraph's menus off, :class:`PlotMenu` on."""
    menus = root.findChild(PlotMenu) or PlotMenu(root)
    for view in root.findChildren(pg.GraphicsView):
        scene = view.scene()
        scene.contextMenu = []  # (the scene's own "Export…")
        for item in scene.items():
            if isinstance(item, pg.PlotItem | pg.ViewBox):
                item.setMenuEnabled(False)
        view.viewport().installEventFilter(menus)  # (a scroll area's context menu event reaches its viewport)
