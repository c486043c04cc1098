"""The window's menus, toolbar and actions: File, Decode, Device, View (the lecture view, text size and
presentation mode, the docks, the language) and Help (book figures, keyboard shortcuts, about), with their
shortcuts. Every shortcut with a modifier or a function key acts in the window's text fields too.

The actions only ask: opening files is gui/file_opening.py's, decoding gui/decoding_controls.py's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz import __version__
from attnviz.core.models.kinds import KINDS
from attnviz.gui.decoding_area import BACK_HINT, BACK_KEYS, STEP_HINT, STEP_KEYS, ShortcutPassThrough
from attnviz.gui.decoding_controls import DecodingControls
from attnviz.gui.file_opening import FileOpening
from attnviz.gui.language import LanguageMenu
from attnviz.gui.lecture import LectureView
from attnviz.gui.settings import Settings
from attnviz.gui.text_size import PRESENTATION_SCALE, TEXT_SCALES, apply_text_scale, next_scale, refresh_graphics
from attnviz.i18n import tr
from attnviz.paths import example_sentences, shipped_models
from attnviz.session import Session, SessionState

if TYPE_CHECKING:
    from attnviz.gui.docks import Docks
    from attnviz.gui.export_actions import ExportActions

Shortcut = QtGui.QKeySequence | QtGui.QKeySequence.StandardKey | str | tuple[str, ...]


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


class Menus(QtCore.QObject):
    """Builds ``window``'s menu bar, toolbar and actions (parented to the window, their keys added to it so that
    they work with the menu bar hidden), and its lecture view (View ▸ Lecture view; ``build_docks`` gives it
    the docks). ``files`` and ``decoding`` act on the actions; Help ▸ Book figures and View ▸ Language's
    restart call ``open_book_figures`` and ``restart``."""

    def __init__(self, window: QtWidgets.QMainWindow, settings: Settings, session: Session, files: FileOpening,
                 decoding: DecodingControls, build_docks: Callable[[], Docks],
                 open_book_figures: Callable[[], object], restart: Callable[[], None]):
        super().__init__(window)
        self.window, self.settings, self.session, self.files = window, settings, session, files
        self.shortcut_pass = ShortcutPassThrough(window)  # the window's shortcuts act in its text fields too
        Key = QtGui.QKeySequence.StandardKey
        self.open_action = self._action(tr("&Open checkpoint…"), files.ask_and_open_checkpoint, Key.Open)
        self.save_session_action = self._action(tr("&Save session…"), files.ask_and_save_session, Key.Save,
                                                tr("Save the model, sentence, steps, forced tokens and view as a "
                                                   "small file that brings this view back (Ctrl+S)"))
        self.open_session_action = self._action(tr("Open sess&ion…"), files.ask_and_open_session,
                                                "Ctrl+Shift+O", tr("Bring back a saved session (Ctrl+Shift+O)"))
        self.quit_action = self._action(tr("&Quit"), window.close, Key.Quit)
        self.step_action = self._action(tr("&Step"), decoding.step, STEP_KEYS,
                                        tr("Decode one token ({keys})").format(keys=tr(STEP_HINT)))
        self.back_action = self._action(tr("&Back"), decoding.back, BACK_KEYS,
                                        tr("Back one step ({keys})").format(keys=tr(BACK_HINT)))
        self.run_action = self._action(tr("Run to &end"), decoding.run_to_end, "Ctrl+Return",
                                       tr("Decode to the end (Ctrl+Return)"))
        self.reset_action = self._action(tr("&Reset"), decoding.reset, "Ctrl+R",
                                         tr("Start the decoding again (Ctrl+R)"))
        self.file_menu = window.menuBar().addMenu(tr("&File"))
        self.file_menu.addAction(self.open_action)
        self.open_hf_action = self._action(tr("Open &Hugging Face model…"), files.ask_and_open_hugging_face,
                                           tip=tr("A transformers model folder, or one in your Hugging Face cache"))
        self.file_menu.addAction(self.open_hf_action)
        self.open_image_action = self._action(tr("Open &image…"), files.ask_and_open_image, "Ctrl+I",
                                              tr("An image for the image model on show (Ctrl+I; or drop it on the "
                                                 "window)"))
        self.file_menu.addAction(self.open_image_action)
        self.shipped_menu = self.file_menu.addMenu(tr("Shipped &models"))
        for path in shipped_models():
            about = KINDS.get(path.stem)  # (a shipped file is named for its kind: the registry describes it)
            text = tr("{name} — {about}").format(name=path.stem, about=tr(about.label)) if about else path.stem
            self.shipped_menu.addAction(self._action(text, partial(files.load, path)))
        self.recent_menu = self.file_menu.addMenu(tr("&Recent files"))
        self.recent_menu.aboutToShow.connect(self._on_recent_menu_about_to_show)
        self.file_menu.addSeparator()
        self.file_menu.addActions([self.save_session_action, self.open_session_action])
        self.quit_separator = self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        decode_menu = window.menuBar().addMenu(tr("&Decode"))
        decode_menu.addActions([self.step_action, self.back_action, self.run_action, self.reset_action])
        examples = decode_menu.addMenu(tr("E&xample sentences"))
        for sentence in example_sentences():
            examples.addAction(self._action(sentence, partial(decoding.set_sentence, sentence, True)))
        self.device_menu = window.menuBar().addMenu(tr("Devi&ce"))  # (Alt+V is View's)
        self.device_group = QtGui.QActionGroup(window)
        self.fill_device_menu(("cpu",))  # CUDA and MPS appear once torch has loaded (with the first model)
        self.view_menu = window.menuBar().addMenu(tr("&View"))
        self.lecture = LectureView(window, session, settings, decoding.area, build_docks, self)
        self.view_menu.addAction(self.lecture.action)
        lecture_keys = self.view_menu.addMenu(tr("Lecture view &keys"))
        lecture_keys.addActions(self.lecture.keys)
        self._build_text_size_actions()
        self.view_menu.addSeparator()
        self.language_menu = LanguageMenu(settings.qsettings, restart, window)
        self.view_menu.addMenu(self.language_menu)
        help_menu = window.menuBar().addMenu(tr("&Help"))
        self.book_action = self._action(tr("&Book figures…"), open_book_figures, "F1")
        self.book_action.setToolTip(tr("Every attention figure of d2l.ai's attention chapters and of the "
                                       "Transformer paper, live and exportable (F1)"))
        help_menu.addAction(self.book_action)
        self.user_guide_action = self._action(tr("&User guide…"), self._on_user_guide_triggered)
        self.user_guide_action.setToolTip(tr("The manual, a page per topic, in your web browser (offline)"))
        help_menu.addAction(self.user_guide_action)
        help_menu.addAction(self._action(tr("&Keyboard shortcuts…"), self._on_shortcuts_triggered, "Ctrl+F1"))
        help_menu.addAction(self._action(tr("&About attnviz"), self._on_about_triggered))
        self.toolbar = window.addToolBar(tr("Main"))
        self.toolbar.setObjectName("toolbar_main")
        self.toolbar.addActions([self.open_action, self.back_action, self.step_action, self.run_action])
        window.addActions([self.back_action, self.step_action, self.run_action])  # (their keys work without a toolbar)
        self.pass_shortcuts_through_text_fields()

    def _action(self, text: str, slot: Callable[[], object], shortcut: Shortcut | None = None,
                tip: str | None = None) -> QtGui.QAction:
        """An action; a tuple of shortcuts: the first is the one menus show."""
        action = QtGui.QAction(text, self.window)
        if isinstance(shortcut, tuple):
            action.setShortcuts([QtGui.QKeySequence(key) for key in shortcut])
        elif shortcut is not None:
            action.setShortcut(QtGui.QKeySequence(shortcut))
        if tip is not None:
            action.setToolTip(tip)
        action.triggered.connect(slot)
        if shortcut is not None:
            self.window.addAction(action)  # (its keys work with the menu bar hidden: the lecture view, presentations)
        return action

    def pass_shortcuts_through_text_fields(self) -> None:
        """Every window shortcut with a modifier or a function key acts while a text field or spin box has
        focus; plain → and ← stay the field's (they move its text cursor)."""
        window = self.window
        self.shortcut_pass.pass_shortcuts(sequence for action in window.findChildren(QtGui.QAction)
                                          for sequence in action.shortcuts() if _not_typing(sequence))
        for kind in (QtWidgets.QLineEdit, QtWidgets.QAbstractSpinBox, QtWidgets.QPlainTextEdit):
            for field in window.findChildren(kind):
                field.installEventFilter(self.shortcut_pass)  # (installing twice keeps one)

    def add_docks(self, exports: ExportActions, docks: Iterable[QtWidgets.QDockWidget]) -> None:
        """Once the docks exist: the export actions in File (before Quit), Export in the toolbar, each dock's
        show/hide in View."""
        export_actions = [exports.export_action, exports.export_all_action, exports.flipbook_action,
                          exports.copy_action]
        self.file_menu.insertActions(self.quit_separator, export_actions)
        self.file_menu.insertMenu(self.quit_separator, exports.scale_menu)
        self.file_menu.insertSeparator(export_actions[0])
        self.toolbar.addSeparator()
        self.toolbar.addAction(exports.export_action)
        for dock in docks:
            self.view_menu.addAction(dock.toggleViewAction())

    def enable_actions(self, state: SessionState) -> None:
        """Step, Run to end, Back and Reset act when the session says they can."""
        for action, enabled in ((self.step_action, state.can_step), (self.run_action, state.can_run),
                                (self.back_action, state.can_back), (self.reset_action, state.can_reset)):
            action.setEnabled(enabled)

    # -- View ▸ text size -------------------------------------------------------------------
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
        docks = getattr(self.window, "panels", None)  # (the window's Docks, once built)
        if docks is not None:
            docks.build_all()  # the panels not built yet follow the new size as built ones do
        apply_text_scale(scale)
        refresh_graphics(self.window, hidden_later=True)  # (the plots in hidden docks: in the next turns of the loop)
        self._show_text_scale(scale)
        self.window.statusBar().showMessage(tr("Text size {scale:.0%}").format(scale=scale), 4000)

    def _show_text_scale(self, scale: float) -> None:
        self.presentation_action.setChecked(scale > 1.0)
        self.larger_text_action.setEnabled(scale < TEXT_SCALES[-1])
        self.smaller_text_action.setEnabled(scale > TEXT_SCALES[0])

    def _step_text_scale(self, direction: int) -> None:
        self.set_text_scale(next_scale(self.settings.text_scale, direction))

    def _on_presentation_triggered(self) -> None:
        self.set_text_scale(PRESENTATION_SCALE if self.presentation_action.isChecked() else 1.0)

    # -- Device, Recent files ---------------------------------------------------------------
    def fill_device_menu(self, devices: tuple[str, ...]) -> None:
        """Device: auto and ``devices``, the session's device ticked (choosing one reloads the model there; the
        setting changes only once that has worked)."""
        self.device_menu.clear()
        for action in self.device_group.actions():
            self.device_group.removeAction(action)
        for name in ("auto", *devices):
            action = self._action(tr("auto") if name == "auto" else name, partial(self.session.set_device, name))
            action.setData(name)  # the device's name, whatever the menu shows
            action.setCheckable(True)
            action.setChecked(name == self.session.state.device)
            self.device_group.addAction(action)
            self.device_menu.addAction(action)

    def tick_device(self, device: str) -> None:
        """Tick ``device`` again (a refused device change leaves the old one ticked)."""
        for action in self.device_group.actions():
            action.setChecked(action.data() == device)

    def _on_recent_menu_about_to_show(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.recent_files:
            self.recent_menu.addAction(self._action(path, partial(self.files.load, path)))
        self.recent_menu.setEnabled(bool(self.settings.recent_files))

    # -- Help -------------------------------------------------------------------------------
    def _on_shortcuts_triggered(self) -> None:
        from attnviz.gui.shortcuts_dialog import ShortcutsDialog

        dialog = ShortcutsDialog(self.window.menuBar(), self.window)
        dialog.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()

    def _on_user_guide_triggered(self) -> None:
        from attnviz.gui.user_guide import open_user_guide

        open_user_guide(self.window)

    def _on_about_triggered(self) -> None:
        versions = " · ".join(f"{name} {_package_version(name)}"
                              for name in ("torch", "PySide6-Essentials", "pyqtgraph", "numpy", "safetensors"))
        tagline = tr("See attention: step a decoder and watch its attention.")
        licence = tr("Licence: MIT.")
        data = tr("Translation models are trained on English–French sentence pairs from the Tatoeba Project "
                  "(tatoeba.org, CC-BY 2.0 FR), packaged by manythings.org/anki.")
        QtWidgets.QMessageBox.about(self.window, tr("About attnviz"), (
            f"<h3>attnviz {__version__}</h3><p>{tagline}</p><p>{versions}</p><p>{licence}</p><p>{data}</p>"))
