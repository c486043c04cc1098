"""One query of an image model computed by hand (q·k/√d, softmax, weighted sum) from the inputs its attention module
received: the weights equal the model's own map — attnviz's ViT and the Hugging Face ViT, DeiT and DINOv2 folders."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PIL import Image

from attnviz.core.checkpoints.checkpoint import load_checkpoint, save_checkpoint
from attnviz.core.decoding.query_computation import compute_image_query
from attnviz.core.models.image_reading import encode_image
from attnviz.core.models.vit import VisionTransformer, ViTConfig
from attnviz.training.fashion_mnist import CLASS_NAMES
from tests.hf_vision_folders import make_vision_folder

TINY = {"image_size": 8, "patch_size": 4, "num_hiddens": 16, "num_heads": 2, "num_layers": 2, "mlp_hiddens": 32,
        "dropout": 0.0}


@pytest.fixture(scope="module")
def vit(tmp_path_factory):
    torch.manual_seed(3)
    model = VisionTransformer(ViTConfig(**TINY)).eval()
    path = save_checkpoint(tmp_path_factory.mktemp("vit") / "vit.safetensors", model, labels=CLASS_NAMES, verify=True)
    return load_checkpoint(path)


def _image(side: int = 8, colour: bool = False) -> Image.Image:
    rng = np.random.default_rng(2)
    if colour:
        return Image.fromarray((rng.random((side + 5, side, 3)) * 255).astype(np.uint8))
    return Image.fromarray((rng.random((side, side)) * 255).astype(np.uint8), mode="L")


@pytest.mark.parametrize("layer, head, query", [(0, 0, 0), (1, 1, 3), (1, 0, 4)])
def test_the_vits_recomputed_weights_are_its_own_map(vit, layer, head, query):
    image = _image()
    source = encode_image(vit, image, "noise.png", "cpu")
    comp = compute_image_query(vit, image, layer, head, query, "cpu")
    assert comp.key_tokens == source.tokens and comp.query_token == source.tokens[query]
    np.testing.assert_allclose(comp.weights, source.encoder_weights[layer, head, query], atol=1e-5)
    np.testing.assert_allclose(comp.weights, comp.model_weights, atol=1e-5)
    np.testing.assert_allclose(comp.scores, source.encoder_scores[layer, head, query], atol=1e-4)
    assert comp.visible.all() and comp.scale == pytest.approx(np.sqrt(TINY["num_hiddens"] // TINY["num_heads"]))
    assert comp.formulas.query == "q = W_q a + b_q" and comp.difference_from_model() < 1e-5
    # the query input is what the block's LayerNorm made of the embedded image: the model's own numbers
    with torch.no_grad():
        x = vit.model.embed(torch.from_numpy(np.asarray(image, np.float32) / 255)[None, None])
        for block in vit.model.blocks[:layer]:
            x = block(x)[0]
        a = vit.model.blocks[layer].ln1(x)[0, query].double().numpy()
    np.testing.assert_allclose(comp.query_input, a, atol=1e-5)


def test_a_layer_head_or_query_out_of_range_is_one_sentence(vit):
    with pytest.raises(ValueError, match="out of range"):
        compute_image_query(vit, _image(), 2, 0, 0, "cpu")
    with pytest.raises(ValueError, match="out of range"):
        compute_image_query(vit, _image(), 0, 0, 5, "cpu")


@pytest.mark.parametrize("family", ["vit", "deit", "dinov2-registers"])
def test_a_hugging_face_folders_recomputed_weights_are_its_own_map(family, tmp_path):
    loaded = load_checkpoint(make_vision_folder(family, tmp_path / family, seed=4))
    image = _image(30, colour=True)
    source = encode_image(loaded, image, "noise.png", "cpu")
    last = len(source.tokens) - 1
    for layer, head, query in ((0, 0, 0), (1, 1, last), (1, 0, 1)):
        comp = compute_image_query(loaded, image, layer, head, query, "cpu")
        assert comp.key_tokens == source.tokens
        np.testing.assert_allclose(comp.weights, source.encoder_weights[layer, head, query], atol=1e-5)
        np.testing.assert_allclose(comp.weights, comp.model_weights, atol=1e-5)
