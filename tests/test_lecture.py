"""View ▸ Lecture view (F5): the map as large as the window allows with every token labelled and the title
whole, the keys that change step, layer, head and kind, auto-play to the end (and through the layers), the
kernel-regression layout, and leaving it restores the window exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from attnviz.core.attention.kind import AttentionKind
from attnviz.paths import shipped_models
from tests.helpers import open_window, settle

Key = QtCore.Qt.Key
SIXTEEN = "i think we should go home before it rains , and i do n't want to ."  # 16 words and points


def _shipped(name: str) -> Path:
    return next(path for path in shipped_models() if path.stem == name)


def _active(window, qtbot) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=30000)


@pytest.fixture
def shipped_window(qtbot, tmp_path, errors):
    return open_window(qtbot, tmp_path, _shipped("transformer"), (1024, 768))


def _layout(window) -> tuple:
    """What a user sees of the layout: the window's geometry, each dock's and the centre's place and size."""
    docks = {name: (dock.isVisible(), dock.geometry().getRect()) for name, dock in window.docks.items()}
    return (window.geometry().getRect(), window.decoding_area.geometry().getRect(), docks,
            window.menus.toolbar.isVisible(), window.statusBar().isVisible(), window.menuBar().isVisible())


def _shown_docks(window) -> set[str]:
    return {name for name, dock in window.docks.items() if dock.isVisible()}


def test_the_lecture_view_shows_the_map_large_with_every_label_and_leaving_restores_the_window(
        shipped_window, qtbot):
    window = shipped_window
    window.set_sentence(SIXTEEN, run=True)
    settle(window)
    state = window.session.state
    assert len(state.source.tokens) >= 16 and state.finished
    before = _layout(window)
    assert (window.lecture.action.shortcut().toString() == "F5"
            and window.lecture.action in window.menus.view_menu.actions())

    window.lecture.action.trigger()
    settle(window)
    heatmap = window.attention.heatmap
    assert _shown_docks(window) == {"attention"}
    assert not window.menus.toolbar.isVisible() and not window.statusBar().isVisible()
    assert not window.attention.controls.isVisible() and not window.decoding_area.force_field.isVisible()
    for shown in (window.sentence, window.output, window.topk, window.step_button, window.back_button,
                  window.lecture.play_button):
        assert shown.isVisible()
    assert window.topk.viewport().height() >= window.topk.rowCount() * window.topk.rowHeight(0)  # all 5 rows
    assert heatmap.width() * heatmap.height() >= 0.5 * window.width() * window.height()
    layout = heatmap.figure_layout()
    rows, cols = heatmap.values.shape
    assert cols >= 16 and rows >= 10
    assert [text for _, text in layout.row_ticks] == list(heatmap.spec.row_labels)  # every query …
    assert [text for _, text in layout.col_ticks] == list(heatmap.spec.col_labels)  # … and every key, whole
    assert heatmap.label_font.pixelSize() >= 768 // 42  # 18 px or more: readable from the back of a room
    lines = layout.title_text.split("\n")
    assert " · ".join(lines) == heatmap.spec.title  # model · kind · layer · head · step: nothing dropped
    for field in ("transformer", "cross-attention", "layer 1", "head 1", f"step {rows}"):
        assert field in heatmap.spec.title

    window.lecture.action.trigger()  # F5 again: leave
    settle(window)
    assert _layout(window) == before
    assert window.menus.toolbar.isVisible() and window.statusBar().isVisible() and window.attention.controls.isVisible()
    full = QtGui.QFontInfo(heatmap.font()).pixelSize()  # the window's font again (shrunk a little, not thinned)
    assert heatmap.label_pixels is None and 0.7 * full - 1 <= QtGui.QFontInfo(heatmap.label_font).pixelSize() <= full


def test_keys_change_head_layer_kind_and_step_and_esc_leaves(window, qtbot):
    window.set_sentence("a b c", run=True)
    window.session.show(0)
    window.lecture.enter()
    settle(window)
    _active(window, qtbot)
    view = window.session.state.view
    assert (view.kind, view.layer, view.head) == (AttentionKind.CROSS, 0, 0)
    QTest.keyClick(window, Key.Key_Down)
    assert window.session.state.view.head == 1
    QTest.keyClick(window, Key.Key_Up)
    QTest.keyClick(window, Key.Key_Up)  # wraps round to the last head
    assert window.session.state.view.head == 3
    QTest.keyClick(window, Key.Key_PageDown)
    assert window.session.state.view.layer == 1
    QTest.keyClick(window, Key.Key_K)
    assert window.session.state.view.kind is AttentionKind.ENCODER_SELF
    QTest.keyClick(window, Key.Key_Right)
    assert window.session.state.position == 1
    assert "layer 2 · head 4" in window.attention.heatmap.spec.title
    QTest.keyClick(window, Key.Key_Escape)
    assert not window.lecture.active and window.menuBar().isVisible()
    QTest.keyClick(window, Key.Key_Down)  # outside the lecture view ↓ is not the head key
    assert window.session.state.view.head == 3


def test_a_lecture_key_types_into_the_sentence_field_as_a_letter(window, qtbot):
    window.lecture.enter()
    settle(window)
    _active(window, qtbot)
    window.sentence.clear()
    window.sentence.setFocus()
    QTest.keyClicks(window.sentence, "k p")
    assert window.sentence.text() == "k p" and not window.lecture.timer.isActive()


def test_auto_play_steps_to_the_end_then_through_the_layers_and_stops(window, qtbot):
    window.set_sentence("a b c d")
    window.lecture.enter()
    window.lecture.interval_box.setValue(0.2)
    assert window.settings.lecture_interval == pytest.approx(0.2)  # remembered
    window.lecture.layers_check.setChecked(True)
    window.lecture.play()
    assert window.lecture.timer.isActive() and "Pause" in window.lecture.play_button.text()
    qtbot.waitUntil(lambda: not window.lecture.timer.isActive(), timeout=60000)
    state = window.session.state
    assert state.finished and state.position == len(state.steps) - 1  # at the end …
    assert state.view.layer == 1  # … of the last of the 2 decoder layers
    assert "Play" in window.lecture.play_button.text()
    window.lecture.layers_check.setChecked(False)
    window.lecture.play()  # at the end: again from the first step
    assert window.session.state.position == 0
    window.lecture.toggle_play()
    assert not window.lecture.timer.isActive()


def test_kernel_regression_shows_its_two_plots_large_and_comes_back_as_it_was(qtbot, tmp_path, errors):
    window = open_window(qtbot, tmp_path, _shipped("kernel-regression"), (1280, 800))
    settle(window)
    panel = window.panels.panels["kernel"]
    sizes = panel.split.sizes()
    window.lecture.enter()
    settle(window)
    assert _shown_docks(window) == {"kernel"}
    assert not panel.weights_view.isVisible() and panel.curves_view.isVisible()
    assert panel.heatmap.width() * panel.heatmap.height() >= 0.2 * window.width() * window.height()
    assert panel.curves_view.height() >= 0.6 * window.height()  # not a 100-px strip over its legend
    assert "…" not in panel.heatmap.figure_layout().title_text  # wrapped, not cut: kernel and h stay in view
    window.lecture.leave()
    settle(window)
    assert panel.weights_view.isVisible() and panel.split.sizes() == sizes
    assert QtWidgets.QApplication.font() == window.font()


def test_leaving_after_another_model_loaded_shows_that_models_docks(window, qtbot):
    window.lecture.enter()
    settle(window)
    window.load(_shipped("kernel-regression"))
    settle(window)
    assert _shown_docks(window) == {"kernel"}
    window.lecture.leave()
    settle(window)
    shown = _shown_docks(window)
    assert "kernel" in shown and "attention" not in shown and window.menuBar().isVisible()


def test_entering_takes_the_focus_from_the_sentence_field_so_the_keys_are_the_lectures(shipped_window, qtbot):
    """A fresh start leaves the focus in the sentence field with the translation finished (Step disabled): the
    lecture's keys still act at once — → / ← step, K changes the kind, Ctrl+R resets — and nothing is typed."""
    window = shipped_window
    window.set_sentence("i'm home .", run=True)
    settle(window)
    _active(window, qtbot)
    window.sentence.setFocus()
    qtbot.waitUntil(window.sentence.hasFocus, timeout=30000)
    assert not window.step_button.isEnabled()
    last = window.session.state.position
    window.lecture.action.trigger()
    settle(window)
    focused = QtWidgets.QApplication.focusWidget()
    assert focused is not None and not isinstance(focused, QtWidgets.QLineEdit | QtWidgets.QAbstractSpinBox)
    QTest.keyClick(focused, Key.Key_Left)
    assert window.session.state.position == last - 1
    kind = window.session.state.view.kind
    QTest.keyClick(QtWidgets.QApplication.focusWidget(), Key.Key_K)
    assert window.session.state.view.kind is not kind
    for key in (Key.Key_Right, Key.Key_Right):  # to the end: Step disables itself, the keys stay the lecture's
        QTest.keyClick(QtWidgets.QApplication.focusWidget(), key)
    assert window.session.state.position == last and not window.step_button.isEnabled()
    QTest.keyClick(QtWidgets.QApplication.focusWidget(), Key.Key_Left)
    assert window.session.state.position == last - 1
    QTest.keyClick(QtWidgets.QApplication.focusWidget(), Key.Key_R, QtCore.Qt.KeyboardModifier.ControlModifier)
    settle(window)
    assert not window.session.state.steps  # reset (its key works with the menu bar hidden)
    assert window.sentence.text() == "i'm home ."


def test_a_click_on_the_map_in_the_lecture_view_outlines_its_row_and_changes_nothing_else(shipped_window, qtbot):
    window = shipped_window
    window.set_sentence("i'm home .", run=True)
    settle(window)
    window.lecture.enter()
    settle(window)
    heatmap = window.attention.heatmap
    shown, size = _shown_docks(window), heatmap.size()
    heatmap.clicked.emit(0, 1)
    settle(window)
    assert heatmap.highlighted_rows == (0, 1)
    assert _shown_docks(window) == shown and heatmap.size() == size  # no Computation dock, the map as large


def test_in_chinese_the_lecture_keys_menu_names_the_page_keys_in_chinese(qapp, qtbot, tmp_path, errors):
    """qtbase's Chinese catalogue leaves PgUp and PgDown in English: attnviz's own Qt catalogue names them."""
    from attnviz.gui.language import install_language

    install_language(qapp, "zh_CN")
    try:
        window = open_window(qtbot, tmp_path, _shipped("transformer"), (1024, 768))
        native = QtGui.QKeySequence.SequenceFormat.NativeText
        shown = {action.shortcut().toString(native) for action in window.lecture.keys}
        assert {"下翻页", "上翻页"} <= shown, shown
        about = [action.text() for action in window.menus.shipped_menu.actions()]
        assert "encoder-only — 仅编码器 Transformer（小型 BERT），填补掩蔽词" in about, about  # (the registry's words)
    finally:
        install_language(qapp, "en")
