"""The main window: the decoding area, the actions and menus, and the docks, around a Session.

The window paints first with plain Qt widgets; ``build_docks`` then loads pyqtgraph and adds the
panels (at once by default, or after the first paint when the app starts).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz import __version__
from attnviz.core.attention.kind import AttentionKind
from attnviz.core.layout import Capability
from attnviz.core.models.kinds import KINDS
from attnviz.figures.attention import shown_index
from attnviz.figures.book import Live
from attnviz.figures.spec import NamedFigure, figure_stem_of
from attnviz.gui import errors, file_dialogs
from attnviz.gui.collector import collect_on_gui_thread
from attnviz.gui.decoding_area import (
    BACK_HINT,
    BACK_KEYS,
    STEP_HINT,
    STEP_KEYS,
    DecodingArea,
    FixedTextLabel,
    ShortcutPassThrough,
    quoted_tokens,
)
from attnviz.gui.language import LanguageMenu, restart_command
from attnviz.gui.lecture import LectureView
from attnviz.gui.live_view import LiveView
from attnviz.gui.screen_fit import fit_frame_into_screen
from attnviz.gui.settings import ATTENTION_TOGGLES, Settings
from attnviz.gui.status_bar import ElidingStatusBar
from attnviz.gui.text_size import PRESENTATION_SCALE, TEXT_SCALES, apply_text_scale, next_scale, refresh_graphics
from attnviz.i18n import tr
from attnviz.paths import ICON, example_sentences, shipped_models
from attnviz.session import Runner, Session, SessionState, changed

if TYPE_CHECKING:
    from attnviz.core.results import DecodeStep
    from attnviz.gui.book_dialog import BookDialog
    from attnviz.gui.docks import Docks
    from attnviz.gui.export_actions import ExportActions

log = logging.getLogger(__name__)
TYPING_DEBOUNCE_MS = 250
BUSY_INDICATOR_DELAY_MS = 150  # quicker jobs finish before an indicator would only flicker
PREFETCH_DELAY_MS = 15  # after a step is shown: its paint is done, a next press is still far off
# File ▸ Shipped models: each file named, and described in the interface's language
DEFAULT_SIZE = (1280, 800)  # the first window, where the screen has room for it
FRAME_FIT_TRIES, FRAME_FIT_WAIT_MS = 20, 50  # first start: look for the window manager's frame this often
LARGEST_FIRST_SIZE = (1680, 1050)


def step_label(state: SessionState) -> str:
    """The step on show, numbered as its figure titles and export names number it (query rows); beam
    search can take more search steps than the best hypothesis has tokens, and then says both."""
    if state.step is None:
        return ""
    number = (shown_index(state.step) or 0) + 1
    search = state.position + 1
    label = (tr("step {number}").format(number=number) if search == number
             else tr("step {number} · search {search}").format(number=number, search=search))
    return tr("{label} · forced").format(label=label) if state.step.forced else label


def _output_index(step: DecodeStep, number: int) -> int:
    """Where step ``number``'s token is in the output: the ``number``-th word, or the mask it filled."""
    return number if step.focus is None else step.focus


class Poster(QtCore.QObject):
    """Hands callables from worker threads to the GUI thread (queued signal)."""

    posted = QtCore.Signal(object)

    def __init__(self):
        super().__init__()
        self.posted.connect(self._on_posted, QtCore.Qt.ConnectionType.QueuedConnection)

    def post(self, fn: Callable[[], None]) -> None:
        self.posted.emit(fn)

    @staticmethod
    def _on_posted(fn: Callable[[], None]) -> None:
        fn()


def _not_typing(sequence: QtGui.QKeySequence) -> bool:
    """A key a text field has no use for: one with Ctrl, Alt or Meta, or a function key (not →, ↑, Space, K …)."""
    if sequence.isEmpty():
        return False
    combination = sequence[0]  # type: ignore[index]  # (PySide6's stubs lack operator[])
    Modifier, Key = QtCore.Qt.KeyboardModifier, QtCore.Qt.Key
    if combination.keyboardModifiers() & (Modifier.ControlModifier | Modifier.AltModifier | Modifier.MetaModifier):
        return True
    return Key.Key_F1.value <= combination.key().value <= Key.Key_F35.value


def _package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


class MainWindow(QtWidgets.QMainWindow):
    """Type a sentence, step the decoder, watch attention.

    defer_docks: build the docks later with :meth:`build_docks` (the app does it after the first
    paint, so that the window appears before pyqtgraph has loaded).
    """

    def __init__(self, settings: Settings, runner: Runner | None = None, *, defer_docks: bool = False,
                 device: str | None = None):
        """device: for this run only (``--device``); the Device menu is what changes the remembered choice."""
        super().__init__()
        collect_on_gui_thread()  # before any job runs on the worker: garbage is collected here only
        self.settings = settings
        apply_text_scale(settings.text_scale)  # presentation mode, as left: before any widget measures its text
        self.session = Session(self, runner, device=device or settings.device, beam_size=settings.beam_size)
        self.panels: Docks | None = None
        self.book_dialog: BookDialog | None = None  # Help ▸ Book figures, made when first opened
        self.live_view = LiveView(self)  # Help ▸ Book figures ▸ Show live
        self._pending_digest: tuple[str, Path] | None = None  # a saved session's checkpoint SHA-256, to compare
        self.setWindowTitle("attnviz")
        self.setWindowIcon(QtGui.QIcon(str(ICON)))
        self.setAcceptDrops(True)
        self.setDockOptions(QtWidgets.QMainWindow.DockOption.AllowTabbedDocks
                            | QtWidgets.QMainWindow.DockOption.AllowNestedDocks
                            | QtWidgets.QMainWindow.DockOption.AnimatedDocks)
        self.shortcut_pass = ShortcutPassThrough(self)  # the window's shortcuts act in its text fields too
        self.decoding_area = DecodingArea(self.session.state.beam_size)
        self.setCentralWidget(self.decoding_area)
        self._connect_decoding_area()
        self._build_actions()
        self.setStatusBar(ElidingStatusBar())
        self.busy_bar = QtWidgets.QProgressBar()  # indeterminate: a job runs that the user is waiting for
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setMaximumWidth(110)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.hide()
        self.statusBar().addPermanentWidget(self.busy_bar)
        self.busy_timer = QtCore.QTimer(self, singleShot=True, interval=BUSY_INDICATOR_DELAY_MS)
        self.busy_timer.timeout.connect(self._on_busy_timer_timeout)
        # Once a step is on screen (and painted), the next one is decoded in the background.
        self.prefetch_timer = QtCore.QTimer(self, singleShot=True, interval=PREFETCH_DELAY_MS)
        self.prefetch_timer.timeout.connect(self._on_prefetch_timer_timeout)
        self.device_label = QtWidgets.QLabel()  # where the model runs
        self.step_time_label = FixedTextLabel(tr("step {ms:.1f} ms").format(ms=8888.8))  # how long the last step took
        self.step_time_label.setToolTip(tr("Time the model took for the decoding step on show"))
        self.statusBar().addPermanentWidget(self.device_label)
        self.statusBar().addPermanentWidget(self.step_time_label)
        self.typing_timer = QtCore.QTimer(self, singleShot=True, interval=TYPING_DEBOUNCE_MS)
        self.typing_timer.timeout.connect(self._on_typing_timer_timeout)
        geometry, _state = settings.window_state()
        self._frame_fits_pending = 0  # tries left to fit the framed window (frame included) into the screen
        if geometry is None or not self.restoreGeometry(geometry):
            self._fit_to_screen()
            self._frame_fits_pending = FRAME_FIT_TRIES
        self._first_size = self.size()  # (resized by someone else before it is framed: their size stays)
        self._render_controls(self.session.state)
        self._reported_settings = 0
        toggles = settings.attention_toggles  # as left last time
        self.session.set_view(replace(self.session.state.view, all_heads=toggles["all_heads"], scores=toggles["scores"],
                                      show_masked=toggles["show_masked"]))
        self._report_settings_problems()
        if not defer_docks:
            self.build_docks()

    # -- construction -----------------------------------------------------------------------
    def _fit_to_screen(self) -> None:
        """First start: 1280×800 where the screen has room (more on a big screen, up to 1680×1050), the
        whole available screen on a small one; centred."""
        screen = self.screen() or QtGui.QGuiApplication.primaryScreen()
        if screen is None:
            self.resize(*DEFAULT_SIZE)
            return
        room = screen.availableGeometry()
        width = min(max(DEFAULT_SIZE[0], int(room.width() * 0.8)), LARGEST_FIRST_SIZE[0], room.width())
        height = min(max(DEFAULT_SIZE[1], int(room.height() * 0.8)), LARGEST_FIRST_SIZE[1], room.height())
        self.resize(width, height)
        self.move(room.x() + (room.width() - width) // 2, room.y() + (room.height() - height) // 2)

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        if self._frame_fits_pending:
            QtCore.QTimer.singleShot(0, self._fit_frame_to_screen)

    def _fit_frame_to_screen(self) -> None:
        """First start, once the window manager has framed the window: shrink and move it so that the frame
        (title bar, borders) fits the available screen too, the status bar included. The frame is known only
        after the window manager has drawn it, so this looks again a few times until it is there."""
        if (not self._frame_fits_pending or not self.isVisible() or self.isMaximized() or self.isFullScreen()
                or self.size() != self._first_size):
            self._frame_fits_pending = 0
            return
        self._frame_fits_pending -= 1
        if fit_frame_into_screen(self):
            self._frame_fits_pending = 0
        elif self._frame_fits_pending:
            QtCore.QTimer.singleShot(FRAME_FIT_WAIT_MS, self._fit_frame_to_screen)

    def _connect_decoding_area(self) -> None:
        area = self.decoding_area
        self.sentence, self.notice, self.output, self.topk = area.sentence, area.notice, area.output, area.topk
        self.step_button, self.back_button = area.step_button, area.back_button
        self.run_button, self.reset_button = area.run_button, area.reset_button
        self.beam_box, self.timeline = area.beam_box, area.timeline
        area.sentence.textEdited.connect(self._on_sentence_text_edited)
        area.sentence.returnPressed.connect(self._on_run_clicked)
        area.back_button.clicked.connect(self._on_back_clicked)
        area.step_button.clicked.connect(self._on_step_clicked)
        area.run_button.clicked.connect(self._on_run_clicked)
        area.reset_button.clicked.connect(self._on_reset_clicked)
        area.beam_box.valueChanged.connect(self._on_beam_box_value_changed)
        area.timeline.valueChanged.connect(self._on_timeline_value_changed)
        area.topk.cellClicked.connect(self._on_topk_cell_clicked)
        area.force_field.returnPressed.connect(self._on_force_clicked)
        area.force_button.clicked.connect(self._on_force_clicked)

    def build_docks(self) -> None:
        """Create the panels, their docks and the export actions; restore the saved dock layout."""
        if self.panels is not None:
            return
        from attnviz.gui.docks import Docks
        from attnviz.gui.export_actions import ExportActions

        self.panels = panels = Docks(self, self.session, self.settings.closed_docks,
                                     lambda closed: setattr(self.settings, "closed_docks", closed))
        self.attention, self.docks = panels.attention, panels.docks
        self.exports: ExportActions = ExportActions(self, self.settings, self.session, self.current_figure,
                                                    self.attention.view, self._on_export_notified, self.error)
        panels.connect_exports(self.exports.ask_and_export, self.exports.copy)
        self.attention.heatmap.clicked.connect(self._on_attention_cell_clicked)
        panels.panels["heads"].head_chosen.connect(self._on_head_chosen)  # type: ignore[attr-defined]
        self.train_panel = panels.panels["train"]
        self.train_panel.flipbook_requested.connect(self._on_training_flipbook_requested)  # type: ignore[attr-defined]
        self.train_panel.message.connect(lambda text: self.statusBar().showMessage(text, 10000))  # type: ignore[attr-defined]
        self.train_panel.opened.connect(self._on_trained_model)  # type: ignore[attr-defined]
        export_actions = [self.exports.export_action, self.exports.export_all_action, self.exports.flipbook_action,
                          self.exports.copy_action]
        self.file_menu.insertActions(self.quit_separator, export_actions)
        self.file_menu.insertMenu(self.quit_separator, self.exports.scale_menu)
        self.file_menu.insertSeparator(export_actions[0])
        self.toolbar.addSeparator()
        self.toolbar.addAction(self.exports.export_action)
        for dock in self.docks.values():
            self.view_menu.addAction(dock.toggleViewAction())
        _geometry, layout = self.settings.window_state()
        if layout is not None:
            self.restoreState(layout)
        panels.apply_closed()
        panels.render(self.session.state)
        refresh_graphics(self)  # the plots' legends, when the app starts in presentation mode
        from attnviz.gui.titled_plot import own_plot_menus

        own_plot_menus(self)  # attnviz's menus on the plots, in the interface's language
        self._pass_shortcuts_through_text_fields()  # Export, Export all and Copy exist now

    def _on_trained_model(self, path: str, probe: str) -> None:
        """A run of the Train dock ended: open its model like any checkpoint, its probe decoded to the end."""
        self.load(path)
        if probe:
            self.set_sentence(probe, run=True)

    def _suggest_probe(self, old: SessionState, new: SessionState) -> None:
        """A checkpoint trained on a task was opened: its probe in the sentence field, decoded to the end (also
        when the field holds it already, as when the model is opened again); a model without one opened after it
        gets the example sentence back instead of the old task's input (its unknown words). Not while a saved
        session is being opened: its own sentence wins. Said here, as the model loads, never when the Train dock
        catches up later (a hidden tab is drawn only once it is shown)."""
        from attnviz import paths
        from attnviz.gui.panels.train import probe_of

        probe, before = (probe_of(s.model.history) if s.model is not None and s.model.history is not None else ""
                         for s in (new, old))
        text = self.sentence.text()
        # (after the state now being drawn: asked for from inside a state change, it would be drawn first)
        if probe and self._pending_digest is None:
            QtCore.QTimer.singleShot(0, self.session.run_to_end if probe == text else
                                     partial(self.set_sentence, probe, True))
        elif before and before == text and self._pending_digest is None and new.model is not None \
                and new.model.offers(Capability.SENTENCE):
            QtCore.QTimer.singleShot(0, partial(self.set_sentence, paths.EXAMPLE_SENTENCE, True))

    def _on_training_flipbook_requested(self) -> None:
        """The Train dock's Export flip-book…: a frame per snapshot, the loss so far under each."""
        from attnviz.gui import file_dialogs
        from attnviz.gui.panels.train import TrainPanel

        panel = self.train_panel
        assert isinstance(panel, TrainPanel)
        start = Path(self.settings.export_dir or Path.home()) / f"{panel.stem()}_training.pdf"
        path, _chosen = file_dialogs.save_file_name(
            self, tr("Export the training's flip-book"), str(start),
            tr("PDF, a page per snapshot, with an animated GIF beside it (*.pdf)"))
        if path:
            self.exports.export_frames(path, panel.flipbook_figures(),
                                       tr("attnviz training: {name}").format(name=panel.stem()), "snapshots")

    def _action(self, text: str, slot: Callable[[], object],
                shortcut: QtGui.QKeySequence | QtGui.QKeySequence.StandardKey | str | tuple[str, ...] | None = None,
                tip: str | None = None) -> QtGui.QAction:
        """An action; a tuple of shortcuts: the first is the one menus show."""
        action = QtGui.QAction(text, self)
        if isinstance(shortcut, tuple):
            action.setShortcuts([QtGui.QKeySequence(key) for key in shortcut])
        elif shortcut is not None:
            action.setShortcut(QtGui.QKeySequence(shortcut))
        if tip is not None:
            action.setToolTip(tip)
        action.triggered.connect(slot)
        if shortcut is not None:
            self.addAction(action)  # (its keys work with the menu bar hidden: the lecture view, presentations)
        return action

    def _pass_shortcuts_through_text_fields(self) -> None:
        """Every window shortcut with a modifier or a function key acts while a text field or spin box has
        focus; plain → and ← stay the field's (they move its text cursor)."""
        self.shortcut_pass.pass_shortcuts(sequence for action in self.findChildren(QtGui.QAction)
                                          for sequence in action.shortcuts() if _not_typing(sequence))
        for kind in (QtWidgets.QLineEdit, QtWidgets.QAbstractSpinBox, QtWidgets.QPlainTextEdit):
            for field in self.findChildren(kind):
                field.installEventFilter(self.shortcut_pass)  # (installing twice keeps one)

    def _build_actions(self) -> None:
        Key = QtGui.QKeySequence.StandardKey
        self.open_action = self._action(tr("&Open checkpoint…"), self._on_open_triggered, Key.Open)
        self.save_session_action = self._action(tr("&Save session…"), self._on_save_session_triggered, Key.Save,
                                                tr("Save the model, sentence, steps, forced tokens and view as a "
                                                   "small file that brings this view back (Ctrl+S)"))
        self.open_session_action = self._action(tr("Open sess&ion…"), self._on_open_session_triggered,
                                                "Ctrl+Shift+O", tr("Bring back a saved session (Ctrl+Shift+O)"))
        self.quit_action = self._action(tr("&Quit"), self.close, Key.Quit)
        self.step_action = self._action(tr("&Step"), self._on_step_clicked, STEP_KEYS,
                                        tr("Decode one token ({keys})").format(keys=tr(STEP_HINT)))
        self.back_action = self._action(tr("&Back"), self._on_back_clicked, BACK_KEYS,
                                        tr("Back one step ({keys})").format(keys=tr(BACK_HINT)))
        self.run_action = self._action(tr("Run to &end"), self._on_run_clicked, "Ctrl+Return",
                                       tr("Decode to the end (Ctrl+Return)"))
        self.reset_action = self._action(tr("&Reset"), self._on_reset_clicked, "Ctrl+R",
                                         tr("Start the decoding again (Ctrl+R)"))
        self.file_menu = self.menuBar().addMenu(tr("&File"))
        self.file_menu.addAction(self.open_action)
        self.open_hf_action = self._action(tr("Open &Hugging Face model…"), self._on_open_hf_triggered,
                                           tip=tr("A transformers model folder, or one in your Hugging Face cache"))
        self.file_menu.addAction(self.open_hf_action)
        self.shipped_menu = self.file_menu.addMenu(tr("Shipped &models"))
        for path in shipped_models():
            about = KINDS.get(path.stem)  # (a shipped file is named for its kind: the registry describes it)
            text = tr("{name} — {about}").format(name=path.stem, about=tr(about.label)) if about else path.stem
            self.shipped_menu.addAction(self._action(text, partial(self.load, path)))
        self.recent_menu = self.file_menu.addMenu(tr("&Recent files"))
        self.recent_menu.aboutToShow.connect(self._on_recent_menu_about_to_show)
        self.file_menu.addSeparator()
        self.file_menu.addActions([self.save_session_action, self.open_session_action])
        self.quit_separator = self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        decode_menu = self.menuBar().addMenu(tr("&Decode"))
        decode_menu.addActions([self.step_action, self.back_action, self.run_action, self.reset_action])
        examples = decode_menu.addMenu(tr("E&xample sentences"))
        for sentence in example_sentences():
            examples.addAction(self._action(sentence, partial(self.set_sentence, sentence, True)))
        self.device_menu = self.menuBar().addMenu(tr("Devi&ce"))  # (Alt+V is View's)
        self.device_group = QtGui.QActionGroup(self)
        self._fill_device_menu(("cpu",))  # CUDA and MPS appear once torch has loaded (with the first model)
        self.view_menu = self.menuBar().addMenu(tr("&View"))
        self.lecture = LectureView(self)
        self.view_menu.addAction(self.lecture.action)
        lecture_keys = self.view_menu.addMenu(tr("Lecture view &keys"))
        lecture_keys.addActions(self.lecture.keys)
        self._build_text_size_actions()
        self.view_menu.addSeparator()
        self.language_menu = LanguageMenu(self.settings.qsettings, self.restart, self)
        self.view_menu.addMenu(self.language_menu)
        help_menu = self.menuBar().addMenu(tr("&Help"))
        self.book_action = self._action(tr("&Book figures…"), self.open_book_figures, "F1")
        self.book_action.setToolTip(tr("Every attention figure of d2l.ai's attention chapters and of the "
                                       "Transformer paper, live and exportable (F1)"))
        help_menu.addAction(self.book_action)
        help_menu.addAction(self._action(tr("&Keyboard shortcuts…"), self._on_shortcuts_triggered, "Ctrl+F1"))
        help_menu.addAction(self._action(tr("&About attnviz"), self._on_about_triggered))
        self.toolbar = self.addToolBar(tr("Main"))
        self.toolbar.setObjectName("toolbar_main")
        self.toolbar.addActions([self.open_action, self.back_action, self.step_action, self.run_action])
        self.addActions([self.back_action, self.step_action, self.run_action])  # (their keys work without a toolbar)
        self._pass_shortcuts_through_text_fields()

    def _build_text_size_actions(self) -> None:
        """View ▸ Presentation mode and Larger / Smaller / Normal text (Ctrl+= / Ctrl+- / Ctrl+0)."""
        self.presentation_action = self._action(
            tr("&Presentation mode"), self._on_presentation_triggered, "Ctrl+Shift+P",
            tr("Every text of the window at {scale:.0%}, readable on a projector (exported figures keep their "
               "size)").format(scale=PRESENTATION_SCALE))
        self.presentation_action.setCheckable(True)
        self.larger_text_action = self._action(tr("&Larger text"), partial(self._step_text_scale, 1),
                                               ("Ctrl+=", "Ctrl++"), tr("Every text of the window larger (Ctrl+=)"))
        self.smaller_text_action = self._action(tr("S&maller text"), partial(self._step_text_scale, -1), "Ctrl+-",
                                                tr("Every text of the window smaller (Ctrl+-)"))
        self.normal_text_action = self._action(tr("&Normal text size"), partial(self.set_text_scale, 1.0), "Ctrl+0",
                                               tr("Text at the size the system sets (Ctrl+0)"))
        self.view_menu.addActions([self.presentation_action, self.larger_text_action, self.smaller_text_action,
                                   self.normal_text_action])
        self.view_menu.addSeparator()
        self._show_text_scale(self.settings.text_scale)

    def set_text_scale(self, scale: float) -> None:
        """Every font of the window (and its dialogs) at ``scale`` × the system's, remembered for the next
        start; exported figures keep their size (they are for papers)."""
        scale = min(max(scale, TEXT_SCALES[0]), TEXT_SCALES[-1])
        self.settings.text_scale = scale
        apply_text_scale(scale)
        refresh_graphics(self, hidden_later=True)  # (the plots in hidden docks in the next turns of the event loop)
        self._show_text_scale(scale)
        self.statusBar().showMessage(tr("Text size {scale:.0%}").format(scale=scale), 4000)

    def _show_text_scale(self, scale: float) -> None:
        self.presentation_action.setChecked(scale > 1.0)
        self.larger_text_action.setEnabled(scale < TEXT_SCALES[-1])
        self.smaller_text_action.setEnabled(scale > TEXT_SCALES[0])

    def _step_text_scale(self, direction: int) -> None:
        self.set_text_scale(next_scale(self.settings.text_scale, direction))

    def _on_presentation_triggered(self) -> None:
        self.set_text_scale(PRESENTATION_SCALE if self.presentation_action.isChecked() else 1.0)

    def _fill_device_menu(self, devices: tuple[str, ...]) -> None:
        self.device_menu.clear()
        for action in self.device_group.actions():
            self.device_group.removeAction(action)
        for name in ("auto", *devices):
            action = self._action(tr("auto") if name == "auto" else name, partial(self.set_device, name))
            action.setData(name)  # the device's name, whatever the menu shows
            action.setCheckable(True)
            action.setChecked(name == self.session.state.device)
            self.device_group.addAction(action)
            self.device_menu.addAction(action)

    # -- user requests ----------------------------------------------------------------------
    def load(self, path: str | Path, fall_back: bool = False) -> None:
        """Load a checkpoint in the background; fall_back: use another device if the chosen one is missing."""
        self._pending_digest = None  # a session being opened is abandoned
        self.session.load(path, fall_back=fall_back)

    def set_device(self, name: str) -> None:
        """Reload the model on ``name``; the setting changes only once that has worked (see model_loaded)."""
        self.session.set_device(name)

    def set_sentence(self, text: str, run: bool = False) -> None:
        """Put ``text`` in the sentence field and encode it (run: and decode it to the end)."""
        self.typing_timer.stop()  # a debounced encode of what was typed before must not follow
        self.sentence.setText(text)
        self.session.encode(text, run=run)

    def current_figure(self) -> NamedFigure | None:
        """What Export and Copy act on: the figure of the main panel for the loaded model (its row in
        gui/docks.py says so), brought up to date first."""
        assert self.panels is not None
        return self.panels.main_figure()

    # -- SessionListener (called on the GUI thread) -----------------------------------------
    def state_changed(self, old: SessionState, new: SessionState) -> None:
        """Render the new state: the decoding area, the controls, the status bar and every panel."""
        if new.model is not old.model and new.model is not None:
            self._model_loaded(new)
            self._suggest_probe(old, new)
        if new.source is not old.source and new.source is not None:
            self._show_notice(new)
        if changed(old, new, "step", "shown_source"):
            forced = tuple(_output_index(new.steps[i], i) for i in new.forced_steps if i <= new.position)
            self.decoding_area.show_step(new.step, new.shown_source is not None, forced,
                                         pieces=new.model is not None and new.model.subword)
            if new.step is not None and new.model is not None:
                self.step_time_label.setText(tr("step {ms:.1f} ms").format(ms=new.step.seconds * 1000))
                self._say_if_cut(new)
        if (new.position, len(new.steps)) != (old.position, len(old.steps)):
            self.decoding_area.set_timeline(new.position, len(new.steps), step_label(new))
        if changed(old, new, "steps"):
            self.timeline.set_marks(tuple(i + 1 for i in new.forced_steps))
        if new.busy != old.busy:
            # A job's name and the busy bar appear only once it has taken BUSY_INDICATOR_DELAY_MS: a step
            # of a few milliseconds must not make the status bar flicker (and repaint) every time.
            if new.busy and not old.busy:
                self.busy_timer.start()
            elif not new.busy:
                self.busy_timer.stop()
                if self.busy_bar.isVisible():
                    self.busy_bar.hide()
                    self.statusBar().clearMessage()
            if new.busy and self.busy_bar.isVisible():
                self.statusBar().showMessage(new.busy)
            if not new.busy and new.model is not None and new.model is not old.model:
                self._say_loaded(new)
        self._render_controls(new)
        self._remember_attention_toggles(old, new)
        if not new.busy and changed(old, new, "steps", "position", "source", "busy"):
            self.prefetch_timer.start()
        if self.panels is not None:
            self.panels.render(new)
        if new.book is not old.book and self.book_dialog is not None:
            self.book_dialog.show_book(new.book)
        self.live_view.state_changed(old, new)
        self.lecture.state_changed(old, new)
        self._check_session_digest(new)
        if new.model is not old.model and new.model is not None and new.model.notice:
            self.error(new.model.notice)  # last: the dialog waits for the user, the window is up to date behind it

    def _remember_attention_toggles(self, old: SessionState, new: SessionState) -> None:
        """All heads, Pre-softmax scores and Show masked cells as the user left them, for the next start (not
        while the lecture view has switched All heads off for its one large map)."""
        toggles = {name: getattr(new.view, name) for name in ATTENTION_TOGGLES}
        if self.lecture.active or toggles == {name: getattr(old.view, name) for name in ATTENTION_TOGGLES}:
            return
        self.settings.attention_toggles = toggles

    def _say_if_cut(self, state: SessionState) -> None:
        """A Hugging Face model that sets no length limit of its own, stopped at attnviz's: say so (a folder's own
        limit is the model's behaviour, as generate has it; attnviz's is not)."""
        step, model = state.step, state.model
        if (step is not None and model is not None and step.finished and not step.ended
                and model.training.get("output_limit_set_by") == "attnviz"):
            self.statusBar().showMessage(tr("Stopped at attnviz's limit of {count} tokens: the model's folder sets no "
                                            "length limit of its own").format(count=len(step.output_tokens)), 15000)

    def error(self, message: str) -> None:
        for action in self.device_group.actions():  # a refused device change leaves the old one ticked
            action.setChecked(action.data() == self.session.state.device)
        self.statusBar().showMessage(message, 15000)
        errors.warn(self, message)

    def _model_loaded(self, state: SessionState) -> None:
        info = state.model
        assert info is not None
        self.settings.last_checkpoint = str(info.path)
        self.settings.device = state.device
        self.build_docks()
        self._fill_device_menu(info.devices)
        self.decoding_area.setVisible(info.offers(Capability.SENTENCE))  # nothing to type for kernel regression
        self.decoding_area.follow(info.layout)
        self.exports.flipbook_action.setEnabled(info.offers(Capability.STEPS))
        self.device_label.setText(info.device)
        self.step_time_label.clear()
        self.decoding_area.forget_forcing()
        self.setWindowTitle(f"attnviz — {info.label}")
        self._say_loaded(state)
        self._report_settings_problems()

    def _report_settings_problems(self) -> None:
        """Unusable settings (reported once each) and a settings file that cannot be written (once)."""
        if failed := self.settings.sync():
            log.warning(failed)
            self.statusBar().showMessage(failed, 15000)
        new = self.settings.problems[self._reported_settings:]
        self._reported_settings = len(self.settings.problems)
        for problem in new:
            log.warning(problem)
        if new:
            self.statusBar().showMessage(tr("Some settings were unusable and reset: {problems}").format(
                problems="; ".join(new)), 15000)

    def _say_loaded(self, state: SessionState) -> None:
        info = state.model
        assert info is not None
        from attnviz.model_card import card_bleu

        card = card_bleu(info.path, info.sha256)  # a shipped file: the model card's numbers (one owner)
        bleu = info.training.get("val_bleu")
        if card is not None:
            extra = tr(", validation BLEU {greedy:.2f} greedy, {beam:.2f} with beam 4 (models/MODELS.md)").format(
                greedy=card[0], beam=card[1])
        else:
            extra = tr(", validation BLEU {bleu}").format(bleu=bleu) if bleu is not None else ""
        kind = info.kind
        if info.training.get("source") == "Hugging Face":
            kind = tr("a Hugging Face {architecture} model").format(
                architecture=info.training.get("architecture", "")).replace("  ", " ")
        loaded = (tr("Loaded {label}: {kind}, {count:,} parameter{extra}") if info.parameters == 1
                  else tr("Loaded {label}: {kind}, {count:,} parameters{extra}"))
        self.statusBar().showMessage(loaded.format(label=info.label, kind=kind, count=info.parameters, extra=extra),
                                     8000)

    def _show_notice(self, state: SessionState) -> None:
        source = state.source
        assert source is not None
        notes = []
        if source.truncated_from:
            notes.append(tr("Input truncated from {before} to {after} tokens (the model's limit).").format(
                before=source.truncated_from, after=len(source.tokens)))
        if source.unknown:
            notes.append(tr("Unknown words (read as <unk>): {words}").format(words=quoted_tokens(source.unknown)))
        self.notice.setText(" ".join(notes) or " ")

    # -- handlers ---------------------------------------------------------------------------
    def _on_export_notified(self, message: str) -> None:
        self.statusBar().showMessage(message, 10000)

    def _on_attention_cell_clicked(self, row: int, _column: int) -> None:
        """A row of the Attention heatmap clicked: show how that query's weights are computed (in the lecture
        view: outline that query's row, and leave the layout as it is)."""
        matrix = self.attention.current
        if matrix is None or self.panels is None:
            return
        if self.lecture.active:
            self.attention.heatmap.highlight_row(row)
            return
        dock = self.docks["computation"]
        dock.show()
        dock.raise_()
        self.panels.ensure_current("computation")
        kind, query = matrix.query_of(row)
        self.panels.panels["computation"].inspect(kind, matrix.layer, matrix.head, query)  # type: ignore[attr-defined]

    def _on_head_chosen(self, kind: AttentionKind, layer: int, head: int) -> None:
        """A head of the Heads dock's atlas clicked: show its map in the Attention dock."""
        dock = self.docks["attention"]
        dock.show()
        dock.raise_()
        self.attention.select_view(kind, layer, head)

    def _on_sentence_text_edited(self, text: str) -> None:
        self.session.set_text(text)  # Step and Run act on it at once; the views follow after the debounce
        self.typing_timer.start()

    def _on_busy_timer_timeout(self) -> None:
        if self.session.state.busy:
            self.busy_bar.setToolTip(self.session.state.busy)
            self.busy_bar.show()
            self.statusBar().showMessage(self.session.state.busy)

    def _on_prefetch_timer_timeout(self) -> None:
        self.session.prefetch()

    def _on_typing_timer_timeout(self) -> None:
        self.session.encode()

    def _on_step_clicked(self) -> None:
        self.typing_timer.stop()  # Step encodes what the field says now, if it changed
        self.session.step()

    def _on_back_clicked(self) -> None:
        self.session.back()

    def _on_run_clicked(self) -> None:
        self.typing_timer.stop()
        self.session.run_to_end()

    def _on_reset_clicked(self) -> None:
        self.typing_timer.stop()
        self.decoding_area.forget_forcing()
        self.session.reset()

    def _on_beam_box_value_changed(self, value: int) -> None:
        self.settings.beam_size = value
        self.session.set_beam_size(value)

    def _on_timeline_value_changed(self, value: int) -> None:
        self.session.show(value - 1)

    def _on_topk_cell_clicked(self, row: int, _column: int) -> None:
        token, step = self.decoding_area.topk_token(row), self.session.state.step
        self.topk.setCurrentCell(-1, -1)  # (no focus mark left on a row that the next step fills with another token)
        if token is not None and step is not None and token != step.token:
            self.session.force(token)

    def _on_force_clicked(self) -> None:
        if not self.session.state.can_reset:  # (Enter in the field works while the button is disabled)
            self.statusBar().showMessage(tr("Type a source sentence, with a translation model loaded, to force "
                                            "target words."), 8000)
            return
        self.typing_timer.stop()
        self.session.force_prefix(self.decoding_area.force_field.text())

    def _on_open_triggered(self) -> None:
        start = str(Path(self.settings.last_checkpoint).parent) if self.settings.last_checkpoint else ""
        path, _ = file_dialogs.open_file_name(self, tr("Open checkpoint"), start,
                                              tr("attnviz checkpoints (*.safetensors);;All files (*)"))
        if path:
            self.load(path)

    def _on_open_hf_triggered(self) -> None:
        from attnviz.gui.hf_dialog import OpenHuggingFaceDialog

        start = str(Path(self.settings.last_checkpoint).parent) if self.settings.last_checkpoint else ""
        dialog = OpenHuggingFaceDialog(self, start=start)
        if "transformers" not in sys.modules:
            self.session.prepare_hugging_face()  # (imported on the worker while the user chooses)
        try:
            if dialog.exec() == QtWidgets.QDialog.DialogCode.Accepted and dialog.chosen is not None:
                self.load(dialog.chosen)
        finally:
            dialog.deleteLater()

    def _on_recent_menu_about_to_show(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.recent_files:
            self.recent_menu.addAction(self._action(path, partial(self.load, path)))
        self.recent_menu.setEnabled(bool(self.settings.recent_files))

    # -- saved sessions ---------------------------------------------------------------------
    def save_session(self, path: str | Path) -> Path | None:
        """Write the view on show as a session file, off the GUI thread (Session.file_job); returns its path
        once written (at once with an inline runner), or None after saying why not or while it is written."""
        from attnviz.session_file import write_session

        saved = self.session.saved()
        if saved is None:
            self.error(tr("There is nothing to save yet: open a checkpoint first."))
            return None
        outcome: list[Path] = []

        def done(written: Path) -> None:
            self.settings.export_dir = str(written.parent)
            self.statusBar().showMessage(tr("Saved the session to {path}").format(path=written), 10000)
            outcome.append(written)

        self.session.file_job(tr("Saving {name}…").format(name=Path(path).name), lambda: write_session(saved, path),
                              done, partial(self._file_failed, tr("Could not save the session")))
        return outcome[0] if outcome else None

    def _file_failed(self, what: str, error: BaseException) -> None:
        from attnviz.session_file import SessionFileError

        if isinstance(error, SessionFileError | OSError):
            self.error(str(error) if isinstance(error, SessionFileError)
                       else tr("{what}: {error}").format(what=what, error=error.strerror or error))
        else:
            log.error("%s", what, exc_info=error)
            self.error(tr("{what}: {kind}: {error}").format(what=what, kind=type(error).__name__, error=error))

    def open_session(self, path: str | Path) -> bool:
        """Bring back a saved session: its model, sentence, steps (forced tokens replayed), step on show and
        view. A checkpoint that changed since is loaded all the same, and the window says so."""
        from attnviz.session_file import CheckpointOutside, SessionFileError, find_checkpoint, read_session

        try:
            saved = read_session(path)
            checkpoint = find_checkpoint(saved, path)
        except CheckpointOutside as outside:  # (a session from elsewhere: say where it leads before opening it)
            where = str(outside)
            if not errors.ask(self, tr("{where}.\n\nOpen the session with that checkpoint?").format(
                    where=f"{where[:1].upper()}{where[1:]}")):
                return False
            checkpoint = outside.path
        except (SessionFileError, OSError) as error:
            self.error(tr("Could not open the session: {error}").format(error=error))
            return False
        self.typing_timer.stop()
        self.sentence.setText(saved.sentence)
        self.beam_box.blockSignals(True)
        self.beam_box.setValue(saved.beam_size)
        self.beam_box.blockSignals(False)
        self.settings.beam_size = saved.beam_size
        self.statusBar().showMessage(tr("Opening the session {name}…").format(name=Path(path).name), 8000)
        self.session.restore(saved, checkpoint)
        self._pending_digest = (saved.checkpoint_sha256, checkpoint)  # checked once its model is the one loaded
        self._check_session_digest(self.session.state)
        return True

    def _check_session_digest(self, state: SessionState) -> None:
        """Once the session's checkpoint is loaded: say so if it is not the file the session was saved with."""
        pending = self._pending_digest
        if pending is None or state.model is None or state.loading or (
                state.model.path.resolve() != pending[1].resolve()):
            return
        self._pending_digest = None
        if pending[0] and state.model.sha256 != pending[0]:  # (hashed on the worker when it loaded)
            from attnviz.session_file import changed_checkpoint_note

            folder = state.model.training.get("source") == "Hugging Face"
            self.error(changed_checkpoint_note(state.model.path.name, folder))

    def _session_start_path(self) -> str:
        model = self.session.state.model
        folder = Path(self.settings.export_dir) if self.settings.export_dir else Path.home()
        name = model.name if model is not None else "attnviz"
        words = "-".join(figure_stem_of(self.session.state.text).split("-")[:5]) if self.session.state.text else ""
        return str(folder / f"{name}{'-' + words if words else ''}.attnviz.json")

    def _on_save_session_triggered(self) -> None:
        path, _ = file_dialogs.save_file_name(self, tr("Save session"), self._session_start_path(),
                                              tr("attnviz sessions (*.attnviz.json *.json)"))
        if path:
            self.save_session(path)

    def _on_open_session_triggered(self) -> None:
        start = self.settings.export_dir or str(Path.home())
        path, _ = file_dialogs.open_file_name(self, tr("Open session"), start,
                                              tr("attnviz sessions (*.attnviz.json *.json);;All files (*)"))
        if path:
            self.open_session(path)

    # -- the book's figures -----------------------------------------------------------------
    def open_book_figures(self) -> BookDialog:
        """Show Help ▸ Book figures (made on first use; it lists the gallery without computing it)."""
        if self.book_dialog is None:
            from attnviz.gui.book_dialog import BookDialog

            self.build_docks()  # its Export and Copy are the window's
            self.book_dialog = BookDialog(self.session.book_entries(), self.session.show_book_figure,
                                          self.show_live, self.exports.ask_and_export, self.exports.copy, self,
                                          self.settings.book_edition, self._on_book_edition_changed)
        self.book_dialog.show()
        self.book_dialog.raise_()
        return self.book_dialog

    def show_live(self, live: Live) -> None:
        """Put the window in exactly the state that shows a book figure (see gui/live_view.py)."""
        self.live_view.show(live)

    def _on_book_edition_changed(self, edition: str) -> None:
        self.settings.book_edition = edition

    def _on_shortcuts_triggered(self) -> None:
        from attnviz.gui.shortcuts_dialog import ShortcutsDialog

        dialog = ShortcutsDialog(self.menuBar(), self)
        dialog.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()

    def _on_about_triggered(self) -> None:
        versions = " · ".join(f"{name} {_package_version(name)}"
                              for name in ("torch", "PySide6-Essentials", "pyqtgraph", "numpy", "safetensors"))
        tagline = tr("See attention: step a decoder and watch its attention.")
        licence = tr("Licence: MIT.")
        data = tr("Translation models are trained on English–French sentence pairs from the Tatoeba Project "
                  "(tatoeba.org, CC-BY 2.0 FR), packaged by manythings.org/anki.")
        QtWidgets.QMessageBox.about(self, tr("About attnviz"), (
            f"<h3>attnviz {__version__}</h3><p>{tagline}</p><p>{versions}</p><p>{licence}</p><p>{data}</p>"))

    # -- drag and drop, closing ------------------------------------------------------------
    def dragEnterEvent(self, event: QtGui.QDragEnterEvent) -> None:
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QtGui.QDropEvent) -> None:
        files = [url.toLocalFile() for url in event.mimeData().urls() if url.isLocalFile()]
        if files:
            if files[0].lower().endswith(".json"):
                self.open_session(files[0])
            else:
                self.load(files[0])
            event.acceptProposedAction()

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        """Extra width (maximising, say) goes to the heatmaps, not to the controls in the centre."""
        super().resizeEvent(event)
        self.lecture.resized()
        if self.panels is not None and event.size().width() > event.oldSize().width():  # (old -1: first show)
            QtCore.QTimer.singleShot(0, self.panels.give_spare_width)  # once the docks are laid out

    def restart(self) -> None:
        """Close this window and start attnviz again (View ▸ Language), the open model and sentence reopened.
        Refused, with a word why, while the Train dock trains (the run would be lost)."""
        run = getattr(getattr(self, "train_panel", None), "run", None)
        if run is not None and run.running:
            self.error(tr("A model is training: attnviz restarts in the new language once you stop it or it "
                          "ends, and you restart it."))
            return
        model = self.session.state.model
        extra = ["--checkpoint", str(model.path)] if model is not None and model.path.exists() else []
        extra += ["--text", self.sentence.text()]
        program, arguments = restart_command(extra)
        if self.close():
            started = QtCore.QProcess.startDetached(program, arguments)  # PySide6: (ok, pid)
            if not (started[0] if isinstance(started, tuple) else started):
                log.warning("could not start %s %s again", program, arguments)

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        if self.panels is not None:  # a layout saved before the docks exist would lose them
            self.settings.save_window_state(self.saveGeometry(), self.saveState())
        if failed := self.settings.sync():
            log.warning(failed)
        super().closeEvent(event)

    # -- helpers ----------------------------------------------------------------------------
    def _render_controls(self, state: SessionState) -> None:
        for widget, enabled in ((self.step_button, state.can_step), (self.step_action, state.can_step),
                                (self.run_button, state.can_run), (self.run_action, state.can_run),
                                (self.back_button, state.can_back), (self.back_action, state.can_back),
                                (self.reset_button, state.can_reset), (self.reset_action, state.can_reset),
                                (self.decoding_area.force_button, state.can_reset)):
            widget.setEnabled(enabled)
