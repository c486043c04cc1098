"""A small Vision Transformer (d2l 1.0 §11.8 "Transformers for Vision"; Dosovitskiy et al. 2021).

The image is cut into P = (image_size / patch_size)² square patches by a strided convolution (kernel = stride =
patch size), each patch becomes one D-wide token, a learned ``[CLS]`` token is put in front, and learned position
embeddings (1, 1+P, D) are added. The blocks are pre-norm, as d2l's ``ViTBlock``:
``x + MHA(LN(x))`` then ``x + MLP(LN(x))`` with a GELU MLP. A final LayerNorm and a linear head read ``[CLS]``
(d2l's head: ``Sequential(LayerNorm, Linear)``).

Two choices differ from d2l's code, both as the ViT paper's reference code: ``[CLS]`` starts at zero and the
position embeddings at N(0, 0.02²) (d2l: zeros and N(0, 1)).

Input pixels are grey (or per channel) values in [0, 1], shape (B, C, image_size, image_size).
Shapes: B batch, C channels, L layers, H heads, P patches, N = 1 + P positions ([CLS] first), D width,
Dh = D / H head width, K classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from attnviz.core.attention.layers import MultiHeadAttention


@dataclass(frozen=True)
class ViTConfig:
    """Hyperparameters of :class:`VisionTransformer` (image_size and patch_size in pixels)."""

    image_size: int = 28
    patch_size: int = 4
    channels: int = 1
    num_hiddens: int = 64
    num_heads: int = 4
    num_layers: int = 6
    mlp_hiddens: int = 128
    dropout: float = 0.1
    num_classes: int = 10

    def __post_init__(self) -> None:
        for name in ("image_size", "patch_size", "channels", "num_hiddens", "num_heads", "num_layers",
                     "mlp_hiddens", "num_classes"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.image_size % self.patch_size:
            raise ValueError(f"image_size={self.image_size} is not a multiple of patch_size={self.patch_size}")
        if self.num_hiddens % self.num_heads:
            raise ValueError(f"num_hiddens={self.num_hiddens} is not divisible by num_heads={self.num_heads}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), not {self.dropout}")

    @property
    def grid(self) -> int:
        """Patches per side."""
        return self.image_size // self.patch_size

    @property
    def num_patches(self) -> int:
        """P: patches per image."""
        return self.grid**2

    @property
    def positions(self) -> int:
        """N = 1 + P: [CLS] and the patches."""
        return 1 + self.num_patches


@dataclass(frozen=True)
class ViTOutput:
    """What :meth:`VisionTransformer.forward` returns.

    logits: (B, K) class scores before the softmax.
    weights: (L, B, H, N, N) every layer's self-attention (query rows, key columns; each row sums to 1), or None
        unless ``need_weights``.
    scores: (L, B, H, N, N) the pre-softmax scores qᵀk / √Dh of the same cells, or None unless ``need_scores``.
    """

    logits: Tensor
    weights: Tensor | None = None
    scores: Tensor | None = None


class PatchEmbedding(nn.Module):
    """d2l's ``PatchEmbedding``: a Conv2d with kernel = stride = patch size, one D-wide token per patch."""

    def __init__(self, config: ViTConfig):
        super().__init__()
        p = config.patch_size
        self.conv = nn.Conv2d(config.channels, config.num_hiddens, kernel_size=p, stride=p)

    def forward(self, images: Tensor) -> Tensor:
        """images (B, C, S, S) -> tokens (B, P, D), patches in reading order (row by row)."""
        return self.conv(images).flatten(2).transpose(1, 2)  # (B, D, g, g) -> (B, D, P) -> (B, P, D)


class ViTMLP(nn.Module):
    """d2l's ``ViTMLP``: Linear – GELU – Dropout – Linear – Dropout."""

    def __init__(self, width: int, hiddens: int, dropout: float):
        super().__init__()
        self.dense1 = nn.Linear(width, hiddens)
        self.dense2 = nn.Linear(hiddens, width)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        """x (B, N, D) -> (B, N, D)."""
        return self.dropout(self.dense2(self.dropout(nn.functional.gelu(self.dense1(x)))))


class ViTBlock(nn.Module):
    """d2l's ``ViTBlock``, pre-norm: ``x + dropout(MHA(LN(x)))``, then ``x + MLP(LN(x))``."""

    def __init__(self, config: ViTConfig):
        super().__init__()
        d = config.num_hiddens
        self.ln1 = nn.LayerNorm(d)
        self.attention = MultiHeadAttention(d, config.num_heads, config.dropout, bias=True)
        self.dropout = nn.Dropout(config.dropout)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = ViTMLP(d, config.mlp_hiddens, config.dropout)

    def forward(self, x: Tensor, *, need_scores: bool = False) -> tuple[Tensor, Tensor, Tensor | None]:
        """x (B, N, D) -> (x (B, N, D), weights (B, H, N, N), scores (B, H, N, N) or None)."""
        y = self.ln1(x)
        attended = self.attention(y, y, y, need_scores=need_scores)
        x = x + self.dropout(attended.output)
        x = x + self.mlp(self.ln2(x))
        return x, attended.weights, attended.scores


class VisionTransformer(nn.Module):
    """The ViT of d2l 1.0 §11.8: :meth:`forward` images -> class logits (and every layer's attention on request)."""

    def __init__(self, config: ViTConfig):
        super().__init__()
        c = config
        self.config = c
        self.patch_embedding = PatchEmbedding(c)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, c.num_hiddens))
        # (nn.init, not torch.randn: under the loader's device context torch.randn goes through torch._refs, whose
        # checks import torch._dynamo and sympy, 80 MB of memory for the window)
        self.pos_embedding = nn.Parameter(nn.init.normal_(torch.empty(1, c.positions, c.num_hiddens), std=0.02))
        self.dropout = nn.Dropout(c.dropout)
        self.blocks = nn.ModuleList(ViTBlock(c) for _ in range(c.num_layers))
        self.norm = nn.LayerNorm(c.num_hiddens)
        self.head = nn.Linear(c.num_hiddens, c.num_classes)

    def embed(self, images: Tensor) -> Tensor:
        """images (B, C, S, S) in [0, 1] -> the blocks' input (B, N, D): [CLS], then the patches, plus positions."""
        tokens = self.patch_embedding(images)  # (B, P, D)
        cls = self.cls_token.expand(tokens.shape[0], -1, -1)  # (B, 1, D)
        return self.dropout(torch.cat((cls, tokens), dim=1) + self.pos_embedding)  # (B, N, D)

    def forward(self, images: Tensor, *, need_weights: bool = False, need_scores: bool = False) -> ViTOutput:
        """images (B, C, S, S), pixel values in [0, 1] -> :class:`ViTOutput` (logits (B, K); the attention
        weights and scores (L, B, H, N, N) when asked)."""
        x = self.embed(images)
        weights: list[Tensor] = []
        scores: list[Tensor] = []
        for block in self.blocks:
            x, w, s = block(x, need_scores=need_scores)
            if need_weights:
                weights.append(w)
            if s is not None:
                scores.append(s)
        logits = self.head(self.norm(x[:, 0]))  # [CLS]: (B, D) -> (B, K)
        return ViTOutput(logits, torch.stack(weights) if need_weights else None,
                         torch.stack(scores) if need_scores else None)

    def attention_modules(self, kind: Any = None) -> list[MultiHeadAttention]:
        """Each block's self-attention (its one kind; the Computation view and the head gates read them)."""
        from attnviz.core.attention.kind import AttentionKind

        blocks: list[ViTBlock] = list(self.blocks)  # type: ignore[arg-type]  # (a ModuleList of ViTBlocks)
        return [block.attention for block in blocks] if kind in (None, AttentionKind.ENCODER_SELF) else []

    def describe_positions(self) -> Any:
        """Its learned position table (N, D), [CLS]'s row first, then the patches' row by row, for the Positional
        panel (which also lays each patch's similarity to the others out on the patch grid)."""
        from attnviz.core.results import PositionalDescription
        from attnviz.i18n import N_, tr

        return PositionalDescription(
            N_("learned"), tr("attnviz's ViT adds a learned vector per position — [CLS], then each patch, row by row — "
                              "to the patch embeddings (d2l 1.0 §11.8)."),
            self.pos_embedding[0].detach().float().cpu().numpy())

    def num_params(self) -> int:
        """How many parameters it has."""
        return sum(p.numel() for p in self.parameters())


class ViTReader:
    """How attnviz's own ViT reads pictures (:class:`attnviz.core.models.image_reading.ImageReader`): grey, resized to
    its square side, pixel values in [0, 1] (Fashion-MNIST's: no normalisation); ``[CLS]`` is its one special
    position."""

    specials = ("[CLS]",)
    batch = 256  # images at once (the shipped ViT's maps of 256 images: 4 layers × 4 heads × 50² × 4 B × 256: 41 MB)

    def __init__(self, loaded: Any):
        self.model: VisionTransformer = loaded.model
        self.config: ViTConfig = loaded.config
        self.labels: tuple[str, ...] = tuple(loaded.labels)
        self.grid = (self.config.grid, self.config.grid)
        self.patch = (self.config.patch_size, self.config.patch_size)
        self.side = self.config.image_size  # (a picture is resized to its square side: 28 for the shipped ViT)

    def prepare(self, images: Sequence[Any]) -> tuple[Tensor, np.ndarray]:
        from attnviz.core.images import to_grey

        side = self.config.image_size
        grey = np.stack([to_grey(image, side) for image in images]) if images else np.zeros((0, side, side), np.float32)
        inputs = torch.from_numpy(grey)[:, None].expand(-1, self.config.channels, -1, -1).contiguous()
        return inputs, np.repeat(grey[..., None], 3, axis=-1)

    def run(self, inputs: Tensor, need_scores: bool = False) -> Any:
        from attnviz.core.models.image_reading import ImageOutputs

        output = self.model.eval()(inputs, need_weights=True, need_scores=need_scores)
        assert output.weights is not None
        return ImageOutputs(output.logits, output.weights, output.scores)

    def logits(self, inputs: Tensor) -> Tensor:
        return self.model.eval()(inputs).logits
