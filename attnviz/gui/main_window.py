"""The main window: the decoding area, the menus and the docks, wired around a Session.

The window paints first with plain Qt widgets; ``build_docks`` then loads pyqtgraph and adds the
panels (at once by default, or after the first paint when the app starts). What each part does is its
own module's: the decoding area's wiring (gui/decoding_controls.py), the menus, toolbar and actions
(gui/menus.py), opening and saving files (gui/file_opening.py), the status bar's reports (gui/status_bar.py),
the panels' links to the rest of the window (gui/panel_links.py), the lecture view (gui/lecture.py) and the
first placement on the screen (gui/screen_fit.py); the window builds them and draws each new state through
them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.core.layout import Capability
from attnviz.figures.spec import NamedFigure
from attnviz.gui import errors
from attnviz.gui.collector import collect_on_gui_thread
from attnviz.gui.decoding_area import DecodingArea
from attnviz.gui.decoding_controls import DecodingControls
from attnviz.gui.file_opening import FileOpening
from attnviz.gui.language import restart_command
from attnviz.gui.live_view import LiveView
from attnviz.gui.menus import Menus
from attnviz.gui.screen_fit import FirstPlacement
from attnviz.gui.settings import ATTENTION_TOGGLES, Settings
from attnviz.gui.status_bar import StatusReports
from attnviz.gui.text_size import apply_text_scale, refresh_graphics
from attnviz.i18n import tr
from attnviz.paths import ICON
from attnviz.session import Runner, Session, SessionState

if TYPE_CHECKING:
    from attnviz.gui.book_dialog import BookDialog
    from attnviz.gui.docks import Docks
    from attnviz.gui.export_actions import ExportActions
    from attnviz.gui.panel_links import PanelLinks

log = logging.getLogger(__name__)


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
        if settings.last_image and Path(settings.last_image).is_file():  # (an image model opens on the image shown
            self.session.image_path = Path(settings.last_image)  # last, after a restart too; gone: a sample, quietly)
        self.panels: Docks | None = None
        self.links: PanelLinks | None = None  # the panels' requests to the rest of the window, with the docks
        self.book_dialog: BookDialog | None = None  # Help ▸ Book figures, made when first opened
        self.live_view = LiveView(self)  # Help ▸ Book figures ▸ Show live
        self.setWindowTitle("attnviz")
        self.setWindowIcon(QtGui.QIcon(str(ICON)))
        self.setAcceptDrops(True)
        self.setDockOptions(QtWidgets.QMainWindow.DockOption.AllowTabbedDocks
                            | QtWidgets.QMainWindow.DockOption.AllowNestedDocks
                            | QtWidgets.QMainWindow.DockOption.AnimatedDocks)
        self.decoding_area = area = DecodingArea(self.session.state.beam_size)
        self.setCentralWidget(area)
        self.sentence, self.notice, self.output, self.topk = area.sentence, area.notice, area.output, area.topk
        self.step_button, self.back_button = area.step_button, area.back_button
        self.run_button, self.reset_button = area.run_button, area.reset_button
        self.beam_box, self.timeline = area.beam_box, area.timeline
        self.decoding = DecodingControls(self, area, self.session, settings)
        self.files = FileOpening(self, settings, self.session, self.decoding, self.error)
        self.menus = Menus(self, settings, self.session, self.files, self.decoding, self.build_docks,
                           self.open_book_figures, self.restart)
        self.lecture = self.menus.lecture
        # the Decode actions, presentation mode and the prefetch, as the benchmarks (bench/) and tests press them
        self.step_action, self.back_action = self.menus.step_action, self.menus.back_action
        self.run_action, self.reset_action = self.menus.run_action, self.menus.reset_action
        self.presentation_action, self.prefetch_timer = self.menus.presentation_action, self.decoding.prefetch_timer
        self.status = StatusReports(self, settings, self.session)
        geometry, _state = settings.window_state()
        self.placement = FirstPlacement(self, restored=geometry is not None and self.restoreGeometry(geometry))
        self.decoding.enable_buttons(self.session.state)
        self.menus.enable_actions(self.session.state)
        toggles = settings.attention_toggles  # as left last time
        self.session.set_view(replace(self.session.state.view, all_heads=toggles["all_heads"], scores=toggles["scores"],
                                      show_masked=toggles["show_masked"]))
        self.status.report_settings_problems()
        if not defer_docks:
            self.build_docks()

    def build_docks(self) -> Docks:
        """Create the panels, their docks and the export actions; restore the saved dock layout. Returns the
        docks (built once)."""
        if self.panels is not None:
            return self.panels
        from attnviz.gui.docks import Docks
        from attnviz.gui.export_actions import ExportActions
        from attnviz.gui.panel_links import PanelLinks

        self.panels = panels = Docks(self, self.session, self.settings.closed_docks,
                                     lambda closed: setattr(self.settings, "closed_docks", closed))
        self.attention, self.docks = panels.attention, panels.docks
        self.exports: ExportActions = ExportActions(self, self.settings, self.session, self.current_figure,
                                                    self.attention.view, self._on_export_notified, self.error)
        panels.connect_exports(self.exports.ask_and_export, self.exports.copy)
        self.links = PanelLinks(self, panels, self.settings, self.files, self.decoding, self.exports, self.lecture)
        self.menus.add_docks(self.exports, self.docks.values())
        _geometry, layout = self.settings.window_state()
        if layout is not None:
            self.restoreState(layout)
        panels.apply_closed()
        panels.render(self.session.state)
        refresh_graphics(self)  # the plots' legends, when the app starts in presentation mode
        from attnviz.gui.titled_plot import own_plot_menus

        own_plot_menus(self)  # attnviz's menus on the plots, in the interface's language
        self.menus.pass_shortcuts_through_text_fields()  # Export, Export all and Copy exist now
        panels.when_built(self._on_panel_built, built_already=False)  # (the same for a panel built later)
        return panels

    def _on_panel_built(self, _name: str, panel: QtWidgets.QWidget) -> None:
        """A panel built once the docks were (when first shown or asked for): its plots in the text size of the
        moment, with attnviz's menus; its text fields pass the window's shortcuts through."""
        from attnviz.gui.titled_plot import own_plot_menus

        refresh_graphics(panel)
        own_plot_menus(self)
        self.menus.pass_shortcuts_through_text_fields()

    # -- the window's requests (the app's, the tests', the other parts') ---------------------
    def load(self, path: str | Path, fall_back: bool = False) -> None:
        """Load a checkpoint in the background; fall_back: use another device if the chosen one is missing."""
        self.files.load(path, fall_back)

    def set_sentence(self, text: str, run: bool = False) -> None:
        """Put ``text`` in the sentence field and encode it (run: and decode it to the end)."""
        self.decoding.set_sentence(text, run)

    def save_session(self, path: str | Path) -> Path | None:
        """Write the view on show as a session file (see FileOpening.save_session)."""
        return self.files.save_session(path)

    def open_session(self, path: str | Path) -> bool:
        """Bring back a saved session (see FileOpening.open_session)."""
        return self.files.open_session(path)

    def current_figure(self) -> NamedFigure | None:
        """What Export and Copy act on: the figure of the main panel for the loaded model (its row in
        gui/docks.py says so), brought up to date first."""
        assert self.panels is not None
        return self.panels.main_figure()

    def open_book_figures(self) -> BookDialog:
        """Show Help ▸ Book figures (made on first use; it lists the gallery without computing it)."""
        if self.book_dialog is None:
            from attnviz.gui.book_dialog import BookDialog

            self.build_docks()  # its Export and Copy are the window's
            self.book_dialog = BookDialog(self.session.book_entries(), self.session.show_book_figure,
                                          self.live_view.show, self.exports.ask_and_export, self.exports.copy, self,
                                          self.settings.book_edition, self._on_book_edition_changed)
        self.book_dialog.show()
        self.book_dialog.raise_()
        return self.book_dialog

    def restart(self) -> None:
        """Close this window and start attnviz again (View ▸ Language), the open model and sentence reopened.
        Refused, with a word why, while the Train dock trains (the run would be lost)."""
        if self.links is not None and self.links.training:
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

    def error(self, message: str) -> None:
        self.menus.tick_device(self.session.state.device)  # a refused device change leaves the old one ticked
        self.statusBar().showMessage(message, 15000)
        errors.warn(self, message)

    # -- SessionListener (called on the GUI thread) -----------------------------------------
    def state_changed(self, old: SessionState, new: SessionState) -> None:
        """Render the new state: the decoding area, the controls, the status bar and every panel."""
        if new.model is not old.model and new.model is not None:
            self._model_loaded(new)
            assert self.links is not None  # (the docks are built once a model has loaded)
            self.links.suggest_probe(old, new)
        if new.shown_source is not old.shown_source and (image := self.session.image_file_of(new.shown_source)):
            self.settings.last_image = str(image.resolve())
        self.decoding.show_state(old, new)
        self.status.show_state(old, new)
        self.menus.enable_actions(new)
        self._remember_attention_toggles(old, new)
        self.decoding.prefetch_when_shown(old, new)
        if self.panels is not None:
            self.panels.render(new)
        if new.book is not old.book and self.book_dialog is not None:
            self.book_dialog.show_book(new.book)
        self.live_view.state_changed(old, new)
        self.lecture.state_changed(old, new)
        self.files.check_session_digest(new)
        if new.model is not old.model and new.model is not None and new.model.notice:
            self.error(new.model.notice)  # last: the dialog waits for the user, the window is up to date behind it

    def _remember_attention_toggles(self, old: SessionState, new: SessionState) -> None:
        """All heads, Pre-softmax scores and Show masked cells as the user left them, for the next start (not
        while the lecture view has switched All heads off for its one large map)."""
        toggles = {name: getattr(new.view, name) for name in ATTENTION_TOGGLES}
        if self.lecture.active or toggles == {name: getattr(old.view, name) for name in ATTENTION_TOGGLES}:
            return
        self.settings.attention_toggles = toggles

    def _model_loaded(self, state: SessionState) -> None:
        info = state.model
        assert info is not None
        self.settings.last_checkpoint = str(info.path)
        self.settings.device = state.device
        panels = self.build_docks()
        self.menus.fill_device_menu(info.devices)
        typed = info.offers(Capability.SENTENCE)  # nothing to type for kernel regression, nor for an image model
        if not typed:
            self.decoding_area.setVisible(False)
        # The model's docks before the sentence column comes back: beside a dock kept from the last model (a ViT's
        # wide Image dock) Qt would widen the window, off a 1,024-px screen.
        panels.follow_model(info)
        if typed:
            self.decoding_area.setVisible(True)
        self.decoding_area.follow(info.layout)
        self.exports.flipbook_action.setEnabled(info.offers(Capability.STEPS))
        self.decoding_area.forget_forcing()
        self.setWindowTitle(f"attnviz — {info.label}")
        self.status.model_loaded(state)

    # -- handlers ---------------------------------------------------------------------------
    def _on_export_notified(self, message: str) -> None:
        self.statusBar().showMessage(message, 10000)

    def _on_book_edition_changed(self, edition: str) -> None:
        self.settings.book_edition = edition

    # -- Qt events --------------------------------------------------------------------------
    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        self.placement.shown()

    def childEvent(self, event: QtCore.QChildEvent) -> None:
        """The dock tab bars Qt makes along the window's sides: every name whole, never cut to "Ma…" (at 150 % a
        side's names can be longer than the window is tall: the bar then scrolls, with arrows at its end)."""
        super().childEvent(event)
        if event.type() == QtCore.QEvent.Type.ChildPolished and isinstance(event.child(), QtWidgets.QTabBar):
            bar = event.child()
            assert isinstance(bar, QtWidgets.QTabBar)
            bar.setElideMode(QtCore.Qt.TextElideMode.ElideNone)
            bar.setUsesScrollButtons(True)

    def dragEnterEvent(self, event: QtGui.QDragEnterEvent) -> None:
        self.files.drag_entered(event)

    def dropEvent(self, event: QtGui.QDropEvent) -> None:
        self.files.dropped(event)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        """Extra width (maximising, say) goes to the heatmaps, not to the controls in the centre."""
        super().resizeEvent(event)
        self.lecture.resized()
        if self.panels is not None and event.size().width() > event.oldSize().width():  # (old -1: first show)
            QtCore.QTimer.singleShot(0, self.panels.give_spare_width)  # once the docks are laid out

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        if self.panels is not None:  # a layout saved before the docks exist would lose them
            self.settings.save_window_state(self.saveGeometry(), self.saveState())
        if failed := self.settings.sync():
            log.warning(failed)
        super().closeEvent(event)
