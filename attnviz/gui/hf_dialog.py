"""File ▸ Open Hugging Face model…: the models already in the local Hugging Face cache, by name, architecture,
size and parameter count, or any model folder on disk. Nothing is downloaded; a cached model attnviz cannot
open is listed greyed, with the reason in its row.

Listing reads each snapshot's ``config.json``, the sizes of its files and its weights' headers
(:func:`attnviz.core.hf.folder.cached_models`), never the weights — on a thread of its own: a cache of many
models, a hostile one or one on a slow disk never holds up the window; the rows appear when it is read
(``listed``), and a dialog closed meanwhile drops them.
"""

from __future__ import annotations

import re
import threading
from concurrent.futures import Future
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.core.hf.folder import HFFolder, cached_models, hub_cache
from attnviz.gui import file_dialogs
from attnviz.gui.screen_fit import open_within_screen
from attnviz.i18n import N_, tr

COLUMNS = (N_("Model"), N_("Architecture"), N_("Parameters (about)"), N_("On disk"))


Row = tuple[HFFolder | None, Path, str, int]  # a cached model: checked folder or None, snapshot, why not, bytes


def _size(folder: HFFolder) -> int:
    """Bytes of the weights and tokenizer files (a cache's links followed to their blobs)."""
    try:
        return sum(path.stat().st_size for path in (*folder.weights, *folder.tokenizer_files))
    except OSError:  # (a file gone since the folder was checked)
        return 0


def human_size(size: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000  # type: ignore[assignment]
    return ""


def human_count(count: int) -> str:
    return f"{count / 1e9:.1f} B" if count >= 1e9 else f"{count / 1e6:.1f} M" if count >= 1e6 else f"{count:,}"


def _listing(cache: Path) -> Future[list[Row]]:
    """:func:`cached_models` of ``cache`` and their sizes, on a thread of its own (the future holds the rows, or
    the error)."""
    future: Future[list[Row]] = Future()

    def work() -> None:
        try:
            found = cached_models(cache) if cache.is_dir() else []
            future.set_result([(folder, path, why, _size(folder) if folder else 0) for folder, path, why in found])
        except Exception as error:  # (shown in the dialog, in words)
            future.set_exception(error)

    threading.Thread(target=work, name="attnviz-hf-cache", daemon=True).start()
    return future


class OpenHuggingFaceDialog(QtWidgets.QDialog):
    """Choose a Hugging Face model: ``chosen`` is its folder once accepted. ``listed``: the cache's rows are in."""

    listed = QtCore.Signal()
    POLL_MS = 30  # how often the GUI thread looks whether the listing is done (the thread never touches Qt)

    def __init__(self, parent: QtWidgets.QWidget | None = None, cache: Path | None = None, start: str = ""):
        super().__init__(parent)
        self.setWindowTitle(tr("Open Hugging Face model"))
        self.chosen: Path | None = None
        self.start = start
        self.cache = cache or hub_cache()
        intro = QtWidgets.QLabel(tr(
            "A model folder on disk (config.json, the weights, the tokenizer's files: what save_pretrained writes), "
            "or a model already in your Hugging Face cache ({cache}). Nothing is downloaded.").format(cache=self.cache))
        intro.setWordWrap(True)
        self.table = QtWidgets.QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([tr(column) for column in COLUMNS])
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        self.table.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QtWidgets.QHeaderView.ResizeMode.Interactive)  # (a reason starts here and
        header.resizeSection(1, 110)  # spans the next columns: it never widens them)
        for column in range(2, len(COLUMNS)):
            header.setSectionResizeMode(column, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.empty = QtWidgets.QLabel()
        self.empty.setWordWrap(True)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        self.folder_button = buttons.addButton(tr("Choose &folder…"), QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        self.open_button = buttons.addButton(tr("&Open"), QtWidgets.QDialogButtonBox.ButtonRole.AcceptRole)
        self.open_button.setEnabled(False)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(QtWidgets.QLabel(tr("In the cache:")))
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty)
        layout.addWidget(buttons)
        buttons.rejected.connect(self.reject)
        self.open_button.clicked.connect(self._on_open_clicked)
        self.folder_button.clicked.connect(self._on_folder_clicked)
        self.table.itemSelectionChanged.connect(self._on_selection_changed)
        self.table.itemDoubleClicked.connect(self._on_open_clicked)
        self.paths: list[Path] = []
        self._listing: Future[list[Row]] | None = None
        self._poll = QtCore.QTimer(self)
        self._poll.setInterval(self.POLL_MS)
        self._poll.timeout.connect(self._on_poll_timeout)
        self.list_cache()
        open_within_screen(self, QtCore.QSize(720, 420))

    def list_cache(self) -> None:
        """(Re)read the cache, off the GUI thread: one row per model, its newest snapshot, once it is read."""
        self.table.setRowCount(0)
        self.paths = []
        self.empty.setText(tr("Reading the models in the cache…"))
        self.empty.setVisible(True)
        self._listing = _listing(self.cache)
        self._poll.start()

    def _on_poll_timeout(self) -> None:
        listing = self._listing
        if listing is None or not listing.done():
            return
        self._poll.stop()
        self._listing = None
        try:
            found = listing.result()
        except Exception as error:
            self.empty.setText(tr("The cache {cache} cannot be read ({error}). Choose a model folder instead.").format(
                cache=self.cache, error=error))
            self.listed.emit()
            return
        self._show(found)
        self.listed.emit()

    def _show(self, found: list[Row]) -> None:
        self.table.setRowCount(len(found))
        self.paths = []
        grey = self.palette().color(QtGui.QPalette.ColorGroup.Disabled, QtGui.QPalette.ColorRole.Text)
        self.table.clearSpans()
        for row, (folder, snapshot, problem, size) in enumerate(found):
            entry = snapshot if snapshot.name.startswith("models--") else snapshot.parent.parent
            name = folder.name if folder else entry.name.removeprefix("models--").replace("--", "/")
            # a model it cannot open: why, in the row (the file's path, which the sentence starts with, as a tip)
            reason = re.split("：|: ", problem or "", maxsplit=1)[-1]  # (a Chinese sentence has a full-width colon)
            cells = (name, folder.architecture.name, human_count(folder.parameters), human_size(size)) \
                if folder else (name, tr("cannot open: {reason}").format(reason=reason), "", "")
            for column, text in enumerate(cells):
                item = QtWidgets.QTableWidgetItem(text)
                item.setToolTip(problem or str(snapshot))
                if folder is None:
                    item.setFlags(item.flags() & ~QtCore.Qt.ItemFlag.ItemIsSelectable)
                    item.setForeground(grey)
                self.table.setItem(row, column, item)
            if folder is None:
                self.table.setSpan(row, 1, 1, len(COLUMNS) - 1)
            self.paths.append(snapshot)
        self.empty.setText("" if found else tr("No models in the cache here. Choose a model folder instead."))
        self.empty.setVisible(not found)

    def _selected_row(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else None

    def _on_selection_changed(self) -> None:
        self.open_button.setEnabled(self._selected_row() is not None)

    def _on_open_clicked(self, *_: object) -> None:
        row = self._selected_row()
        if row is None:
            return
        self.chosen = self.paths[row]
        self.accept()

    def _on_folder_clicked(self) -> None:
        folder = file_dialogs.existing_folder(self, tr("Choose a Hugging Face model folder"), self.start)
        if folder:
            self.chosen = Path(folder)
            self.accept()
