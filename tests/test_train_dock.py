"""The Train dock: train in the window, watch the maps and curves, scrub the history, stop half-way, open,
save and export what was trained (the window's session runs inline: each run ends inside the click)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6 import QtCore, QtWidgets

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.learning.history import TrainingHistory
from attnviz.gui.panels.train import TrainPanel
from attnviz.render.figure_files import export_figure
from tests.helpers import WAIT_MS, pixels, settle


@pytest.fixture
def panel(window, tmp_path) -> TrainPanel:
    train = window.panels.panels["train"]
    assert isinstance(train, TrainPanel)
    train.trained_folder = tmp_path / "trained"
    window.docks["train"].raise_()
    settle(window)
    return train


def choose(panel: TrainPanel, kind: str, task: str | None = None, epochs: int | None = 1) -> None:
    panel.family_box.setCurrentIndex(panel.family_box.findData(kind))
    if task is not None:
        panel.task_box.setCurrentIndex(panel.task_box.findData(task))
        panel.size_box.setCurrentText("tiny")
    if epochs is not None:
        panel.epochs_box.setValue(epochs)


def test_training_in_the_dock_opens_the_model_with_its_probe_and_keeps_the_history(window, panel):
    # before any run: empty plots on their ranges (loss 0…1, scores 0…100 %), no step cursor at 0
    assert not any(line.isVisible() for line in panel.cursor_lines)
    assert [list(r) for r in panel.loss_view.plot.viewRange()] == [[0, 1], [0, 1]]
    assert list(panel.score_view.plot.viewRange()[1]) == [0, 100]
    said: list[str] = []
    panel.message.connect(said.append)
    choose(panel, "rnn-additive", "copy", epochs=2)
    panel.train_button.click()
    # the status line was current at every snapshot
    assert sum(text.startswith("Training: step ") for text in said) == 31
    history = panel.history
    assert history is not None and len(history.snapshots) == 31 and history.snapshots[-1].step == 256
    # the model opened like any checkpoint, its probe decoded in every view; the Train dock stayed on show
    model = window.session.state.model
    assert model.kind == "rnn-additive" and model.path.parent == panel.trained_folder
    assert window.sentence.text() == "3 1 4 1 5 9 2" and window.session.state.steps
    assert not window.docks["train"].visibleRegion().isEmpty()
    assert panel.slider.maximum() == 30 and panel.slider.value() == 30
    assert panel.heatmap.spec.title.startswith("step 256 · exact match ") and "agreement" in panel.heatmap.spec.title
    assert panel.save_button.isEnabled() and panel.train_button.isEnabled() and not panel.stop_button.isEnabled()
    # scrubbing back shows the untrained model's map, and the cursor on the curves follows
    panel.slider.setValue(0)
    assert panel.heatmap.spec.title.startswith("step 0 ")
    assert np.array_equal(panel.heatmap.values, history.snapshots[0].map)
    assert panel.cursor_lines[0].value() == 0 and panel.slider_label.text() == "snapshot 1 of 31 · step 0"
    trained_pixels = pixels(panel.heatmap)
    panel.slider.setValue(30)
    assert not np.array_equal(pixels(panel.heatmap), trained_pixels)  # the map changed as it learned


def test_stopping_half_way_opens_the_model_as_it_is(window, panel, monkeypatch):
    choose(panel, "transformer", "reverse", epochs=50)
    shown = panel.show_history

    def stop_after_three(history: TrainingHistory) -> None:
        shown(history)
        if len(history.snapshots) == 3:
            panel.stop()  # (the Stop button, from the run's third snapshot)

    monkeypatch.setattr(panel, "show_history", stop_after_three)
    panel.train_button.click()
    assert len(panel.history.snapshots) == 3  # it stopped right after the third: that is the model saved
    loaded = load_checkpoint(window.session.state.model.path)
    assert loaded.training["stopped"] is True and loaded.training["steps"] == panel.history.snapshots[-1].step
    assert sorted(p.suffix for p in panel.trained_folder.iterdir()) == [".safetensors"]  # nothing half-written


def test_the_kernel_regression_trains_in_the_dock_and_its_weights_sharpen(window, panel):
    choose(panel, "kernel-regression", epochs=None)
    assert not panel.task_box.isEnabled() and panel.epochs_box.value() == 5
    panel.train_button.click()
    assert window.session.state.model.kind == "kernel-regression"
    assert panel.history.snapshots[0].note == "w = 1.00" and len(panel.history.snapshots) == 6
    assert panel.heatmap.values.shape == (50, 50) and panel.score_view.title_text() == "Held-out test MSE, by step"


def test_a_checkpoint_with_a_history_shows_it_when_opened(window, panel, tmp_path, capsys, tiny_models, qtbot):
    from tests.helpers import run_cli

    out = tmp_path / "dates.safetensors"
    code, _, err = run_cli(capsys, "train", "rnn-dot", "--task", "dates", "--out", str(out), "--epochs", "1",
                           "--snapshots", "4", "--preset", "tiny")
    assert code == 0, err
    window.load(out)
    assert panel.history is not None and [s.step for s in panel.history.snapshots] == [0, 32, 64, 96, 128]
    assert panel.slider.isEnabled() and panel.heatmap.spec.col_labels == ("march", "14", "2021")
    assert "dates.safetensors: trained on dates (5 snapshots; epoch limit (1 epoch) reached)" in panel.status.text()
    # the dock follows: its model, task and probe, and the probe decoded in the window
    assert (panel.kind, panel.task, panel.probe_edit.text()) == ("rnn-dot", "dates", "march 14 2021")
    qtbot.waitUntil(lambda: window.session.state.finished, timeout=WAIT_MS)
    assert window.sentence.text() == "march 14 2021" == window.session.state.source.text
    window.load(tiny_models["transformer"][0])  # a translation model after it: the dock forgets the run
    assert panel.history is None and panel.probe_edit.text() == "" and not panel.slider.isEnabled()
    assert panel.status.text() == "Choose a model and a task, then press Train."
    assert not any(line.isVisible() for line in panel.cursor_lines) and panel.heatmap.values.size == 0


def test_save_export_flipbook_and_curves(window, panel, tmp_path):
    choose(panel, "rnn-additive", "dates")
    panel.train_button.click()
    target = tmp_path / "mine.safetensors"
    assert panel.save_model(target)
    assert window.windowTitle() == "attnviz — mine.safetensors"  # the window calls it by its new name …
    assert window.current_figure().spec.title.startswith("mine ·")  # … in its figures too
    saved = load_checkpoint(target)
    assert len(TrainingHistory.from_json(saved.training["history"]).snapshots) == 31
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    assert not panel.save_model(notes)  # a file that is not a checkpoint is never replaced
    assert notes.read_text() == "mine" and "not an attnviz checkpoint" in panel.status.text()

    written = window.exports.export_frames(tmp_path / "flip.pdf", panel.flipbook_figures(), "t", "snapshots")
    assert [p.name for p in written] == ["flip.pdf", "flip.gif"]
    with Image.open(tmp_path / "flip.gif") as gif:
        assert gif.n_frames == 31
    figure = window.panels.figure("train")
    assert figure is not None and figure.stem == "training-curves"
    export_figure(figure.spec, tmp_path / "curves.csv")
    lines = (tmp_path / "curves.csv").read_text().splitlines()
    assert lines[0] == "series,step,value" and {line.split(",")[0] for line in lines[1:]} == {
        "training loss", "exact match", "alignment agreement"}
    export_figure(figure.spec, tmp_path / "curves.png")
    assert Image.open(tmp_path / "curves.png").size[1] > Image.open(tmp_path / "curves.png").size[0]  # stacked


def test_a_hostile_file_is_refused_in_the_dock_with_one_sentence(window, panel, tmp_path):
    before = window.session.state.model
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(b"\x00\xff" * 5000)
    choose(panel, "transformer", "file")
    panel.data_path = bad
    panel.train_button.click()
    assert panel.status.text() == ("Training stopped: bad.tsv: no usable source<TAB>target pairs (lines skipped: "
                                   "1 not UTF-8)")
    assert window.session.state.model is before and panel.train_button.isEnabled()
    assert not Path(panel.trained_folder).exists() or not list(Path(panel.trained_folder).iterdir())


def test_the_heads_setting_is_offered_where_the_architecture_has_heads(window, panel):
    for kind, offered in (("rnn-additive", False), ("rnn-dot", False), ("transformer", True), ("decoder-only", True)):
        panel.family_box.setCurrentIndex(panel.family_box.findData(kind))
        assert panel.heads_box.isEnabled() == offered, kind


def test_heads_that_do_not_divide_the_width_are_refused_before_training(window, panel):
    choose(panel, "transformer", "copy")
    panel.width_box.setValue(30)
    panel.heads_box.setValue(4)
    panel.train_button.click()
    assert "must be a multiple of the heads" in panel.status.text() and panel.history is None


def test_a_hidden_train_tab_catching_up_never_replaces_the_users_sentence(window, panel, tmp_path, capsys, qtbot,
                                                                         tiny_models):
    from tests.helpers import run_cli

    out = tmp_path / "reverse.safetensors"
    code, _, err = run_cli(capsys, "train", "rnn-dot", "--task", "reverse", "--out", str(out), "--epochs", "1",
                           "--snapshots", "2", "--preset", "tiny")
    assert code == 0, err
    window.docks["attention"].raise_()  # the Train dock a hidden tab: it draws only once it is shown
    settle(window)
    window.load(out)
    qtbot.waitUntil(lambda: window.session.state.finished, timeout=WAIT_MS)
    probe = " ".join(load_checkpoint(out).training["history"]["snapshots"][-1]["cols"])
    assert window.sentence.text() == probe  # decoded as the model opened, tab hidden or not
    window.set_sentence("3 3 3", run=True)
    window.docks["train"].raise_()
    settle(window)
    assert window.sentence.text() == "3 3 3" and panel.probe_edit.text() == probe  # the dock caught up, quietly


@pytest.fixture(scope="module")
def dates_models(tmp_path_factory) -> dict[str, Path]:
    """A checkpoint trained (briefly) on the dates task for each kind the dock trains, with its history."""
    from attnviz.training.live import LIVE_KINDS, LiveSettings, LiveTraining, preset_arch, task_data

    folder = tmp_path_factory.mktemp("dates")
    settings = LiveSettings(epochs=1, snapshots=1, train_size=64, heldout_size=8, batch_size=32)
    return {kind: LiveTraining(kind, task_data("dates", settings), preset_arch(kind, "tiny"), settings).run()
            .save(folder / f"dates-{kind}.safetensors") for kind in LIVE_KINDS}


def learned_at_the_third_evaluation(monkeypatch) -> list[tuple[float | None, int]]:
    """The learned rule, as if the model learned at its third evaluation; what level and count it was asked."""
    import attnviz.training.live as live

    asked: list[tuple[float | None, int]] = []

    def rule(snapshots, score_name, level, evaluations):
        asked.append((level, evaluations))
        return level is not None and len([s for s in snapshots if s.step > 0]) >= evaluations

    monkeypatch.setattr(live, "has_learned", rule)
    return asked


def test_the_dock_stops_by_the_commands_learned_rule_and_says_why(window, panel, monkeypatch, tmp_path, capsys):
    from tests.helpers import run_cli

    asked = learned_at_the_third_evaluation(monkeypatch)
    choose(panel, "rnn-additive", "copy", epochs=3)
    panel.train_button.click()
    # it stopped at the third evaluation after the untrained one (of 31 planned) and says why
    assert [s.step > 0 for s in panel.history.snapshots] == [False, True, True, True]
    assert panel.history.ending.why == "learned"
    assert panel.status.text().startswith("Done — learned: held-out exact match at least 99 % at 3 evaluations in "
                                          "a row. step ")
    dock_asked = set(asked)
    # attnviz train --task asks the same rule the same question
    asked.clear()
    out = tmp_path / "cli.safetensors"
    code, _, err = run_cli(capsys, "train", "rnn-additive", "--task", "copy", "--preset", "tiny", "--epochs", "3",
                           "--out", str(out))
    assert code == 0 and "held-out exact match at least 99 % at 3 evaluations in a row" in err
    assert dock_asked == set(asked) == {(99.0, 3)}
    # opened again, the dock says why its run ended
    window.load(out)
    assert "4 snapshots; learned: held-out exact match at least 99 %" in panel.status.text()


def test_the_dock_says_a_run_ran_out_of_epochs_or_was_stopped(window, panel, monkeypatch):
    choose(panel, "rnn-dot", "sort", epochs=1)
    panel.train_button.click()  # (one epoch of a tiny model does not learn to sort)
    assert panel.history.ending.why == "epochs" and len(panel.history.snapshots) == 31
    assert panel.status.text().startswith("Done — epoch limit (1 epoch) reached. step 128")
    shown = panel.show_history

    def stop_at_the_second(history: TrainingHistory) -> None:
        shown(history)
        if len(history.snapshots) == 2:
            panel.stop()

    monkeypatch.setattr(panel, "show_history", stop_at_the_second)
    panel.train_button.click()
    assert panel.history.ending.why == "stopped" and panel.status.text().startswith("Done — stopped by the user.")


@pytest.mark.parametrize("kind", ["rnn-additive", "rnn-dot", "transformer", "decoder-only"])
def test_a_dates_model_opens_with_its_probe_decoded_also_when_opened_again(window, panel, dates_models, kind,
                                                                         qtbot):
    for _ in range(2):  # the second time the sentence field already holds the probe
        window.load(dates_models[kind])
        qtbot.waitUntil(lambda: window.session.state.finished, timeout=WAIT_MS)
        state = window.session.state
        assert window.sentence.text() == state.source.text == "march 14 2021" and state.steps


def test_a_probe_asked_for_while_a_model_loads_after_the_kernel_regression_is_decoded(dates_models):
    """The Train dock's end, as the window asks it: open the trained model, then decode its probe (the
    kernel regression, which decodes nothing, still open while the new model loads)."""
    from attnviz import paths
    from attnviz.session import Session
    from tests.helpers import HeldRunner

    class Listener:
        def state_changed(self, old, new) -> None:
            pass

        def error(self, message: str) -> None:
            raise AssertionError(message)

    runner = HeldRunner()
    session = Session(Listener(), runner)  # type: ignore[arg-type]
    session.load(paths.MODELS_DIR / "kernel-regression.safetensors")
    runner.run_all()
    session.load(dates_models["rnn-additive"])
    session.encode("march 14 2021", run=True)
    runner.run_all()
    assert session.state.model.kind == "rnn-additive" and session.state.finished
    assert session.state.source.text == "march 14 2021"


def test_the_dock_follows_the_open_model_and_carries_no_sentence_into_another(window, panel, dates_models, tmp_path,
                                                                            capsys, qtbot, tiny_models):
    from attnviz.core.models.kinds import model_size
    from tests.helpers import run_cli

    reverse = tmp_path / "reverse.safetensors"
    code, _, err = run_cli(capsys, "train", "transformer", "--task", "reverse", "--out", str(reverse), "--epochs",
                           "1", "--snapshots", "2", "--preset", "tiny")
    assert code == 0, err
    for path, expected in ((dates_models["rnn-dot"], ("rnn-dot", "dates", "march 14 2021")),
                           (reverse, ("transformer", "reverse", "3 1 4 1 5 9 2")),
                           (dates_models["decoder-only"], ("decoder-only", "dates", "march 14 2021"))):
        window.load(path)
        qtbot.waitUntil(lambda: window.session.state.finished, timeout=WAIT_MS)
        assert (panel.kind, panel.task, panel.probe_edit.text()) == expected
        assert panel.probe_edit.placeholderText() == expected[2]
        size = (panel.width_box.value(), panel.layers_box.value(), panel.heads_box.value())
        assert panel.size_box.currentData() == "tiny" and size == model_size(expected[0], "tiny")  # as trained
        assert window.sentence.text() == expected[2] and window.notice.text().strip() == ""  # no unknown words
    # another task chosen: the probe of the old one goes (training would refuse it), and the hint follows
    panel.task_box.setCurrentIndex(panel.task_box.findData("reverse"))
    assert panel.probe_edit.text() == "" and panel.probe_edit.placeholderText() == "3 1 4 1 5 9 2"
    panel.probe_edit.setText("3 1 4")
    panel.task_box.setCurrentIndex(panel.task_box.findData("file"))  # (a task's digits are no sentence of a file)
    assert panel.probe_edit.text() == ""
    # a model without a history: its kind, no probe, and the window's sentence is no longer the task's input
    window.load(tiny_models["rnn-additive"][0])
    qtbot.waitUntil(lambda: window.session.state.finished, timeout=WAIT_MS)
    assert panel.kind == "rnn-additive" and panel.probe_edit.text() == "" and panel.history is None
    assert window.sentence.text() != "march 14 2021"


def test_the_model_names_are_the_registrys_and_the_books_in_chinese(window, panel):
    from attnviz import i18n
    from attnviz.core.models.kinds import kind_named
    from attnviz.gui.panels.train import TrainPanel

    names = [panel.family_box.itemText(i) for i in range(panel.family_box.count())]
    assert names == [kind_named(str(panel.family_box.itemData(i))).label for i in range(panel.family_box.count())]
    i18n.set_language(i18n.CHINESE)
    try:
        chinese = TrainPanel()
        names = {chinese.family_box.itemData(i): chinese.family_box.itemText(i)
                 for i in range(chinese.family_box.count())}
        chinese.deleteLater()
    finally:
        i18n.set_language(i18n.ENGLISH)
        i18n.set_backend(None)
    assert "缩放点积注意力" in names["rnn-dot"] and "加性" in names["rnn-additive"]
    assert "核回归" in names["kernel-regression"] and "注意力汇聚" in names["kernel-regression"]


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)])
def test_the_dock_shows_the_whole_map_on_a_small_screen(qtbot, tmp_path, dates_models, size):
    from tests.helpers import open_window, raised

    window = open_window(qtbot, tmp_path, dates_models["transformer"], size)
    panel = raised(window, "train")
    settle(window)
    assert panel.history is not None and panel.heatmap.values.shape[0] == 4  # 2021 03 14 <eos>
    area = window.docks["train"].widget()
    assert isinstance(area, QtWidgets.QScrollArea)
    # the panel fits the dock (it was laid out at the plots' preferred height, twice the dock's, the map's rows
    # below the fold): nothing to scroll to, the whole map on show and most of the dock's height its own
    assert area.verticalScrollBar().maximum() == 0 and panel.height() <= area.viewport().height()
    assert panel.heatmap.visibleRegion().boundingRect().size() == panel.heatmap.size()
    assert panel.heatmap.height() > 0.4 * area.viewport().height()


def test_the_dock_offers_each_kind_its_tasks_and_trains_the_image_task_drawing_cls_over_the_probe(window, panel):
    choose(panel, "vit")
    assert [panel.task_box.itemData(i) for i in range(panel.task_box.count())] == ["shapes"]  # (no file of pairs)
    assert panel.task_box.currentText() == "shapes — [CLS] on the bright shape"
    assert panel.probe_edit.placeholderText() == "0" and panel.heads_box.isEnabled()
    panel.size_box.setCurrentText("tiny")
    assert (panel.width_box.value(), panel.layers_box.value(), panel.heads_box.value()) == (32, 2, 2)
    panel.train_button.click()
    history = panel.history
    assert history is not None and history.task == "shapes" and history.probe_image is not None
    assert len(history.snapshots) == 31 and history.snapshots[-1].step == 128
    first, last = history.snapshots[0], history.snapshots[-1]
    assert last.agreement > first.agreement + 0.2  # [CLS] came to attend to the shape
    # the trained model opens in the window on its probe image (written beside it), [CLS]'s attention over it
    state = window.session.state
    assert state.model.kind == "vit" and state.model.path.parent == panel.trained_folder
    assert "The model is open in the window" in panel.status.text() and panel.save_button.isEnabled()
    assert sorted(p.suffix for p in panel.trained_folder.iterdir()) == [".png", ".safetensors"]
    source = state.shown_source
    assert source is not None and source.picture is not None and source.text.endswith("-probe.png")
    np.testing.assert_allclose(source.picture.pixels[..., 0], history.probe_image.pixels, atol=0.6 / 255 + 1e-3)
    settle(window)  # (what the window does once the model is open: a text task's probe sentence is decoded then)
    assert window.session.state.shown_source is source and source.text.endswith("-probe.png")  # still the probe
    image_panel = window.panels.panels["image"]
    assert image_panel.figure() is not None  # the overlay, not "Open an image, or pick a sample"
    assert [label.text() for label in image_panel.class_names[:len(source.classes)]] == list(source.classes)
    # the probe with [CLS]'s attention over it, in the map's place; the map itself is the 7 × 7 patch grid
    assert panel.map_stack.currentWidget() is panel.probe_view and panel.probe_view.isVisible()
    assert np.array_equal(panel.probe_view.shares, last.map) and np.array_equal(panel.heatmap.values, last.map)
    assert panel.said_label.text().startswith("At step 128 the model calls probe image 0 a ")
    assert "top-k overlap" in panel.said_label.text() and "agreement" in panel.score_view.title_text()
    trained = pixels(panel.probe_view)
    panel.slider.setValue(0)
    assert np.array_equal(panel.probe_view.shares, first.map) and not np.array_equal(pixels(panel.probe_view), trained)
    # a text model again: its tasks and the user's file, the clearest first; the text map comes back with a run
    choose(panel, "transformer", epochs=None)
    tasks = [panel.task_box.itemData(i) for i in range(panel.task_box.count())]
    assert tasks == ["copy", "reverse", "sort", "dates", "file"] and panel.task == "reverse"


def test_the_probe_images_long_title_wraps_whole_above_the_image(qtbot):
    """A ViT run's probe title (step, accuracy, agreement, what the map is) in Chinese takes four lines of a narrow
    dock: every line shows, above the image (in two fixed lines it was cut at its top and bottom)."""
    from attnviz.gui.probe_image import ProbeImageView

    view = ProbeImageView()
    qtbot.addWidget(view)
    view.resize(220, 330)
    title = "第 12 步 · 准确率 21 % · 对齐一致率 12% · [CLS] 的注意力展开 · 3 层 · 4 个头取平均"
    grid = np.zeros((7, 7), np.float32)
    view.show_probe(title, np.zeros((28, 28), np.float32), grid + 1 / 49, grid.astype(bool), 1 / 49)
    flags = int(QtCore.Qt.AlignmentFlag.AlignCenter | QtCore.Qt.TextFlag.TextWordWrap)
    needed = view.fontMetrics().boundingRect(QtCore.QRect(0, 0, 212, 10_000), flags, title)
    assert needed.height() >= 3 * view.fontMetrics().height()  # (a title of three lines at least, at this width)
    box = view.title_rect()
    assert box.height() >= needed.height() and box.width() >= needed.width()
    assert view.image_rect().top() >= box.bottom() and view.image_rect().width() > 100  # the image below, still large
