"""Help ▸ Keyboard shortcuts: every key of the window, read from its menus (so the list cannot go stale)."""

from __future__ import annotations

import re

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.i18n import tr


def _plain(text: str) -> str:
    """A menu text without its mnemonic marks ("&Step" -> "Step", "单步(&S)" -> "单步", "&&" -> "&")."""
    text = re.sub(r"[(（]&[^&\s][)）]", "", text)
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def shortcut_rows(menu_bar: QtWidgets.QMenuBar) -> list[tuple[str, str, str]]:
    """(menu path, action, its keys) for every action of the menus that has a key, in menu order."""
    rows: list[tuple[str, str, str]] = []

    def walk(menu: QtWidgets.QMenu, path: str) -> None:
        for action in menu.actions():
            if action.menu() is not None:
                walk(action.menu(), f"{path} ▸ {_plain(action.text())}")  # type: ignore[arg-type]
            elif action.shortcuts():
                keys = ", ".join(key.toString(QtGui.QKeySequence.SequenceFormat.NativeText)
                                 for key in action.shortcuts())
                rows.append((path, _plain(action.text()), keys))

    for action in menu_bar.actions():
        if action.menu() is not None:
            walk(action.menu(), _plain(action.text()))  # type: ignore[arg-type]
    return rows


class ShortcutsDialog(QtWidgets.QDialog):
    """A table of :func:`shortcut_rows`, with the keys that are not a menu's."""

    def __init__(self, menu_bar: QtWidgets.QMenuBar, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(tr("Keyboard shortcuts"))
        rows = shortcut_rows(menu_bar)
        self.table = QtWidgets.QTableWidget(len(rows), 3)
        self.table.setHorizontalHeaderLabels([tr("Menu"), tr("Command"), tr("Keys")])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        for row, texts in enumerate(rows):
            for column, text in enumerate(texts):
                self.table.setItem(row, column, QtWidgets.QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        note = QtWidgets.QLabel(tr("→ and ← step only where the focus is not in a text field; the lecture view's "
                                   "keys act only in the lecture view. A click on a heatmap row shows how that "
                                   "query's weights are computed."))
        note.setWordWrap(True)
        close = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(note)
        layout.addWidget(close)
        self.resize(QtCore.QSize(640, 520).boundedTo(parent.size() if parent is not None else QtCore.QSize(640, 520)))
