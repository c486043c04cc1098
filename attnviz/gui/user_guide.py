"""Help ▸ User guide: the user guide (docs/, built into offline HTML by MkDocs) opened in the system's browser."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz import paths
from attnviz.gui import errors
from attnviz.i18n import tr


def open_user_guide(parent: QtWidgets.QWidget) -> bool:
    """Open the built guide's first page (``paths.USER_GUIDE``, an ``index.html`` on disk) in the browser.

    When the page is not there (a checkout whose set-up has not built it), or no browser takes it, the window
    says so in one sentence naming the file. Returns whether a browser was asked to show the guide."""
    page = paths.USER_GUIDE
    if not page.is_file():
        errors.warn(parent, tr("The user guide is not built in this copy of attnviz ({path} is missing): bash "
                               "scripts/run.sh builds it, and its pages can be read in the repository's docs "
                               "folder.").format(path=page))
        return False
    if not QtGui.QDesktopServices.openUrl(QtCore.QUrl.fromLocalFile(str(page))):
        errors.warn(parent, tr("No web browser could open the user guide: open {path} in one.").format(path=page))
        return False
    return True
