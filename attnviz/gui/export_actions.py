"""The window's export actions: one heatmap to a file or the clipboard, or every map to a folder."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.core.layout import Capability
from attnviz.core.results import DecodeStep
from attnviz.figures.attention import AttentionView, attention_figures, attention_sidecar, flipbook_figures
from attnviz.figures.panels import kernel_figures, kernel_sidecar
from attnviz.figures.spec import NamedFigure
from attnviz.gui import file_dialogs
from attnviz.gui.settings import Settings
from attnviz.i18n import N_, tr
from attnviz.render.figure_files import (
    FORMATS,
    ExportError,
    WouldReplace,
    figure_bytes,
    render_batch,
    save_bytes,
    write_files_into,
)
from attnviz.render.pictures import copy_to_clipboard
from attnviz.session import Session

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")
SCALES = (1.0, 2.0, 3.0, 4.0)  # PNG (and clipboard) resolution: 2× suits slides, 4× print
FILTERS = {  # (shown through tr(): see filters())
    "png": N_("PNG image (*.png)"), "svg": N_("SVG vector image (*.svg)"), "pdf": N_("PDF document (*.pdf)"),
    "csv": N_("CSV numbers (*.csv)"), "npy": N_("NumPy array (*.npy)"),
}
FRAMES = {"steps": N_("{count} steps"), "snapshots": N_("{count} snapshots")}  # what a flip-book's frames are
MNEMONIC = re.compile(r"\(&\w\)")  # a translation's mnemonic, "导出(&E)"


def filters() -> dict[str, str]:
    """The save dialog's file type filters, by format, in the interface's language."""
    return {fmt: tr(text) for fmt, text in FILTERS.items()}


def frames_text(count: int, what: str) -> str:
    """``count`` frames of kind ``what`` ("12 steps"; a ``what`` not in FRAMES is shown as it is)."""
    return tr(FRAMES[what]).format(count=count) if what in FRAMES else f"{count} {what}"


class ExportAllDialog(QtWidgets.QDialog):
    """Choose a folder, the formats, the PNG scale and which steps to export."""

    def __init__(self, parent: QtWidgets.QWidget, settings: Settings, has_steps: bool):
        super().__init__(parent)
        self.setWindowTitle(tr("Export all attention maps"))
        self.folder = QtWidgets.QLineEdit(settings.export_dir or str(Path.home()))
        browse = QtWidgets.QPushButton(tr("Browse…"))
        browse.clicked.connect(self._on_browse_clicked)
        self.format_boxes = {fmt: QtWidgets.QCheckBox(fmt.upper()) for fmt in FORMATS}
        for fmt, box in self.format_boxes.items():
            box.setChecked(fmt in settings.export_formats)
        self.scale = QtWidgets.QDoubleSpinBox()
        self.scale.setRange(0.5, 8.0)
        self.scale.setSingleStep(0.5)
        self.scale.setSuffix("×")
        self.scale.setValue(settings.export_scale)
        self.all_steps = QtWidgets.QCheckBox(tr("Every recorded step (not only the one on show)"))
        self.all_steps.setEnabled(has_steps)
        folder_row = QtWidgets.QHBoxLayout()
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(browse)
        format_row = QtWidgets.QHBoxLayout()
        for box in self.format_boxes.values():
            format_row.addWidget(box)
        form = QtWidgets.QFormLayout(self)
        form.addRow(tr("Folder"), folder_row)
        form.addRow(tr("Formats"), format_row)
        form.addRow(tr("PNG scale"), self.scale)
        form.addRow("", self.all_steps)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Ok
                                             | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def formats(self) -> list[str]:
        return [fmt for fmt, box in self.format_boxes.items() if box.isChecked()]

    def _on_browse_clicked(self) -> None:
        folder = file_dialogs.existing_folder(self, tr("Export into folder"), self.folder.text())
        if folder:
            self.folder.setText(folder)


class _ProgressRelay(QtCore.QObject):
    """Carries a job's progress (done, total) from the thread it runs on to a progress dialog."""

    moved = QtCore.Signal(int, int)

    def __init__(self, dialog: QtWidgets.QProgressDialog):
        super().__init__(dialog)  # (goes with the dialog: late progress is then dropped)
        self.dialog = dialog
        self.moved.connect(self._on_moved)

    def _on_moved(self, done: int, total: int) -> None:
        self.dialog.setMaximum(total)
        self.dialog.setValue(min(done, total))


class _ProgressJob:
    """A file job's progress dialog with Cancel, made on the GUI thread: :meth:`_open` shows it (after a moment)
    and gives the job its progress callback; :meth:`finish` closes it when the job's result came back."""

    dialog: QtWidgets.QProgressDialog | None = None

    def _open(self, window: QtWidgets.QWidget, text: str, title: str) -> Callable[[int, int], bool]:
        """Show the progress dialog (after a moment); the returned callback, safe on any thread, reports
        progress and answers False once Cancel was pressed."""
        dialog = self.dialog = QtWidgets.QProgressDialog(text, tr("Cancel"), 0, 0, window)
        dialog.setWindowTitle(title)
        dialog.setMinimumDuration(400)  # only long exports show it
        cancelled = threading.Event()
        dialog.canceled.connect(cancelled.set)
        relay = _ProgressRelay(dialog)

        def progress(done: int, total: int) -> bool:
            relay.moved.emit(done, total)
            return not cancelled.is_set()

        return progress

    def finish(self) -> None:
        """Close the progress dialog (on the GUI thread, when the job's result came back)."""
        if self.dialog is not None:
            self.dialog.reset()
            self.dialog.deleteLater()
            self.dialog = None


class FlipbookJob(_ProgressJob):
    """One flip-book export: the figures, the two paths, the GIF's scale; a progress dialog with Cancel
    while it runs (its Cancel stops the job between two frames, and nothing is left on disk)."""

    def __init__(self, window: QtWidgets.QWidget, figures: list, pdf: Path, gif: Path, scale: float, title: str,
                 what: str = "steps"):
        self.window, self.figures, self.pdf, self.gif, self.scale, self.title = window, figures, pdf, gif, scale, title
        self.what = what  # what a frame is: a decoding's "steps", a training's "snapshots"

    def start(self) -> Callable[[int, int], bool]:
        """Show the progress dialog (after a moment); the returned callback, safe on any thread, reports
        progress and answers False once Cancel was pressed."""
        text = tr("Drawing the flip-book ({frames})…").format(frames=frames_text(len(self.figures), self.what))
        return self._open(self.window, text, tr("Export flip-book"))

    def write(self, replace: bool, progress: Callable[[int, int], bool]) -> list[Path]:
        """Draw and write both files (the file job's work, off the GUI thread)."""
        from attnviz.render.flipbook import write_flipbook

        return write_flipbook(self.figures, self.pdf, self.gif, scale=self.scale, force=replace, title=self.title,
                              progress=progress)


class ExportAllJob(_ProgressJob):
    """One Export all's drawing: ``make`` gives the figures and the sidecar (called on the file job's thread,
    with the numbers of a frozen state), every figure is encoded in every format in memory; a progress dialog
    with Cancel while it runs (its Cancel stops the job between two files; nothing is on disk yet)."""

    def __init__(self, window: QtWidgets.QWidget, make: Callable[[], tuple[list[NamedFigure], dict[str, Any]]],
                 formats: list[str], scale: float):
        self.window, self.make, self.formats, self.scale = window, make, formats, scale

    def start(self) -> Callable[[int, int], bool]:
        return self._open(self.window, tr("Drawing attention maps…"), tr("Export all"))

    def render(self, progress: Callable[[int, int], bool]) -> dict[str, bytes]:
        """The figures, and every file encoded (name -> bytes, sidecar last): the file job's work, off the GUI
        thread (QImage, QSvgGenerator, QPdfWriter: no QPixmap, no widget). Cancel: ExportCancelled."""
        figures, sidecar = self.make()
        return render_batch(figures, self.formats, self.scale, sidecar, progress)


class ExportActions(QtCore.QObject):
    """Owns the Export, Export all and Copy actions; reports results through ``notify``/``fail``.

    current_figure() gives the figure on show and its file stem; view() the Attention panel's choices,
    which Export all applies to every map (scores or weights, masked cells marked or not).
    """

    def __init__(self, window: QtWidgets.QWidget, settings: Settings, session: Session,
                 current_figure: Callable[[], NamedFigure | None], view: Callable[[], AttentionView],
                 notify: Callable[[str], None], fail: Callable[[str], None]):
        super().__init__(window)
        self.window, self.settings, self.session = window, settings, session
        self.current_figure, self.view = current_figure, view
        self.notify, self.fail = notify, fail
        self.export_action = self._action(tr("&Export heatmap…"), self._on_export_triggered, "Ctrl+E")
        self.export_all_action = self._action(tr("Export &all maps…"), self._on_export_all_triggered, "Ctrl+Shift+E")
        self.copy_action = self._action(tr("&Copy heatmap"), self._on_copy_triggered, "Ctrl+Shift+C")
        self.flipbook_action = self._action(tr("Export &flip-book…"), self._on_flipbook_triggered, "Ctrl+Shift+F")
        self.scale_menu = QtWidgets.QMenu(tr("PNG &scale"), window)
        self.scale_group = QtGui.QActionGroup(window)
        for scale in SCALES:
            action = self.scale_menu.addAction(f"{scale:g}×")
            action.setCheckable(True)
            action.setChecked(abs(scale - settings.export_scale) < 1e-6)
            action.triggered.connect(lambda _checked=False, value=scale: self._on_scale_chosen(value))
            self.scale_group.addAction(action)

    def _action(self, text: str, slot: Callable[[], None], shortcut: str) -> QtGui.QAction:
        action = QtGui.QAction(text, self.window)
        action.setShortcut(QtGui.QKeySequence(shortcut))
        action.setToolTip(f"{MNEMONIC.sub('', text).replace('&', '').rstrip('…')} ({shortcut})")
        action.triggered.connect(slot)
        return action

    # -- requests (also used by tests and by each heatmap's context menu) -------------------
    # One heatmap (Export, Copy) is still drawn and encoded here; Export all's maps and a flip-book's frames
    # are drawn by a file job (QImage, QSvgGenerator, QPdfWriter: safe off the GUI thread). Files are written
    # off the GUI thread (Session.file_job), where a slow or hung disk cannot freeze the window. Each request
    # returns what was written when the write finished at once (an inline runner: tests), else None or [] and
    # the result comes as a message.
    def _write(self, what: str, job: Callable[[], T], done: Callable[[T], R]) -> R | None:
        """Run ``job`` off the GUI thread; ``done`` handles its result, failures are shown (WouldReplace as
        well: callers that ask first catch it in ``job``'s place, see :meth:`_write_asking`)."""
        outcome: list[R | None] = []

        def failed(error: BaseException) -> None:
            self._failed(error)
            outcome.append(None)

        self.session.file_job(what, job, lambda value: outcome.append(done(value)), failed)
        return outcome[0] if outcome else None

    def _write_asking(self, what: str, job: Callable[[bool], T], done: Callable[[T], R], where: Path) -> R | None:
        """As :meth:`_write`, ``job(replace)`` raising WouldReplace when it would replace files: the user is
        asked, and if they agree it runs again with ``replace=True``."""
        outcome: list[R | None] = []

        def failed(error: BaseException) -> None:
            if isinstance(error, WouldReplace) and self._agree_to_replace(error.paths, where):
                outcome.append(self._write(what, lambda: job(True), done))
            elif not isinstance(error, WouldReplace):
                self._failed(error)

        self.session.file_job(what, lambda: job(False), lambda value: outcome.append(done(value)), failed)
        return outcome[0] if outcome else None

    def _failed(self, error: BaseException) -> None:
        if isinstance(error, ExportError):
            self.fail(str(error))
        else:  # (the writers turn OSErrors into ExportErrors: this is a bug)
            log.error("writing a file failed", exc_info=error)
            self.fail(tr("Could not write the file: {kind}: {error}").format(kind=type(error).__name__, error=error))

    def export_figure(self, figure: NamedFigure | None, path: str | Path, ask_to_replace: bool = False) -> Path | None:
        """Write one figure (format from the suffix); returns the path, or None after showing why not (or while
        it is being written). ask_to_replace: ask before replacing a file of that name."""
        if figure is None:
            self.fail(tr("There is nothing to export yet."))
            return None
        target = Path(path)
        try:
            data = figure_bytes(figure.spec, target, self.settings.export_scale)
        except ExportError as error:
            self.fail(str(error))
            return None

        def done(written: Path) -> Path:
            self.settings.export_dir = str(written.parent)
            self.notify(tr("Exported {path}").format(path=written))
            return written

        what = tr("Writing {name}…").format(name=target.name)
        if ask_to_replace:
            return self._write_asking(what, lambda replace: save_bytes(target, data, replace), done, target.parent)
        return self._write(what, lambda: save_bytes(target, data), done)

    def export_all(self, folder: str | Path, formats: list[str], all_steps: bool = False) -> list[Path]:
        """Every kind × layer × head of the current sentence (at the step on show, or every step).

        The figures are made and encoded by a file job (a progress dialog with Cancel), then written by a second
        one into a hidden folder beside the files and moved in at once, so the GUI thread only starts them;
        returns the paths when both finished at once (an inline runner), else [] and the result comes as a
        message."""
        typed = str(folder).strip()
        folder = Path(typed).expanduser()
        if not typed or not folder.is_absolute():  # relative: it would land wherever the app was started
            self.fail(tr("Choose a full folder path to export into (got {folder!r}).").format(folder=typed))
            return []
        state = self.session.state
        source, model, kernel = state.shown_source, state.model, state.kernel
        if not formats:
            self.fail(tr("Choose at least one format to export."))
            return []
        make: Callable[[], tuple[list[NamedFigure], dict[str, Any]]]
        if model is not None and kernel is not None and model.offers(Capability.KERNEL):
            checkpoint, kind = model.path, model.kind

            def make() -> tuple[list[NamedFigure], dict[str, Any]]:
                return kernel_figures(kernel), kernel_sidecar(kernel, checkpoint, kind)
        elif source is None or model is None:
            self.fail(tr("There is nothing to export yet: type a sentence first."))
            return []
        else:
            steps: list[DecodeStep | None] = list(state.steps) if all_steps and state.steps else [state.step]
            view, name, kind, device = self.view(), model.name, model.kind, model.device
            where = str(model.path)

            def make() -> tuple[list[NamedFigure], dict[str, Any]]:
                figures = attention_figures(source, steps, view, name)
                if not figures:  # an RNN model before its first step has no map yet
                    raise ExportError(tr("There is nothing to export yet: step the decoder first."))
                return figures, attention_sidecar(source, steps, view, name, kind, where, device)

        job = ExportAllJob(self.window, make, list(formats), self.settings.export_scale)
        target = folder
        outcome: list[list[Path]] = []

        def done(written: list[Path]) -> list[Path]:
            self.settings.export_dir = str(target)
            self.settings.export_formats = formats
            self.notify(tr("Exported {count} files and {name} into {folder}").format(
                count=len(written) - 1, name=written[-1].name, folder=target))
            return written

        def rendered(files: dict[str, bytes]) -> None:
            job.finish()
            what = tr("Writing {count} files into {folder}…").format(count=len(files), folder=target.name)
            outcome.append(self._write_asking(what, lambda replace: write_files_into(target, files, replace), done,
                                              target) or [])

        def failed(error: BaseException) -> None:  # (ExportCancelled too: "Export cancelled: nothing was written.")
            job.finish()
            self._failed(error)

        progress = job.start()
        self.session.file_job(tr("Drawing attention maps…"), lambda: job.render(progress), rendered, failed)
        return outcome[0] if outcome else []

    def _agree_to_replace(self, paths: list[Path], where: Path) -> bool:
        """Ask before replacing files the user already has."""
        shown = "\n".join(path.name for path in paths[:5]) + ("\n…" if len(paths) > 5 else "")
        text = tr("{count} file(s) in {folder} already exist and would be replaced:\n\n{names}").format(
            count=len(paths), folder=where, names=shown)
        box = QtWidgets.QMessageBox(QtWidgets.QMessageBox.Icon.Question, tr("Replace files?"), text,
                                    QtWidgets.QMessageBox.StandardButton.Cancel, self.window)
        box.setTextFormat(QtCore.Qt.TextFormat.PlainText)  # names are shown as typed, never as rich text
        replace = box.addButton(tr("Replace"), QtWidgets.QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QtWidgets.QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is replace

    def copy(self, figure: NamedFigure | None) -> None:
        if figure is None:
            self.fail(tr("There is nothing to copy yet."))
            return
        try:
            copy_to_clipboard(figure.spec, self.settings.export_scale)
        except ExportError as error:
            self.fail(str(error))
            return
        self.notify(tr("Copied the heatmap to the clipboard"))

    def ask_and_export(self, figure: NamedFigure | None) -> None:
        """Ask for a file name (its type picks the format), then export."""
        if figure is None or figure.spec.values.size == 0:
            self.fail(tr("There is nothing to export yet: the heatmap is empty."))
            return
        start = Path(self.settings.export_dir or Path.home()) / f"{figure.stem or 'attention'}.png"
        shown = filters()
        path, chosen = file_dialogs.save_file_name(self.window, tr("Export heatmap"), str(start),
                                                   ";;".join(shown.values()))
        if not path:
            return
        suffixed = not Path(path).suffix  # no suffix typed: take the chosen filter's (the dialog did not ask)
        if suffixed:
            path += "." + next((fmt for fmt, text in shown.items() if text == chosen), "png")
        self.export_figure(figure, path, ask_to_replace=suffixed)

    def export_flipbook(self, path: str | Path) -> list[Path]:
        """The decoding so far as a flip-book of the Attention panel's view: ``path`` as a PDF with a page
        per step and an animated GIF of the same name beside it. Drawn and written off the GUI thread (a
        file job: the busy indicator, and a progress dialog with Cancel); returns the paths when the job
        finished at once (an inline runner), else [] and the result comes as a message."""
        state = self.session.state
        source, model = state.shown_source, state.model
        if source is None or model is None or not state.steps:
            self.fail(tr("There is nothing to make a flip-book of yet: decode a sentence first."))
            return []
        view, name = self.view(), model.name
        figures = flipbook_figures(source, state.steps, view, name)
        title = tr("attnviz flip-book: {model} · {sentence}").format(model=name, sentence=source.text)
        return self.export_frames(path, figures, title, "steps")

    def export_frames(self, path: str | Path, figures: list, title: str, what: str) -> list[Path]:
        """``figures`` as a flip-book (a PDF page and a GIF frame each; ``what`` they are: "steps",
        "snapshots"), written as :meth:`export_flipbook` writes the decoding's."""
        from attnviz.render.flipbook import gif_scale, scale_notice

        pdf, gif = Path(path).with_suffix(".pdf"), Path(path).with_suffix(".gif")
        try:  # (figure sizes only: the frames are drawn by the job)
            fitted = gif_scale(figures, self.settings.export_scale)
        except ExportError as error:
            self.fail(str(error))
            return []
        notice = scale_notice(figures, self.settings.export_scale, fitted)
        outcome: list[list[Path]] = []

        def done(written: list[Path]) -> None:
            self.settings.export_dir = str(pdf.parent)
            names = [p.name for p in written]
            files = tr("{first} and {second}").format(first=names[0], second=names[1]) if len(names) == 2 \
                else " and ".join(names)
            message = tr("Exported the flip-book ({frames}): {files}. {notice}") if notice \
                else tr("Exported the flip-book ({frames}): {files}")
            self.notify(message.format(frames=frames_text(len(figures), what), files=files, notice=notice))
            outcome.append(written)

        job = FlipbookJob(self.window, figures, pdf, gif, fitted, title, what)
        self._run_flipbook(job, False, done)
        return outcome[0] if outcome else []

    def _run_flipbook(self, job: FlipbookJob, replace: bool, done: Callable[[list[Path]], None]) -> None:
        """Run ``job`` as a file job; when it would replace files, ask, and run it again if the user agrees."""
        from attnviz.render.flipbook import Cancelled

        progress = job.start()

        def failed(error: BaseException) -> None:
            job.finish()
            if isinstance(error, WouldReplace) and not replace:
                if self._agree_to_replace(error.paths, job.pdf.parent):
                    self._run_flipbook(job, True, done)
            elif isinstance(error, Cancelled):
                self.notify(str(error))
            else:
                self._failed(error)

        def finished(written: list[Path]) -> None:
            job.finish()
            done(written)

        self.session.file_job(tr("Drawing {name}…").format(name=job.pdf.name), lambda: job.write(replace, progress),
                              finished, failed)

    # -- handlers ---------------------------------------------------------------------------
    def _on_flipbook_triggered(self) -> None:
        current = self.current_figure()
        stem = current.stem if current is not None and current.stem else "attention"
        start = Path(self.settings.export_dir or Path.home()) / f"{stem.split('_step')[0]}_flipbook.pdf"
        path, _chosen = file_dialogs.save_file_name(self.window, tr("Export flip-book"), str(start),
                                                    tr("PDF, a page per step, with an animated GIF beside it (*.pdf)"))
        if path:
            self.export_flipbook(path)

    def _on_export_triggered(self) -> None:
        self.ask_and_export(self.current_figure())

    def _on_export_all_triggered(self) -> None:
        dialog = ExportAllDialog(self.window, self.settings, has_steps=len(self.session.state.steps) > 1)
        if dialog.exec() == QtWidgets.QDialog.DialogCode.Accepted:
            self.settings.export_scale = dialog.scale.value()
            for action in self.scale_group.actions():
                action.setChecked(action.text() == f"{dialog.scale.value():g}×")
            self.export_all(dialog.folder.text(), dialog.formats(), dialog.all_steps.isChecked())

    def _on_scale_chosen(self, scale: float) -> None:
        self.settings.export_scale = scale
        self.notify(tr("PNG exports and copies are now drawn at {scale:g}× the figure's base size").format(scale=scale))

    def _on_copy_triggered(self) -> None:
        self.copy(self.current_figure())
