"""The window in Chinese: every dock raised in turn, every text a user reads (labels, buttons, menus and their
tooltips, dock titles, tabs, table headers, plot titles and axis names, the status bar) checked for English
words left untranslated. Token text, model names and units are the intended exceptions. A string added later
without ``tr()`` (or without a translation) fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6 import QtWidgets

from attnviz import i18n
from attnviz.paths import shipped_models
from tests.helpers import raised, settle
from tests.tiny import WORDS

# Words that stay in Latin letters in the Chinese interface: names, units, formats, the book's symbols.
KEPT = {
    "attnviz", "transformer", "bahdanau", "nadaraya", "watson", "gpt", "rnn", "cpu", "cuda", "gpu", "png",
    "svg", "pdf", "csv", "gif", "npy", "json", "tsv", "hugging", "face", "softmax", "relu", "tanh", "rope",
    "d2l", "bleu", "marian", "bart", "llama", "qwen", "tatoeba", "ctrl", "shift", "alt", "esc", "del", "pgup",
    "pgdn", "home", "end", "safetensors", "utf", "max", "min", "log", "exp", "sin", "cos", "eos", "bos", "pad",
    "unk", "sep", "mse", "adam", "sgd", "opus", "qkv", "pytorch", "torch", "numpy", "pyside", "pyqtgraph",
    "mit", "cc", "org", "www", "http", "https", "com", "sqrt", "argmax", "top", "ffn", "qk", "kv", "ms",
    "abnar", "zuidema", "epanechnikov", "gru", "return", "enter", "english",  # names, keys, a language's own name
    "vit", "cls",  # the Vision Transformer's name and its [CLS] token (as [SEP] above)
}
# Menus whose entries are data, not words: the shipped models' file names, the example sentences (token text)
DATA_MENUS = ("Shipped &models", "E&xample sentences")


def english_words(text: str, allowed: set[str]) -> list[str]:
    text = re.sub(r"<[^>]+>|&\w+;", " ", text)  # rich text: its tags and entities are not words
    text = re.sub(r"\w+_\w+", " ", text)  # identifiers and formulas: num_hiddens, d_head
    text = re.sub(r"\S+\.(safetensors|json|tsv|png|svg|pdf|csv|gif|ini)\b|\S*/\S+", " ", text)  # paths
    # a coined term's English, glossed in brackets once after the Chinese (注意力展开（attention rollout）)
    text = re.sub(r"(?<=[\u4e00-\u9fff])（[A-Za-z][A-Za-z -]*(?=[）；])", " ", text)
    return [w for w in re.findall(r"[A-Za-z]{3,}", text) if w.lower() not in KEPT and w.lower() not in allowed]


def texts_of(window: QtWidgets.QMainWindow) -> list[tuple[str, str]]:
    """(where, text) for every visible text of the window and its menus."""
    found: list[tuple[str, str]] = []

    def add(where: str, text: str | None) -> None:
        if text:
            found.append((where, text))

    for widget in [window, *window.findChildren(QtWidgets.QWidget)]:
        name = f"{type(widget).__name__}({widget.objectName()})"
        add(f"{name} tooltip", widget.toolTip())
        if not widget.isVisible() and not isinstance(widget, QtWidgets.QMenu):
            continue
        if isinstance(widget, QtWidgets.QDockWidget | QtWidgets.QMainWindow | QtWidgets.QDialog):
            add(f"{name} title", widget.windowTitle())
        if isinstance(widget, QtWidgets.QLabel | QtWidgets.QAbstractButton):
            add(name, widget.text())
        if isinstance(widget, QtWidgets.QGroupBox):
            add(name, widget.title())
        if isinstance(widget, QtWidgets.QLineEdit):
            add(f"{name} placeholder", widget.placeholderText())
        if isinstance(widget, QtWidgets.QComboBox):
            for index in range(widget.count()):
                add(f"{name} item", widget.itemText(index))
        if isinstance(widget, QtWidgets.QTabBar):
            for index in range(widget.count()):
                add(f"{name} tab", widget.tabText(index))
        if isinstance(widget, QtWidgets.QTableWidget | QtWidgets.QTreeWidget):
            header = widget.headerItem() if isinstance(widget, QtWidgets.QTreeWidget) else None
            if header is not None:
                for column in range(header.columnCount()):
                    add(f"{name} header", header.text(column))
            if isinstance(widget, QtWidgets.QTableWidget):
                for column in range(widget.columnCount()):
                    item = widget.horizontalHeaderItem(column)
                    add(f"{name} header", item.text() if item else "")
        if isinstance(widget, QtWidgets.QMenu) and widget.title() not in {i18n.tr(menu) for menu in DATA_MENUS}:
            for action in widget.actions():
                add(f"menu {widget.title()}", action.text())
                add(f"menu {widget.title()} tip", action.toolTip() if action.toolTip() != action.text().replace(
                    "&", "") else "")
                add(f"menu {widget.title()} status tip", action.statusTip())
        if isinstance(widget, pg.PlotWidget):
            item = widget.getPlotItem()
            add(f"{name} plot title", item.titleLabel.text)
            for axis in ("left", "bottom"):
                add(f"{name} {axis} axis", item.getAxis(axis).labelText)
    for action in window.menuBar().actions():
        add("menu bar", action.text())
    add("status bar", window.statusBar().currentMessage())
    return found


@pytest.fixture()
def chinese_window(qtbot, qapp, tmp_path: Path, tiny_models: dict):
    from attnviz.gui.language import install_language
    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings
    from attnviz.session import InlineRunner

    install_language(qapp, i18n.CHINESE)
    try:
        window = MainWindow(Settings(tmp_path / "settings.ini"), InlineRunner())
        qtbot.addWidget(window)
        window.resize(1280, 800)
        window.show()
        window.load(tiny_models["transformer"][0])
        window.set_sentence(" ".join(WORDS[:4]), run=True)
        yield window
    finally:
        install_language(qapp, i18n.ENGLISH)


def test_every_text_of_the_window_is_chinese_with_every_dock_raised(chinese_window):
    window = chinese_window
    allowed = {word.lower() for word in WORDS} | {f"{word}x".lower() for word in WORDS}
    model_names = {path.stem for path in shipped_models()}  # the shipped models' file names: data, as in menus
    untranslated: dict[str, str] = {}
    for name in window.docks:
        raised(window, name)
        settle(window)
        for where, text in texts_of(window):
            if text not in model_names and english_words(text, allowed):
                untranslated.setdefault(text, f"{name}: {where}")
    assert not untranslated, "English left in the Chinese window:\n" + "\n".join(
        f"  {where}: {text!r}" for text, where in sorted(untranslated.items(), key=lambda kv: kv[1]))


def test_the_chinese_window_names_the_book_terms(chinese_window):
    titles = {dock.windowTitle() for dock in chinese_window.docks.values()}
    assert any("注意力" in title for title in titles), titles
    menus = [action.text() for action in chinese_window.menuBar().actions()]
    assert "文件(&F)" in menus and "视图(&V)" in menus, menus


def test_the_shipped_models_menu_describes_each_model_in_chinese(chinese_window):
    texts = [action.text() for action in chinese_window.menus.shipped_menu.actions()]
    assert "transformer — Transformer 编码器－解码器" in texts
    assert any(text.startswith("kernel-regression — Nadaraya-Watson 核回归") for text in texts)
