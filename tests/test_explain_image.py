"""explain_image: an image model's predicted class explained over its patches, each method checked against an
independent reference — the model's own attention, rollout by hand, autograd's gradient × input, integrated
gradients' completeness, occlusion as the model re-run with the patch black, Kendall τ from its pairs counted by
hand — for attnviz's tiny ViT and the Hugging Face ViT, DeiT and DINOv2 folders (normalised pixel values)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
import torch
from PIL import Image

from attnviz.core.checkpoints.checkpoint import load_checkpoint, save_checkpoint
from attnviz.core.explain import IMAGE_METHODS, explain_image
from attnviz.core.explain.image import black_like
from attnviz.core.models.image_reading import reader_of
from attnviz.core.models.vit import VisionTransformer, ViTConfig
from attnviz.training.fashion_mnist import CLASS_NAMES

TINY = {"image_size": 8, "patch_size": 4, "num_hiddens": 16, "num_heads": 2, "num_layers": 2, "mlp_hiddens": 32,
        "dropout": 0.0}  # a 2 × 2 grid of 4-pixel patches


@pytest.fixture(scope="module")
def vit(tmp_path_factory):
    torch.manual_seed(3)
    model = VisionTransformer(ViTConfig(**TINY)).eval()
    path = save_checkpoint(tmp_path_factory.mktemp("vit") / "vit.safetensors", model, labels=CLASS_NAMES)
    return load_checkpoint(path)


@pytest.fixture(scope="module")
def image():
    rng = np.random.default_rng(2)
    return Image.fromarray((rng.random((8, 8)) * 255).astype(np.uint8), mode="L")


def _pixels(image) -> torch.Tensor:
    return torch.from_numpy(np.asarray(image, np.float32) / 255)[None, None]  # (1, 1, 8, 8): the ViT's input


def _log_p(model, pixels: torch.Tensor, target: int) -> torch.Tensor:
    return torch.log_softmax(model(pixels).logits.double(), -1)[:, target]


def test_the_rows_run_over_the_patches_and_explain_the_predicted_class(vit, image):
    explanation = explain_image(vit, image)
    logits = vit.model(_pixels(image)).logits[0].detach().double()
    best = int(logits.argmax())
    assert explanation.methods == IMAGE_METHODS and explanation.rows.shape == (5, 4)
    assert explanation.labels == ("r1c1", "r1c2", "r2c1", "r2c2")  # [CLS] has no pixels: no column
    assert explanation.token == CLASS_NAMES[best]
    assert explanation.log_prob == pytest.approx(float(torch.log_softmax(logits, -1)[best]), abs=1e-6)
    assert (explanation.layer, explanation.head, explanation.sinks) == (1, None, {})
    other = explain_image(vit, image, target=CLASS_NAMES[(best + 1) % 10], methods=("occlusion",))
    assert other.token == CLASS_NAMES[(best + 1) % 10] and other.methods == ("occlusion",)


def test_the_attention_row_is_cls_row_of_the_models_own_weights_and_rollout_walks_every_position(vit, image):
    weights = vit.model(_pixels(image), need_weights=True).weights[:, 0].detach().double().numpy()  # (L, H, N, N)
    mean = explain_image(vit, image, layer=0)
    np.testing.assert_allclose(mean.row("attention"), weights[0, :, 0, 1:].mean(0), atol=1e-6)
    one = explain_image(vit, image, layer=1, head=1)
    np.testing.assert_allclose(one.row("attention"), weights[1, 1, 0, 1:], atol=1e-6)
    np.testing.assert_allclose(one.layer_rows["attention"], weights[:, 1, 0, 1:], atol=1e-6)
    # rollout by hand: A_l = 0.5·mean_h W_l + 0.5·I, R = A_2 A_1, [CLS]'s row, the patches' columns
    a = [0.5 * w.mean(0) + 0.5 * np.eye(5) for w in weights]
    np.testing.assert_allclose(one.row("rollout"), (a[1] @ a[0])[0, 1:], atol=1e-6)
    np.testing.assert_allclose(mean.row("rollout"), a[0][0, 1:], atol=1e-6)


def test_gradient_x_input_is_autograds_gradient_times_the_pixels_summed_per_patch(vit, image):
    explanation = explain_image(vit, image, methods=("grad_x_input",))
    best = CLASS_NAMES.index(explanation.token)
    pixels = _pixels(image).requires_grad_(True)
    (grad,) = torch.autograd.grad(_log_p(vit.model, pixels, best).sum(), pixels)
    product = (grad * pixels)[0, 0].detach().double().numpy()
    expected = [product[r:r + 4, c:c + 4].sum() for r in (0, 4) for c in (0, 4)]
    np.testing.assert_allclose(explanation.row("grad_x_input"), expected, rtol=1e-5, atol=1e-7)


def test_integrated_gradients_from_black_are_complete(vit, image):
    explanation = explain_image(vit, image, methods=("ig",), ig_steps=128)
    best = CLASS_NAMES.index(explanation.token)
    with torch.no_grad():
        difference = float(_log_p(vit.model, _pixels(image), best) - _log_p(vit.model, torch.zeros(1, 1, 8, 8), best))
    check = explanation.completeness
    assert check is not None and check.difference == pytest.approx(difference, abs=1e-6)
    assert check.attribution_sum == pytest.approx(difference, rel=1e-3, abs=1e-5)
    assert explanation.row("ig").sum() == pytest.approx(check.attribution_sum, abs=1e-9)  # the patches tile it


def test_occlusion_is_the_drop_when_the_model_reads_the_image_with_that_patch_black(vit, image):
    explanation = explain_image(vit, image, methods=("occlusion",))
    best = CLASS_NAMES.index(explanation.token)
    pixels = _pixels(image)
    with torch.no_grad():
        base = _log_p(vit.model, pixels, best)
        for index, (r, c) in enumerate([(0, 0), (0, 4), (4, 0), (4, 4)]):
            blacked = pixels.clone()
            blacked[..., r:r + 4, c:c + 4] = 0
            assert explanation.row("occlusion")[index] == pytest.approx(float(base - _log_p(vit.model, blacked, best)),
                                                                        abs=1e-6)


def test_a_patch_already_black_is_worth_exactly_nothing_to_the_pixel_methods(vit):
    pixels = np.zeros((8, 8), np.uint8)
    pixels[:4, :4], pixels[4:, 4:] = 200, 90  # r1c1 and r2c2 lit, r1c2 and r2c1 black
    explanation = explain_image(vit, Image.fromarray(pixels, mode="L"))
    for method in ("grad_x_input", "ig", "occlusion"):
        row = explanation.row(method)
        assert row[1] == row[2] == 0.0 and row[0] != 0.0 and row[3] != 0.0, method  # ties, not rounding noise


def _tau_by_hand(x: np.ndarray, y: np.ndarray) -> float:
    """τ-b from the pairs counted one by one (no ties in these rows: (concordant − discordant) / pairs)."""
    signs = [np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i, j in combinations(range(len(x)), 2)]
    return float(sum(signs) / len(signs))


def test_the_agreement_is_kendalls_tau_of_every_pair_of_rows(vit, image):
    explanation = explain_image(vit, image)
    rows = explanation.rows
    for i, j in combinations(range(len(rows)), 2):
        assert len(set(rows[i])) == len(rows[i]) and len(set(rows[j])) == len(rows[j])  # (no ties: plain τ)
        assert explanation.kendall[i, j] == pytest.approx(_tau_by_hand(rows[i], rows[j]), abs=1e-12)
    assert _tau_by_hand(np.array([1.0, 2, 3, 4]), np.array([1.0, 3, 2, 4])) == pytest.approx(4 / 6)


def test_what_cannot_be_explained_is_refused(vit, image):
    with pytest.raises(ValueError, match="do not explain an image"):
        explain_image(vit, image, methods=("flow",))
    with pytest.raises(ValueError, match="layer 2 is out of range"):
        explain_image(vit, image, layer=2)
    with pytest.raises(ValueError, match="head 2 is out of range"):
        explain_image(vit, image, head=2)
    with pytest.raises(ValueError, match="no class"):
        explain_image(vit, image, target="Hat")


transformers_missing = pytest.mark.skipif(__import__("importlib").util.find_spec("transformers") is None,
                                          reason="transformers is not installed")


@pytest.fixture(scope="module")
def hf_folders(tmp_path_factory):
    from tests.hf_vision_folders import make_vision_folder

    root = tmp_path_factory.mktemp("hf-vision")
    return {family: make_vision_folder(family, root / family, seed=5) for family in ("vit", "deit", "vit-bare")}


@transformers_missing
@pytest.mark.parametrize("family", ["vit", "deit"])
def test_a_hugging_face_folder_is_explained_on_its_normalised_pixel_values(hf_folders, family):
    import transformers

    from tests.hf_vision_folders import FAMILIES

    loaded = load_checkpoint(hf_folders[family])
    reader = reader_of(loaded)
    rng = np.random.default_rng(4)
    image = Image.fromarray((rng.random((40, 44, 3)) * 255).astype(np.uint8))
    inputs, pictures = reader.prepare([image])
    assert inputs.shape[-2:] == pictures.shape[1:3]  # the boxes, in the picture's pixels, are the input's pixels
    black, _ = reader.prepare([black_like(image)])
    processor = reader.processor
    expected_black = (0.0 - torch.tensor(processor.image_mean)) / torch.tensor(processor.image_std)
    np.testing.assert_allclose(black[0, :, 0, 0], expected_black, atol=1e-6)  # black, normalised
    explanation = explain_image(loaded, image, ig_steps=64)
    library = getattr(transformers, FAMILIES[family][1]).from_pretrained(hf_folders[family],
                                                                         attn_implementation="eager").eval()
    with torch.no_grad():
        out = library(pixel_values=inputs, output_attentions=True)
        log_p = torch.log_softmax(out.logits.double(), -1)[0]
        best = int(log_p.argmax())
        specials = len(FAMILIES[family][3])
        cls_row = out.attentions[-1][0, :, 0, specials:].mean(0).double().numpy()
        blacked = inputs.clone()
        blacked[..., 8:16, 0:8] = black[..., 8:16, 0:8]  # patch r2c1 of the 4 × 4 grid of 8-pixel patches
        drop = float(log_p[best] - torch.log_softmax(library(pixel_values=blacked).logits.double(), -1)[0, best])
        difference = float(log_p[best] - torch.log_softmax(library(pixel_values=black).logits.double(), -1)[0, best])
    assert explanation.token == loaded.labels[best] and explanation.rows.shape == (5, 16)
    np.testing.assert_allclose(explanation.row("attention"), cls_row, atol=1e-5)
    assert explanation.row("occlusion")[4] == pytest.approx(drop, abs=1e-5)
    check = explanation.completeness
    assert check is not None and check.difference == pytest.approx(difference, abs=1e-5)
    assert check.attribution_sum == pytest.approx(difference, rel=0.02, abs=1e-4)


@transformers_missing
def test_a_model_without_a_classifier_head_has_no_class_to_explain(hf_folders, image):
    with pytest.raises(ValueError, match="no classifier head"):
        explain_image(load_checkpoint(hf_folders["vit-bare"]), image.convert("RGB"))
