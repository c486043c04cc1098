"""Presentation mode: every font of the app, larger or smaller together (View ▸ Larger text, Ctrl+=).

The scale multiplies the application font, so every widget that does not set a font of its own follows
it: labels, fields, tables, dock titles and tabs, menus, the on-screen heatmaps (they paint with their
widget's font). pyqtgraph's text items keep the font they were made with; :func:`refresh_graphics`
hands them the new one. Exported figures do not change: their painter sets its own pixel size.
"""

from __future__ import annotations

import math
import sys

from PySide6 import QtCore, QtGui, QtWidgets

TEXT_SCALES = (0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0)  # the steps of Larger / Smaller text
PRESENTATION_SCALE = 1.5  # View ▸ Presentation mode: readable from the back of a room on a projector
_base_font: QtGui.QFont | None = None  # the application font before any scaling (kept for the process)


def base_font() -> QtGui.QFont:
    """The application font as the platform set it, before any presentation scaling."""
    global _base_font
    if _base_font is None:
        _base_font = QtGui.QFont(QtWidgets.QApplication.font())
    return QtGui.QFont(_base_font)


def scaled_font(base: QtGui.QFont, scale: float) -> QtGui.QFont:
    """``base`` with its size multiplied by ``scale`` (point or pixel size, whichever it is given in)."""
    font = QtGui.QFont(base)
    if base.pointSizeF() > 0:
        font.setPointSizeF(base.pointSizeF() * scale)
    elif base.pixelSize() > 0:
        font.setPixelSize(max(1, round(base.pixelSize() * scale)))
    return font


def next_scale(scale: float, direction: int) -> float:
    """The step of :data:`TEXT_SCALES` after (direction 1) or before (-1) ``scale``, kept in range."""
    if direction > 0:
        return next((s for s in TEXT_SCALES if s > scale + 1e-6), TEXT_SCALES[-1])
    return next((s for s in reversed(TEXT_SCALES) if s < scale - 1e-6), TEXT_SCALES[0])


def valid_scale(scale: float) -> bool:
    return math.isfinite(scale) and TEXT_SCALES[0] - 1e-6 <= scale <= TEXT_SCALES[-1] + 1e-6


def apply_text_scale(scale: float, root: QtWidgets.QWidget | None = None) -> QtGui.QFont:
    """Make the application font the platform's times ``scale``; refresh the pyqtgraph text under ``root``."""
    font = scaled_font(base_font(), scale)
    if QtWidgets.QApplication.font() != font:
        QtWidgets.QApplication.setFont(font)
        # Qt tells the windows only while its event loop runs (not in a test, say): tell them here too
        # (a widget whose font is already the new one does nothing).
        for window in QtWidgets.QApplication.topLevelWidgets():
            QtWidgets.QApplication.sendEvent(window, QtCore.QEvent(QtCore.QEvent.Type.ApplicationFontChange))
    if root is not None:
        refresh_graphics(root)
    return font


def refresh_graphics(root: QtWidgets.QWidget, hidden_later: bool = False) -> None:
    """Give pyqtgraph's labels, legends and axes under ``root`` the application font (they keep the font
    they were made with); any other label given a size of its own keeps that size. No-op before pyqtgraph
    loads. hidden_later: the plots on screen now, those in hidden docks one per turn of the event loop after
    (each takes 5–10 ms: all of them at once kept the window from answering for a tenth of a second)."""
    if "pyqtgraph" not in sys.modules:
        return

    font = QtWidgets.QApplication.font()
    views = root.findChildren(QtWidgets.QGraphicsView)
    if isinstance(root, QtWidgets.QGraphicsView):
        views.append(root)
    later = []
    for view in views:
        if hidden_later and view.visibleRegion().isEmpty():
            later.append(view)
        else:
            graphics_font(view, font)
    if later:
        _refresh_one_by_one(later)


def _refresh_one_by_one(views: list[QtWidgets.QGraphicsView]) -> None:
    """The next of ``views`` that still exists in the application font of the moment, then the others, each in a
    turn of the event loop of its own."""
    import shiboken6

    def next_view() -> None:
        while views:
            view = views.pop(0)
            if shiboken6.isValid(view):
                graphics_font(view, QtWidgets.QApplication.font())
                break
        if views:
            QtCore.QTimer.singleShot(0, next_view)

    QtCore.QTimer.singleShot(0, next_view)


def graphics_font(view: QtWidgets.QGraphicsView, font: QtGui.QFont) -> None:
    """Give the pyqtgraph labels, legends and axes of ``view`` the font ``font`` (pyqtgraph must be loaded)."""
    import pyqtgraph as pg

    scene = view.scene()
    if scene is None:
        return
    items = scene.items()
    # pyqtgraph spaces ticks by the axis's length alone: larger text gets fewer ticks, so labels never overlap
    density = min(1.0, QtGui.QFontMetricsF(base_font()).height() / max(QtGui.QFontMetricsF(font).height(), 1.0))
    for item in items:
        if isinstance(item, pg.LegendItem):  # (its labels have a size of their own)
            size = f"{font.pointSizeF():g}pt" if font.pointSizeF() > 0 else f"{font.pixelSize()}px"
            item.setLabelTextSize(size)
    for item in items:
        if isinstance(item, pg.LabelItem):
            item.item.setFont(font)
            item.setText(item.text)  # measures the text again: the layout makes room for it
        elif isinstance(item, pg.AxisItem):
            item.label.setFont(font)
            item.setTickFont(font if font != QtWidgets.QApplication.font() else None)  # (None: follow the app)
            item.setTickDensity(density)
            item.setStyle()  # measures the ticks and the label again
    if hasattr(view, "fonts_changed"):
        view.fonts_changed()
