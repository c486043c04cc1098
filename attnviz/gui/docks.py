"""The docked panels: built once into a main window, fed the current source and step.

Importing this module loads pyqtgraph, so the window builds the docks after its first paint.
Panels hidden behind another tab are not redrawn; they catch up when they are raised.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from attnviz.core.results import DecodeStep, EncodedSource, KernelFit
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.panels.attention import AttentionPanel
from attnviz.gui.panels.kernel import KernelPanel
from attnviz.gui.panels.masks import MasksPanel
from attnviz.gui.panels.positional import PositionalPanel
from attnviz.gui.panels.scoring import ScoringPanel
from attnviz.session import ModelInfo

Area = QtCore.Qt.DockWidgetArea


class Docks:
    """The five panels and their QDockWidgets (objectName ``dock_<name>``, for saveState)."""

    def __init__(self, window: QtWidgets.QMainWindow):
        self.window = window
        self.attention = AttentionPanel()
        self.kernel = KernelPanel()
        self.masks = MasksPanel()
        self.positional = PositionalPanel()
        self.scoring = ScoringPanel()
        self.docks: dict[str, QtWidgets.QDockWidget] = {}
        for name, title, panel, area in (
                ("attention", "Attention", self.attention, Area.RightDockWidgetArea),
                ("kernel", "Kernel regression", self.kernel, Area.RightDockWidgetArea),
                ("masks", "Masks", self.masks, Area.LeftDockWidgetArea),
                ("positional", "Positional encoding", self.positional, Area.LeftDockWidgetArea),
                ("scoring", "Scoring", self.scoring, Area.LeftDockWidgetArea)):
            dock = QtWidgets.QDockWidget(title, window)
            dock.setObjectName(f"dock_{name}")
            dock.setWidget(panel)
            window.addDockWidget(area, dock)
            dock.visibilityChanged.connect(self._on_dock_visibility_changed)
            self.docks[name] = dock
        window.tabifyDockWidget(self.docks["attention"], self.docks["kernel"])
        window.tabifyDockWidget(self.docks["masks"], self.docks["positional"])
        window.tabifyDockWidget(self.docks["positional"], self.docks["scoring"])
        self.docks["kernel"].hide()  # shown when a kernel-regression checkpoint is loaded
        self.docks["attention"].raise_()
        self.docks["masks"].raise_()
        window.resizeDocks([self.docks["masks"], self.docks["attention"]], [380, 620],
                           QtCore.Qt.Orientation.Horizontal)
        self.source: EncodedSource | None = None
        self.step: DecodeStep | None = None
        self._stale: set[str] = set()  # panels that missed an update while hidden

    def heatmaps(self) -> list[Heatmap]:
        return self.window.findChildren(Heatmap)

    def set_model(self, info: ModelInfo, kernel: KernelFit | None) -> None:
        layers, heads = info.decoder_layers or 1, info.heads or 1
        self.attention.set_model(info.path.stem, layers, heads)
        self.scoring.set_model(info.kind, layers, heads)
        self.positional.set_table(info.positional_table)
        self.docks["kernel"].setVisible(kernel is not None)
        if kernel is not None:
            self.kernel.show_fit(kernel)
            self.docks["kernel"].raise_()
        else:
            self.docks["attention"].raise_()

    def show(self, source: EncodedSource | None, step: DecodeStep | None) -> None:
        """Draw this source and step in every visible panel; the others are redrawn when raised."""
        self.positional.set_sentence_length(len(source.tokens) if source is not None else 0)  # 0: no outline
        self.source, self.step = source, step
        self._stale = {"attention", "masks", "scoring"}
        for name in list(self._stale):
            if self.showing(name):
                self._redraw(name)

    def showing(self, name: str) -> bool:
        """Whether the panel is on screen (a tabbed dock behind another reports isVisible() too)."""
        return not self.docks[name].visibleRegion().isEmpty()

    def ensure_current(self, name: str) -> None:
        """Redraw ``name`` now if it missed updates while hidden (before exporting what it shows)."""
        if name in self._stale:
            self._redraw(name)

    def _redraw(self, name: str) -> None:
        self._stale.discard(name)
        panel: AttentionPanel | MasksPanel | ScoringPanel = getattr(self, name)
        panel.set_data(self.source, self.step)

    def _on_dock_visibility_changed(self, visible: bool) -> None:
        if not visible:
            return
        for name in list(self._stale):
            if self.showing(name):
                self._redraw(name)
