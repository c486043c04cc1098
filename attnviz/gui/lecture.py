"""View ▸ Lecture view (F5): the window as a projector layout, and auto-play.

What stays on screen: the main panel of the loaded model (the attention map, or kernel regression's kernel map
and predictions plot) as large as the window allows, the source sentence, the translation so far, the whole
next-token top-5 and the step buttons; menus, toolbar, status bar and every other dock are hidden. Token labels
are drawn at the largest size that shows every one of them, from a thirtieth of the window's height down to a
forty-second (at 1024×768: 26 px to 18 px, about 19 pt to 14 pt at 96 dpi): a thirtieth is 18-pt text on a
4:3 slide (7.5 in high), the smallest size presentation guides give for the back of a room, and the lower bound
still fits 16 tokens on both axes of the map at 1024×768.

Keys (active in the lecture view only, listed in the View menu): → / ← step, ↑ / ↓ head, Page Up / Page Down
layer, K the next attention kind, Space (or P) starts and pauses auto-play, Esc or F5 leaves. Auto-play steps
every ``Settings.lecture_interval`` seconds from the first step to the end, and optionally on through the layers.
Leaving restores the window exactly: its geometry, docks, toolbar, status bar and the panel's own controls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.figures.attention import available_kinds, stack_extent
from attnviz.gui.decoding_area import DecodingArea
from attnviz.gui.settings import LECTURE_INTERVALS, Settings
from attnviz.i18n import tr
from attnviz.session import Session, SessionState

if TYPE_CHECKING:
    from attnviz.gui.docks import Docks

LABEL_SHARE = (30, 42)  # label pixel size: the window's height divided by these (largest, smallest)
CENTRE_SHARE = 0.32  # of the window's width: the sentence, translation, top-5 and buttons beside the map
WIDGET_SIZE_MAX = (1 << 24) - 1  # Qt's QWIDGETSIZE_MAX: no maximum
LECTURE_KEYS = "F5"
LECTURE_HINT = "F5"


@runtime_checkable
class LecturePanel(Protocol):
    """A main panel with a lecture layout of its own (the Attention and Kernel regression panels):
    ``set_lecture((largest, smallest))`` label pixel sizes turns it on, ``set_lecture(None)`` back off."""

    def set_lecture(self, label_pixels: tuple[int, int] | None) -> None: ...


class LectureControls(Protocol):
    """What the lecture view hides and presses besides the docks: the window's toolbar, and its Step action
    (auto-play presses it)."""

    @property
    def toolbar(self) -> QtWidgets.QToolBar: ...

    @property
    def step_action(self) -> QtGui.QAction: ...


def _standard_title_bar(dock: QtWidgets.QDockWidget) -> None:
    """The dock's standard title bar back; the blank one the lecture view gave it is deleted (Qt only takes a
    title bar widget out, and keeps it as the dock's child: one more widget each time the view was entered)."""
    blank = dock.titleBarWidget()
    dock.setTitleBarWidget(None)  # type: ignore[arg-type]  # (None: the standard title bar)
    if blank is not None:
        blank.deleteLater()


class LectureView(QtCore.QObject):
    """Turns ``window`` into the lecture layout and back (``action``, checkable), and auto-plays steps.

    area: the window's decoding area (it stays, beside the main dock); docks: builds the window's docks if they
    are not built yet, and gives them; controls: the toolbar and the Step action (read when first needed)."""

    def __init__(self, window: QtWidgets.QMainWindow, session: Session, settings: Settings, area: DecodingArea,
                 docks: Callable[[], Docks], controls: LectureControls):
        super().__init__(window)
        self.window, self.session, self.settings, self.area = window, session, settings, area
        self._build_docks, self.controls = docks, controls
        self.panels: Docks | None = None  # the window's docks, once the view was entered
        self.active = False
        self._saved: tuple[QtCore.QRect, QtCore.QByteArray, bool, bool, bool] | None = None
        self._main = ""  # the dock shown large
        self._all_heads = False  # the All heads grid was on show before (it comes back on leaving)
        self._model: object = None  # the model on show when the view was entered
        self.action = QtGui.QAction(tr("&Lecture view"), window)
        self.action.setCheckable(True)
        self.action.setShortcut(QtGui.QKeySequence(LECTURE_KEYS))
        self.action.setToolTip(tr("The attention map as large as the screen allows, with the sentence, the "
                                  "translation, the top-5 and the step buttons only ({key}; Esc leaves)").format(
            key=LECTURE_HINT))
        self.action.toggled.connect(self._on_action_toggled)
        window.addAction(self.action)  # (F5 works with the menu bar hidden)
        self.timer = QtCore.QTimer(self)
        self.timer.timeout.connect(self._on_timer_timeout)
        self.keys = self._key_actions()
        self.row = self._controls()
        self.row.hide()

    # -- construction -----------------------------------------------------------------------
    def _key_actions(self) -> list[QtGui.QAction]:
        """The lecture view's own keys: enabled only while it is on (elsewhere ↑ ↓ Space keep their usual
        meaning)."""
        rows = ((tr("Next &head"), "Down", lambda: self.move_view(head=1)),
                (tr("Previous h&ead"), "Up", lambda: self.move_view(head=-1)),
                (tr("Next la&yer"), "PgDown", lambda: self.move_view(layer=1)),
                (tr("Previous lay&er"), "PgUp", lambda: self.move_view(layer=-1)),
                (tr("Next attention &kind"), "K", self.next_kind),
                (tr("&Play or pause"), ("Space", "P"), self.toggle_play),
                (tr("Leave the lecture view"), "Esc", self.leave))
        actions = []
        for text, keys, slot in rows:
            action = QtGui.QAction(text, self.window)
            action.setShortcuts([QtGui.QKeySequence(key) for key in (keys if isinstance(keys, tuple) else (keys,))])
            action.setShortcutContext(QtCore.Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(slot)
            action.setEnabled(False)
            self.window.addAction(action)  # (its keys work with the menu bar hidden)
            actions.append(action)
        return actions

    def _controls(self) -> QtWidgets.QWidget:
        """Play / pause, the interval, "through the layers" and Leave: a row the decoding area shows."""
        settings = self.settings
        row = QtWidgets.QWidget()
        self.play_button = QtWidgets.QPushButton(tr("▶ Play"))
        self.play_button.setToolTip(tr("Step on by itself, from the first step to the end (Space)"))
        self.play_button.clicked.connect(self.toggle_play)
        self.interval_box = QtWidgets.QDoubleSpinBox()
        self.interval_box.setRange(*LECTURE_INTERVALS)
        self.interval_box.setDecimals(1)
        self.interval_box.setSingleStep(0.5)
        self.interval_box.setPrefix(tr("every "))
        self.interval_box.setSuffix(tr(" s"))
        self.interval_box.setValue(settings.lecture_interval)
        self.interval_box.setToolTip(tr("Seconds between two steps of auto-play"))
        self.interval_box.valueChanged.connect(self._on_interval_box_value_changed)
        self.layers_check = QtWidgets.QCheckBox(tr("through the layers"))
        self.layers_check.setToolTip(tr("After the last step, play the next layer's map from the first step"))
        self.layers_check.setChecked(settings.lecture_through_layers)
        self.layers_check.toggled.connect(self._on_layers_check_toggled)
        leave = QtWidgets.QPushButton(tr("Leave"))
        leave.setToolTip(tr("Back to the window as it was (Esc)"))
        leave.clicked.connect(self.leave)
        layout = QtWidgets.QGridLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.play_button, 0, 0)
        layout.addWidget(self.interval_box, 0, 1)
        layout.addWidget(self.layers_check, 1, 0, 1, 2)
        layout.addWidget(leave, 2, 0)
        return row

    # -- on and off ---------------------------------------------------------------------------
    def enter(self) -> None:
        if not self.action.isChecked():
            self.action.setChecked(True)  # (toggled: _switch)

    def leave(self) -> None:
        if self.action.isChecked():
            self.action.setChecked(False)

    def _on_action_toggled(self, on: bool) -> None:
        if on == self.active:
            return
        if on:
            self._apply()
        else:
            self._restore()

    def label_pixels(self) -> tuple[int, int]:
        """(largest, smallest) px of the map's token labels for the window's height."""
        height = self.window.height()
        return max(12, round(height / LABEL_SHARE[0])), max(11, round(height / LABEL_SHARE[1]))

    def _apply(self) -> None:
        window = self.window
        self.panels = panels = self._build_docks()
        self._saved = (window.geometry(), window.saveState(), self.controls.toolbar.isVisible(),
                       window.statusBar().isVisible(), window.menuBar().isVisible())
        self._all_heads = self.session.state.view.all_heads
        self._model = self.session.state.model  # (another one loaded meanwhile: its docks, not these)
        if self._all_heads:  # the lecture shows one map, large
            self.session.set_view(replace(self.session.state.view, all_heads=False))
        self.active = True
        self._main = panels.main_name()
        for name, dock in panels.docks.items():
            if name != self._main:
                dock.hide()
        dock = panels.docks[self._main]
        dock.setFloating(False)
        dock.show()
        dock.raise_()
        dock.setTitleBarWidget(QtWidgets.QWidget())  # (no title bar: the map's own title says what it is)
        self.controls.toolbar.hide()
        window.statusBar().hide()
        window.menuBar().hide()
        for action in self.keys:
            action.setEnabled(True)
        self._fonts()
        self.area.sentence.setCursorPosition(0)  # (the sentence from its beginning)
        self._take_focus_from_text_fields()
        QtCore.QTimer.singleShot(0, self._share_width)

    def _take_focus_from_text_fields(self) -> None:
        """The keys are the lecture's from the first press: → ← step, K changes the kind, Space plays (in the
        sentence field they would move its cursor or type). The focus goes to the map's dock, which no step
        disables (a focused Step button hands the focus on, to a field, when the translation ends); a click
        puts it back in a field."""
        assert self.panels is not None
        target = self.panels.docks[self._main]
        target.setFocusPolicy(QtCore.Qt.FocusPolicy.ClickFocus)
        target.setFocus(QtCore.Qt.FocusReason.OtherFocusReason)

    def _fonts(self) -> None:
        """The map's labels, the central area and the kernel panel sized for the window's height now."""
        pixels = self.label_pixels()
        assert self.panels is not None
        font = QtGui.QFont(QtWidgets.QApplication.font())
        font.setPixelSize(pixels[1])  # (the translation is written 1.5 × as large)
        self.area.set_lecture(self.row, font)
        panel = self.panels.panels[self._main]
        if isinstance(panel, LecturePanel):
            panel.set_lecture(pixels)

    def _share_width(self) -> None:
        """The centre keeps CENTRE_SHARE of the width; the main dock takes the rest."""
        window = self.window
        if not self.active or self.panels is None:
            return
        centre = self.area
        width = window.width()
        centre.setMaximumWidth(int(CENTRE_SHARE * width) if centre.isVisible() else WIDGET_SIZE_MAX)
        dock = self.panels.docks[self._main]
        window.resizeDocks([dock], [width - (centre.maximumWidth() if centre.isVisible() else 0)],
                           QtCore.Qt.Orientation.Horizontal)

    def _restore(self) -> None:
        self.pause()
        window, panels = self.window, self.panels
        assert panels is not None and self._saved is not None
        self.active = False
        for action in self.keys:
            action.setEnabled(False)
        panel = panels.panels[self._main]
        if isinstance(panel, LecturePanel):
            panel.set_lecture(None)
        self.area.set_lecture(None)
        self.area.setMaximumWidth(WIDGET_SIZE_MAX)
        _standard_title_bar(panels.docks[self._main])
        geometry, state, toolbar, status, menu = self._saved
        self._saved = None
        window.menuBar().setVisible(menu)
        window.statusBar().setVisible(status)
        self.controls.toolbar.setVisible(toolbar)
        window.restoreState(state)
        model = self.session.state.model
        if model is not None and model is not self._model:  # the layout kept, the docks the model on show has
            panels.follow_model(model)
        if window.geometry() != geometry and not (window.isMaximized() or window.isFullScreen()):
            window.setGeometry(geometry)
        if self._all_heads:
            self.session.set_view(replace(self.session.state.view, all_heads=True))

    def resized(self) -> None:
        """The window changed size: labels and widths follow its new height and width."""
        if self.active:
            self._fonts()
            QtCore.QTimer.singleShot(0, self._share_width)

    def state_changed(self, old: SessionState, new: SessionState) -> None:
        """Another model loaded while the view is on: show its main panel (the docks followed the model)."""
        panels = self.panels
        if self.active and new.model is not old.model and new.model is not None and panels is not None:
            main = panels.main_name()
            old_panel = panels.panels[self._main]
            if isinstance(old_panel, LecturePanel):
                old_panel.set_lecture(None)
            _standard_title_bar(panels.docks[self._main])
            self._main = main
            for name, dock in panels.docks.items():
                dock.setVisible(name == main)
            panels.docks[main].setTitleBarWidget(QtWidgets.QWidget())
            self._take_focus_from_text_fields()
            self._fonts()
            QtCore.QTimer.singleShot(0, self._share_width)
        if self.timer.isActive() and (new.model is not old.model or new.shown_source is None):
            self.pause()

    # -- keys ----------------------------------------------------------------------------------
    def move_view(self, layer: int = 0, head: int = 0) -> None:
        """Show the next or previous head or layer (wrapping around), of the attention kind on show."""
        state = self.session.state
        source = state.shown_source
        if source is None:
            return
        view = state.view
        layers, heads = stack_extent(view.kind, source, state.step)
        self.session.set_view(replace(view, all_heads=False, layer=(view.layer + layer) % max(layers, 1),
                                             head=(view.head + head) % max(heads, 1)))

    def next_kind(self) -> None:
        """The next attention kind the model has (encoder self, decoder self, cross, …)."""
        state = self.session.state
        kinds = available_kinds(state.shown_source)
        if state.shown_source is None or len(kinds) < 2:
            return
        view = state.view
        kind = kinds[(kinds.index(view.kind) + 1) % len(kinds)] if view.kind in kinds else kinds[0]
        self.session.set_view(replace(view, kind=kind, all_heads=False))

    # -- auto-play -----------------------------------------------------------------------------
    def toggle_play(self) -> None:
        if self.timer.isActive():
            self.pause()
        else:
            self.play()

    def play(self) -> None:
        """Step on every interval from the first step (from the one on show when it is not the last)."""
        state = self.session.state
        if not state.can_reset:  # (nothing to decode: no sentence, or a model that does not decode)
            return
        if not state.can_step and state.steps:
            self.session.show(0)  # at the end: again from the first step
        self.timer.start(round(self.interval_box.value() * 1000))
        self.play_button.setText(tr("❚❚ Pause"))

    def pause(self) -> None:
        self.timer.stop()
        self.play_button.setText(tr("▶ Play"))

    def _on_timer_timeout(self) -> None:
        state = self.session.state
        if state.busy:
            return  # a step still decodes: the next tick goes on
        if state.can_step:
            self.controls.step_action.trigger()
            return
        source = state.shown_source
        if self.layers_check.isChecked() and source is not None:
            layers, _heads = stack_extent(state.view.kind, source, state.step)
            if state.view.layer + 1 < layers:
                self.session.set_view(replace(state.view, layer=state.view.layer + 1, all_heads=False))
                self.session.show(0)
                return
        self.pause()

    def _on_interval_box_value_changed(self, seconds: float) -> None:
        self.settings.lecture_interval = seconds
        if self.timer.isActive():
            self.timer.setInterval(round(seconds * 1000))

    def _on_layers_check_toggled(self, on: bool) -> None:
        self.settings.lecture_through_layers = on
