"""The window's status bar: a message too long for the room left of the permanent labels ends in "…"
(Qt clips it mid-word), and the whole text is the bar's tooltip; it is cut again when the window resizes."""

from __future__ import annotations

import time

from PySide6 import QtCore, QtGui, QtWidgets


class ElidingStatusBar(QtWidgets.QStatusBar):
    """QStatusBar whose ``showMessage`` cuts a long message with "…" (full_message keeps it whole)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.full_message = ""  # the message as it was given, before any cut
        self._shown = ""  # what showMessage last put up (to tell it from a later clear or timeout)
        self._until: float | None = None  # time.monotonic() when it goes away (None: it stays)
        self.messageChanged.connect(self._on_message_changed)

    def showMessage(self, text: str, timeout: int | None = 0) -> None:
        self.full_message = text
        self._until = time.monotonic() + timeout / 1000 if timeout else None
        self._shown = self._cut(text)
        self.setToolTip(text if self._shown != text else "")
        super().showMessage(self._shown, timeout or 0)

    def room(self) -> int:
        """The width the message may take: the bar less its visible permanent widgets, by their size hints
        (their positions are not laid out yet when a message comes with the change that showed them)."""
        taken = 18  # QStatusBar's margins around the message
        for child in self.findChildren(QtWidgets.QWidget, options=QtCore.Qt.FindChildOption.FindDirectChildrenOnly):
            if child.isVisibleTo(self):  # the permanent labels and the size grip
                taken += max(child.sizeHint().width(), child.minimumWidth()) + 6
        return max(self.width() - taken, 0)

    def _cut(self, text: str) -> str:
        return QtGui.QFontMetrics(self.font()).elidedText(text, QtCore.Qt.TextElideMode.ElideRight, self.room())

    def _on_message_changed(self, text: str) -> None:
        if text != self._shown:  # cleared, timed out or replaced by Qt itself (e.g. a menu's status tip)
            self.full_message = self._shown = ""
            self.setToolTip("")

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.full_message and self.currentMessage() == self._shown:
            left = 0 if self._until is None else max(1, round((self._until - time.monotonic()) * 1000))
            self._shown = self._cut(self.full_message)
            super().showMessage(self._shown, left)
