"""Presentation mode: every text of the window grows together (Ctrl+=), Ctrl+0 brings it back, the
choice is remembered, exports keep their size, and at 1024 × 700 with text at 150 % the window fits and
every dock's name is shown whole."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.gui.text_size import apply_text_scale, base_font
from attnviz.render.figure_painter import figure_image
from attnviz.session import InlineRunner
from tests.helpers import open_window, pixels, settle

Key, Mod = QtCore.Qt.Key, QtCore.Qt.KeyboardModifier


@pytest.fixture(autouse=True)
def _normal_text():
    """The application font is the process's: every test here leaves it as it found it."""
    yield
    apply_text_scale(1.0)


def _active(window, qtbot) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=30000)


def _title_ink_width(dock: QtWidgets.QDockWidget) -> int:
    """The width, in pixels, of the dark text drawn in the dock's title bar (left of its buttons)."""
    title_bar = QtCore.QRect(0, 0, dock.width() - 60, dock.widget().geometry().top())  # above the panel
    image = dock.grab(title_bar).toImage()
    picture = pixels(image).reshape(image.height(), -1, 4)[:, :image.width(), :3]  # B, G, R
    dark = np.nonzero((picture.astype(int).sum(axis=2) < 300).any(axis=0))[0]
    assert dark.size, "no title text drawn"
    return int(dark[-1] - dark[0] + 1)


def _sizes(window) -> dict[str, float]:
    scoring = window.panels.panels["scoring"].score_plot
    return {
        "sentence field": window.sentence.font().pointSizeF(),
        "top-k table": window.topk.font().pointSizeF(),
        "translation": window.output.document().defaultFont().pointSizeF(),
        "dock title (painted width)": float(_title_ink_width(window.docks["attention"])),
        "heatmap labels": window.attention.heatmap.label_font.pointSizeF(),
        "plot title": scoring.title.item.font().pointSizeF(),
        "plot axis name": scoring.plot.getAxis("bottom").label.font().pointSizeF(),
    }


def _tick_room(window) -> float:
    """The width pyqtgraph makes for the scores plot's value labels (left axis) once it has painted them
    (never less than its 30-px default)."""
    plot = window.panels.panels["scoring"].score_plot
    plot.grab()
    return float(plot.plot.getAxis("left").textWidth)


def test_ctrl_equals_enlarges_every_text_together_and_ctrl_0_restores_it(window, qtbot):
    window.set_sentence("a b c", run=True)
    _active(window, qtbot)
    window.sentence.setFocus()  # (as at start-up: the keys act in the text field too)
    before, ticks = _sizes(window), _tick_room(window)
    output_height = window.output.height()
    figure = window.current_figure()
    exported = pixels(figure_image(figure.spec))
    for _ in range(3):  # 110 %, 125 %, 150 %
        QTest.keyClick(window.sentence, Key.Key_Equal, Mod.ControlModifier)
    settle(window)  # (the plots of hidden docks follow in the next turns of the event loop, one at a time)
    assert window.settings.text_scale == pytest.approx(1.5)
    assert window.presentation_action.isChecked()
    larger = _sizes(window)
    for name, size in before.items():
        assert larger[name] >= 1.3 * size, (name, size, larger[name])
    assert _tick_room(window) > ticks  # the plots' tick labels are painted larger: they take more room
    assert window.output.height() > output_height  # the translation's lines are taller
    assert np.array_equal(pixels(figure_image(window.current_figure().spec)), exported)  # exports keep their size
    QTest.keyClick(window.sentence, Key.Key_Minus, Mod.ControlModifier)
    assert window.settings.text_scale == pytest.approx(1.25)
    QTest.keyClick(window.sentence, Key.Key_0, Mod.ControlModifier)
    settle(window)
    assert window.settings.text_scale == 1.0 and not window.presentation_action.isChecked()
    assert _sizes(window) == before
    assert window.output.height() == output_height


def test_presentation_mode_is_remembered_for_the_next_start(qtbot, tmp_path, tiny_models, errors):
    path = tmp_path / "s.ini"
    first = MainWindow(Settings(path), InlineRunner())
    qtbot.addWidget(first)
    first.presentation_action.trigger()
    assert QtWidgets.QApplication.font().pointSizeF() == pytest.approx(1.5 * base_font().pointSizeF())
    first.close()
    apply_text_scale(1.0)  # (as a new process starts)
    second = MainWindow(Settings(path), InlineRunner())
    qtbot.addWidget(second)
    assert second.presentation_action.isChecked()
    assert second.sentence.font().pointSizeF() == pytest.approx(1.5 * base_font().pointSizeF())
    legend = second.panels.panels["kernel"].curves.legend  # made with pyqtgraph's own 9-pt labels
    assert legend.opts["labelTextSize"] == f"{1.5 * base_font().pointSizeF():g}pt"
    second.presentation_action.trigger()
    assert second.sentence.font().pointSizeF() == pytest.approx(base_font().pointSizeF())


def test_a_bad_text_size_in_the_settings_falls_back_to_normal(qtbot, tmp_path, errors):
    path = tmp_path / "s.ini"
    path.write_text("[General]\ntext_scale=40\n")
    window = MainWindow(Settings(path), InlineRunner(), defer_docks=True)
    qtbot.addWidget(window)
    assert window.settings.text_scale == 1.0 and not window.presentation_action.isChecked()
    assert any("text_scale" in problem for problem in window.settings.problems)


def _dock_tab_bars(window) -> list[QtWidgets.QTabBar]:
    return [bar for bar in window.findChildren(QtWidgets.QTabBar)
            if bar.parent() is window and bar.isVisible() and bar.count()]


@pytest.mark.parametrize("scale", [1.0, 1.5])
def test_every_dock_name_is_shown_whole_at_1024_by_700(window, qtbot, scale):
    window.menus.set_text_scale(scale)
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.size() == QtCore.QSize(1024, 700), timeout=30000)
    least = window.minimumSizeHint()
    assert least.width() <= 1024 and least.height() <= 700, least
    bars = _dock_tab_bars(window)
    shown = {bar.tabText(i) for bar in bars for i in range(bar.count())}
    tabbed = {dock.windowTitle() for dock in window.docks.values()
              if dock.isVisible() and window.tabifiedDockWidgets(dock)}
    assert tabbed and tabbed <= shown
    for bar in bars:
        # never "Ma…", "Scor…": where a real X server's larger fonts make a side's names longer than the window is
        # tall, the bar scrolls (arrows at its end) and every name stays whole
        assert bar.elideMode() == QtCore.Qt.TextElideMode.ElideNone and bar.usesScrollButtons()
        scroll_buttons = [button for button in bar.findChildren(QtWidgets.QToolButton) if button.isVisible()]
        metrics = QtGui.QFontMetrics(bar.font())
        vertical = bar.shape() in (QtWidgets.QTabBar.Shape.RoundedWest, QtWidgets.QTabBar.Shape.RoundedEast)
        for i in range(bar.count()):
            rect = bar.tabRect(i)
            length = rect.height() if vertical else rect.width()
            assert length >= metrics.horizontalAdvance(bar.tabText(i)), bar.tabText(i)  # not elided
            # on the bar, or reached with its arrows (never cut off by the bar's end with no way to it)
            assert bar.rect().contains(rect) or len(scroll_buttons) == 2, bar.tabText(i)
        if scale == 1.0:  # (at the usual size every side's names fit its length)
            assert scroll_buttons == [], [bar.tabText(i) for i in range(bar.count())]


def test_a_row_of_buttons_wraps_onto_a_second_line_only_where_it_lacks_room(qtbot):
    from attnviz.gui.wrap_row import WrapRow

    buttons = [QtWidgets.QPushButton(text) for text in ("◀ Back", "Step ▶", "Run to end", "Reset")]
    place = QtWidgets.QWidget()  # (a window of its own could not be narrower than its layout's first minimum)
    qtbot.addWidget(place)
    row = WrapRow(buttons, parent=place)
    place.show()
    qtbot.waitUntil(row.isVisible, timeout=30000)
    one_line = row.sizeHint().width()  # (measured once the buttons are polished: shown)
    assert row.minimumSizeHint().width() < one_line  # a narrow place may take it on two lines
    place.resize(one_line + 20, 120)
    row.setGeometry(0, 0, one_line, 40)
    qtbot.waitUntil(lambda: row.lines() == 1, timeout=30000)
    row.layout().activate()
    assert len({button.y() for button in buttons}) == 1
    row.setGeometry(0, 0, row.minimumSizeHint().width(), 80)
    qtbot.waitUntil(lambda: row.lines() == 2, timeout=30000)
    row.layout().activate()
    assert len({button.y() for button in buttons}) == 2
    assert all(row.rect().contains(button.geometry()) for button in buttons)  # none cut off


def test_a_status_message_too_long_for_the_bar_ends_in_an_ellipsis_and_keeps_the_whole_in_its_tooltip(window):
    from PySide6 import QtGui

    window.resize(700, 500)
    settle(window)
    bar = window.statusBar()
    long = "Loaded a-checkpoint-with-a-rather-long-name.safetensors: transformer, 11,176,192 parameters, " \
           "validation BLEU 52.08, on a device that has a long name too"
    bar.showMessage(long, 60_000)
    shown = bar.currentMessage()
    assert shown.endswith("…") and long.startswith(shown[:-1]) and bar.toolTip() == long
    assert QtGui.QFontMetrics(bar.font()).horizontalAdvance(shown) <= bar.room()
    window.resize(1900, 500)  # room for more: cut again, further along
    settle(window)
    assert len(bar.currentMessage()) > len(shown)
    bar.showMessage("Text size 150%", 60_000)
    assert bar.currentMessage() == "Text size 150%" and bar.toolTip() == ""


@pytest.mark.parametrize("language", ["zh_CN", "en"])
def test_presentation_mode_at_1024_by_700_fits_the_window_the_top_5_and_every_label(qtbot, qapp, tmp_path, errors,
                                                                                   language):
    """The tallest panel (Train) scrolls in a short dock: 150 % text does not make the window taller; the top-5
    table shows its five rows without a scroll bar and the main map labels every token of a 10-word sentence."""
    from attnviz.gui.language import install_language
    from attnviz.paths import DEFAULT_CHECKPOINT

    install_language(qapp, language)
    try:
        window = open_window(qtbot, tmp_path, DEFAULT_CHECKPOINT, (1024, 700))
        window.set_sentence("i think we should go home before it rains .", run=True)
        settle(window)
        window.presentation_action.trigger()
        settle(window)
        assert window.size() == QtCore.QSize(1024, 700) and window.minimumSizeHint().height() <= 700
        topk = window.topk
        assert topk.rowCount() == 5 and topk.viewport().height() >= 5 * topk.rowHeight(0)
        assert not topk.verticalScrollBar().isVisible()
        heatmap = window.attention.heatmap
        layout = heatmap.figure_layout()
        assert [t for _, t in layout.col_ticks] == list(heatmap.spec.col_labels)
        assert [t for _, t in layout.row_ticks] == list(heatmap.spec.row_labels)
        window.presentation_action.trigger()
        settle(window)
        assert window.size() == QtCore.QSize(1024, 700)
    finally:
        install_language(qapp, "en")


def test_kernel_regression_in_presentation_mode_keeps_its_predictions_plot_tall(qtbot, tmp_path, errors):
    from attnviz.paths import MODELS_DIR

    window = open_window(qtbot, tmp_path, MODELS_DIR / "kernel-regression.safetensors", (1280, 800))
    window.presentation_action.trigger()
    settle(window)
    panel = window.panels.panels["kernel"]
    legend = panel.curves.legend
    box = panel.curves.getViewBox().sceneBoundingRect()
    assert legend.columnCount == 2  # four names in two columns: two lines under the plot, not four
    assert box.height() > 1.5 * legend.sceneBoundingRect().height()


@pytest.mark.parametrize("language", ["zh_CN", "en"])
def test_kernel_regression_in_presentation_mode_at_1024_by_768_keeps_the_predictions_and_every_legend_entry(
        qtbot, qapp, tmp_path, errors, language):
    """At 1024×768 a one-column legend under the plot left the predictions a strip about 10 px high: where the
    legend under the plot would take that much of its height it is drawn inside the plot, every entry still in
    it, and the plot keeps most of its height."""
    from attnviz.gui.language import install_language
    from attnviz.paths import MODELS_DIR

    install_language(qapp, language)
    try:
        window = open_window(qtbot, tmp_path, MODELS_DIR / "kernel-regression.safetensors", (1024, 768))
        window.presentation_action.trigger()
        settle(window)
        qtbot.waitUntil(lambda: window.panels is not None and window.panels.panels["kernel"].fit is not None)
        panel = window.panels.panels["kernel"]
        settle(window)
        plot_height = panel.curves.getViewBox().sceneBoundingRect().height()
        assert plot_height >= max(100.0, 0.4 * panel.curves_view.height()), (plot_height, panel.curves_view.height())
        shown = [legend for legend in (panel.curves.legend, panel._legend_inside) if legend.isVisible()]
        assert len(shown) == 1 and len(shown[0].items) == 4  # one legend, with every series named
        if shown[0] is panel._legend_inside:
            assert panel.curves.getViewBox().sceneBoundingRect().contains(shown[0].sceneBoundingRect())
    finally:
        install_language(qapp, "en")


def test_the_scoring_plots_value_labels_never_overlap_in_presentation_mode(window, qtbot):
    window.resize(1024, 700)
    window.set_sentence("a b c d", run=True)
    window.docks["scoring"].raise_()
    window.presentation_action.trigger()
    settle(window)
    for plot in (window.panels.panels["scoring"].score_plot, window.panels.panels["scoring"].weight_plot):
        axis = plot.plot.getAxis("left")
        low, high = plot.plot.getViewBox().viewRange()[1]
        length = axis.geometry().height()
        spacing = axis.tickSpacing(low, high, length)[0][0]
        labels = int((high - low) // spacing) + 1
        line = QtGui.QFontMetricsF(axis.style.get("tickFont") or QtWidgets.QApplication.font()).height()
        assert labels == 1 or length / (labels - 1) >= 1.5 * line  # every labelled tick a line and more apart
