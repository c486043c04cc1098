"""The window's language: chosen at start-up (``--lang``, else View ▸ Language's remembered choice, else
the system's), installed through Qt's translators (attnviz's catalogue and Qt's own, so standard dialogs and
message-box buttons speak it too), and changed from the View ▸ Language menu, which restarts the window."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz import i18n
from attnviz.i18n import tr
from attnviz.render.fonts import ensure_cjk_font, with_cjk_fallback

LANGUAGE_KEY = "language"  # the settings key: "" follows the system, else a code of i18n.LANGUAGES
FOLLOW_SYSTEM = ""

_installed: list[QtCore.QTranslator] = []  # kept alive while installed (Qt does not own them)


def saved_choice(qsettings: QtCore.QSettings) -> str:
    """The remembered choice: "" (follow the system) or a language code; anything else reads as ""."""
    value = qsettings.value(LANGUAGE_KEY, FOLLOW_SYSTEM)
    return value if isinstance(value, str) and value in i18n.LANGUAGES else FOLLOW_SYSTEM


def system_language() -> str:
    """The system's language: the POSIX variables where set (Linux, and anyone launching with LANG=…),
    else Qt's reading of the platform's settings (Windows, macOS)."""
    from_environment = i18n.system_language()
    if from_environment != i18n.ENGLISH or sys.platform.startswith("linux"):
        return from_environment
    return i18n.normalise(QtCore.QLocale.system().name()) or i18n.ENGLISH


def install_language(app: QtCore.QCoreApplication, code: str) -> str:
    """Speak ``code`` ("" for the system's) from now on: attnviz's strings, Qt's dialogs and number formats.
    Loads the compiled catalogue (``.qm``) when it is there and not older than its ``.ts``; otherwise the
    strings are read from the ``.ts`` directly (a checkout whose set-up has not compiled it yet)."""
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    chosen = i18n.set_language(code or system_language())
    i18n.set_backend(None)
    if isinstance(app, QtGui.QGuiApplication) and ensure_cjk_font():
        # the window's Chinese (menus, axes, a sentence typed in Chinese) from the carried face too
        app.setFont(with_cjk_fallback(app.font()))
    if chosen == i18n.ENGLISH:
        QtCore.QLocale.setDefault(QtCore.QLocale.system())  # numbers as the system writes them, as before
        return chosen
    locale = QtCore.QLocale(chosen)
    QtCore.QLocale.setDefault(locale)
    qt_folder = QtCore.QLibraryInfo.path(QtCore.QLibraryInfo.LibraryPath.TranslationsPath)
    for name, folder in (("qtbase", qt_folder), ("qt", qt_folder)):  # Qt's own: dialogs, buttons
        translator = QtCore.QTranslator(app)
        if translator.load(locale, name, "_", folder):
            app.installTranslator(translator)
            _installed.append(translator)
    extra = QtCore.QTranslator(app)  # Qt strings newer than qtbase's catalogue (resources/i18n/qt_extra_*.ts)
    if extra.load(str(i18n.I18N_DIR / f"qt_extra_{chosen}.qm")):
        app.installTranslator(extra)
        _installed.append(extra)
    compiled, source = i18n.catalogue_path(chosen, ".qm"), i18n.catalogue_path(chosen)
    translator = QtCore.QTranslator(app)
    fresh = compiled.is_file() and (not source.is_file() or compiled.stat().st_mtime >= source.stat().st_mtime)
    if fresh and translator.load(str(compiled)):
        app.installTranslator(translator)
        _installed.append(translator)
        i18n.set_backend(QtCore.QCoreApplication.translate)
    else:
        logging.getLogger(__name__).info("%s is missing or older than its .ts: reading the .ts", compiled.name)
    return chosen


class LanguageMenu(QtWidgets.QMenu):
    """View ▸ Language: follow the system, or one of the languages attnviz speaks (each in its own words).
    A change is remembered and takes effect when the window starts again; ``restart`` is offered."""

    def __init__(self, qsettings: QtCore.QSettings, restart: Callable[[], None], parent: QtWidgets.QWidget):
        super().__init__(tr("&Language"), parent)
        self.qsettings, self.restart = qsettings, restart
        self.group = QtGui.QActionGroup(self)
        follow = tr("Follow the system ({language})").format(language=i18n.LANGUAGES[system_language()])
        choices = [(FOLLOW_SYSTEM, follow), *i18n.LANGUAGES.items()]
        current = saved_choice(qsettings)
        for code, name in choices:
            action = self.addAction(name)
            action.setCheckable(True)
            action.setChecked(code == current)
            action.setData(code)
            self.group.addAction(action)
        self.group.triggered.connect(self._on_group_triggered)

    def _on_group_triggered(self, action: QtGui.QAction) -> None:
        code = action.data() or FOLLOW_SYSTEM
        if code == saved_choice(self.qsettings):
            return
        self.qsettings.setValue(LANGUAGE_KEY, code)
        self.qsettings.sync()
        language = i18n.LANGUAGES[code or system_language()]
        if language == i18n.LANGUAGES[i18n.language()]:
            return  # e.g. "follow the system" while already speaking the system's language
        box = QtWidgets.QMessageBox(QtWidgets.QMessageBox.Icon.Question, tr("Language"),
                                    tr("attnviz will speak {language} when it starts again.").format(
                                        language=language), parent=self.parentWidget())
        # both languages on the buttons: the user may not read the one the window speaks now
        restart = box.addButton(f"{tr('Restart now')} · {_in(code, 'Restart now')}",
                                QtWidgets.QMessageBox.ButtonRole.AcceptRole)
        box.addButton(f"{tr('Later')} · {_in(code, 'Later')}", QtWidgets.QMessageBox.ButtonRole.RejectRole)
        box.exec()
        if box.clickedButton() is restart:
            self.restart()


def _in(code: str, text: str) -> str:
    """``text`` as the language ``code`` ("" = the system's) says it, whatever the window speaks now."""
    target = code or system_language()
    return text if target == i18n.ENGLISH else i18n.messages(target).get((text, ""), text)


KEPT_ON_RESTART = ("--settings", "--log", "--device")  # what the new window must share with this one


def restart_command(extra: list[str], argv: list[str] | None = None,
                    orig_argv: list[str] | None = None) -> tuple[str, list[str]]:
    """The program and arguments that start this attnviz again: the same launcher (a script, ``-m attnviz``,
    the ``attnviz`` entry point or the standalone app), the same settings file, log and device, then
    ``extra`` (the open checkpoint and sentence). Not ``--lang`` (the new choice must win), nor the session
    or file opened at start (the window shows something else by now)."""
    argv = sys.argv if argv is None else argv
    orig_argv = sys.orig_argv if orig_argv is None else orig_argv
    given = argv[1:]
    launcher = [] if getattr(sys, "frozen", False) else orig_argv[1:len(orig_argv) - len(given)]
    kept: list[str] = []
    index = 0
    while index < len(given):
        arg = given[index]
        if arg in KEPT_ON_RESTART and index + 1 < len(given):
            kept += given[index:index + 2]
            index += 1
        elif arg.split("=", 1)[0] in KEPT_ON_RESTART and "=" in arg:
            kept.append(arg)
        index += 1
    return sys.executable, [*launcher, *kept, *extra]
