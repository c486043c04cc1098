"""One image read for the views (attnviz/core/models/image_reading.py): the positions' labels, the maps the model
computed, where each position lies on the picture, and the top classes — checked against the model's own forward."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PIL import Image

from attnviz.core.layout import patch_labels
from attnviz.core.models.image_reading import classify, encode_image, reader_of
from attnviz.core.models.loaded import LoadedModel
from attnviz.core.models.vit import VisionTransformer, ViTConfig

LABELS = tuple(f"class {i}" for i in range(10))


@pytest.fixture()
def tiny_vit() -> LoadedModel:
    torch.manual_seed(0)
    config = ViTConfig(image_size=8, patch_size=4, num_hiddens=16, num_heads=2, num_layers=2, mlp_hiddens=32,
                       dropout=0.0)
    return LoadedModel("vit", config, VisionTransformer(config).eval(), labels=LABELS)


def test_patch_labels_name_the_specials_then_each_patch_row_by_row():
    assert patch_labels(("[CLS]",), (2, 3)) == ("[CLS]", "r1c1", "r1c2", "r1c3", "r2c1", "r2c2", "r2c3")


def test_an_encoded_image_holds_the_models_own_maps_classes_and_places(tiny_vit):
    image = Image.fromarray(np.arange(64, dtype=np.uint8).reshape(8, 8) * 4, mode="L")
    source = encode_image(tiny_vit, image, "ramp.png", "cpu")
    assert source.text == "ramp.png" and source.tokens == ("[CLS]", "r1c1", "r1c2", "r2c1", "r2c2")
    pixels = torch.from_numpy(np.asarray(image, np.float32) / 255)[None, None]
    expected = tiny_vit.model(pixels, need_weights=True, need_scores=True)
    np.testing.assert_allclose(source.encoder_weights, expected.weights[:, 0].detach().numpy(), atol=1e-6)
    np.testing.assert_allclose(source.encoder_scores, expected.scores[:, 0].detach().numpy(), atol=1e-6)
    probs = expected.logits[0].softmax(-1).detach().numpy()
    assert source.classes == tuple(LABELS[i] for i in np.argsort(-probs)[:5])
    np.testing.assert_allclose(source.class_probs, np.sort(probs)[::-1][:5], rtol=1e-5)
    picture = source.picture
    assert picture is not None and picture.pixels.shape == (8, 8, 3) and picture.grid == (2, 2)
    np.testing.assert_allclose(picture.pixels[..., 0], np.asarray(image) / 255, atol=1e-6)
    assert picture.boxes[0].tolist() == [-1, -1, -1, -1] and picture.boxes[4].tolist() == [4, 4, 8, 8]
    assert picture.patch == (4, 4)
    assert [picture.position_at(1, 1), picture.position_at(1, 5), picture.position_at(7.5, 0.2)] == [1, 2, 3]
    assert picture.position_at(8, 0) is None and picture.position_at(-1, 2) is None
    np.testing.assert_array_equal(picture.on_grid(np.arange(5)), [[1, 2], [3, 4]])


def test_classify_names_each_images_top_classes_in_one_batch(tiny_vit):
    images = [Image.fromarray(np.full((8, 8), value, np.uint8), mode="L") for value in (0, 255)]
    rows = classify(tiny_vit, images, "cpu", top=3)
    reader = reader_of(tiny_vit)
    inputs, pictures = reader.prepare(images)
    logits = tiny_vit.model(inputs).logits
    assert rows == [tuple(LABELS[i] for i in logits[b].topk(3).indices.tolist()) for b in range(2)]
    assert pictures.shape == (2, 8, 8, 3) and pictures[1].min() == 1.0
