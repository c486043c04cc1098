"""The docked panels, declared in one table (:data:`PANELS`) and fed the session's state.

A panel is any widget with ``show_state(old, new)`` (old None: draw everything). Adding one is a module
and a row here: the row names its figure (what its exports write) and whether it is a main panel (what
Export and Copy act on), and :meth:`Docks.connect_exports` wires every panel's export requests alike.
Panels that do not apply to the loaded model are hidden, and come back for a model they apply to; panels
hidden behind another tab are not redrawn and catch up when they are raised.

A panel is built when it is first needed: when its dock comes on screen, or when code asks for it
(``Docks.panels[name]``, :meth:`Docks.figure`, :meth:`Docks.ensure_current`). Until then its dock holds a
:class:`UnbuiltPanel` that asks the layout for the sizes a new panel of its kind asks for (a tab behind
another takes part in its dock area's least size), so the window is laid out as if every panel were built;
:meth:`Docks.when_built` hands each panel, once built, to whoever wires it (exports, links, fonts, menus).
Importing this module loads pyqtgraph, so the window builds the docks after its first paint.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, runtime_checkable

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz import i18n
from attnviz.core.attention.kind import AttentionKind
from attnviz.core.layout import Capability
from attnviz.figures.spec import AnyFigure, NamedFigure, figure_stem_of
from attnviz.gui.head_grid import HeadGrid
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.panels.attention import AttentionPanel
from attnviz.gui.panels.batch import BatchPanel
from attnviz.gui.panels.beams import BeamsPanel
from attnviz.gui.panels.compare import ComparePanel
from attnviz.gui.panels.computation import ComputationPanel
from attnviz.gui.panels.explain import ExplainPanel
from attnviz.gui.panels.family_views import views_of
from attnviz.gui.panels.heads import HeadsPanel
from attnviz.gui.panels.image import ImagePanel
from attnviz.gui.panels.kernel import KernelPanel
from attnviz.gui.panels.masks import MasksPanel
from attnviz.gui.panels.positional import PositionalPanel
from attnviz.gui.panels.rollout import RolloutPanel
from attnviz.gui.panels.scoring import ScoringPanel
from attnviz.gui.panels.train import TrainPanel
from attnviz.i18n import N_, tr
from attnviz.session import ModelInfo, Session, SessionState

Area = QtCore.Qt.DockWidgetArea
CENTRAL_SLACK = 40  # px the central controls keep beyond their minimum when the window grows
CENTRAL_SHARE = 0.35  # of the window's width: the most the central controls keep for one-line rows


class Panel(Protocol):
    def show_state(self, old: SessionState | None, new: SessionState) -> None: ...


@runtime_checkable
class ExportingPanel(Protocol):
    """A panel with an Export control of its own (a button, a context menu): ``export_requested`` (no
    arguments) asks for its row's figure to be written to a file the user chooses."""

    export_requested: QtCore.SignalInstance


FigureOf = Callable[[Any], NamedFigure | None]  # given the panel: its figure on show, named as its file


def needs(capability: Capability) -> Callable[[ModelInfo], bool]:
    """A panel that applies to models offering ``capability`` (their layout says)."""
    return lambda info: info.offers(capability)


def needs_or_own(capability: Capability | None, name: str) -> Callable[[ModelInfo], bool]:
    """A panel (called ``name``) that applies to models offering ``capability``, and to those whose family shows
    it (its layout's views name it: ``FamilyViews.docks``; a family's own panel: no capability)."""
    return lambda info: (capability is not None and info.offers(capability)) \
        or name in views_of(info.layout).docks


def family(group: str) -> Callable[[ModelInfo], bool]:
    """A panel that applies to one group of models (``SequenceLayout.dock_group``): "translation", "regression"."""
    return lambda info: info.layout.dock_group == group


def named(figure: Callable[[Any], AnyFigure | None], stem: str | None = None) -> FigureOf:
    """A panel's figure (``figure(panel)``; None or no cells: nothing yet) under ``stem``, or a stem made
    of its title."""

    def figure_of(panel: Any) -> NamedFigure | None:
        spec = figure(panel)
        if spec is None or spec.values.size == 0:
            return None
        return NamedFigure(stem if stem is not None else figure_stem_of(spec.title), spec)

    return figure_of


@dataclass(frozen=True)
class PanelEntry:
    """One dock: its name (objectName ``dock_<name>``, for saveState), title (marked with ``N_``, translated
    when the dock is made), panel factory (given the session, for the requests its controls make), area,
    which models it applies to, and the dock it is tabbed with at first.

    figure: the panel's figure on show, named as its file (None: the panel has none to export): what
    its own Export (:class:`ExportingPanel`), its all-heads grid's Export and Copy, and its heatmap's
    Export when that heatmap shows it, write. main: for the models it applies to, Export and Copy
    (Ctrl+E, Ctrl+Shift+C, the toolbar) write its figure (the first main row that applies wins), its
    dock is raised when such a model loads and takes the width the window gains. at_start: shown
    before any model is loaded (the app starts with a translation model).
    """

    name: str
    title: str
    factory: Callable[[Session], QtWidgets.QWidget]
    area: Area
    applies: Callable[[ModelInfo], bool]
    tab_with: str | None = None
    figure: FigureOf | None = None
    main: bool = False
    at_start: bool = True
    scrolls: bool = False  # a tall panel: it scrolls in a short dock rather than make the window taller
    # Its least size depends on the width it was last laid out at (rows that wrap, a title wrapped above a grid):
    # built with the window, not when first needed, since a tab behind another takes part in its dock area's
    # least size, which an UnbuiltPanel could not follow.
    reflows: bool = False


PANELS: tuple[PanelEntry, ...] = (
    PanelEntry("image", N_("Image"), ImagePanel, Area.LeftDockWidgetArea, needs_or_own(None, "image"),
               tab_with="masks", figure=ImagePanel.figure, main=True, at_start=False, reflows=True),
    PanelEntry("attention", N_("Attention"), AttentionPanel, Area.RightDockWidgetArea, needs(Capability.MAPS),
               figure=AttentionPanel.figure, main=True),
    PanelEntry("kernel", N_("Kernel regression"), KernelPanel, Area.RightDockWidgetArea, needs(Capability.KERNEL),
               tab_with="attention", figure=named(KernelPanel.figure), main=True, at_start=False),
    PanelEntry("masks", N_("Masks"), MasksPanel, Area.LeftDockWidgetArea, needs(Capability.SENTENCE)),
    PanelEntry("positional", N_("Positional encoding"), PositionalPanel, Area.LeftDockWidgetArea,
               lambda info: info.positional_table is not None, tab_with="masks"),
    PanelEntry("scoring", N_("Scoring"), ScoringPanel, Area.LeftDockWidgetArea, needs(Capability.DECODER),
               tab_with="positional"),
    PanelEntry("batch", N_("Batch"), BatchPanel, Area.LeftDockWidgetArea, needs(Capability.DECODER),
               tab_with="scoring"),
    PanelEntry("computation", N_("Computation"), ComputationPanel, Area.LeftDockWidgetArea,
               needs_or_own(Capability.SENTENCE, "computation"), tab_with="batch"),
    PanelEntry("heads", N_("Head atlas"), HeadsPanel, Area.LeftDockWidgetArea,
               needs_or_own(Capability.DECODER, "heads"),
               tab_with="computation", figure=named(HeadsPanel.figure, "head-atlas"), reflows=True),
    PanelEntry("rollout", N_("Rollout"), RolloutPanel, Area.RightDockWidgetArea,
               lambda info: AttentionKind.ENCODER_SELF in info.attention, tab_with="kernel"),
    PanelEntry("explain", N_("Explain"), ExplainPanel, Area.RightDockWidgetArea,
               needs_or_own(Capability.STEPS, "explain"),
               tab_with="rollout", figure=named(ExplainPanel.figure, "explain"), reflows=True),
    PanelEntry("compare", N_("Compare"), ComparePanel, Area.RightDockWidgetArea,
               needs_or_own(Capability.STEPS, "compare"),
               tab_with="rollout", figure=named(ComparePanel.figure, "compare"), reflows=True),
    PanelEntry("beams", N_("Beams"), BeamsPanel, Area.RightDockWidgetArea, needs(Capability.DECODER),
               tab_with="compare", figure=named(BeamsPanel.figure, "beam-tree")),
    PanelEntry("train", N_("Train"), TrainPanel, Area.RightDockWidgetArea, lambda info: True, tab_with="beams",
               figure=named(TrainPanel.figure, "training-curves"), scrolls=True),
)


STAY_RAISED = ("train",)  # docks left on top when a model loads while they are on show


def _scrolling(panel: QtWidgets.QWidget) -> QtWidgets.QScrollArea:
    """``panel`` in a frameless scroll area: as large as the dock, with a scroll bar only where the dock is
    smaller than the panel's least size (large text on a 700-px screen)."""
    area = QtWidgets.QScrollArea()
    area.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setWidget(panel)
    return area


@dataclass(frozen=True)
class SizeHints:
    """What a widget tells a layout about its size (px): its size hint, least size hint, set least and largest
    sizes and size policy."""

    hint: QtCore.QSize
    least_hint: QtCore.QSize
    least: QtCore.QSize
    most: QtCore.QSize
    policy: QtWidgets.QSizePolicy

    @classmethod
    def of(cls, widget: QtWidgets.QWidget) -> SizeHints:
        return cls(widget.sizeHint(), widget.minimumSizeHint(), widget.minimumSize(), widget.maximumSize(),
                   widget.sizePolicy())


# A new panel's sizes, per (row name, application font, language): measured once a process (on a panel that was
# built anyway, else on one made to be measured and dropped), asked by the UnbuiltPanels of the docks not built yet.
_new_panel_hints: dict[tuple[str, str, str], SizeHints] = {}
_measured_panels: list[QtWidgets.QWidget] = []  # the panels made only to be measured (one a row, font and language)


def _hints_key(name: str) -> tuple[str, str, str]:
    return name, QtWidgets.QApplication.font().key(), i18n.language()


class UnbuiltPanel(QtWidgets.QWidget):
    """An empty widget in a dock whose panel is not built yet, laid out as a new panel of its row would be: the
    sizes it gives the layout are those ``measure()`` returns for the application font of the moment, asked when
    the layout asks (a larger text size: a larger least size, as the panel's would be)."""

    def __init__(self, measure: Callable[[], SizeHints]):
        super().__init__()
        self._measure = measure
        hints = measure()
        self.setSizePolicy(hints.policy)
        self.setMinimumSize(hints.least)
        self.setMaximumSize(hints.most)

    def sizeHint(self) -> QtCore.QSize:
        return self._measure().hint

    def minimumSizeHint(self) -> QtCore.QSize:
        return self._measure().least_hint

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.FontChange:  # (text size: the panel would ask for other sizes)
            self.updateGeometry()


class PanelMap(Mapping[str, QtWidgets.QWidget]):
    """The panels by row name, each built on first access (``panels[name]``); iterating yields every row's name
    without building any, :meth:`built` says whether one is built."""

    def __init__(self, names: list[str], build: Callable[[str], QtWidgets.QWidget]):
        self._names, self._build = names, build
        self._built: dict[str, QtWidgets.QWidget] = {}

    def __getitem__(self, name: str) -> QtWidgets.QWidget:
        panel = self._built.get(name)
        if panel is None:
            if name not in self._names:
                raise KeyError(name)
            panel = self._build(name)
        return panel

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def built(self, name: str) -> bool:
        """Whether panel ``name`` is built (asking does not build it)."""
        return name in self._built

    def built_items(self) -> list[tuple[str, QtWidgets.QWidget]]:
        """(name, panel) for the panels built so far, in the rows' order."""
        return [(name, self._built[name]) for name in self._names if name in self._built]

    def _add(self, name: str, panel: QtWidgets.QWidget) -> None:
        self._built[name] = panel


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
        self.window, self.session = window, session
        self.closed = closed if closed is not None else {}
        self._closed_changed = closed_changed
        self.entries = {entry.name: entry for entry in PANELS}
        self.panels = PanelMap(list(self.entries), self._build)
        self.docks: dict[str, QtWidgets.QDockWidget] = {}
        self._on_built: list[Callable[[str, QtWidgets.QWidget], None]] = []
        self.state = SessionState()
        self._drawn: dict[str, SessionState] = {}  # the state each panel last drew
        self._model: ModelInfo | None = None
        self._family = "translation"  # the app starts with a translation model
        # Tabs along the window's sides, their names written upwards / downwards: a side dock is narrow,
        # but as tall as the window, so every name fits whole (at 1024 × 700 with text at 150 % too).
        window.setTabPosition(Area.LeftDockWidgetArea, QtWidgets.QTabWidget.TabPosition.West)
        window.setTabPosition(Area.RightDockWidgetArea, QtWidgets.QTabWidget.TabPosition.East)
        for entry in self.entries.values():
            dock = PanelDock(tr(entry.title), window)
            dock.setObjectName(f"dock_{entry.name}")
            self.docks[entry.name] = dock
            if not entry.reflows and _hints_key(entry.name) in _new_panel_hints:  # (else: built now, and measured)
                unbuilt = UnbuiltPanel(partial(self._new_panel_hints, entry.name))
                dock.setWidget(_scrolling(unbuilt) if entry.scrolls else unbuilt)
            else:
                self._build(entry.name)
            dock.hide()  # tabified while visible, Qt leaves a stale tab bar that shows once the docks hide
            window.addDockWidget(entry.area, dock)
            dock.visibilityChanged.connect(self._on_dock_visibility_changed)
            dock.closed_by_user.connect(lambda name=entry.name: self._on_user_choice(name, False))
            dock.toggleViewAction().triggered.connect(
                lambda checked, name=entry.name: self._on_user_choice(name, checked))
        for entry in self.entries.values():  # (once every dock exists: a row may name a dock of a later row)
            if entry.tab_with is not None:
                window.tabifyDockWidget(self.docks[entry.tab_with], self.docks[entry.name])
        for entry in self.entries.values():
            self.docks[entry.name].setVisible(entry.at_start)
        for entry in self.entries.values():
            if entry.tab_with is None:  # the first tab of each group
                self.docks[entry.name].raise_()
        self.share_width()

    def share_width(self) -> None:
        """The first layout: the left docks about a fifth of the window, the central controls what they
        need, and the Attention dock (the reason the app exists) everything else."""
        width = self.window.width()
        central = self.window.centralWidget()
        central_least = self.central_wanted() if central is not None else 0
        left = int(min(max(0.22 * width, 200), 360))
        right = max(width - left - central_least - 24, 300)
        lefts = [entry.name for entry in self.entries.values() if entry.area == Area.LeftDockWidgetArea]
        first_left = next((name for name in lefts if not self.docks[name].isHidden()), lefts[0])
        self.window.resizeDocks([self.docks[first_left], self.docks[self.main_name()]], [left, right],
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
        for entry in self._mains():
            dock = self.docks[entry.name]
            if self.showing(entry.name) and not dock.isFloating():
                if spare > 0:
                    self.window.resizeDocks([dock], [dock.width() + spare], QtCore.Qt.Orientation.Horizontal)
                return

    @property
    def attention(self) -> AttentionPanel:
        panel = self.panels["attention"]
        assert isinstance(panel, AttentionPanel)
        return panel

    # -- figures and exports ----------------------------------------------------------------
    def _mains(self) -> list[PanelEntry]:
        return [entry for entry in self.entries.values() if entry.main]

    @staticmethod
    def _main_for(entry: PanelEntry, model: ModelInfo | None) -> bool:
        """Whether main row ``entry`` is the loaded model's (before a model: one shown at start)."""
        return entry.applies(model) if model is not None else entry.at_start

    def main_name(self) -> str:
        """The main panel for the loaded model (the first main row that applies; before a model: the first shown at
        start)."""
        model = self.session.state.model
        entry = next((entry for entry in self._mains() if self._main_for(entry, model)), self._mains()[0])
        return entry.name

    def main_figure(self) -> NamedFigure | None:
        """What Export and Copy act on: the figure of the first main panel that applies to the loaded model
        (before one is loaded: of the first main panel), brought up to date first."""
        model = self.session.state.model
        entry = next((entry for entry in self._mains() if self._main_for(entry, model)), None)
        return None if entry is None else self.figure(entry.name)

    def figure(self, name: str) -> NamedFigure | None:
        """Panel ``name``'s figure (its row's), brought up to date first (a hidden dock is redrawn only when
        shown); None when its row has none or it shows nothing yet."""
        figure_of = self.entries[name].figure
        if figure_of is None:
            return None
        self.ensure_current(name)
        return figure_of(self.panels[name])

    def connect_exports(self, export: Callable[[NamedFigure | None], None],
                        copy: Callable[[NamedFigure | None], None]) -> None:
        """Wire every panel's export requests (a panel built later: once built) to ``export`` (asks for a file)
        and ``copy`` (the clipboard): a heatmap's context menu (its figure, named as its panel's figure when it
        shows that, else after its title), an all-heads grid's (its panel's figure) and a panel's own Export
        (:class:`ExportingPanel`)."""

        def wire(name: str, panel: QtWidgets.QWidget) -> None:
            for heatmap in panel.findChildren(Heatmap):
                heatmap.export_requested.connect(lambda spec, name=name: export(self._heatmap_figure(name, spec)))
                heatmap.copy_requested.connect(lambda spec: copy(NamedFigure("", spec)))
            for grid in panel.findChildren(HeadGrid):
                grid.export_requested.connect(lambda name=name: export(self.figure(name)))
                grid.copy_requested.connect(lambda name=name: copy(self.figure(name)))
            if isinstance(panel, ExportingPanel):
                panel.export_requested.connect(lambda name=name: export(self.figure(name)))

        self.when_built(wire)

    def when_built(self, wire: Callable[[str, QtWidgets.QWidget], None], built_already: bool = True) -> None:
        """Call ``wire(name, panel)`` for each panel built later, as soon as it is built (before it draws
        anything), and (built_already) now for every panel built so far."""
        self._on_built.append(wire)
        if built_already:
            for name, panel in self.panels.built_items():
                wire(name, panel)

    def build_all(self) -> None:
        """Build every panel not built yet (before the text size changes: a panel follows a new font otherwise than
        one built in it, and a tab behind another takes part in its dock area's least size)."""
        for name in self.panels:
            self.panels[name]

    def _new_panel_hints(self, name: str) -> SizeHints:
        """The sizes a new panel of row ``name`` asks of the layout in the application font and language of the
        moment (measured on a panel made for it and dropped, the first time a process asks)."""
        key = _hints_key(name)
        hints = _new_panel_hints.get(key)
        if hints is None:
            panel = self.entries[name].factory(self.session)
            hints = _new_panel_hints[key] = SizeHints.of(panel)
            # Kept, never shown: a panel may have asked for a call on the next turn of the event loop (the
            # Kernel panel's legend), which would find its parts deleted.
            _measured_panels.append(panel)
        return hints

    def _build(self, name: str) -> QtWidgets.QWidget:
        """Build panel ``name`` into its dock in place of its :class:`UnbuiltPanel`, hand it to the :meth:`when_built`
        callbacks, and draw the state of the moment in it when its dock is on screen. Returns the panel."""
        entry = self.entries[name]
        panel = entry.factory(self.session)
        _new_panel_hints.setdefault(_hints_key(name), SizeHints.of(panel))
        dock = self.docks[name]
        holder = dock.widget()
        if entry.scrolls and isinstance(holder, QtWidgets.QScrollArea):
            holder.setWidget(panel)  # (the scroll area deletes the UnbuiltPanel)
        else:
            dock.setWidget(_scrolling(panel) if entry.scrolls else panel)
            if dock.isVisible():  # (a widget given to a dock on show would show only on the next turn of events)
                dock.widget().show()
            if holder is not None:
                holder.deleteLater()
        self.panels._add(name, panel)
        for wire in self._on_built:
            wire(name, panel)
        if self.showing(name):
            self._render(name)
        return panel

    def _heatmap_figure(self, name: str, spec: AnyFigure) -> NamedFigure:
        """A heatmap's figure in panel ``name``: the panel's figure when it shows that (same title: named as
        Ctrl+E names it), else the heatmap's, named after its title."""
        figure = self.figure(name)
        if figure is not None and figure.spec.title == spec.title:
            return figure
        return NamedFigure(figure_stem_of(spec.title), spec)

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
        panel: Panel = self.panels[name]  # type: ignore[assignment]  # (first: building it may draw it)
        old = self._drawn.get(name)
        if old is self.state:
            return
        panel.show_state(old, self.state)
        self._drawn[name] = self.state

    def _show_applicable(self, info: ModelInfo) -> None:
        """Show the docks that apply to the model (unless the user closed them for models of its group),
        hide the others; raise the first one that applies."""
        regrouped = info.layout.dock_group != self._family
        self._family = info.layout.dock_group
        closed = self.closed.get(self._family, set())
        watched = [name for name in STAY_RAISED if self.showing(name)]
        for name, entry in self.entries.items():
            self.docks[name].setVisible(entry.applies(info) and name not in closed)
        for entry in self._mains():
            if entry.applies(info):
                self.docks[entry.name].raise_()
                break
        for name in watched:  # a training being watched stays on show as its model opens
            if self.docks[name].isVisible():
                self.docks[name].raise_()
        if regrouped:  # another family's docks: share the width anew (the Image dock's width is not the Masks')
            self.share_width()

    def follow_model(self, info: ModelInfo) -> None:
        """Show the docks that apply to ``info`` and hide the others, as when it loaded (after a restored layout
        that was made for another model: leaving the lecture view; a model loading)."""
        self._model = info
        self._show_applicable(info)

    def apply_closed(self) -> None:
        """Hide the docks the user closed for the current family (after a restored layout)."""
        for name in self.closed.get(self._family, set()):
            if name in self.docks:  # (a settings file from another version may name docks we lack)
                self.docks[name].hide()
        if self._model is None:
            for entry in self.entries.values():
                if not entry.at_start:  # shown once a model they apply to is loaded
                    self.docks[entry.name].hide()

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
