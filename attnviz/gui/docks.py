"""The docked panels, declared in one table (:data:`PANELS`) and fed the session's state.

A panel is any widget with ``show_state(old, new)`` (old None: draw everything). Adding one is a module
and a row here. Panels that do not apply to the loaded model are hidden, and come back for a model
they apply to; panels hidden behind another tab are not redrawn and catch up when they are raised.
Importing this module loads pyqtgraph, so the window builds the docks after its first paint.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.core.kinds import AttentionKind
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.panels.attention import AttentionPanel
from attnviz.gui.panels.batch import BatchPanel
from attnviz.gui.panels.beams import BeamsPanel
from attnviz.gui.panels.compare import ComparePanel
from attnviz.gui.panels.computation import ComputationPanel
from attnviz.gui.panels.kernel import KernelPanel
from attnviz.gui.panels.masks import MasksPanel
from attnviz.gui.panels.positional import PositionalPanel
from attnviz.gui.panels.rollout import RolloutPanel
from attnviz.gui.panels.scoring import ScoringPanel
from attnviz.session import ModelInfo, Session, SessionState

Area = QtCore.Qt.DockWidgetArea
CENTRAL_SLACK = 40  # px the central controls keep beyond their minimum when the window grows
CENTRAL_SHARE = 0.35  # of the window's width: the most the central controls keep for one-line rows


class Panel(Protocol):
    def show_state(self, old: SessionState | None, new: SessionState) -> None: ...


def family(name: str) -> Callable[[ModelInfo], bool]:
    return lambda info: info.family == name


@dataclass(frozen=True)
class PanelEntry:
    """One dock: its name (objectName ``dock_<name>``, for saveState), title, panel factory (given the
    session, for the requests its controls make), area, which models it applies to, and the dock it
    is tabbed with at first."""

    name: str
    title: str
    factory: Callable[[Session], QtWidgets.QWidget]
    area: Area
    applies: Callable[[ModelInfo], bool]
    tab_with: str | None = None


PANELS: tuple[PanelEntry, ...] = (
    PanelEntry("attention", "Attention", AttentionPanel, Area.RightDockWidgetArea, family("translation")),
    PanelEntry("kernel", "Kernel regression", KernelPanel, Area.RightDockWidgetArea, family("regression"),
               tab_with="attention"),
    PanelEntry("masks", "Masks", MasksPanel, Area.LeftDockWidgetArea, family("translation")),
    PanelEntry("positional", "Positional encoding", PositionalPanel, Area.LeftDockWidgetArea,
               lambda info: info.positional_table is not None, tab_with="masks"),
    PanelEntry("scoring", "Scoring", ScoringPanel, Area.LeftDockWidgetArea, family("translation"),
               tab_with="positional"),
    PanelEntry("batch", "Batch", BatchPanel, Area.LeftDockWidgetArea, family("translation"), tab_with="scoring"),
    PanelEntry("computation", "Computation", ComputationPanel, Area.LeftDockWidgetArea, family("translation"),
               tab_with="batch"),
    PanelEntry("rollout", "Rollout", RolloutPanel, Area.RightDockWidgetArea,
               lambda info: AttentionKind.ENCODER_SELF in info.attention, tab_with="kernel"),
    PanelEntry("compare", "Compare", ComparePanel, Area.RightDockWidgetArea, family("translation"),
               tab_with="rollout"),
    PanelEntry("beams", "Beams", BeamsPanel, Area.RightDockWidgetArea, family("translation"), tab_with="compare"),
)


class PanelDock(QtWidgets.QDockWidget):
    """A dock that says when the user closes it with its own close button, and paints its title in its
    own font (Qt's dock keeps the title font it read when it was made: presentation mode would not
    enlarge it)."""

    closed_by_user = QtCore.Signal()

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        if self.isFloating() or self.titleBarWidget() is not None:
            super().paintEvent(event)  # (a floating dock may have the window system's title bar)
            return
        painter = QtWidgets.QStylePainter(self)
        option = QtWidgets.QStyleOptionDockWidget()
        self.initStyleOption(option)
        option.fontMetrics = self.fontMetrics()
        painter.setFont(self.font())
        painter.drawControl(QtWidgets.QStyle.ControlElement.CE_DockWidgetTitle, option)
        painter.end()

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        super().closeEvent(event)
        self.closed_by_user.emit()


class Docks:
    """The panels of :data:`PANELS` and their QDockWidgets, built into a main window.

    closed: per model family, the docks the user closed (kept closed for models of that family,
    while the others follow the model); ``closed_changed`` is called with it after each change.
    """

    def __init__(self, window: QtWidgets.QMainWindow, session: Session,
                 closed: dict[str, set[str]] | None = None,
                 closed_changed: Callable[[dict[str, set[str]]], None] | None = None):
        self.window = window
        self.closed = closed if closed is not None else {}
        self._closed_changed = closed_changed
        self.panels: dict[str, QtWidgets.QWidget] = {}
        self.docks: dict[str, QtWidgets.QDockWidget] = {}
        self.entries = {entry.name: entry for entry in PANELS}
        self.state = SessionState()
        self._drawn: dict[str, SessionState] = {}  # the state each panel last drew
        self._model: ModelInfo | None = None
        self._family = "translation"  # the app starts with a translation model
        # Tabs along the window's sides, their names written upwards / downwards: a side dock is narrow,
        # but as tall as the window, so every name fits whole (at 1024 × 700 with text at 150 % too).
        window.setTabPosition(Area.LeftDockWidgetArea, QtWidgets.QTabWidget.TabPosition.West)
        window.setTabPosition(Area.RightDockWidgetArea, QtWidgets.QTabWidget.TabPosition.East)
        for entry in PANELS:
            panel = entry.factory(session)
            dock = PanelDock(entry.title, window)
            dock.setObjectName(f"dock_{entry.name}")
            dock.setWidget(panel)
            dock.hide()  # tabified while visible, Qt leaves a stale tab bar that shows once the docks hide
            window.addDockWidget(entry.area, dock)
            if entry.tab_with is not None:
                window.tabifyDockWidget(self.docks[entry.tab_with], dock)
            dock.visibilityChanged.connect(self._on_dock_visibility_changed)
            dock.closed_by_user.connect(lambda name=entry.name: self._on_user_choice(name, False))
            dock.toggleViewAction().triggered.connect(
                lambda checked, name=entry.name: self._on_user_choice(name, checked))
            self.panels[entry.name], self.docks[entry.name] = panel, dock
        for name, built in self.docks.items():
            built.setVisible(name != "kernel")  # the kernel dock is for kernel-regression checkpoints
        self.docks["attention"].raise_()
        self.docks["masks"].raise_()
        self.share_width()

    def share_width(self) -> None:
        """The first layout: the left docks about a fifth of the window, the central controls what they
        need, and the Attention dock (the reason the app exists) everything else."""
        width = self.window.width()
        central = self.window.centralWidget()
        central_least = self.central_wanted() if central is not None else 0
        left = int(min(max(0.22 * width, 200), 360))
        right = max(width - left - central_least - 24, 300)
        self.window.resizeDocks([self.docks["masks"], self.docks["attention"]], [left, right],
                                QtCore.Qt.Orientation.Horizontal)

    def central_wanted(self) -> int:
        """The width the central controls keep: what shows their rows of buttons on one line (their size
        hint), unless that is more than CENTRAL_SHARE of the window (large text): then the rows wrap."""
        central = self.window.centralWidget()
        if central is None:
            return 0
        share = int(CENTRAL_SHARE * self.window.width())
        return max(central.minimumSizeHint().width(), min(central.sizeHint().width(), share))

    def give_spare_width(self) -> None:
        """Move the central controls' width beyond what they need to the main right-hand dock on show
        (after the window grew: maximising should enlarge the heatmaps, not the sentence field)."""
        central = self.window.centralWidget()
        if central is None:
            return
        spare = central.width() - self.central_wanted() - CENTRAL_SLACK
        for name in ("attention", "kernel"):
            dock = self.docks[name]
            if self.showing(name) and not dock.isFloating():
                if spare > 0:
                    self.window.resizeDocks([dock], [dock.width() + spare], QtCore.Qt.Orientation.Horizontal)
                return

    @property
    def attention(self) -> AttentionPanel:
        panel = self.panels["attention"]
        assert isinstance(panel, AttentionPanel)
        return panel

    def heatmaps(self) -> list[Heatmap]:
        return self.window.findChildren(Heatmap)

    def render(self, new: SessionState) -> None:
        """Draw ``new`` in every panel on screen; the others are redrawn when they are shown."""
        self.state = new
        if new.model is not None and new.model is not self._model:
            self._model = new.model
            self._show_applicable(new.model)
        for name in self.panels:
            if self.showing(name):
                self._render(name)

    def showing(self, name: str) -> bool:
        """Whether the panel is on screen (a tabbed dock behind another reports isVisible() too)."""
        return not self.docks[name].visibleRegion().isEmpty()

    def ensure_current(self, name: str) -> None:
        """Bring ``name`` up to date now, shown or not (before exporting what it shows)."""
        self._render(name)

    def _render(self, name: str) -> None:
        old = self._drawn.get(name)
        if old is self.state:
            return
        panel: Panel = self.panels[name]  # type: ignore[assignment]
        panel.show_state(old, self.state)
        self._drawn[name] = self.state

    def _show_applicable(self, info: ModelInfo) -> None:
        """Show the docks that apply to the model (unless the user closed them for models of its family),
        hide the others; raise the first one that applies."""
        self._family = info.family
        closed = self.closed.get(info.family, set())
        for name, entry in self.entries.items():
            self.docks[name].setVisible(entry.applies(info) and name not in closed)
        for name in ("attention", "kernel"):
            if self.entries[name].applies(info):
                self.docks[name].raise_()
                break

    def apply_closed(self) -> None:
        """Hide the docks the user closed for the current family (after a restored layout)."""
        for name in self.closed.get(self._family, set()):
            if name in self.docks:  # (a settings file from another version may name docks we lack)
                self.docks[name].hide()
        if self._model is None:
            self.docks["kernel"].hide()  # shown when a kernel-regression checkpoint is loaded

    def _on_user_choice(self, name: str, shown: bool) -> None:
        closed = self.closed.setdefault(self._family, set())
        before = set(closed)
        (closed.discard if shown else closed.add)(name)
        if closed != before and self._closed_changed is not None:
            self._closed_changed(self.closed)

    def _on_dock_visibility_changed(self, visible: bool) -> None:
        if visible:
            for name in self.panels:
                if self.showing(name):
                    self._render(name)
