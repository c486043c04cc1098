"""Opening and saving files from the window: a checkpoint (File ▸ Open checkpoint, Shipped models, Recent
files), a Hugging Face model folder, a saved session (File ▸ Save session / Open session), and files dropped
on the window.

A saved session names its checkpoint and that file's SHA-256: once the checkpoint has loaded, the window says
so if the file changed since the session was saved.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.figures.spec import figure_stem_of
from attnviz.gui import errors, file_dialogs
from attnviz.gui.decoding_controls import DecodingControls
from attnviz.gui.settings import Settings
from attnviz.i18n import tr
from attnviz.session import Session, SessionState

log = logging.getLogger(__name__)


class FileOpening(QtCore.QObject):
    """Opens and saves ``window``'s files through ``session``; a saved session's sentence and beam size go to
    ``decoding``; what cannot be done is said through ``error``."""

    def __init__(self, window: QtWidgets.QMainWindow, settings: Settings, session: Session,
                 decoding: DecodingControls, error: Callable[[str], None]):
        super().__init__(window)
        self.window, self.settings, self.session, self.decoding = window, settings, session, decoding
        self.error = error
        self._pending_digest: tuple[str, Path] | None = None  # a saved session's checkpoint SHA-256, to compare

    @property
    def session_opening(self) -> bool:
        """A saved session is being opened (its checkpoint not yet loaded and compared)."""
        return self._pending_digest is not None

    # -- checkpoints --------------------------------------------------------------------------
    def load(self, path: str | Path, fall_back: bool = False) -> None:
        """Load a checkpoint in the background; fall_back: use another device if the chosen one is missing."""
        self._pending_digest = None  # a session being opened is abandoned
        self.session.load(path, fall_back=fall_back)

    def ask_and_open_checkpoint(self) -> None:
        start = str(Path(self.settings.last_checkpoint).parent) if self.settings.last_checkpoint else ""
        path, _ = file_dialogs.open_file_name(self.window, tr("Open checkpoint"), start,
                                              tr("attnviz checkpoints (*.safetensors);;All files (*)"))
        if path:
            self.load(path)

    def ask_and_open_hugging_face(self) -> None:
        from attnviz.gui.hf_dialog import OpenHuggingFaceDialog

        start = str(Path(self.settings.last_checkpoint).parent) if self.settings.last_checkpoint else ""
        dialog = OpenHuggingFaceDialog(self.window, start=start)
        if "transformers" not in sys.modules:
            self.session.prepare_hugging_face()  # (imported on the worker while the user chooses)
        try:
            if dialog.exec() == QtWidgets.QDialog.DialogCode.Accepted and dialog.chosen is not None:
                self.load(dialog.chosen)
        finally:
            dialog.deleteLater()

    # -- images -------------------------------------------------------------------------------
    def ask_and_open_image(self) -> None:
        """File ▸ Open image…: an image for the image model on show, from the folder of the last one."""
        last = self.session.image_path
        start = str(last.parent) if last is not None and last.parent.is_dir() else str(Path.home())
        path, _ = file_dialogs.open_file_name(self.window, tr("Open image"), start,
                                              tr("Images (*.png *.jpg *.jpeg *.webp *.bmp *.gif);;All files (*)"))
        if path:
            self.session.open_image(path)

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
            self.window.statusBar().showMessage(tr("Saved the session to {path}").format(path=written), 10000)
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
            if not errors.ask(self.window, tr("{where}.\n\nOpen the session with that checkpoint?").format(
                    where=f"{where[:1].upper()}{where[1:]}")):
                return False
            checkpoint = outside.path
        except (SessionFileError, OSError) as error:
            self.error(tr("Could not open the session: {error}").format(error=error))
            return False
        self.decoding.show_saved(saved.sentence, saved.beam_size)
        self.window.statusBar().showMessage(tr("Opening the session {name}…").format(name=Path(path).name), 8000)
        self.session.restore(saved, checkpoint)
        self._pending_digest = (saved.checkpoint_sha256, checkpoint)  # checked once its model is the one loaded
        self.check_session_digest(self.session.state)
        return True

    def check_session_digest(self, state: SessionState) -> None:
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

    def ask_and_save_session(self) -> None:
        path, _ = file_dialogs.save_file_name(self.window, tr("Save session"), self._session_start_path(),
                                              tr("attnviz sessions (*.attnviz.json *.json)"))
        if path:
            self.save_session(path)

    def ask_and_open_session(self) -> None:
        start = self.settings.export_dir or str(Path.home())
        path, _ = file_dialogs.open_file_name(self.window, tr("Open session"), start,
                                              tr("attnviz sessions (*.attnviz.json *.json);;All files (*)"))
        if path:
            self.open_session(path)

    # -- drag and drop ----------------------------------------------------------------------
    def drag_entered(self, event: QtGui.QDragEnterEvent) -> None:
        """The window's drag-enter event: local files are welcome."""
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropped(self, event: QtGui.QDropEvent) -> None:
        """The window's drop event: a session file (.json) is opened as a session, an image (by its suffix) with the
        image model on show, anything else as a checkpoint."""
        from attnviz.core.images import IMAGE_SUFFIXES

        files = [url.toLocalFile() for url in event.mimeData().urls() if url.isLocalFile()]
        if files:
            if files[0].lower().endswith(".json"):
                self.open_session(files[0])
            elif Path(files[0]).suffix.lower() in IMAGE_SUFFIXES:
                self.session.open_image(files[0])
            else:
                self.load(files[0])
            event.acceptProposedAction()
