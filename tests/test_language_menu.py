"""View ▸ Language: the choice is remembered and offered a restart, which reopens the model and the sentence
in a new process; Qt's own dialog buttons speak the chosen language too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets

from attnviz import i18n
from attnviz.gui.language import LANGUAGE_KEY, LanguageMenu, install_language, restart_command, saved_choice


def _click_when_shown(qapp, starts_with: str, clicked: list[str]) -> None:
    def click() -> None:
        box = qapp.activeModalWidget()
        if not isinstance(box, QtWidgets.QMessageBox):
            QtCore.QTimer.singleShot(10, click)
            return
        for button in box.buttons():
            if button.text().startswith(starts_with):
                clicked.append(box.text())
                button.click()
                return
    QtCore.QTimer.singleShot(0, click)


def test_choosing_chinese_is_remembered_and_restart_is_offered(qtbot, qapp, tmp_path):
    settings = QtCore.QSettings(str(tmp_path / "s.ini"), QtCore.QSettings.Format.IniFormat)
    restarts: list[bool] = []
    parent = QtWidgets.QWidget()
    qtbot.addWidget(parent)
    menu = LanguageMenu(settings, lambda: restarts.append(True), parent)
    names = [action.text() for action in menu.actions()]
    assert names[1:] == ["English", "简体中文"] and names[0].startswith("Follow the system")
    assert menu.actions()[0].isChecked()  # nothing chosen yet: the system's language
    shown: list[str] = []
    _click_when_shown(qapp, "Restart now", shown)
    menu.actions()[2].trigger()
    assert saved_choice(settings) == "zh_CN" and settings.value(LANGUAGE_KEY) == "zh_CN"
    assert shown == ["attnviz will speak 简体中文 when it starts again."] and restarts == [True]
    _click_when_shown(qapp, "Later", shown)
    menu.actions()[1].trigger()  # back to English, restart declined
    assert saved_choice(settings) == "en" and restarts == [True]


def test_a_settings_file_with_nonsense_follows_the_system(tmp_path):
    settings = QtCore.QSettings(str(tmp_path / "s.ini"), QtCore.QSettings.Format.IniFormat)
    settings.setValue(LANGUAGE_KEY, "xx_YY")
    assert saved_choice(settings) == ""


def test_in_chinese_qt_dialog_buttons_are_chinese_too(qapp):
    try:
        assert install_language(qapp, "zh_CN") == "zh_CN"
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        assert buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Cancel).text() == "取消"
        dialog = QtWidgets.QFileDialog()
        dialog.setOption(QtWidgets.QFileDialog.Option.DontUseNativeDialog)
        labels = {label.objectName(): label.text() for label in dialog.findChildren(QtWidgets.QLabel)}
        assert labels["lookInLabel"] == "查找范围(&L)：" and labels["fileTypeLabel"] == "文件类型(&T)："
        dialog.deleteLater()
        assert i18n.tr("&File") == "文件(&F)"
    finally:
        install_language(qapp, "en")
    assert i18n.tr("&File") == "&File"


def test_restart_reopens_the_model_and_the_sentence(window, monkeypatch):
    started: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(QtCore.QProcess, "startDetached",
                        staticmethod(lambda program, arguments: started.append((program, arguments)) or True))
    window.set_sentence("a b c")
    window.restart()
    assert not window.isVisible()
    program, arguments = started[0]
    assert program == sys.executable
    assert arguments[-4:] == ["--checkpoint", str(window.session.state.model.path), "--text", "a b c"]
    assert Path(arguments[-3]).is_file()


@pytest.mark.parametrize(("orig_argv", "argv", "expected"), [
    (["python", "main.py", "--lang", "en", "--settings", "s.ini"], ["main.py", "--lang", "en", "--settings", "s.ini"],
     ["main.py", "--settings", "s.ini"]),
    (["python", "-m", "attnviz", "--session", "a.json", "--device=cpu"],
     ["attnviz", "--session", "a.json", "--device=cpu"], ["-m", "attnviz", "--device=cpu"]),
    (["python", "/venv/bin/attnviz", "model.safetensors"], ["/venv/bin/attnviz", "model.safetensors"],
     ["/venv/bin/attnviz"]),
])
def test_a_restart_keeps_the_launcher_and_settings_but_not_the_language_or_what_was_opened(orig_argv, argv, expected):
    """The saved language must win (not the --lang typed at start), and the window reopens what it shows now."""
    program, arguments = restart_command(["--text", "hi"], argv=argv, orig_argv=orig_argv)
    assert program == sys.executable and arguments == [*expected, "--text", "hi"]
