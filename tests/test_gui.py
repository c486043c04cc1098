"""Drive the real main window the way a user does (offscreen Qt, synchronous session)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.core.attention.kind import AttentionKind
from attnviz.figures.spec import NamedFigure
from attnviz.gui import file_dialogs
from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.session import InlineRunner
from tests.helpers import WAIT_MS, pixels, settle

ROOT = Path(__file__).resolve().parent.parent


image_of = pixels


def panel(window, name):
    return window.panels.panels[name]


def export(window, spec, path):
    """Export a figure on show the way its context menu does."""
    return window.exports.export_figure(NamedFigure("", spec), path)


def test_run_shows_cross_attention_with_token_axes(window):
    window.set_sentence("a b c d", run=True)
    step = window.session.state.steps[-1]
    assert step.finished and " ".join(step.output_tokens) == "dx cx bx ax"
    assert window.attention.kind is AttentionKind.CROSS
    heatmap = window.attention.heatmap
    assert heatmap.values.shape == (len(step.query_tokens), 4)  # decoded tokens × source tokens
    assert heatmap.col_labels == ("a", "b", "c", "d")
    assert heatmap.row_labels == step.query_tokens
    np.testing.assert_allclose(heatmap.values.sum(axis=1), 1, rtol=1e-5)
    assert "dx cx bx ax" in window.output.text()
    assert window.topk.rowCount() == 5


def test_typing_step_back_and_scrub(window, qtbot):
    window.sentence.clear()
    qtbot.keyClicks(window.sentence, "b c e")
    qtbot.waitUntil(lambda: window.session.state.source is not None
                    and window.session.state.source.tokens == ("b", "c", "e"), timeout=WAIT_MS)
    rows = []
    for _ in range(3):
        qtbot.mouseClick(window.step_button, QtCore.Qt.MouseButton.LeftButton)
        rows.append(window.attention.heatmap.values.shape[0])
    assert rows == [1, 2, 3]  # the cross-attention matrix grows one row per step
    window.back_action.trigger()
    assert window.attention.heatmap.values.shape[0] == 2
    window.timeline.setValue(1)
    assert window.session.state.position == 0 and window.attention.heatmap.values.shape[0] == 1
    window.step_action.trigger()  # re-shows the recorded step 2, no new decoding
    assert len(window.session.state.steps) == 3 and window.attention.heatmap.values.shape[0] == 2


def test_switching_kind_layer_and_head_changes_the_picture(window):
    window.set_sentence("a b c d e", run=True)
    panel = window.attention
    panel.select_view(AttentionKind.ENCODER_SELF, 0, 0)
    assert panel.heatmap.values.shape == (5, 5)
    first = image_of(panel.heatmap)
    panel.select_view(AttentionKind.ENCODER_SELF, 0, 1)
    assert panel.current.head == 1
    assert not np.array_equal(first, image_of(panel.heatmap))
    panel.select_view(AttentionKind.DECODER_SELF, 1, 3)
    steps = len(window.session.state.steps)
    assert panel.heatmap.values.shape == (steps, steps)
    assert np.all(panel.heatmap.values[np.triu_indices(steps, 1)] == 0)  # nothing on future positions
    panel.scores.setChecked(True)
    assert panel.heatmap.values.shape == (steps, steps)
    assert np.nanmin(panel.heatmap.values) < 0 or np.nanmax(panel.heatmap.values) > 1  # raw scores, not weights
    panel.all_heads.setChecked(True)
    assert panel.grid.shape == (2, 4)


def test_bad_checkpoint_shows_error_and_keeps_model(window, tmp_path, errors):
    bad = tmp_path / "broken.safetensors"
    bad.write_bytes(b"not a model")
    window.load(bad)
    assert errors and "broken.safetensors: not a readable safetensors file" in errors[-1]
    assert window.session.state.model.kind == "transformer"
    window.set_sentence("a b", run=True)
    assert window.session.state.translation() == "bx ax"


def test_overlong_input_is_truncated_with_a_notice(window):
    window.set_sentence(" ".join(["a"] * 1000))
    assert len(window.session.state.source.tokens) == 10
    assert "truncated from 1000 to 10 tokens" in window.notice.text()


def test_rnn_model_offers_cross_attention_only(window, tiny_models):
    window.load(tiny_models["rnn-additive"][0])
    window.set_sentence("a b c", run=True)
    kinds = [window.attention.kind_box.itemData(i) for i in range(window.attention.kind_box.count())]
    assert kinds == [AttentionKind.CROSS.value]
    assert window.attention.heatmap.values.shape[1] == 3


def test_dock_layout_is_restored(qtbot, tmp_path, tiny_models, errors):
    settings_path = tmp_path / "layout.ini"
    first = MainWindow(Settings(settings_path), InlineRunner())
    qtbot.addWidget(first)
    first.show()
    first.docks["positional"].close()
    first.close()
    second = MainWindow(Settings(settings_path), InlineRunner())
    qtbot.addWidget(second)
    second.show()
    assert not second.docks["positional"].isVisible()
    assert second.docks["attention"].isVisible()
    assert all(dock.objectName() for dock in second.docks.values())


def test_main_py_launches_and_quits_cleanly(tmp_path, tiny_models):
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--checkpoint", str(tiny_models["transformer"][0]), "--text",
         "a b c", "--settings", str(tmp_path / "s.ini"), "--log", str(tmp_path / "app.log"),
         "--quit-when-decoded"],
        capture_output=True, text=True, timeout=600, env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Fatal" not in done.stderr
    assert "last_checkpoint" in (tmp_path / "s.ini").read_text()
    assert "unexpected error" not in (tmp_path / "app.log").read_text()


def test_export_from_the_window_png_differs_between_heads_and_csv_round_trips(window, tmp_path):
    from attnviz.render.figure_files import read_csv

    window.set_sentence("a b c d", run=True)
    panel = window.attention
    panel.select_view(AttentionKind.CROSS, 1, 0)
    first = export(window, panel.heatmap.spec, tmp_path / "h1.png")
    csv_path = export(window, panel.heatmap.spec, tmp_path / "h1.csv")
    panel.select_view(AttentionKind.CROSS, 1, 1)
    second = export(window, panel.heatmap.spec, tmp_path / "h2.png")
    assert first.is_file() and second.is_file()
    assert not np.array_equal(pixels(first), pixels(second))
    values, rows, cols = read_csv(csv_path)
    step = window.session.state.steps[-1]
    np.testing.assert_array_equal(values, step.cross_weights[1, 0])
    assert cols == ("a", "b", "c", "d") and rows == step.query_tokens
    assert "Exported" in window.statusBar().full_message


def test_export_shortcut_asks_for_a_file_and_writes_it(window, tmp_path, monkeypatch):
    window.set_sentence("a b c", run=True)
    target = tmp_path / "chosen"
    monkeypatch.setattr(file_dialogs, "save_file_name",
                        lambda *_args, **_kw: (str(target), "SVG vector image (*.svg)"))
    window.exports.export_action.trigger()
    assert (tmp_path / "chosen.svg").read_text(encoding="utf-8").startswith("<?xml")


def test_export_all_writes_every_kind_layer_and_head(window, tmp_path):
    window.set_sentence("a b c", run=True)
    written = window.exports.export_all(tmp_path / "all", ["npy"])
    assert len(written) == 3 * 2 * 4 + 1  # kinds × layers × heads, plus the JSON sidecar
    assert window.settings.export_formats == ["npy"]


def test_export_into_unwritable_folder_shows_the_error(window, tmp_path, errors):
    window.set_sentence("a b c", run=True)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert window.exports.export_all(blocker / "out", ["png"]) == []
    assert errors and errors[-1].startswith("Cannot write") and f"{blocker} is a file, not a folder" in errors[-1]


def test_copy_puts_the_figure_on_the_clipboard(window):
    window.set_sentence("a b c", run=True)
    QtWidgets.QApplication.clipboard().clear()
    window.exports.copy_action.trigger()
    image = QtWidgets.QApplication.clipboard().image()
    assert not image.isNull() and image.width() > 200


def test_open_dialog_loads_the_chosen_checkpoint(window, tiny_models, monkeypatch):
    path = tiny_models["rnn-dot"][0]
    monkeypatch.setattr(file_dialogs, "open_file_name", lambda *_a, **_k: (str(path), ""))
    window.menus.open_action.trigger()
    assert window.session.state.model.kind == "rnn-dot"
    assert window.settings.recent_files[0] == str(path)
    assert "rnn-dot" in window.windowTitle()


def test_scoring_panel_replays_masking_on_the_real_scores(window, tiny_models):
    window.load(tiny_models["rnn-additive"][0])
    window.set_sentence("a b c d", run=False)
    window.step_action.trigger()
    window.step_action.trigger()
    panel = window.panels.panels['scoring']
    assert not window.panels.showing("scoring") and panel.scores.size == 0  # a tab behind another: not drawn
    window.docks["scoring"].raise_()  # the user picks the Scoring tab: it catches up
    step = window.session.state.steps[-1]
    np.testing.assert_array_equal(panel.scores, step.cross_scores[0, 0, -1])
    np.testing.assert_allclose(panel.weights(), step.cross_weights[0, 0, -1], rtol=1e-5, atol=1e-7)
    panel.valid_len.setValue(2)
    weights = panel.weights()
    assert np.all(weights[2:] == 0) and weights[:2].sum() == pytest.approx(1, abs=1e-6)
    assert "Keys from position 3 on are masked" in panel.caption.text()
    assert "additive" in panel.formula.text()


def test_kernel_checkpoint_shows_the_kernel_panel_and_reacts(window, tmp_path):
    from attnviz.training.train import train_kernel_regression

    path = tmp_path / "kr.safetensors"
    train_kernel_regression(path)
    window.load(path)
    panel = window.panels.panels['kernel']
    assert window.docks["kernel"].isVisibleTo(window) and not window.decoding_area.isVisibleTo(window)
    assert panel.heatmap.values.shape == (50, 50)  # test points × training points
    before = panel.fit.nonparametric.copy()
    panel.bandwidth.setValue(0.25)
    assert panel.fit.bandwidth == pytest.approx(0.25)
    assert not np.allclose(before, panel.fit.nonparametric)  # a narrower kernel follows the noise more
    panel.query_line.setValue(4.0)
    fit = panel.fit
    assert fit.query == pytest.approx(4.0)
    assert fit.x_train[np.argmax(fit.query_nonparametric_weights)] == pytest.approx(4.0, abs=0.3)
    assert "Query x = 4.00" in panel.summary.text()
    panel.kernel_box.setCurrentText("boxcar")
    assert panel.fit.kernel == "boxcar"
    exported = window.exports.export_figure(window.current_figure(), tmp_path / "kernel.npy")  # Ctrl+E's figure
    np.testing.assert_array_equal(np.load(exported), panel.heatmap.values)
    assert window.exports.export_all_action.isEnabled()  # the kernel model's figures (predictions, weights)
    assert not window.exports.flipbook_action.isEnabled()  # a flip-book shows a decoding: this model has none
    window.load(window.settings.recent_files[1])  # back to the Transformer: the kernel panel goes away
    assert not window.docks["kernel"].isVisibleTo(window) and window.decoding_area.isVisibleTo(window)


def test_unexpected_error_is_shown_once_and_logged(window, tmp_path, errors, caplog, monkeypatch):
    import threading

    from attnviz.gui.errors import install_excepthooks

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    log_path = tmp_path / "attnviz.log"
    stop_showing = install_excepthooks(window.error, lambda fn: fn(), log_path)
    for _ in range(2):
        try:
            raise RuntimeError("boom in a slot.")
        except RuntimeError:
            sys.excepthook(*sys.exc_info())
    assert errors == ["Unexpected error: RuntimeError: boom in a slot. attnviz keeps running. "
                      f"Details are in {log_path}."]
    logged = [r for r in caplog.records if r.name == "attnviz" and r.levelname == "ERROR"]
    assert len(logged) == 2 and logged[0].exc_info is not None  # the traceback goes to the log
    stop_showing()  # after the window closes: logged, never shown
    try:
        raise ValueError("late")
    except ValueError:
        sys.excepthook(*sys.exc_info())
    assert len(errors) == 1


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="None is immortal from Python 3.12: the bug cannot abort")
def test_repainting_does_not_corrupt_reference_counts(window):
    """PySide6 6.12.0 loses a reference to None per Python override call (every paint): a long
    session then aborts with "deallocating None". The pinned PySide6 must not do that."""
    window.set_sentence("a b c", run=True)
    before = sys.getrefcount(None)
    for _ in range(300):
        window.repaint()
    assert sys.getrefcount(None) >= before - 50


def test_beam_search_lists_the_beams(window):
    window.beam_box.setValue(3)
    window.set_sentence("a b c", run=True)
    step = window.session.state.steps[-1]
    assert len(step.beams) == 3
    text = window.decoding_area.beams.text()
    assert "Beams" in text and text.count("(score ") == 3 and "cx bx ax" in text
    assert window.settings.beam_size == 3


def test_png_scale_menu_sets_the_resolution(window, tmp_path):
    window.set_sentence("a b c", run=True)
    spec = window.attention.heatmap.spec
    sizes = []
    for label in ("1×", "3×"):
        next(a for a in window.exports.scale_group.actions() if a.text() == label).trigger()
        sizes.append(pixels(export(window, spec, tmp_path / f"{label[0]}.png")).shape[0])
    assert abs(sizes[1] - 3 * sizes[0]) <= 3 and window.settings.export_scale == 3.0


def test_masks_panel_draws_the_causal_mask_only_where_there_is_one(window, tiny_models):
    window.set_sentence("a b c", run=True)
    causal = panel(window, 'masks').causal
    steps = len(window.session.state.steps)
    np.testing.assert_array_equal(causal.values, np.tril(np.ones((steps, steps))))
    assert causal.row_labels == window.session.state.steps[-1].query_tokens
    window.load(tiny_models["rnn-dot"][0])
    window.set_sentence("a b c", run=True)
    assert causal.values.size == 0 and "No causal mask" in causal.spec.title
    padding = panel(window, 'masks').padding
    assert padding.values.shape == (1, 3) and padding.row_labels == ("all",)  # the same for every query


def test_positional_table_outlines_the_sentence_until_the_field_is_cleared(window, qtbot):
    window.docks["positional"].raise_()  # its tab is behind the Masks tab: hidden panels are not redrawn
    window.set_sentence("a b c")
    table = panel(window, 'positional').table_view
    qtbot.waitUntil(lambda: table.highlighted_rows == (0, 3), timeout=WAIT_MS)
    window.sentence.selectAll()
    qtbot.keyClick(window.sentence, QtCore.Qt.Key.Key_Backspace)  # as a user empties the field
    qtbot.waitUntil(lambda: table.highlighted_rows is None, timeout=WAIT_MS)


def test_export_with_all_heads_shown_writes_the_whole_grid(window, tmp_path, monkeypatch):
    window.set_sentence("a b c d", run=True)
    panel = window.attention
    panel.select_view(AttentionKind.CROSS, 0, 0)
    single = export(window, panel.heatmap.spec, tmp_path / "single.png")
    panel.all_heads.setChecked(True)
    chosen, offered = iter(["grid.png", "grid.csv", "grid.npy"]), []

    def save_dialog(_parent, _title, start, _filters):
        offered.append(Path(start).name)
        return str(tmp_path / next(chosen)), ""

    monkeypatch.setattr(file_dialogs, "save_file_name", save_dialog)
    for _ in range(3):
        window.exports.export_action.trigger()  # Ctrl+E exports what is on show: the layers × heads grid
    step = window.session.state.steps[-1]
    assert offered[0] == f"cross_all-heads_step{step.index + 1:02d}.png"
    np.testing.assert_array_equal(np.load(tmp_path / "grid.npy"), step.cross_weights)  # (layers, heads, Q, K)
    grid, one = pixels(tmp_path / "grid.png"), pixels(single)
    assert grid.shape[0] > 1.5 * one.shape[0] and grid.shape[1] > 2 * one.shape[1]
    lines = (tmp_path / "grid.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "layer,head,queries \\ keys,a,b,c,d"
    assert len(lines) == 1 + 2 * 4 * len(step.query_tokens)  # every head's rows
    assert lines[-1].startswith(f"layer 2,head 4,{step.query_tokens[-1]},")


def test_export_from_a_hidden_attention_dock_writes_the_step_on_show(window, tmp_path):
    window.docks["attention"].close()
    window.set_sentence("a b c d", run=True)
    window.timeline.setValue(2)  # back to step 2 while the dock is hidden
    figure = window.current_figure()
    exported = window.exports.export_figure(figure, tmp_path / f"{figure.stem}.npy")
    assert exported.name == "cross_layer1_head1_step02.npy" and "step 2" in figure.spec.title
    np.testing.assert_array_equal(np.load(exported), window.session.state.steps[1].cross_weights[0, 0])


def test_encoder_maps_are_not_titled_with_a_step(window):
    window.set_sentence("a b c", run=True)
    window.attention.select_view(AttentionKind.ENCODER_SELF, 0, 0)
    figure = window.current_figure()
    assert "step" not in figure.spec.title and figure.stem == "enc-self_layer1_head1"


def test_export_all_refuses_a_relative_folder(window, errors, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    window.set_sentence("a b c", run=True)
    assert window.exports.export_all("maps", ["png"]) == []
    assert errors[-1] == "Choose a full folder path to export into (got 'maps')." and not (tmp_path / "maps").exists()


def test_an_unavailable_device_is_refused_and_the_old_choice_stays(window, errors):
    before = window.session.state.device
    window.session.set_device("cuda:99")
    assert errors and "cuda:99" in errors[-1]
    assert window.settings.device == before == window.session.state.device
    assert [a.text() for a in window.menus.device_group.actions() if a.isChecked()] == [before]


def test_hover_readout_follows_the_matrix_on_show(window, qtbot):
    """The pointer rests on a cell while the head, the kind or the model changes: the read-out must
    show the new matrix's value, not the old one's."""
    window.set_sentence("a b c d", run=True)
    attention = window.attention
    attention.select_view(AttentionKind.CROSS, 0, 0)
    heatmap = attention.heatmap
    window.resize(1280, 800)
    settle(window)
    at = heatmap.cell_rect(1, 2).center()  # row 1, column 2 (key "c")
    QtWidgets.QApplication.sendEvent(heatmap, QtGui.QMouseEvent(
        QtCore.QEvent.Type.MouseMove, at, heatmap.mapToGlobal(at), QtCore.Qt.MouseButton.NoButton,
        QtCore.Qt.MouseButton.NoButton, QtCore.Qt.KeyboardModifier.NoModifier))
    assert "→ key <b>c</b>" in attention.readout.text()
    assert attention.readout.text().startswith("position 2 → 3 · ")  # where the cell is, counted from 1
    # a read-out of any length keeps its room: the dock is never laid out again under the pointer
    room, shown = (attention.readout.sizeHint(), attention.heatmap.geometry()), attention.readout.text()
    attention.readout.setText("query <b>" + "very-long-token " * 40 + "</b>")
    settle(window)
    assert (attention.readout.sizeHint(), attention.heatmap.geometry()) == room
    attention.readout.setText(shown)
    step = window.session.state.steps[-1]
    assert f"weight {step.cross_weights[0, 0, 1, 2]:.4f}" in attention.readout.text()
    attention.select_view(AttentionKind.CROSS, 1, 3)  # another layer and head, pointer still
    assert f"weight {step.cross_weights[1, 3, 1, 2]:.4f}" in attention.readout.text()
    attention.select_view(AttentionKind.ENCODER_SELF, 0, 1)
    assert f"weight {window.session.state.source.encoder_weights[0, 1, 1, 2]:.4f}" in attention.readout.text()
    window.sentence.clear()
    window.set_sentence("")  # nothing on show: no read-out
    assert attention.readout.text().strip() == ""


def test_step_clicked_right_after_typing_is_not_lost(window, qtbot):
    """Typing, then Step before the debounce has encoded the sentence: the click decodes a step."""
    window.set_sentence("")
    qtbot.keyClicks(window.sentence, "a b")  # the debounced encoding has not run yet
    assert window.step_button.isEnabled() and window.run_button.isEnabled()
    qtbot.mouseClick(window.step_button, QtCore.Qt.MouseButton.LeftButton)
    state = window.session.state
    assert state.source is not None and state.source.tokens == ("a", "b")
    assert len(state.steps) == 1 and state.position == 0
    qtbot.keyClicks(window.sentence, " c")
    qtbot.mouseClick(window.run_button, QtCore.Qt.MouseButton.LeftButton)
    assert window.session.state.translation() == "cx bx ax"


def test_error_dialogs_show_untrusted_text_as_plain_text(monkeypatch):
    from attnviz.gui import errors

    shown = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "exec", lambda box: shown.append((box.textFormat(), box.text())))
    errors.warn(None, "x.safetensors: unknown model kind '<a href=\"http://evil\">update here</a>'")
    assert shown == [(QtCore.Qt.TextFormat.PlainText,
                      "x.safetensors: unknown model kind '<a href=\"http://evil\">update here</a>'")]


def test_a_symlink_loop_chosen_in_the_window_is_an_error_message(window, tmp_path, errors):
    loop = tmp_path / "loop.safetensors"
    loop.symlink_to(loop)
    window.load(loop)
    assert errors and "cannot be opened" in errors[-1]
    assert window.session.state.model is not None and window.session.state.model.kind == "transformer"


def test_garbage_is_collected_on_the_gui_thread_only(window, qtbot):
    """A worker that allocates (say, loading a model) must not destroy Qt objects left in reference cycles:
    off the GUI thread that can hang the app. Collection runs on a GUI-thread timer instead."""
    import gc
    import threading
    import weakref

    class Holder:
        pass

    assert not gc.isenabled()
    holder = Holder()
    holder.itself, holder.qt_object = holder, QtCore.QObject()  # a cycle holding a Qt object
    collected_on: list[str] = []
    weakref.finalize(holder, lambda: collected_on.append(threading.current_thread().name))
    del holder
    kept: list = []  # what the worker allocated stays alive (as a loaded model does): the count stays high
    worker = threading.Thread(target=lambda: kept.extend([[] for _ in range(50)] for _ in range(4000)),
                              name="allocator")
    worker.start()
    worker.join()
    assert collected_on == []  # 200,000 new lists on the worker collected nothing there
    assert gc.get_count()[0] > gc.get_threshold()[0]  # so the GUI thread's timer has a collection to do
    qtbot.waitUntil(lambda: collected_on == ["MainThread"], timeout=WAIT_MS)


def test_help_lists_every_key_of_the_window_and_no_two_commands_share_one(window):
    from attnviz.gui.shortcuts_dialog import ShortcutsDialog, shortcut_rows

    rows = shortcut_rows(window.menuBar())
    listed = {command for _menu, command, _keys in rows}
    for action in window.findChildren(QtGui.QAction):
        if action.shortcuts() and action.text():
            assert action.text().replace("&", "") in listed, action.text()
    keys = [key for _menu, _command, shown in rows for key in shown.split(", ")]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
    assert ("Help", "Keyboard shortcuts…", "Ctrl+F1") in rows and ("View", "Lecture view", "F5") in rows
    mnemonics = [a.text().split("&")[1][0].lower() for a in window.menuBar().actions() if "&" in a.text()]
    assert len(mnemonics) == len(set(mnemonics))  # Alt+letter opens one menu each (Device no longer shares V)
    dialog = ShortcutsDialog(window.menuBar(), window)
    assert dialog.table.rowCount() == len(rows)
    dialog.deleteLater()


def test_a_forced_candidate_leaves_no_row_of_the_table_marked(window):
    window.set_sentence("a b c")
    window.session.step()
    window.session.step()
    taken = window.session.state.step.token
    row = next(r for r in range(window.topk.rowCount()) if window.topk.item(r, 0).text() != taken)
    window.topk.setCurrentCell(row, 0)
    window.topk.cellClicked.emit(row, 0)
    assert window.topk.currentRow() == -1 and window.session.state.step.forced


def test_compare_with_kernel_regression_on_show_says_why_not(window, tiny_models, errors):
    from attnviz.paths import MODELS_DIR

    window.load(MODELS_DIR / "kernel-regression.safetensors")
    window.session.compare_with(tiny_models["transformer"][0])
    assert errors and "open a translation model first" in errors[-1] and "AssertionError" not in errors[-1]


@pytest.mark.qt_log_ignore("This plugin does not support grabbing")  # (a menu pops up offscreen)
def test_the_plots_have_attnvizs_own_menu_in_the_interfaces_language(window):
    import pyqtgraph as pg

    views = window.findChildren(pg.GraphicsView)
    assert views
    for view in views:
        assert view.scene().contextMenu == []  # pyqtgraph's English "Export…" is gone …
        assert not any(isinstance(item, pg.ViewBox) and item.menuEnabled() for item in view.scene().items())
    view = window.panels.panels["scoring"].score_plot
    at = view.viewport().rect().center()
    QtWidgets.QApplication.sendEvent(view.viewport(), QtGui.QContextMenuEvent(
        QtGui.QContextMenuEvent.Reason.Mouse, at, view.viewport().mapToGlobal(at)))
    menu = view.findChild(QtWidgets.QMenu, "attnviz_plot_menu")  # … attnviz's own menu instead
    assert menu is not None and [a.text() for a in menu.actions()] == ["Copy picture", "Show all data"]
    menu.actions()[0].trigger()
    assert not QtWidgets.QApplication.clipboard().pixmap().isNull()
    menu.close()
