"""A new user's first hour: keys act where the cursor is, figures fit laptop-sized windows, and
each model shows the docks it has."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from attnviz.core.attention.kind import AttentionKind
from attnviz.figures.spec import bar_ticks, tick_text
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.gui.titled_plot import TitledPlot
from attnviz.session import InlineRunner
from tests.helpers import WAIT_MS, HeldRunner, settle

Key, Mod = QtCore.Qt.Key, QtCore.Qt.KeyboardModifier


def _active(window, qtbot) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT_MS)


def test_step_back_and_export_keys_work_while_typing(window, qtbot, monkeypatch):
    """Focus in the sentence field (as at start-up): F10 / Alt+→ step, Shift+F10 / Alt+← go back,
    Ctrl+E exports, and plain → / ← still move the text cursor."""
    asked = []
    monkeypatch.setattr(window.exports, "ask_and_export", asked.append)
    _active(window, qtbot)
    window.set_sentence("a b c")
    window.sentence.setFocus()
    field = window.sentence
    QTest.keyClick(field, Key.Key_F10)
    QTest.keyClick(field, Key.Key_Right, Mod.AltModifier)
    assert window.session.state.position == 1 and len(window.session.state.steps) == 2
    field.setCursorPosition(0)
    QTest.keyClick(field, Key.Key_Right)
    assert field.cursorPosition() == 1 and window.session.state.position == 1  # editing, not stepping
    QTest.keyClick(field, Key.Key_F10, Mod.ShiftModifier)
    assert window.session.state.position == 0
    QTest.keyClick(field, Key.Key_Left, Mod.AltModifier)
    assert window.session.state.position == -1
    QTest.keyClick(field, Key.Key_E, Mod.ControlModifier)
    assert len(asked) == 1 and asked[0] is not None
    window.attention.heatmap.setFocus()  # focus outside any text field: the bare arrows step
    QTest.keyClick(window.attention.heatmap, Key.Key_Right)
    assert window.session.state.position == 0
    assert "F10" in window.step_button.toolTip() and "Ctrl+E" in window.exports.export_action.toolTip()


def test_window_shortcuts_are_not_claimed_by_the_sentence_field(window):
    """On X11 a line edit (and a spin box's) claims Ctrl+E ("end of line") in its shortcut-override
    event; the window's fields leave every window shortcut with a modifier to the window, and the
    sentence field keeps plain → for itself. (Offscreen Qt claims less than X11 does: the next test
    presses the keys on a real X server.)"""
    fields = (window.sentence, window.beam_box, window.attention.head_box)
    for field in fields:
        for key, modifier, claimed in ((Key.Key_E, Mod.ControlModifier, False),
                                       (Key.Key_F10, Mod.NoModifier, False), (Key.Key_Right, Mod.AltModifier, False),
                                       (Key.Key_Right, Mod.NoModifier, True)):  # → edits text in any field
            event = QtGui.QKeyEvent(QtCore.QEvent.Type.ShortcutOverride, key, modifier)
            event.ignore()
            QtWidgets.QApplication.sendEvent(field, event)
            assert event.isAccepted() == claimed, (field, key, modifier)


X11_KEYS = """
import sys, tempfile
from pathlib import Path
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest
from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.session import InlineRunner
app = QtWidgets.QApplication([])
assert app.platformName() == "xcb", app.platformName()
window = MainWindow(Settings(Path(tempfile.mkdtemp()) / "s.ini"), InlineRunner())
window.show()
window.activateWindow()
QTest.qWaitForWindowActive(window)
window.load(sys.argv[1])
window.set_sentence("a b c")
asked = []
window.exports.ask_and_export = asked.append
for field in (window.sentence, window.beam_box, window.attention.head_box):
    field.setFocus()
    app.processEvents()
    QTest.keyClick(field, QtCore.Qt.Key.Key_E, QtCore.Qt.KeyboardModifier.ControlModifier)
print(len(asked))
"""


def test_ctrl_e_exports_from_every_field_on_a_real_x_server(tiny_models, tmp_path):
    """Under xcb a QLineEdit claims Ctrl+E; offscreen it does not, so this runs under Xvfb."""
    import os
    import shutil
    import subprocess
    import sys

    from attnviz import xcb_check

    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (apt-get install xvfb)")
    plugin = xcb_check.xcb_plugin()
    if plugin is None:
        pytest.skip("PySide6 has no xcb platform plugin here")
    missing = xcb_check.missing_for(plugin)  # Qt would abort with "could not load the xcb platform plugin"
    if missing:
        packages = " ".join(dict.fromkeys(xcb_check.debian_package(name) for name in missing))
        pytest.skip(f"Qt's xcb plugin needs {', '.join(missing)} (apt-get install {packages})")
    env = {key: value for key, value in os.environ.items() if key != "QT_QPA_PLATFORM"}
    done = subprocess.run(["xvfb-run", "-a", sys.executable, "-c", X11_KEYS, str(tiny_models["transformer"][0])],
                          capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "3"  # the sentence field, the beam box, the head box


def _plots_on_screen(window) -> list[QtWidgets.QWidget]:
    """Every line plot and heatmap the user can see."""
    line_plots = [p for p in window.findChildren(TitledPlot) if not p.viewport().visibleRegion().isEmpty()]
    return line_plots + [h for h in window.findChildren(Heatmap) if not h.visibleRegion().isEmpty()]


def _assert_fits(plot: QtWidgets.QWidget) -> None:
    """The data area, its last column and row, the colour bar and the title lie inside the widget."""
    if isinstance(plot, Heatmap):
        inside = QtCore.QRectF(plot.rect()).adjusted(-1, -1, 1, 1)  # a pixel for rounding
        layout = plot.figure_layout()
        assert inside.contains(layout.grid), (plot.title_text(), layout.grid, inside)
        if plot.values.size:
            rows, cols = plot.values.shape
            last = plot.cell_rect(rows - 1, cols - 1)
            assert last.width() >= 1 and last.height() >= 1 and inside.contains(last)  # the last cell is in view
            if plot.has_colour_bar and plot.spec.colour_bar:
                metrics = QtGui.QFontMetricsF(plot.font())
                widest = max(metrics.horizontalAdvance(tick_text(v)) for v in bar_ticks(plot.spec.levels))
                assert inside.contains(layout.bar.adjusted(0, 0, 5 + widest, 0)), (plot.title_text(), inside)
        assert inside.contains(layout.title), plot.title_text()
        metrics = QtGui.QFontMetricsF(plot.title_font)
        assert all(metrics.horizontalAdvance(line) <= layout.title.width() for line in layout.title_text.split("\n"))
        return
    inside = QtCore.QRectF(plot.viewport().rect()).adjusted(-1, -1, 1, 1)
    box = plot.plot.getViewBox().sceneBoundingRect()
    assert inside.contains(box), (plot.title_text(), box, inside)
    title = plot.title.sceneBoundingRect()
    assert title.left() >= -1 and title.right() <= inside.right() + 1


@pytest.mark.parametrize("size", [(1024, 700), (1280, 800)])
def test_every_heatmap_keeps_its_matrix_and_colour_bar_at_laptop_sizes(window, qtbot, size):
    window.resize(*size)
    window.set_sentence("a b c d e f g h i", run=True)
    seen = 0
    for left in ("masks", "positional", "scoring"):
        window.docks[left].raise_()
        for kind, scores in ((AttentionKind.CROSS, True), (AttentionKind.ENCODER_SELF, False),
                             (AttentionKind.DECODER_SELF, True)):
            window.attention.scores.setChecked(scores)
            window.attention.select_view(kind, 1, 1)
            settle(window)
            plots = _plots_on_screen(window)
            assert window.attention.heatmap in plots
            for plot in plots:
                _assert_fits(plot)
                seen += 1
    assert seen == 24  # 3 views × (attention + the two masks, or the PE table, or the two scoring plots)
    heatmap = window.attention.heatmap
    full = heatmap.title_text()
    assert "pre-softmax" in full
    window.resize(1024, 700)
    settle(window)
    layout = heatmap.figure_layout()
    lines = layout.title_text.split("\n")
    assert len(lines) == 2 and " · ".join(lines) == full  # wrapped between its fields at the dock's width, none cut
    at = layout.title.center().toPoint()
    QtWidgets.QApplication.sendEvent(heatmap, QtGui.QHelpEvent(QtCore.QEvent.Type.ToolTip, at, heatmap.mapToGlobal(at)))
    assert QtWidgets.QToolTip.text() == full  # … and whole in its tooltip


@pytest.mark.parametrize("size", [(1024, 700), (1280, 800)])
def test_the_kernel_regression_dock_fits_at_laptop_sizes(window, qtbot, tmp_path, size):
    from attnviz.training.train import train_kernel_regression

    window.resize(*size)
    train_kernel_regression(tmp_path / "kr.safetensors")
    window.load(tmp_path / "kr.safetensors")
    settle(window)
    plots = _plots_on_screen(window)
    assert window.panels.panels["kernel"].heatmap in plots and len(plots) == 3
    for plot in plots:
        _assert_fits(plot)
    # no tab bar of the hidden translation docks is left over the window (Kernel regression and Train share one)
    shown = {dock.windowTitle() for dock in window.docks.values() if dock.isVisible()}
    stale = [bar for bar in window.findChildren(QtWidgets.QTabBar)
             if bar.parent() is window and bar.isVisible() and bar.count() and bar.geometry().top() >= 0
             and not {bar.tabText(i) for i in range(bar.count())} <= shown]
    assert stale == []
    assert window.docks["train"].isVisible()  # the kernel regression can be trained there too


def test_a_wider_window_widens_the_attention_dock(window, qtbot):
    """Once the layout has settled (waited for as events, not time), the new width went to the Attention
    dock: the central controls kept theirs, give or take their slack."""
    from attnviz.gui.docks import CENTRAL_SLACK

    window.resize(1280, 800)
    settle(window)
    attention, central = window.docks["attention"].width(), window.centralWidget().width()
    window.resize(1600, 800)
    settle(window)
    assert window.centralWidget().width() <= central + CENTRAL_SLACK
    assert window.docks["attention"].width() >= attention + 320 - CENTRAL_SLACK


def test_scoring_axis_labels_thin_out_only_below_a_text_line_per_bar(window, qtbot):
    """Every bar labelled while a bar is at least a text line wide; below that every n-th one, never
    overlapping. (Which case a narrow dock gives depends on the fonts: the rule is what is checked.)"""
    window.resize(1024, 700)
    window.docks["scoring"].raise_()
    window.resizeDocks([window.docks["scoring"]], [160], QtCore.Qt.Orientation.Horizontal)  # a narrow dock
    window.set_sentence("a b c d e f g h i", run=True)
    settle(window)
    count = len(window.session.state.source.tokens)
    plot = window.panels.panels["scoring"].score_plot
    ticks = plot.category_ticks("bottom")[0]
    cell = plot.plot.getViewBox().sceneBoundingRect().width() / count
    line = QtGui.QFontMetricsF(plot.plot.getAxis("bottom").font()).height()
    if cell >= line:
        assert [i for i, _ in ticks] == list(range(count))
    else:
        assert 1 < len(ticks) < count and [i for i, _ in ticks] == list(range(0, count, ticks[1][0]))
    left, right = plot.plot.getViewBox().viewRange()[0]
    assert left <= -0.5 and right >= count - 0.5  # every bar in view


def test_first_window_fits_a_small_screen(qtbot, tmp_path, monkeypatch):
    small = QtCore.QRect(0, 0, 1100, 650)
    monkeypatch.setattr(QtGui.QScreen, "availableGeometry", lambda _screen: small)
    window = MainWindow(Settings(tmp_path / "s.ini"), InlineRunner(), defer_docks=True)
    qtbot.addWidget(window)
    assert window.width() <= 1100 and window.height() <= 650


def test_a_closed_dock_stays_closed_after_a_restart(qtbot, tmp_path, tiny_models, errors):
    """As the app starts: docks built after the first paint, then a model loads."""
    settings = tmp_path / "s.ini"
    first = MainWindow(Settings(settings), InlineRunner(), defer_docks=True)
    qtbot.addWidget(first)
    first.show()
    first.build_docks()
    first.load(tiny_models["transformer"][0])
    first.docks["masks"].close()
    first.close()
    second = MainWindow(Settings(settings), InlineRunner(), defer_docks=True)
    qtbot.addWidget(second)
    second.show()
    second.build_docks()
    second.load(tiny_models["transformer"][0])
    settle(second)
    assert not second.docks["masks"].isVisible() and second.docks["positional"].isVisible()



def test_while_a_model_loads_panels_say_loading_and_a_busy_indicator_appears(qtbot, tmp_path, tiny_models):
    runner = HeldRunner()
    window = MainWindow(Settings(tmp_path / "s.ini"), runner)
    qtbot.addWidget(window)
    window.show()
    window.load(tiny_models["transformer"][0])
    assert not window.status.busy_bar.isVisible()  # not at once: quick jobs would only flicker
    qtbot.waitUntil(window.status.busy_bar.isVisible, timeout=WAIT_MS)
    masks, positional = window.panels.panels["masks"], window.panels.panels["positional"]
    assert masks.padding.title_text() == "Loading…"
    window.docks["positional"].raise_()  # a tab behind another is drawn when it is raised
    for heatmap in (masks.padding, positional.table_view, window.attention.heatmap):
        assert heatmap.title_text() == "Loading…", heatmap
        assert heatmap.figure_layout().grid.isEmpty()  # no meaningless axes around the message
    runner.run_all()
    assert not window.status.busy_bar.isVisible()
    assert positional.table_view.values.size and not positional.table_view.figure_layout().grid.isEmpty()


def test_beam_search_numbers_steps_as_its_figures_do(window):
    window.beam_box.setValue(4)
    window.set_sentence("a b c d e f", run=True)
    state = window.session.state
    rows = window.attention.heatmap.values.shape[0]
    label = window.decoding_area.step_label.text()
    assert label.startswith(f"step {rows}") and f"step {rows}" in window.attention.heatmap.title_text()
    if len(state.steps) != rows:
        assert f"search {len(state.steps)}" in label


def test_a_settings_file_naming_an_unknown_dock_and_a_tilde_path_do_not_stop_the_start(qtbot, tmp_path,
                                                                                       tiny_models, errors):
    path = tmp_path / "s.ini"
    path.write_text("[closed_docks]\ntranslation=nosuchdock, masks\n")
    window = MainWindow(Settings(path), InlineRunner(), defer_docks=True)
    qtbot.addWidget(window)
    window.show()
    window.build_docks()  # a KeyError here left the window without its docks' wiring
    window.load(tiny_models["transformer"][0])
    assert not window.docks["masks"].isVisible() and window.docks["attention"].isVisible()
    window.load("~nosuchuser-attnviz/model.safetensors")  # expanduser raises for an unknown user
    assert errors and "no such file" in errors[-1]


def test_a_file_given_as_the_only_argument_is_opened(tmp_path, tiny_models, monkeypatch):
    """The desktop entry's "Open with attnviz" runs ``attnviz FILE``."""
    from attnviz import app

    seen: dict = {}
    monkeypatch.setattr(app, "run_gui", lambda args: seen.setdefault("checkpoint", args.checkpoint) and 0)
    app.main([str(tiny_models["transformer"][0])])
    assert seen["checkpoint"] == tiny_models["transformer"][0]


def test_a_long_token_is_cut_on_the_axes_not_the_window(window, qtbot):
    window.resize(1024, 700)
    word = "supercalifragilisticexpialidocious" * 3
    window.set_sentence(f"a {word} b", run=True)
    window.attention.select_view(AttentionKind.ENCODER_SELF, 0, 0)
    settle(window)
    assert window.width() <= 1024
    layout = window.attention.heatmap.figure_layout()
    labels = [text for _, text in layout.row_ticks + layout.col_ticks]
    assert labels and all(len(text) <= 14 for text in labels) and any(text.endswith("…") for text in labels)
    assert word in window.attention.heatmap.col_labels  # the figure (and its exports) keep the whole token
