"""Windows and dialogs that fit the screen they open on, their window manager's frame included.

A window's size is its inside; the title bar and borders the window manager adds are known only once it has
framed the window. Before that, :func:`size_within_screen` keeps FRAME_ALLOWANCE free for them; after it,
:func:`fit_frame_into_screen` shrinks and moves the window so that its frame fits as well (a 1024×768 screen
otherwise loses the window's status bar, or a dialog's close button, off its edges). :class:`FirstPlacement`
sizes and places the main window on its first start."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

FRAME_ALLOWANCE = QtCore.QSize(16, 48)  # px kept free for a frame not drawn yet (borders; title bar and borders)


def _screen_of(widget: QtWidgets.QWidget) -> QtGui.QScreen | None:
    parent = widget.parentWidget()
    return ((parent.screen() if parent is not None else None) or widget.screen()
            or QtGui.QGuiApplication.primaryScreen())


def size_within_screen(widget: QtWidgets.QWidget, wanted: QtCore.QSize) -> QtCore.QSize:
    """``wanted``, made no larger than the available screen (the parent's, else the widget's) less
    FRAME_ALLOWANCE, and no smaller than the widget's minimum size."""
    screen = _screen_of(widget)
    if screen is None:
        return wanted
    room = screen.availableGeometry().size() - FRAME_ALLOWANCE
    return wanted.boundedTo(room).expandedTo(widget.minimumSize())


def open_within_screen(dialog: QtWidgets.QWidget, wanted: QtCore.QSize) -> None:
    """Size ``dialog`` to ``wanted`` within the screen and centre it over its parent, inside the screen."""
    size = size_within_screen(dialog, wanted)
    dialog.resize(size)
    screen, parent = _screen_of(dialog), dialog.parentWidget()
    if screen is None:
        return
    room = screen.availableGeometry()
    centre = parent.frameGeometry().center() if parent is not None else room.center()
    outer = size + FRAME_ALLOWANCE
    left = min(max(centre.x() - outer.width() // 2, room.x()), room.right() + 1 - outer.width())
    top = min(max(centre.y() - outer.height() // 2, room.y()), room.bottom() + 1 - outer.height())
    dialog.move(max(left, room.x()), max(top, room.y()))


def fit_frame_into_screen(window: QtWidgets.QWidget) -> bool:
    """Shrink and move the framed ``window`` so that its frame fits the available screen. False when the window
    is not framed yet (or the platform draws no frames: offscreen), so that nothing could be done."""
    frame, inner = window.frameGeometry(), window.geometry()
    if frame == inner:
        return False
    screen = window.screen() or QtGui.QGuiApplication.primaryScreen()
    if screen is None:
        return True
    room = screen.availableGeometry()
    extra_width, extra_height = frame.width() - inner.width(), frame.height() - inner.height()
    width = min(inner.width(), room.width() - extra_width)
    height = min(inner.height(), room.height() - extra_height)
    if (width, height) != (inner.width(), inner.height()):
        window.resize(width, height)
    left = min(max(frame.x(), room.x()), room.right() + 1 - (width + extra_width))
    top = min(max(frame.y(), room.y()), room.bottom() + 1 - (height + extra_height))
    if (left, top) != (frame.x(), frame.y()):
        window.move(left, top)  # (move() places the frame's corner)
    return True


DEFAULT_SIZE = (1280, 800)  # the first window, where the screen has room for it
LARGEST_FIRST_SIZE = (1680, 1050)
FRAME_FIT_TRIES, FRAME_FIT_WAIT_MS = 20, 50  # first start: look for the window manager's frame this often


class FirstPlacement:
    """A main window's size and place on its first start (no saved geometry, or one that no longer restores):
    1280×800 where the screen has room (more on a big screen, up to 1680×1050), the whole available screen on a
    small one, centred; once the window manager has framed it, the frame is fitted into the screen too.

    restored: the window's saved geometry was restored (then nothing is done)."""

    def __init__(self, window: QtWidgets.QWidget, restored: bool):
        self.window = window
        self._fits_pending = 0  # tries left to fit the framed window (frame included) into the screen
        if not restored:
            self._fit_to_screen()
            self._fits_pending = FRAME_FIT_TRIES
        self._first_size = window.size()  # (resized by someone else before it is framed: their size stays)

    def _fit_to_screen(self) -> None:
        window = self.window
        screen = window.screen() or QtGui.QGuiApplication.primaryScreen()
        if screen is None:
            window.resize(*DEFAULT_SIZE)
            return
        room = screen.availableGeometry()
        width = min(max(DEFAULT_SIZE[0], int(room.width() * 0.8)), LARGEST_FIRST_SIZE[0], room.width())
        height = min(max(DEFAULT_SIZE[1], int(room.height() * 0.8)), LARGEST_FIRST_SIZE[1], room.height())
        window.resize(width, height)
        window.move(room.x() + (room.width() - width) // 2, room.y() + (room.height() - height) // 2)

    def shown(self) -> None:
        """The window's show event: fit its frame once the window manager has drawn it."""
        if self._fits_pending:
            QtCore.QTimer.singleShot(0, self._fit_frame_to_screen)

    def _fit_frame_to_screen(self) -> None:
        """First start, once the window manager has framed the window: shrink and move it so that the frame
        (title bar, borders) fits the available screen too, the status bar included. The frame is known only
        after the window manager has drawn it, so this looks again a few times until it is there."""
        window = self.window
        if (not self._fits_pending or not window.isVisible() or window.isMaximized() or window.isFullScreen()
                or window.size() != self._first_size):
            self._fits_pending = 0
            return
        self._fits_pending -= 1
        if fit_frame_into_screen(window):
            self._fits_pending = 0
        elif self._fits_pending:
            QtCore.QTimer.singleShot(FRAME_FIT_WAIT_MS, self._fit_frame_to_screen)
