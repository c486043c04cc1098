"""File dialogs that never read the files they list.

Qt's own file dialog asks its icon provider for each file's type and icon on the GUI thread, and the
default provider sniffs the file's first bytes to guess its type: listing ``/proc`` read ``/proc/kmsg``,
which blocks until the kernel logs something, and froze the window for good. Here type and icon come from
the name and the kind of entry only (a platform's native dialog, where one is used, lists files itself).
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.i18n import tr

Kind = QtGui.QAbstractFileIconProvider.IconType


class NameOnlyIconProvider(QtWidgets.QFileIconProvider):
    """Icons and type names from a file's name and kind (folder, file), never from its contents."""

    def __init__(self) -> None:
        super().__init__()
        self._mime = QtCore.QMimeDatabase()

    def icon(self, what):  # (a QFileInfo, or one of the generic kinds)
        if isinstance(what, QtCore.QFileInfo):
            what = Kind.Folder if what.isDir() else Kind.File
        return super().icon(what)

    def type(self, info: QtCore.QFileInfo) -> str:
        if info.isDir():
            return tr("Folder")
        if not info.isFile():
            return tr("Special file")
        mime = self._mime.mimeTypeForFile(info.fileName(), QtCore.QMimeDatabase.MatchMode.MatchExtension)
        return mime.comment() or mime.name()


_PROVIDER = NameOnlyIconProvider()  # (the dialogs keep a pointer to it, not a reference: it must outlive them)


def _dialog(parent: QtWidgets.QWidget | None, caption: str, start: str, filters: str,
            mode: QtWidgets.QFileDialog.FileMode) -> QtWidgets.QFileDialog:
    dialog = QtWidgets.QFileDialog(parent, caption, start, filters)
    dialog.setIconProvider(_PROVIDER)
    dialog.setFileMode(mode)
    return dialog


def _run(dialog: QtWidgets.QFileDialog) -> tuple[str, str]:
    try:
        if dialog.exec() != QtWidgets.QDialog.DialogCode.Accepted or not dialog.selectedFiles():
            return "", ""
        return dialog.selectedFiles()[0], dialog.selectedNameFilter()
    finally:
        dialog.deleteLater()


def save_file_name(parent: QtWidgets.QWidget | None, caption: str, start: str, filters: str) -> tuple[str, str]:
    """As QFileDialog.getSaveFileName, ``start`` a file path: (chosen path or "", chosen filter); it asks
    before replacing a file."""
    folder, _, name = start.rpartition("/")
    dialog = _dialog(parent, caption, folder or start, filters, QtWidgets.QFileDialog.FileMode.AnyFile)
    dialog.setAcceptMode(QtWidgets.QFileDialog.AcceptMode.AcceptSave)
    if folder and name:
        dialog.selectFile(name)
    return _run(dialog)


def open_file_name(parent: QtWidgets.QWidget | None, caption: str, start: str, filters: str) -> tuple[str, str]:
    """As QFileDialog.getOpenFileName: (chosen path or "", chosen filter)."""
    return _run(_dialog(parent, caption, start, filters, QtWidgets.QFileDialog.FileMode.ExistingFile))


def existing_folder(parent: QtWidgets.QWidget | None, caption: str, start: str) -> str:
    """As QFileDialog.getExistingDirectory: the chosen folder or ""."""
    dialog = _dialog(parent, caption, start, "", QtWidgets.QFileDialog.FileMode.Directory)
    dialog.setOption(QtWidgets.QFileDialog.Option.ShowDirsOnly, True)
    return _run(dialog)[0]
