"""The small ViT (core/models/vit.py) against torch's own pre-norm TransformerEncoderLayer and MultiheadAttention
with its weights copied: logits and every layer's attention weights to 1e-5."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from attnviz.core.models.vit import VisionTransformer, ViTConfig

CONFIG = ViTConfig(image_size=8, patch_size=2, channels=1, num_hiddens=16, num_heads=4, num_layers=3,
                   mlp_hiddens=24, dropout=0.0, num_classes=5)


def _model(config: ViTConfig = CONFIG, seed: int = 0) -> VisionTransformer:
    torch.manual_seed(seed)
    model = VisionTransformer(config).eval()
    with torch.no_grad():  # non-trivial [CLS], biases and norms, so that a wrong copy shows
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.1)
    return model


def _reference_layers(model: VisionTransformer) -> list[nn.TransformerEncoderLayer]:
    """torch's pre-norm GELU encoder layers carrying the model's weights."""
    c = model.config
    layers = []
    for block in model.blocks:
        ref = nn.TransformerEncoderLayer(c.num_hiddens, c.num_heads, c.mlp_hiddens, dropout=0.0, activation="gelu",
                                         batch_first=True, norm_first=True).eval()
        mha = block.attention
        with torch.no_grad():
            ref.self_attn.in_proj_weight.copy_(torch.cat([mha.W_q.weight, mha.W_k.weight, mha.W_v.weight]))
            ref.self_attn.in_proj_bias.copy_(torch.cat([mha.W_q.bias, mha.W_k.bias, mha.W_v.bias]))
            ref.self_attn.out_proj.weight.copy_(mha.W_o.weight)
            ref.self_attn.out_proj.bias.copy_(mha.W_o.bias)
            for mine, theirs in ((block.ln1, ref.norm1), (block.ln2, ref.norm2), (block.mlp.dense1, ref.linear1),
                                 (block.mlp.dense2, ref.linear2)):
                theirs.weight.copy_(mine.weight)
                theirs.bias.copy_(mine.bias)
        layers.append(ref)
    return layers


def _reference_embed(model: VisionTransformer, images: torch.Tensor) -> torch.Tensor:
    """[CLS] + patches + positions by hand: each patch flattened and multiplied by the conv's weight as a matrix."""
    c = model.config
    b, g, p = images.shape[0], c.grid, c.patch_size
    patches = images.reshape(b, c.channels, g, p, g, p).permute(0, 2, 4, 1, 3, 5).reshape(b, g * g, -1)  # (B, P, Cp²)
    weight = model.patch_embedding.conv.weight.reshape(c.num_hiddens, -1)  # (D, C·p·p)
    tokens = patches @ weight.T + model.patch_embedding.conv.bias  # (B, P, D)
    cls = model.cls_token.expand(b, -1, -1)
    return torch.cat((cls, tokens), dim=1) + model.pos_embedding


def test_logits_and_attention_equal_torch_reference() -> None:
    model = _model()
    images = torch.rand(3, 1, 8, 8)
    with torch.no_grad():
        out = model(images, need_weights=True, need_scores=True)
        x = _reference_embed(model, images)
        expected_weights = []
        for ref in _reference_layers(model):
            y = ref.norm1(x)
            _, weights = ref.self_attn(y, y, y, need_weights=True, average_attn_weights=False)  # (B, H, N, N)
            expected_weights.append(weights)
            x = ref(x)
        expected_logits = model.head(model.norm(x[:, 0]))
    assert out.logits.shape == (3, 5)
    assert out.weights is not None and out.scores is not None
    assert out.weights.shape == (3, 3, 4, 17, 17)  # (L, B, H, 1+P, 1+P)
    assert out.scores.shape == out.weights.shape
    torch.testing.assert_close(out.logits, expected_logits, atol=1e-5, rtol=1e-5)
    for layer, expected in enumerate(expected_weights):
        torch.testing.assert_close(out.weights[layer], expected, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(out.weights, torch.softmax(out.scores, dim=-1), atol=1e-6, rtol=1e-6)
    # the head is a real function of the image: a different image, different logits
    assert not torch.allclose(model(torch.rand(3, 1, 8, 8)).logits, out.logits)


def test_patch_embedding_is_the_strided_convolution_in_reading_order() -> None:
    model = _model()
    images = torch.zeros(1, 1, 8, 8)
    images[0, 0, 2:4, 4:6] = 1.0  # the patch at row 1, column 2 of the 4 × 4 grid: patch 1·4 + 2 = 6
    with torch.no_grad():
        tokens = model.patch_embedding(images)[0]  # (P, D)
        bias = model.patch_embedding.conv.bias
    changed = [i for i in range(16) if not torch.allclose(tokens[i], bias)]
    assert changed == [6]


def test_forward_returns_no_weights_unless_asked_and_keeps_none_on_modules() -> None:
    model = _model()
    out = model(torch.rand(2, 1, 8, 8))
    assert out.weights is None and out.scores is None
    assert not any(name.endswith("weights") for module in model.modules() for name in vars(module))


def test_rgb_config_and_shapes() -> None:
    config = ViTConfig(image_size=12, patch_size=4, channels=3, num_hiddens=8, num_heads=2, num_layers=1,
                       mlp_hiddens=8, dropout=0.0, num_classes=3)
    out = _model(config)(torch.rand(2, 3, 12, 12), need_weights=True)
    assert out.logits.shape == (2, 3)
    assert out.weights is not None and out.weights.shape == (1, 2, 2, 10, 10)
    torch.testing.assert_close(out.weights.sum(-1), torch.ones(1, 2, 2, 10))


@pytest.mark.parametrize(("values", "message"), [
    ({"image_size": 28, "patch_size": 5}, "not a multiple of patch_size=5"),
    ({"num_hiddens": 10, "num_heads": 4}, "not divisible by num_heads=4"),
    ({"num_layers": 0}, "num_layers must be at least 1"),
    ({"dropout": 1.0}, "dropout must be in [0, 1)"),
])
def test_config_refuses_impossible_shapes(values: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        ViTConfig(**values)  # type: ignore[arg-type]
