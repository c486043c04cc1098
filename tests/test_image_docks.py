"""The Heads, Computation and Compare docks with an image model: the atlas of a folder of images (the numbers of
``image_atlas``), one query's q·k/√d, softmax and weights (the model's own map), and a second image model's [CLS]
overlay beside the first (each model's own ``encode_image``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.figures.spec import LineSpec
from attnviz.paths import shipped_models
from tests.helpers import WAIT_MS, raised
from tests.vit_images import noise_pngs, ramp_png, save_tiny_vit


@pytest.fixture(scope="module")
def vit_path(tmp_path_factory) -> Path:
    return save_tiny_vit(tmp_path_factory.mktemp("vit"))


@pytest.fixture()
def image_file(tmp_path) -> Path:
    return ramp_png(tmp_path / "ramp.png")


@pytest.fixture()
def image_folder(tmp_path) -> Path:
    return noise_pngs(tmp_path / "images", 5)


# -- the Computation dock -------------------------------------------------------------------------------------------
def test_a_row_clicked_in_the_attention_map_opens_that_querys_computation(window, vit_path, image_file, errors):
    window.load(vit_path)
    window.session.open_image(image_file)
    source = window.session.state.shown_source
    assert window.docks["computation"].isVisible() or not window.docks["computation"].isHidden()
    window.session.set_view(window.session.state.view.__class__(kind=AttentionKind.ENCODER_SELF, layer=1, head=1))
    window.attention.heatmap.clicked.emit(3, 0)  # query r2c1 of layer 2, head 2
    comp = window.session.state.computation
    assert comp is not None and (comp.layer, comp.head, comp.query_index) == (1, 1, 3) and not errors, errors
    assert comp.query_token == "r2c1" and comp.key_tokens == source.tokens
    np.testing.assert_allclose(comp.weights, source.encoder_weights[1, 1, 3], atol=1e-5)
    panel = window.panels.panels["computation"]
    assert window.panels.showing("computation")
    assert "largest difference from the model's own weights" in panel.summary.text()
    shown = {name for name, heatmap in panel.heatmaps.items() if heatmap.isVisibleTo(panel)}
    assert {"scores", "weights"} <= shown
    np.testing.assert_allclose(panel.heatmaps["weights"].spec.values[0], comp.weights, atol=1e-6)
    # a patch clicked on the image, while the Computation dock is on show: that query, same layer and head
    window.panels.panels["image"].canvas.clicked.emit(0, 0, 1)  # r1c2: position 2
    comp = window.session.state.computation
    assert (comp.layer, comp.head, comp.query_index) == (1, 1, 2)
    np.testing.assert_allclose(comp.weights, source.encoder_weights[1, 1, 2], atol=1e-5)


def test_the_computation_pickers_offer_the_images_layers_heads_and_positions(window, vit_path, image_file):
    window.load(vit_path)
    window.session.open_image(image_file)
    panel = raised(window, "computation")
    assert panel.kind_box.count() == 1 and panel.kind_box.currentData() == AttentionKind.ENCODER_SELF.value
    assert (panel.layer_box.maximum(), panel.head_box.maximum(), panel.query_box.maximum()) == (2, 2, 5)
    panel.query_box.setValue(5)  # r2c2
    comp = window.session.state.computation
    source = window.session.state.shown_source
    assert comp is not None and comp.query_index == 4
    np.testing.assert_allclose(comp.weights, source.encoder_weights[comp.layer, comp.head, 4], atol=1e-5)


# -- the Heads dock -------------------------------------------------------------------------------------------------
def test_the_image_atlas_of_a_folder_is_image_atlas_and_a_click_shows_the_head(window, vit_path, image_folder,
                                                                              qtbot, errors):
    from attnviz.core.heads.image_atlas import even_spread_distance, image_atlas, image_paths

    window.load(vit_path)
    panel = raised(window, "heads")
    assert not panel.prune_button.isVisible() and panel.map_button.isEnabled()
    assert panel.corpus_box.itemText(0).startswith("The sample images")
    panel.map_heads(image_folder)
    qtbot.waitUntil(lambda: window.session.state.image_atlas is not None, timeout=WAIT_MS)
    atlas = window.session.state.image_atlas
    sums = image_atlas(load_checkpoint(vit_path), image_paths(image_folder), "cpu")
    table = sums.table()
    assert atlas.images == 5 and not errors, errors
    np.testing.assert_allclose(atlas.distance.ravel(), [row["mean_distance_px"] for row in table], rtol=1e-6)
    np.testing.assert_allclose(atlas.entropy.ravel(), [row["entropy"] for row in table], rtol=1e-6)
    np.testing.assert_allclose(atlas.cls_share.ravel(), [row["cls_share"] for row in table], rtol=1e-6)
    assert atlas.even_distance == pytest.approx(even_spread_distance(2, 4))
    assert [panel.statistic_box.itemData(i) for i in range(panel.statistic_box.count())] == ["distance", "entropy",
                                                                                            "cls_share"]
    np.testing.assert_allclose(panel.grid.spec.values, atlas.distance, rtol=1e-6)
    assert "pixels" in panel.grid.spec.title and "5 images" in panel.grid.spec.title
    panel.statistic_box.setCurrentIndex(panel.statistic_box.findData("cls_share"))
    np.testing.assert_allclose(panel.grid.spec.values, atlas.cls_share, rtol=1e-6)
    assert panel.grid.spec.levels == (0.0, 1.0)
    panel._on_grid_hovered(1, 0)
    assert panel.readout.text().startswith("<b>layer 2, head 1</b>") and "px" in panel.readout.text()
    panel.grid.clicked.emit(1, 0)  # layer 2, head 1: shown in the Attention dock
    view = window.session.state.view
    assert (view.kind, view.layer, view.head) == (AttentionKind.ENCODER_SELF, 1, 0)
    assert window.panels.showing("attention")
    # the distance by layer (the ViT paper's Figure 7 right) is what Export writes on its tab
    raised(window, "heads")
    panel.tabs.setCurrentWidget(panel.distance_view)
    figure = window.panels.figure("heads")
    assert figure is not None and isinstance(figure.spec, LineSpec)
    heads, mean, even = figure.spec.series
    np.testing.assert_allclose(mean.y, sums.layer_distances(), rtol=1e-6)
    np.testing.assert_allclose(heads.y, atlas.distance.ravel(), rtol=1e-6)
    np.testing.assert_allclose(even.y, atlas.even_distance)
    np.testing.assert_allclose(panel.mean_curve.getData()[1], mean.y)  # (the same numbers on screen)
    np.testing.assert_allclose(panel.head_points.getData()[1], heads.y)


def test_the_image_atlas_maps_the_shipped_samples_by_default(window, vit_path, qtbot, errors):
    from attnviz.session.images import sample_images

    window.load(vit_path)
    panel = raised(window, "heads")
    panel.map_heads()
    qtbot.waitUntil(lambda: window.session.state.image_atlas is not None, timeout=WAIT_MS)
    assert window.session.state.image_atlas.images == len(sample_images()) == 10 and not errors, errors


def test_a_folder_without_images_is_one_sentence(window, vit_path, tmp_path, qtbot, errors):
    window.load(vit_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    raised(window, "heads").map_heads(empty)
    qtbot.waitUntil(lambda: bool(errors), timeout=WAIT_MS)
    assert "no images in it" in errors[-1] and window.session.state.image_atlas is None


def test_the_image_atlas_stops_when_its_progress_says_so(vit_path, image_folder):
    from attnviz.core.heads import HeadsCancelled
    from attnviz.core.heads.image_atlas import image_atlas, image_paths

    with pytest.raises(HeadsCancelled):
        image_atlas(load_checkpoint(vit_path), image_paths(image_folder), "cpu", lambda done, total: False)
    calls: list[tuple[int, int]] = []
    image_atlas(load_checkpoint(vit_path), image_paths(image_folder), "cpu", lambda *c: calls.append(c))  # (None: on)
    assert calls == [(5, 5)]


# -- the Compare dock -----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def finer_vit_path(tmp_path_factory) -> Path:
    """A second tiny ViT on a 4 × 4 grid of 2-pixel patches (the first: 2 × 2 of 4 pixels)."""
    return save_tiny_vit(tmp_path_factory.mktemp("vit-finer"), seed=4, name="vit-finer", patch_size=2, num_layers=3)


def _cls_last(source) -> np.ndarray:
    """[CLS]'s row in the last layer, the heads averaged, on the patch grid: what Compare draws for a model."""
    row = source.encoder_weights[-1, :, 0].mean(0)
    return source.picture.on_grid(row)


def test_compare_puts_a_second_image_models_cls_overlay_beside_the_first(window, vit_path, finer_vit_path,
                                                                         image_file, tmp_path, qtbot, errors):
    from attnviz.core.models.image_reading import encode_image_file
    from attnviz.render.figure_files import export_figure

    window.load(vit_path)
    window.session.open_image(image_file)
    panel = raised(window, "compare")
    assert not panel.maps.isVisible() and panel.overlays.isVisible()
    assert [panel.model_box.itemData(i) for i in range(1, panel.model_box.count() - 2)] == \
        [str(p) for p in shipped_models() if p.stem == "vit"]  # (the shipped image models only)
    panel.compare_with(finer_vit_path)
    qtbot.waitUntil(lambda: window.session.state.compared_image is not None, timeout=WAIT_MS)
    assert not errors, errors
    source = window.session.state.shown_source
    theirs = encode_image_file(load_checkpoint(finer_vit_path), image_file, "cpu")
    compared = window.session.state.compared_image
    assert compared.model == "vit-finer" and compared.source.classes == theirs.classes
    first, second = (canvas.figure for canvas in panel.canvases)
    assert first.values.shape == (2, 2) and second.values.shape == (4, 4)
    np.testing.assert_allclose(first.values, _cls_last(source), atol=1e-6)
    np.testing.assert_allclose(second.values, _cls_last(theirs), atol=1e-6)
    assert theirs.classes[0] in panel.overlay_titles[1].text() and "4 × 4 patches" in panel.overlay_titles[1].text()
    assert source.classes[0] in panel.overlay_titles[0].text()
    figure = window.panels.figure("compare")
    assert figure is not None and figure.stem == "compare" and len(figure.spec.panels) == 2
    values = figure.spec.values  # (1, 2, 4, 4): the first model's 2 × 2 grid padded with NaN
    assert values.shape == (1, 2, 4, 4) and np.isnan(values[0, 0, 2:]).all()
    np.testing.assert_allclose(values[0, 1], _cls_last(theirs), atol=1e-6)
    assert export_figure(figure.spec, tmp_path / "compare.png").stat().st_size > 1000
    # another image: the second model reads it too
    other = tmp_path / "flip.png"
    Image.fromarray((np.arange(64).reshape(8, 8)[::-1] * 4).astype(np.uint8), mode="L").save(other)
    window.session.open_image(other)
    qtbot.waitUntil(lambda: window.session.state.compared_image is not None
                    and window.session.state.compared_image.source.text == "flip.png", timeout=WAIT_MS)
    np.testing.assert_allclose(panel.canvases[1].figure.values,
                               _cls_last(encode_image_file(load_checkpoint(finer_vit_path), other, "cpu")), atol=1e-6)


def test_compare_refuses_a_text_model_beside_an_image_in_one_sentence(window, vit_path, finer_vit_path, image_file,
                                                                      qtbot, errors, tiny_models):
    window.load(vit_path)
    window.session.open_image(image_file)
    panel = raised(window, "compare")
    panel.compare_with(finer_vit_path)
    qtbot.waitUntil(lambda: window.session.state.compared_image is not None, timeout=WAIT_MS)
    panel.compare_with(tiny_models["transformer"][0])
    qtbot.waitUntil(lambda: bool(errors), timeout=WAIT_MS)
    assert "reads sentences" in errors[-1] and "\n" not in errors[-1]
    assert window.session.state.compared_with.endswith("vit-finer.safetensors")  # what was compared stays
    assert window.session.state.compared_image is not None


def test_compare_with_a_hugging_face_vision_folder(window, vit_path, image_file, tmp_path, qtbot, errors):
    from attnviz.core.models.image_reading import encode_image_file
    from tests.hf_vision_folders import make_vision_folder

    folder = make_vision_folder("deit", tmp_path / "deit", seed=2)
    window.load(vit_path)
    window.session.open_image(image_file)
    panel = raised(window, "compare")
    panel.compare_with(folder)
    qtbot.waitUntil(lambda: window.session.state.compared_image is not None, timeout=WAIT_MS)
    assert not errors, errors
    theirs = encode_image_file(load_checkpoint(folder), image_file, "cpu")
    compared = window.session.state.compared_image.source
    assert compared.classes == theirs.classes and compared.tokens[:2] == ("[CLS]", "[DIST]")
    np.testing.assert_allclose(panel.canvases[1].figure.values, _cls_last(theirs), atol=1e-5)
