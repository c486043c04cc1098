"""Help ▸ User guide opens the built guide's first page in the browser, offline; without it the window says so
in one sentence naming the file it looked for."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui

from attnviz import paths


@pytest.fixture
def bare_window(qtbot, tmp_path: Path, errors: list[str]):
    """The main window with no model opened (the Help menu needs none)."""
    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings
    from attnviz.session import InlineRunner

    window = MainWindow(Settings(tmp_path / "settings.ini"), InlineRunner())
    qtbot.addWidget(window)
    window.show()
    return window


def _help_entry(window, text: str):
    help_menu = next(action.menu() for action in window.menuBar().actions() if action.text() == "&Help")
    return next(action for action in help_menu.actions() if action.text() == text)


def test_user_guide_opens_the_built_guide_in_the_browser(bare_window, tmp_path, errors, monkeypatch) -> None:
    page = tmp_path / "site" / "index.html"
    page.parent.mkdir()
    page.write_text("<h1>attnviz user guide</h1>", encoding="utf-8")
    monkeypatch.setattr(paths, "USER_GUIDE", page)
    opened: list[QtCore.QUrl] = []
    monkeypatch.setattr(QtGui.QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    _help_entry(bare_window, "&User guide…").trigger()
    assert [url.toLocalFile() for url in opened] == [str(page)] and opened[0].scheme() == "file"
    assert errors == []


def test_user_guide_says_so_when_the_guide_is_not_built(bare_window, tmp_path, errors, monkeypatch) -> None:
    missing = tmp_path / "site" / "index.html"
    monkeypatch.setattr(paths, "USER_GUIDE", missing)
    opened: list[QtCore.QUrl] = []
    monkeypatch.setattr(QtGui.QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    _help_entry(bare_window, "&User guide…").trigger()
    assert opened == []
    assert errors == [f"The user guide is not built in this copy of attnviz ({missing} is missing): bash "
                      "scripts/run.sh builds it, and its pages can be read in the repository's docs folder."]


def test_user_guide_says_so_when_no_browser_opens_it(bare_window, tmp_path, errors, monkeypatch) -> None:
    page = tmp_path / "index.html"
    page.write_text("<h1>attnviz user guide</h1>", encoding="utf-8")
    monkeypatch.setattr(paths, "USER_GUIDE", page)
    monkeypatch.setattr(QtGui.QDesktopServices, "openUrl", lambda url: False)
    _help_entry(bare_window, "&User guide…").trigger()
    assert errors == [f"No web browser could open the user guide: open {page} in one."]
