"""An image model in the window: the Image dock (the picture, its top classes, one query's attention over it), the
Attention and Rollout views on its positions, images opened from files, samples and drops, and bad files refused
in one sentence — checked against the model's own maps."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image
from PySide6 import QtCore

from attnviz.core.attention.kind import AttentionKind
from attnviz.figures.spec import GridSpec
from attnviz.render.figure_painter import figure_size
from attnviz.session.images import sample_images
from tests.test_vit_cli import _png_header
from tests.vit_images import ramp_png, save_tiny_vit


@pytest.fixture(scope="module")
def vit_path(tmp_path_factory) -> Path:
    return save_tiny_vit(tmp_path_factory.mktemp("vit"))


@pytest.fixture()
def image_file(tmp_path) -> Path:
    return ramp_png(tmp_path / "ramp.png")


def own_maps(vit_path: Path, path: Path) -> torch.Tensor:
    """(L, H, N, N): the model's own attention for the image at ``path`` (8 × 8 grey in [0, 1])."""
    from attnviz.core.checkpoints.checkpoint import load_checkpoint

    loaded = load_checkpoint(vit_path)
    pixels = torch.from_numpy(np.asarray(Image.open(path).convert("L"), np.float32) / 255)[None, None]
    return loaded.model(pixels, need_weights=True).weights[:, 0].detach()


def test_an_image_model_opens_with_a_sample_its_classes_and_the_cls_overlay(window, vit_path, errors):
    window.load(vit_path)
    state = window.session.state
    assert state.model.kind == "vit" and not errors
    source = state.shown_source
    assert source is not None and source.picture is not None
    assert source.text == sample_images()[0].name  # its first look: the first shipped sample
    panel = window.panels.panels["image"]
    assert window.docks["image"].isVisible() and not window.decoding_area.isVisible()
    assert [label.text() for label in panel.class_names] == list(source.classes)
    assert [label.text() for label in panel.class_percents] == [f"{float(p):.1%}" for p in source.class_probs]
    # the percentage beside its bar, not painted on it (it was drawn half under the bar's blue chunk)
    assert not panel.class_bars[0].isTextVisible()
    window.resize(1024, 768)
    window.docks["image"].raise_()
    QtCore.QCoreApplication.processEvents()
    bar, percent = panel.class_bars[0], panel.class_percents[0]
    bar_box = QtCore.QRect(bar.mapTo(panel, QtCore.QPoint(0, 0)), bar.size())
    percent_box = QtCore.QRect(percent.mapTo(panel, QtCore.QPoint(0, 0)), percent.size())
    assert percent.isVisibleTo(panel) and not bar_box.intersects(percent_box)
    assert percent.fontMetrics().horizontalAdvance(percent.text()) <= percent.width()
    # where the top classes are: what the model can answer at all (a cat gets a clothing label)
    note = panel.classes_note
    assert note.isVisibleTo(panel) and "Fashion-MNIST's 10 classes" in note.text() and "black ground" in note.text()
    named = window.current_figure()  # Export and Copy write the overlay: the Image dock is the main panel
    assert named is not None and named.stem == "overlay_attention_layer1_head1_query-CLS"
    np.testing.assert_allclose(named.spec.values, source.encoder_weights[0, 0, 0, 1:].reshape(2, 2), atol=1e-7)


def test_the_overlay_follows_layer_head_and_the_patch_clicked(window, vit_path, image_file, qtbot):
    window.load(vit_path)
    window.session.open_image(image_file)
    maps = own_maps(vit_path, image_file).numpy()
    panel = window.panels.panels["image"]
    assert window.session.state.shown_source.text == "ramp.png"
    panel.layer.setValue(2)
    panel.head.setCurrentIndex(panel.head.findData(1))
    view = window.session.state.view
    assert (view.kind, view.layer, view.head) == (AttentionKind.ENCODER_SELF, 1, 1)  # the Attention panel follows
    np.testing.assert_allclose(window.attention.current.values, maps[1, 1], atol=1e-6)
    np.testing.assert_allclose(panel.figure().spec.values, maps[1, 1, 0, 1:].reshape(2, 2), atol=1e-6)
    canvas = panel.canvas
    canvas.resize(400, 400)
    spec = canvas.figure
    from attnviz.render.figure_painter import _fonts, _layout  # (where the painter put the grid)

    grid = _layout(spec, *_fonts()).grid
    size = figure_size(spec)
    scale = min(canvas.width() / size.width(), canvas.height() / size.height())
    left, top = (canvas.width() - size.width() * scale) / 2, (canvas.height() - size.height() * scale) / 2
    point = QtCore.QPoint(round(left + (grid.left() + grid.width() * 0.75) * scale),
                          round(top + (grid.top() + grid.height() * 0.25) * scale))  # patch r1c2: position 2
    qtbot.mouseClick(canvas, QtCore.Qt.MouseButton.LeftButton, pos=point)
    assert panel.query == 2 and panel.figure().spec.marked == (0, 1)
    np.testing.assert_allclose(panel.figure().spec.values, maps[1, 1, 2, 1:].reshape(2, 2), atol=1e-6)
    panel.head.setCurrentIndex(panel.head.findData(None))  # the heads' mean
    np.testing.assert_allclose(panel.figure().spec.values, maps[1, :, 2, 1:].mean(0).reshape(2, 2), atol=1e-6)
    panel.source_box.setCurrentIndex(panel.source_box.findData("rollout"))
    from attnviz.core.attention.rollout import rollout

    np.testing.assert_allclose(panel.figure().spec.values, rollout(maps, 0.5)[1, 2, 1:].reshape(2, 2), atol=1e-6)
    panel.cls_button.click()
    assert panel.query == 0


def test_the_overlay_is_coloured_on_0_to_1_by_default_or_up_to_its_largest_and_says_which(window, vit_path,
                                                                                         image_file):
    window.load(vit_path)
    window.session.open_image(image_file)
    panel = window.panels.panels["image"]
    row = own_maps(vit_path, image_file).numpy()[0, 0, 0]  # [CLS]'s row in layer 1, head 1: 5 positions
    largest = float(row[1:].max())
    spec = panel.figure().spec
    assert spec.levels == (0.0, 1.0)  # the Attention dock's scale: the honest one, by default
    # the title says which scale is on show and what the largest weight is against a uniform row (1/5 each)
    assert panel.title.text().endswith(f"colours 0 to 1 · largest {float(row.max()):.3g} = "
                                       f"{float(row.max()) * 5:.1f} × uniform (1/5)")
    panel.scale_box.setCurrentIndex(panel.scale_box.findData("largest"))
    spec = panel.figure().spec
    assert spec.levels == pytest.approx((0.0, largest))  # the patches' largest is the top colour
    assert "colours 0 to the largest · largest" in panel.title.text()
    panel.all_heads.setChecked(True)  # the grid follows the scale chosen
    maps = own_maps(vit_path, image_file).numpy()
    assert panel.figure().spec.levels == pytest.approx((0.0, float(maps[:, :, 0, 1:].max())))
    panel.scale_box.setCurrentIndex(panel.scale_box.findData("0-1"))
    assert panel.figure().spec.levels == (0.0, 1.0)


def test_all_heads_is_a_grid_of_overlays_and_a_click_chooses_one(window, vit_path, image_file):
    window.load(vit_path)
    window.session.open_image(image_file)
    panel = window.panels.panels["image"]
    panel.all_heads.setChecked(True)
    named = panel.figure()
    assert isinstance(named.spec, GridSpec) and len(named.spec.panels) == 4 and named.spec.columns == 2
    maps = own_maps(vit_path, image_file).numpy()
    np.testing.assert_allclose(named.spec.values[1, 0], maps[1, 0, 0, 1:].reshape(2, 2), atol=1e-6)
    panel.canvas.clicked.emit(3, 0, 0)  # layer 2, head 2
    assert not panel.all_heads.isChecked()
    assert (window.session.state.view.layer, window.session.state.view.head) == (1, 1)



def test_all_heads_after_rollout_shows_and_opens_each_heads_attention(window, vit_path, image_file):
    """Rollout averages the heads: All heads draws each head's attention and Show says so (not a greyed "rollout"
    over raw attention); a head clicked there shows that head's attention, not the heads' mean rollout."""
    window.load(vit_path)
    window.session.open_image(image_file)
    panel = window.panels.panels["image"]
    panel.source_box.setCurrentIndex(panel.source_box.findData("rollout"))
    panel.all_heads.setChecked(True)
    assert panel.source_box.currentData() == "attention" and panel.source_box.currentText() == "attention"
    assert panel.figure().spec.title.startswith("Attention of [CLS]")
    panel.canvas.clicked.emit(2, 0, 0)  # layer 2, head 1
    maps = own_maps(vit_path, image_file).numpy()
    assert not panel.all_heads.isChecked() and panel.source_box.currentData() == "attention"
    assert panel.head.currentData() == 0 and panel.layer.value() == 2
    np.testing.assert_allclose(panel.figure().spec.values, maps[1, 0, 0, 1:].reshape(2, 2), atol=1e-6)


def test_the_overlay_exports_as_pictures_and_numbers(window, vit_path, image_file, tmp_path):
    from attnviz.render.figure_files import export_figure, read_csv

    window.load(vit_path)
    window.session.open_image(image_file)
    named = window.current_figure()
    png = export_figure(named.spec, tmp_path / f"{named.stem}.png")
    assert Image.open(png).size[0] > 100
    values, rows, cols = read_csv(export_figure(named.spec, tmp_path / f"{named.stem}.csv"))
    assert rows == ("r1", "r2") and cols == ("c1", "c2")
    np.testing.assert_allclose(values, named.spec.values, atol=1e-6)
    svg = export_figure(named.spec, tmp_path / f"{named.stem}.svg").read_text()
    assert "<image" in svg  # the picture under the cells


@pytest.mark.parametrize("make, message", [
    (lambda p: p.write_text("not an image"), "not an image attnviz reads"),
    (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 20), "not an image attnviz reads"),
    (lambda p: p.mkdir(), "is a folder"),
    (lambda p: p.write_bytes(_png_header(30_000, 30_000)), "more than 50,000,000 pixels"),  # a decompression bomb
    (lambda p: os.mkfifo(p), "is a named pipe (FIFO), not an image file"),  # (never blocks the window)
])
def test_a_bad_file_is_one_sentence_and_the_image_on_show_stays(window, vit_path, image_file, tmp_path, errors, make,
                                                                message):
    window.load(vit_path)
    window.session.open_image(image_file)
    bad = tmp_path / "bad.png"
    make(bad)
    window.session.open_image(bad)
    assert errors and message in errors[-1] and str(bad) in errors[-1] and "\n" not in errors[-1]
    assert window.session.state.shown_source.text == "ramp.png"
    said = len(errors)
    window.load(vit_path)  # the image model opened again: on the image on show, not the file that failed
    assert len(errors) == said and window.session.state.shown_source.text == "ramp.png"


def test_a_text_model_refuses_an_image_and_keeps_its_sentence(window, vit_path, image_file, errors, tiny_models):
    window.set_sentence("i'm home .")
    window.session.open_image(image_file)
    assert errors and "reads sentences, not images" in errors[-1]
    window.load(vit_path)
    window.session.open_image(image_file)
    assert window.session.state.shown_source.picture is not None
    window.load(tiny_models["transformer"][0])  # back to the sentence: the image's name never replaced it
    state = window.session.state
    assert state.text == "i'm home ." and state.shown_source is not None and state.shown_source.picture is None
    assert window.decoding_area.isVisible() and not window.docks["image"].isVisible()


def test_a_saved_session_brings_the_image_and_the_view_back(window, vit_path, image_file, tmp_path, errors):
    from attnviz.session_file import read_session

    window.load(vit_path)
    window.session.open_image(image_file)
    panel = window.panels.panels["image"]
    panel.layer.setValue(2)
    saved = window.save_session(tmp_path / "image.attnviz.json")
    assert saved is not None and read_session(saved).image == str(image_file.resolve())
    window.session.open_image(sample_images()[3])  # something else on show, then the session again
    window.load(window.session.fallback or vit_path)
    assert window.open_session(saved)
    state = window.session.state
    assert state.shown_source.text == "ramp.png" and state.view.layer == 1 and not errors


def test_a_session_whose_image_is_gone_says_so_and_shows_a_sample(window, vit_path, image_file, tmp_path, errors,
                                                                  tiny_models):
    window.load(vit_path)
    window.session.open_image(image_file)
    saved = window.save_session(tmp_path / "image.attnviz.json")
    image_file.unlink()
    window.load(tiny_models["transformer"][0])
    assert window.open_session(saved)
    assert errors and "is no longer there: showing a sample image instead" in errors[-1]
    assert window.session.state.shown_source.text == sample_images()[0].name


def test_export_of_an_image_session_writes_its_image(capsys, window, vit_path, image_file, tmp_path):
    from tests.helpers import run_cli

    window.load(vit_path)
    window.session.open_image(image_file)
    saved = window.save_session(tmp_path / "image.attnviz.json")
    out = tmp_path / "out"
    code, _stdout, err = run_cli(capsys, "export", "--session", str(saved), "--out", str(out), "--format", "csv")
    assert code == 0, err
    import json

    assert json.loads((out / "attnviz-export.json").read_text(encoding="utf-8"))["image"] == str(image_file.resolve())


def test_an_image_dropped_on_the_window_opens_with_the_image_model(window, vit_path, image_file, qtbot):
    from PySide6 import QtGui

    window.load(vit_path)
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(image_file))])
    event = QtGui.QDropEvent(QtCore.QPointF(10, 10), QtCore.Qt.DropAction.CopyAction, mime,
                             QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    assert window.session.state.shown_source.text == "ramp.png"
    assert window.session.state.model.kind == "vit"  # (an image is not taken for a checkpoint)


def test_the_next_window_opens_the_image_shown_last(window, vit_path, image_file, qtbot):
    from attnviz.gui.main_window import MainWindow
    from attnviz.session import InlineRunner

    window.load(vit_path)
    window.session.open_image(image_file)
    assert window.settings.last_image == str(image_file.resolve())
    again = MainWindow(window.settings, InlineRunner())  # (a restart: View ▸ Language, or the next day)
    qtbot.addWidget(again)
    again.load(vit_path)
    assert again.session.state.shown_source.text == "ramp.png"


def test_the_window_keeps_its_width_after_an_image_model_then_a_translation_model(window, tiny_models, qtbot):
    """The shipped ViT's Image dock is wide; the Transformer's sentence column comes back after it: the window
    stays 1,022 px wide (a 1,024-px screen) and the left docks go back to their share, not the Image dock's."""
    from attnviz.paths import shipped_models

    window.resize(1022, 743)
    vit = next(path for path in shipped_models() if path.stem == "vit")
    window.load(vit)
    qtbot.waitUntil(lambda: window.docks["image"].isVisible() and window.docks["image"].width() > 0)
    assert window.width() == 1022
    window.load(tiny_models["transformer"][0])
    qtbot.waitUntil(lambda: window.decoding_area.isVisible())
    QtCore.QCoreApplication.sendPostedEvents()
    assert window.width() == 1022 and window.height() == 743
    assert not window.docks["image"].isVisible() and window.docks["masks"].isVisible()
    left = [dock for name, dock in window.docks.items()
            if dock.isVisible() and not dock.visibleRegion().isEmpty()
            and window.dockWidgetArea(dock) == QtCore.Qt.DockWidgetArea.LeftDockWidgetArea]
    assert left and max(dock.width() for dock in left) <= 0.3 * 1022  # about a fifth, as on a first start
    assert window.attention.heatmap.width() >= 300  # the Attention dock keeps the rest


def test_the_rollout_dock_of_an_image_model_has_no_decoder_and_names_its_axes(window, vit_path, tiny_models):
    """An image is read in one pass: the Rollout dock shows the rollout over [CLS] and the patches, with no decoder
    layer to pick and no "step the decoder" attribution; a translation model gets both back."""
    from tests.helpers import raised

    window.load(vit_path)
    panel = raised(window, "rollout")
    assert not panel.decoder_layer.isVisible() and not panel.attribution.isVisible()
    assert panel.encoder_layer.text() == "layers 1–2"
    spec = panel.encoder.spec
    assert spec.values.shape == (5, 5) and spec.title.startswith("Attention rollout, layers 1–2")
    assert (spec.row_axis, spec.col_axis) == ("queries ([CLS] and the patches)", "keys ([CLS] and the patches)")
    window.load(tiny_models["transformer"][0])
    window.set_sentence("a b c", run=True)
    panel = raised(window, "rollout")
    assert panel.decoder_layer.isVisible() and panel.attribution.isVisible()
    assert panel.encoder_layer.text().startswith("encoder layers 1–")
    assert panel.encoder.spec.col_axis == "keys (input tokens)"


def test_the_overlay_grids_colour_bar_values_are_in_the_docks_own_font(qtbot):
    """Issue 59 §4: All heads' colour bar was painted with the sixteen scaled overlays, its values ~6 px high (4 px
    at 1024 × 768); it is drawn beside them in the widget's font, as a heatmap's colour bar, its values as tall."""
    from PySide6 import QtGui

    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.models.image_reading import encode_image_file
    from attnviz.figures.image import OverlayChoice, overlay_grid
    from attnviz.gui.panels.image import FigureCanvas
    from attnviz.paths import MODELS_DIR, SAMPLE_IMAGES

    source = encode_image_file(load_checkpoint(MODELS_DIR / "vit.safetensors"), SAMPLE_IMAGES / "0-t-shirt-top.png",
                               "cpu")
    canvas = FigureCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(320, 470)  # (the Image dock's picture at 1024 × 768)
    canvas.show_figure(overlay_grid(source, OverlayChoice()))
    bar = canvas.colour_bar()
    assert not bar.isEmpty() and bar.right() < canvas.width()
    picture = canvas.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_Grayscale8)
    pixels = np.frombuffer(picture.constBits(), np.uint8).reshape(picture.height(), picture.bytesPerLine())
    ratio = picture.width() // canvas.width()
    values = pixels[:, round((bar.right() + 5) * ratio):picture.width()] < 128  # the values' ink, right of the bar
    inked = np.flatnonzero(values.any(axis=1))
    runs = np.split(inked, np.flatnonzero(np.diff(inked) > 1) + 1)  # one run of rows per value
    digit = QtGui.QFontMetricsF(canvas.font()).tightBoundingRect("0").height() * ratio
    assert len(runs) >= 3 and min(len(run) for run in runs) >= 0.9 * digit  # (before: 4 px; a digit here: 9)
