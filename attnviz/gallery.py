"""The book's attention figures, computed from attnviz's own code: d2l.ai's attention chapters and
"Attention Is All You Need". One entry per figure (section, caption, how to build it, how the window shows it
live); ``attnviz figures`` renders them all, headless. Sections are numbered in either edition of the book by
attnviz.figures.editions. Qt-free: each builder returns figure descriptions (attnviz.figures.spec).

The numbers come from the same functions the app and training use (masked softmax, additive and
scaled dot-product attention, Nadaraya–Watson pooling, the positional encoding, the learning-rate
schedule) and, for the trained models' figures, from the shipped checkpoints.
"""

from __future__ import annotations

import functools
import html
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import torch

from attnviz import modern_gallery as modern
from attnviz.core.attention.layers import AdditiveAttention, DotProductAttention
from attnviz.core.attention.masking import masked_softmax
from attnviz.core.attention.positional import positional_encoding_table
from attnviz.core.learning.history import TrainingHistory
from attnviz.core.models.kernel_regression import (
    NadarayaWatsonRegression,
    fit_parametric,
    kernel_weights,
    nadaraya_watson,
    synthetic_regression_data,
)
from attnviz.figures import book
from attnviz.figures.book import BookEntry, Live
from attnviz.figures.editions import (
    DEFAULT_EDITION,
    EDITION_NAMES,
    EDITIONS,
    NOT_IN_BOOK_HEADING,
    SECTIONS,
    SHORT_NAMES,
    SUPPLEMENT_PREFIX,
    Section,
)
from attnviz.figures.spec import AnyFigure, FigureSpec, GridSpec, LineSpec, Series, fit_levels
from attnviz.i18n import CHINESE, N_, language, tr
from attnviz.training.schedule import lr_at


@dataclass(frozen=True)
class GalleryEntry:
    """One figure of the curriculum: ``key`` (its name, e.g. ``10.3-additive-toy``: numbered as d2l 0.17
    numbers it, whatever the edition chosen; its file in an edition is ``file_stem(edition)``), ``topic``
    (its section: a key of editions.SECTIONS), a caption (in English, marked with ``N_``: ``tr(caption)``
    where it is shown, as ``tr(live.note)``), the function that computes it, how the app shows it live
    (None: only as the figure) and the editions whose book has the figure (BookEntry.editions)."""

    key: str
    topic: str
    caption: str
    build: Callable[[], AnyFigure]
    live: Live | None = None
    editions: tuple[str, ...] = EDITIONS
    needs_transformers: bool = False  # drawn from the library's own model classes (the standalone app has none)

    @property
    def section(self) -> Section:
        return SECTIONS[self.topic]

    @property
    def book_entry(self) -> BookEntry:
        return BookEntry(self.key, self.topic, self.caption, self.live, self.editions)

    def supplementary(self, edition: str) -> bool:
        return book.supplementary(self, edition)

    def label(self, edition: str) -> str:
        return book.label(self, edition)

    def heading(self, edition: str) -> str:
        return book.heading(self, edition)

    def file_stem(self, edition: str) -> str:
        return book.file_stem(self, edition)


def _numbers(n: int) -> tuple[str, ...]:
    return tuple(str(i) for i in range(n))


def _heat(values: np.ndarray | torch.Tensor, title: str, rows: tuple[str, ...] | None = None,
          cols: tuple[str, ...] | None = None, row_axis: str | None = None, col_axis: str | None = None,
          levels: tuple[float, float] | None = None, colormap: str = "viridis") -> FigureSpec:
    """A heatmap; its axes named "queries" and "keys" unless told (the caller translates what it passes)."""
    array = np.asarray(values, dtype=np.float32)
    return FigureSpec(array, rows or _numbers(array.shape[0]), cols or _numbers(array.shape[1]), title,
                      levels or fit_levels(array), colormap, row_axis=tr("queries") if row_axis is None else row_axis,
                      col_axis=tr("keys") if col_axis is None else col_axis)


def _grid(panels: list[FigureSpec], columns: int, title: str, row_names: tuple[str, ...],
          col_names: tuple[str, ...], levels: tuple[float, float]) -> GridSpec:
    """Small multiples with one shared colour bar (the panels draw none of their own)."""
    shown = tuple(replace(panel, colour_bar=False, levels=levels, row_axis="", col_axis="", max_grid_px=260)
                  for panel in panels)
    return GridSpec(shown, columns, title, levels, row_names, col_names)


# -- 10.1 attention cues -----------------------------------------------------------------------
def attention_cues() -> AnyFigure:
    return _heat(torch.eye(10), tr("Attention cues: weights of an identity attention (10 × 10)"), levels=(0.0, 1.0))


# -- 10.2 attention pooling: Nadaraya–Watson --------------------------------------------------------
def _regression():
    return synthetic_regression_data(50, 0.5, 0)


def _truth_and_points(title: str, extra: list[Series]) -> LineSpec:
    data = _regression()
    return LineSpec((Series(tr("training points"), data.x_train.numpy(), data.y_train.numpy(), "points"),
                     Series(tr("true f(x) = 2 sin x + x^0.8"), data.x_test.numpy(), data.y_test.numpy(), "dashed"),
                     *extra), title)


def nw_data() -> AnyFigure:
    return _truth_and_points(tr("Training data and the true function"), [])


def nw_average_pooling() -> AnyFigure:
    data = _regression()
    mean = np.full(data.x_test.shape[0], float(data.y_train.mean()), np.float32)
    return _truth_and_points(tr("Average pooling: every prediction is the mean of the training y"),
                             [Series(tr("average pooling"), data.x_test.numpy(), mean)])


def nw_nonparametric() -> AnyFigure:
    data = _regression()
    predicted = nadaraya_watson(data.x_test, data.x_train, data.y_train, "gaussian", 1.0).predictions
    return _truth_and_points(tr("Non-parametric attention pooling (Gaussian kernel, h = 1)"),
                             [Series(tr("prediction"), data.x_test.numpy(), predicted.numpy())])


def nw_nonparametric_weights() -> AnyFigure:
    data = _regression()
    weights = kernel_weights(data.x_test, data.x_train, "gaussian", 1.0)
    return _heat(weights, tr("Non-parametric pooling weights (test × train, Gaussian, h = 1)"),
                 tuple(f"{x:.1f}" for x in data.x_test.tolist()), tuple(f"{x:.2f}" for x in data.x_train.tolist()),
                 tr("test x (sorted)"), tr("training x (sorted)"))


def _parametric() -> tuple[NadarayaWatsonRegression, list[float]]:
    data = _regression()
    torch.manual_seed(0)
    model = NadarayaWatsonRegression()
    losses = fit_parametric(model, data.x_train, data.y_train, epochs=5, lr=0.5)
    return model, losses


def nw_parametric_loss() -> AnyFigure:
    _model, losses = _parametric()
    return LineSpec((Series(tr("training loss"), np.arange(1, len(losses) + 1), np.array(losses)),),
                    tr("Parametric attention pooling: training loss"), tr("epoch"), tr("loss"))


def nw_parametric() -> AnyFigure:
    data = _regression()
    model, _ = _parametric()
    with torch.no_grad():
        predicted = model(data.x_test, data.x_train, data.y_train).predictions
    return _truth_and_points(tr("Parametric attention pooling (learned w = {w:.2f})").format(w=model.w.item()),
                             [Series(tr("prediction"), data.x_test.numpy(), predicted.numpy())])


def nw_parametric_weights() -> AnyFigure:
    data = _regression()
    model, _ = _parametric()
    with torch.no_grad():
        weights = model(data.x_test, data.x_train, data.y_train).weights
    return _heat(weights, tr("Parametric pooling weights: sharper than the non-parametric ones"),
                 tuple(f"{x:.1f}" for x in data.x_test.tolist()), tuple(f"{x:.2f}" for x in data.x_train.tolist()),
                 tr("test x (sorted)"), tr("training x (sorted)"))


def nw_kernels() -> AnyFigure:
    distance = torch.linspace(-2.5, 2.5, 201)
    shapes = {tr("Gaussian"): torch.exp(-distance**2 / 2), tr("boxcar"): (distance.abs() <= 1).float(),
              tr("constant"): torch.ones_like(distance), "Epanechnikov": torch.clamp(1 - distance**2, min=0)}
    return LineSpec(tuple(Series(name, distance.numpy(), shape.numpy()) for name, shape in shapes.items()),
                    tr("Kernels K(u) as functions of the distance u = (x − xᵢ)/h"), "u", "K(u)", (-0.05, 1.1))


BOOK_BANDWIDTHS = (0.1, 0.2, 0.5, 1.0)


def nw_bandwidths() -> AnyFigure:
    data = _regression()
    widths = BOOK_BANDWIDTHS
    panels = [_heat(kernel_weights(data.x_test, data.x_train, "gaussian", h), f"h = {h:g}", levels=(0.0, 1.0))
              for h in widths]
    return _grid(panels, 4, tr("The bandwidth h: Gaussian pooling weights (test × train)"), (tr("weights"),),
                 tuple(f"h = {h:g}" for h in widths), (0.0, 1.0))


# -- 10.3 scoring functions -------------------------------------------------------------------
def _two_queries() -> tuple[str, str]:
    return tr("query {n}").format(n=1), tr("query {n}").format(n=2)


def _two_sequences() -> tuple[str, str]:
    return tr("sequence {n}").format(n=1), tr("sequence {n}").format(n=2)


def masked_softmax_example() -> AnyFigure:
    torch.manual_seed(0)
    scores = torch.rand(2, 2, 4)
    weights = masked_softmax(scores, torch.tensor([2, 3]))
    panels = [_heat(weights[b], tr("valid length {n}").format(n=n), _two_queries(), _numbers(4), levels=(0.0, 1.0))
              for b, n in enumerate((2, 3))]
    return _grid(panels, 2, tr("Masked softmax: two sequences, valid lengths 2 and 3"), (tr("batch"),),
                 _two_sequences(), (0.0, 1.0))


def masked_softmax_2d_example() -> AnyFigure:
    torch.manual_seed(0)
    scores = torch.rand(2, 2, 4)
    valid = torch.tensor([[1, 3], [2, 4]])
    weights = masked_softmax(scores, valid)
    panels = [_heat(weights[b], tr("valid lengths {lengths}").format(lengths=valid[b].tolist()), _two_queries(),
                    _numbers(4), levels=(0.0, 1.0)) for b in range(2)]
    return _grid(panels, 2, tr("Masked softmax with a valid length per query (2-D valid lengths)"), (tr("batch"),),
                 _two_sequences(), (0.0, 1.0))


def _toy_inputs() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The book's toy: 10 keys of width 2 (all ones), values 0…39, valid lengths 2 and 6."""
    keys = torch.ones(2, 10, 2)
    values = torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)
    return keys, values, torch.tensor([2, 6]), torch.tensor([2, 6])


def additive_toy_weights() -> torch.Tensor:
    """(2, 1, 10): identical keys, so each sequence's weights are uniform over its valid keys."""
    torch.manual_seed(0)
    queries = torch.normal(0, 1, (2, 1, 20))
    keys, values, valid, _ = _toy_inputs()
    attention = AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.0).eval()
    with torch.no_grad():
        return attention(queries, keys, values, valid).weights


def dot_product_toy_weights() -> torch.Tensor:
    torch.manual_seed(0)
    queries = torch.normal(0, 1, (2, 1, 2))
    keys, values, valid, _ = _toy_inputs()
    with torch.no_grad():
        return DotProductAttention(dropout=0.0).eval()(queries, keys, values, valid).weights


def _toy_figure(weights: torch.Tensor, title: str) -> AnyFigure:
    panels = [_heat(weights[b], tr("valid length {n}").format(n=n), (tr("query"),), _numbers(10), levels=(0.0, 1.0))
              for b, n in enumerate((2, 6))]
    return _grid(panels, 1, title, tuple(tr("valid length {n}").format(n=n) for n in (2, 6)), (tr("weights"),),
                 (0.0, 1.0))


def additive_toy() -> AnyFigure:
    return _toy_figure(additive_toy_weights(), tr("Additive attention on the toy: weights 1/2 and 1/6"))


def dot_product_toy() -> AnyFigure:
    return _toy_figure(dot_product_toy_weights(), tr("Scaled dot-product attention on the toy: weights 1/2 and 1/6"))


# -- 10.6 positional encoding ------------------------------------------------------------------
BOOK_POSITIONS, BOOK_DIMS = 60, 32


def pe_table() -> AnyFigure:
    table = positional_encoding_table(BOOK_POSITIONS, BOOK_DIMS)
    return _heat(table, tr("Positional encoding: {positions} positions × {dimensions} dimensions").format(
        positions=BOOK_POSITIONS, dimensions=BOOK_DIMS), row_axis=tr("position"), col_axis=tr("encoding dimension"),
        levels=(-1.0, 1.0), colormap="CET-D1")


def pe_curves() -> AnyFigure:
    table = positional_encoding_table(BOOK_POSITIONS, BOOK_DIMS)
    positions = np.arange(BOOK_POSITIONS)
    return LineSpec(tuple(Series(tr("col {d}").format(d=d), positions, table[:, d]) for d in range(6, 10)),
                    tr("Positional encoding: dimensions 6–9 over positions"), tr("row (position)"), tr("value"),
                    (-1.1, 1.1))


def pe_binary() -> AnyFigure:
    bits = np.array([[(n >> b) & 1 for b in (2, 1, 0)] for n in range(8)], dtype=np.float32)
    return _heat(bits, tr("0…7 in binary: the lower bit alternates fastest, like PE's high-frequency columns"),
                 tuple(f"{n} = {n:03b}" for n in range(8)), tuple(tr("bit {n}").format(n=b) for b in (2, 1, 0)),
                 tr("number"), tr("bit"), (0.0, 1.0), "mask")


def pe_similarity() -> AnyFigure:
    table = positional_encoding_table(BOOK_POSITIONS, BOOK_DIMS)
    return _heat(table @ table.T, tr("PE · PEᵀ: nearby positions have similar encodings"), row_axis=tr("position"),
                 col_axis=tr("position"))


# -- "Attention Is All You Need" -----------------------------------------------------------------
def transformer_lr(step: np.ndarray, d_model: int = 512, warmup: int = 4000) -> np.ndarray:
    """The paper's schedule: d_model^−0.5 · min(step^−0.5, step · warmup^−1.5)."""
    step = np.maximum(np.asarray(step, np.float64), 1)
    return d_model**-0.5 * np.minimum(step**-0.5, step * warmup**-1.5)


def lr_schedules() -> AnyFigure:
    steps = np.arange(1, 20001, 50)
    paper = transformer_lr(steps)
    ours = np.array([lr_at(int(s), 20000, float(paper.max()), 4000) for s in steps])
    return LineSpec((Series(tr("paper: warm-up, then 1/√step (d_model 512, 4000 warm-up)"), steps, paper),
                     Series(tr("attnviz train: linear warm-up, cosine decay (same peak)"), steps, ours)),
                    tr("Learning-rate schedules"), tr("training step"), tr("learning rate"))


def scaling_effect(dims: tuple[int, ...] = (2, 4, 8, 16, 32, 64, 128, 256, 512), keys: int = 10,
                   samples: int = 2000) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For random unit-variance q and k of width d: std of q·k unscaled and scaled by √d, and the mean
    entropy (nats) of the softmax over ``keys`` keys with and without the scaling."""
    gen = torch.Generator().manual_seed(0)
    spread: list[float] = []
    spread_scaled: list[float] = []
    entropy: list[float] = []
    entropy_scaled: list[float] = []
    for d in dims:
        q = torch.randn(samples, 1, d, generator=gen)
        k = torch.randn(samples, keys, d, generator=gen)
        scores = (q * k).sum(-1)
        for s, spreads, entropies in ((scores, spread, entropy), (scores / math.sqrt(d), spread_scaled,
                                                                   entropy_scaled)):
            p = torch.softmax(s, dim=-1)
            spreads.append(float(s.std()))
            entropies.append(float(-(p * p.clamp_min(1e-30).log()).sum(-1).mean()))
    return (np.array(dims), np.array(spread), np.array(spread_scaled), np.array([entropy, entropy_scaled]))


def why_scale() -> AnyFigure:
    dims, _spread, _scaled, entropies = scaling_effect()
    return LineSpec((Series(tr("softmax entropy, q·k"), dims, entropies[0]),
                     Series(tr("softmax entropy, q·k / √d"), dims, entropies[1]),
                     Series(tr("uniform over 10 keys (log 10)"), dims, np.full(dims.shape, math.log(10)), "dashed")),
                    tr("Why scale by √d: unscaled scores saturate the softmax as d grows"), tr("key width d"),
                    tr("entropy of the weights (nats)"))


def layer_costs() -> AnyFigure:
    n = np.arange(8, 2049, 8)
    d, k = 512, 3
    return LineSpec((Series(tr("self-attention: n²·d"), n, n**2 * d / 1e9),
                     Series(tr("recurrent: n·d²"), n, n * d**2 / 1e9),
                     Series(tr("convolutional: k·n·d² (k = 3)"), n, k * n * d**2 / 1e9)),
                    tr("Operations per layer as the sequence grows (d = 512; Table 1 of the paper)"),
                    tr("sequence length n"), tr("billions of operations"))


# -- the shipped models -------------------------------------------------------------------------
BOOK_SENTENCE = "i think that we should go home ."
# One query of the trained Transformer, recomputed: cross-attention, the last decoder layer, head 2, query 5.
ONE_QUERY_LIVE = Live("transformer.safetensors", "computation", BOOK_SENTENCE, "cross-attention", layer=-1, head=1,
                      query=4)


def _shipped(name: str):
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.paths import MODELS_DIR

    return load_checkpoint(MODELS_DIR / f"{name}.safetensors")


def _decoded(name: str):
    """The shipped model ``name`` and its greedy decoding of BOOK_SENTENCE: (loaded, source, last step)."""
    from attnviz.core.decoding.stepping import DecodeSession

    loaded = _shipped(name)
    session = DecodeSession(loaded)
    source = session.encode(BOOK_SENTENCE)
    return loaded, source, session.run()[-1]


def _attention_of(name: str, kind: str, all_heads: bool, caption: str) -> AnyFigure:
    from attnviz.core.attention.kind import AttentionKind
    from attnviz.figures.attention import AttentionView, attention_figure

    _loaded, source, step = _decoded(name)
    view = AttentionView(AttentionKind(kind), all_heads=all_heads)
    spec = attention_figure(source, step, view, name)[0].spec
    assert isinstance(spec, FigureSpec | GridSpec)
    return replace(spec, title=f"{caption} — {spec.title}")


def one_query_computed() -> AnyFigure:
    """The Q·K·V computation of one query of the trained Transformer: its weights recomputed by hand from
    q and the k_j (scaled dot product, masked softmax) beside the weights the model produced."""
    from attnviz.core.attention.kind import AttentionKind
    from attnviz.core.decoding.query_computation import compute_query

    loaded, source, step = _decoded("transformer")
    live = ONE_QUERY_LIVE
    layer, head = live.layer % loaded.config.num_decoder_layers, live.head
    query = live.query % len(step.query_tokens)
    comp = compute_query(loaded, source.tokens, step.query_tokens, AttentionKind.CROSS, layer, head, query)
    values = np.stack([comp.weights, comp.model_weights]).astype(np.float32)
    title = tr("One query recomputed: cross-attention layer {layer} · head {head} · query {query!r} "
               "(largest difference {difference:.0e})").format(layer=layer + 1, head=head + 1, query=comp.query_token,
                                                                difference=comp.difference_from_model())
    return FigureSpec(values, (tr("α = softmax(q·k_j / √d), by hand"), tr("α, the model's own")), comp.key_tokens,
                      title, row_axis="", col_axis=tr("keys (source tokens)"))


def _training_curve(name: str, caption: str) -> AnyFigure:  # caption: e.g. "Transformer"
    """The training loss per epoch stored in the checkpoint; checkpoints trained before attnviz stored
    it have only validation BLEU per epoch, and the figure says so rather than invent a loss curve."""
    training = _shipped(name).training
    loss = training.get("train_loss_per_epoch")
    if loss:
        epochs = np.arange(1, len(loss) + 1, dtype=np.float64)
        return LineSpec((Series(tr("training loss"), epochs, np.asarray(loss, np.float64)),),
                        tr("{model}: training loss per epoch").format(model=caption), tr("epoch"),
                        tr("cross-entropy per token"))
    bleu = training.get("bleu_per_epoch") or []
    epochs = np.arange(1, len(bleu) + 1, dtype=np.float64)
    return LineSpec((Series(tr("validation BLEU"), epochs, np.asarray(bleu, np.float64)),),
                    tr("{model}: BLEU per epoch (no loss was recorded)").format(model=caption), tr("epoch"),
                    tr("validation BLEU"))


def bahdanau_attention() -> AnyFigure:
    return _attention_of("rnn-additive", "cross-attention", False, tr("Bahdanau attention"))


def bahdanau_training() -> AnyFigure:
    return _training_curve("rnn-additive", tr("Bahdanau model"))


def transformer_heads() -> AnyFigure:
    return _attention_of("transformer", "encoder self-attention", True, tr("Multi-head self-attention"))


def transformer_decoder_self() -> AnyFigure:
    return _attention_of("transformer", "decoder self-attention", True, tr("Decoder self-attention (causal)"))


def transformer_cross() -> AnyFigure:
    return _attention_of("transformer", "cross-attention", True, tr("Encoder–decoder attention"))


def transformer_training() -> AnyFigure:
    return _training_curve("transformer", "Transformer")


def encoder_decoder_vs_decoder_only() -> AnyFigure:
    """The shipped Transformer's cross-attention on BOOK_SENTENCE beside the decoder-only model's source view
    (forced to take the Transformer's translation, so the rows are the same queries), and their difference."""
    from attnviz.core.decoding.stepping import forced_comparison, output_with_end
    from attnviz.figures.compare import comparison_figures, comparison_grid

    _loaded, source, step = _decoded("transformer")
    comparison = forced_comparison(_shipped("decoder-only"), BOOK_SENTENCE, output_with_end(step))
    return comparison_grid(comparison_figures("transformer", source, step, comparison),
                           tr("Encoder–decoder vs decoder-only on the same sentence"))


VISION_SAMPLE = "9-ankle-boot.png"  # the shipped sample the vision figures read (the first Fashion-MNIST test image)


def _vision_source():
    """The shipped ViT and its reading of :data:`VISION_SAMPLE`: (loaded, source)."""
    from attnviz.core.models.image_reading import encode_image_file
    from attnviz.paths import SAMPLE_IMAGES

    loaded = _shipped("vit")
    return loaded, encode_image_file(loaded, SAMPLE_IMAGES / VISION_SAMPLE, "cpu")


def vit_patches_and_cls() -> AnyFigure:
    """The sequence a ViT reads: [CLS] and the 49 patches of a 28 × 28 image, as the first layer's self-attention
    over them (heads averaged): every patch is a token, [CLS] one more."""
    _loaded, source = _vision_source()
    assert source.encoder_weights is not None
    weights = source.encoder_weights.mean(axis=1)[0]
    return FigureSpec(weights.astype(np.float32), source.tokens, source.tokens,
                      tr("ViT layer 1 self-attention over [CLS] and the 7 × 7 patches of {image} (heads averaged)"
                         ).format(image=VISION_SAMPLE), levels=fit_levels(weights), row_axis=tr("queries"),
                      col_axis=tr("keys"))


def vit_attention_by_layer() -> AnyFigure:
    """[CLS]'s attention over the image in each layer (heads averaged), and the rollout after each layer."""
    from attnviz.figures.image import ATTENTION, ROLLOUT, OverlayChoice, overlay

    _loaded, source = _vision_source()
    assert source.encoder_weights is not None
    layers = source.encoder_weights.shape[0]
    titles = {ATTENTION: N_("attention, layer {layer}"), ROLLOUT: N_("rollout after layer {layer}")}
    panels = [replace(overlay(source, OverlayChoice(what, layer, None, 0), max_grid_px=140.0),
                      title=tr(titles[what]).format(layer=layer + 1), colour_bar=False, row_axis="", col_axis="",
                      ticks=False) for what in (ATTENTION, ROLLOUT) for layer in range(layers)]
    high = max(float(p.values.max()) for p in panels) or 1.0
    panels = [replace(p, levels=(0.0, high)) for p in panels]
    return GridSpec(tuple(panels), layers, tr("[CLS] over {image}, layer by layer: attention (heads averaged), then "
                                              "rollout").format(image=VISION_SAMPLE), (0.0, high),
                    (tr("attention"), tr("rollout")), tuple(tr("layer {layer}").format(layer=i + 1)
                                                            for i in range(layers)), colormap="inferno",
                    name_columns=("row", "layer"))


def vit_attention_distance() -> AnyFigure:
    """The ViT paper's Figure 7 (right): each head's mean attention distance in pixels by depth, over the shipped
    sample images, with each layer's mean and the distance of attention spread evenly over the patches."""
    from attnviz.core.heads.image_atlas import image_atlas, image_paths, patch_distances
    from attnviz.paths import SAMPLE_IMAGES

    loaded = _shipped("vit")
    sums = image_atlas(loaded, image_paths(SAMPLE_IMAGES), "cpu")
    heads = np.asarray([[row["mean_distance_px"] for row in sums.table() if row["layer"] == layer + 1]
                        for layer in range(sums.distance.shape[0])])  # (L, H)
    layers = np.arange(1, heads.shape[0] + 1, dtype=np.float64)
    config = loaded.config
    even = float(patch_distances(config.grid, config.patch_size).mean())
    points = Series(tr("one head"), np.repeat(layers, heads.shape[1]), heads.ravel(), "points")
    mean = Series(tr("the layer's mean"), layers, heads.mean(axis=1))
    uniform = Series(tr("attention spread evenly ({px:.1f} px)").format(px=even), layers, np.full_like(layers, even),
                     "dashed")
    return LineSpec((points, mean, uniform), tr("Mean attention distance by depth, over the {count} sample images"
                                                 ).format(count=sums.images), tr("layer"), tr("distance (pixels)"),
                    y_range=(0.0, float(max(heads.max(), even)) * 1.15),
                    x_ticks=tuple((float(x), str(int(x))) for x in layers))


def pe_of_model() -> AnyFigure:
    loaded = _shipped("transformer")
    table = np.asarray(positional_encoding_table(loaded.config.max_src_len, loaded.config.num_hiddens))
    figure = _heat(table, tr("Positional encoding of the shipped Transformer: {positions} positions × {dimensions} "
                             "dimensions").format(positions=table.shape[0], dimensions=table.shape[1]),
                   row_axis=tr("position"), col_axis=tr("dimension"), levels=(-1.0, 1.0), colormap="CET-D1")
    # (a wide, low map: its colour bar as high as the map, not taller, so the axis name sits under the labels)
    return replace(figure, bar_min_px=0.0)


# -- attnviz: watching attention learn ------------------------------------------------------------
LEARNERS = {"rnn-additive": N_("RNN + additive attention"), "rnn-dot": N_("RNN + dot-product attention"),
            "transformer": "Transformer", "decoder-only": N_("Decoder-only Transformer")}


def learning_stages(history: TrainingHistory) -> tuple[int, int, int]:
    """The snapshots a figure shows: untrained, midway (the first whose agreement is halfway from the
    untrained one's to the trained one's: the alignment forming) and trained."""
    agreement = np.nan_to_num(history.curve("agreement"))
    last = len(history.snapshots) - 1
    halfway = (agreement[0] + agreement[last]) / 2
    midway = next((i for i in range(1, last) if agreement[i] >= halfway), last // 2)
    return 0, midway, last


def learned(task: str) -> AnyFigure:
    """The probe's map untrained, midway and trained, from the run of resources/training/TASK.json
    (scripts/training_gallery.py trains it)."""
    from attnviz.core.learning.tasks import task_named
    from attnviz.figures.training import snapshot_figure
    from attnviz.paths import TRAINING_HISTORIES

    record = json.loads((TRAINING_HISTORIES / f"{task}.json").read_text(encoding="utf-8"))
    history = TrainingHistory.from_json(record["history"])
    picks = learning_stages(history)
    names = []
    stages = (tr("untrained: step {step:,} · agreement {agreement:.0f} %"),
              tr("midway: step {step:,} · agreement {agreement:.0f} %"),
              tr("trained: step {step:,} · agreement {agreement:.0f} %"))
    for stage, index in zip(stages, picks, strict=True):
        snapshot = history.snapshots[index]
        names.append(stage.format(step=snapshot.step, agreement=100 * (snapshot.agreement or 0)))
    panels = [replace(snapshot_figure(history, i), title=name) for i, name in zip(picks, names, strict=True)]
    last = history.snapshots[-1]
    learner = tr(LEARNERS.get(record["kind"], record["kind"]))
    # (the task's label and alignment are marked for translation where the tasks are defined)
    what = dict(learner=learner, task=tr(task_named(task).label), alignment=tr(task_named(task).alignment),
                head=last.shown_note)
    title = (tr("{learner} learning to {task}: its attention finds {alignment} (its best-aligned head: {head})")
             if last.note else tr("{learner} learning to {task}: its attention finds {alignment}")).format(**what)
    return _grid(panels, 3, title, ("",), tuple(names), (0.0, 1.0))


def _kernel_live(kernel: str = "gaussian", bandwidth: float = 1.0, parametric: bool = False, note: str = "") -> Live:
    return Live("kernel-regression.safetensors", "kernel", kernel=kernel, bandwidth=bandwidth, parametric=parametric,
                note=note)


def _translation_live(name: str, kind: str, all_heads: bool) -> Live:
    return Live(f"{name}.safetensors", "attention", BOOK_SENTENCE, kind, all_heads)


_NW_LIVE = _kernel_live()
# the vision figures live: the shipped ViT on the figures' sample, in the dock that shows each
_VISION_LIVE_ATTENTION = Live("vit.safetensors", "attention", image=VISION_SAMPLE, note=N_(
    "The window shows one head at a time: the figure averages the heads."))
_VISION_LIVE_IMAGE = Live("vit.safetensors", "image", image=VISION_SAMPLE, note=N_(
    "The Image dock shows one layer at a time: change its layer, or Show ▸ rollout."))
_VISION_LIVE_HEADS = Live("vit.safetensors", "heads", image=VISION_SAMPLE, note=N_(
    "In the Head atlas, Map heads maps the shipped samples; its Distance by layer tab is this figure."))
_PE_LIVE = Live("transformer.safetensors", dock="positional", sentence=BOOK_SENTENCE)
# (the note names BOOK_BANDWIDTHS[0] as a literal: a caption is translated whole, by its English text)
BANDWIDTHS_LIVE = _kernel_live(bandwidth=BOOK_BANDWIDTHS[0], note=N_("The window shows the h = 0.1 panel; change the "
                                                                     "bandwidth there to see the others."))

# Which editions' books have a figure (GalleryEntry.editions; the others list it as "not in the book"), checked
# against the chapter itself: d2l 0.17 / 第二版 10.2 trains parametric pooling and has no kernel or bandwidth
# plots; d2l 1.0's 11.2 (Attention Pooling by Similarity) plots the kernels side by side and the weights per
# bandwidth, and has no parametric pooling. Neither edition draws multi-head maps (10.5), PE · PEᵀ, or compares
# an encoder–decoder's attention with a decoder-only model's (d2l 1.0's 11.9 only describes GPT).
OLD_ONLY, NEW_ONLY, NEITHER = ("0.17",), ("1.0",), ()

_EVERY_FIGURE: tuple[GalleryEntry, ...] = (
    GalleryEntry("10.1-attention-cues", "cues", N_("Attention cues: the identity matrix as attention weights"),
                 attention_cues),
    GalleryEntry("10.2-data", "pooling", N_("Nadaraya–Watson: training data and the true function"), nw_data,
                 _NW_LIVE),
    GalleryEntry("10.2-average-pooling", "pooling", N_("Average pooling"), nw_average_pooling,
                 _kernel_live("constant", note=N_("Average pooling is the non-parametric pooling with the constant "
                                                  "kernel."))),
    GalleryEntry("10.2-nonparametric", "pooling", N_("Non-parametric attention pooling: prediction"),
                 nw_nonparametric, _NW_LIVE),
    GalleryEntry("10.2-nonparametric-weights", "pooling", N_("Non-parametric attention pooling: weights"),
                 nw_nonparametric_weights, _NW_LIVE),
    GalleryEntry("10.2-parametric-loss", "pooling", N_("Parametric attention pooling: training loss"),
                 nw_parametric_loss, editions=OLD_ONLY),
    GalleryEntry("10.2-parametric", "pooling", N_("Parametric attention pooling: prediction"), nw_parametric,
                 _NW_LIVE, OLD_ONLY),
    GalleryEntry("10.2-parametric-weights", "pooling", N_("Parametric attention pooling: weights"),
                 nw_parametric_weights, _kernel_live(parametric=True), OLD_ONLY),
    GalleryEntry("10.2-kernels", "pooling", N_("Kernels side by side"), nw_kernels, editions=NEW_ONLY),
    GalleryEntry("10.2-bandwidths", "pooling", N_("The effect of the bandwidth"), nw_bandwidths, BANDWIDTHS_LIVE,
                 NEW_ONLY),
    GalleryEntry("10.3-masked-softmax", "scoring", N_("Masked softmax, valid lengths 2 and 3"), masked_softmax_example),
    GalleryEntry("10.3-masked-softmax-2d", "scoring", N_("Masked softmax, a valid length per query"),
                 masked_softmax_2d_example),
    GalleryEntry("10.3-additive-toy", "scoring", N_("Additive attention on the toy example"), additive_toy),
    GalleryEntry("10.3-dot-product-toy", "scoring", N_("Scaled dot-product attention on the toy example"),
                 dot_product_toy),
    GalleryEntry("10.4-bahdanau-attention", "bahdanau", N_("Bahdanau attention of the trained model"),
                 bahdanau_attention, _translation_live("rnn-additive", "cross-attention", False)),
    GalleryEntry("10.4-bahdanau-training", "bahdanau", N_("Bahdanau model: training curve"), bahdanau_training),
    GalleryEntry("10.5-heads", "multi-head", N_("Multi-head attention: every head of every layer"), transformer_heads,
                 _translation_live("transformer", "encoder self-attention", True), NEITHER),
    GalleryEntry("10.5-one-query", "multi-head", N_("The Q·K·V computation of one query, with the trained model's "
                                                    "numbers"), one_query_computed, ONE_QUERY_LIVE, NEITHER),
    GalleryEntry("10.6-pe-table", "self-attention", N_("Positional encoding table"), pe_table),
    GalleryEntry("10.6-pe-curves", "self-attention", N_("Positional encoding: dimensions 6–9"), pe_curves),
    GalleryEntry("10.6-binary", "self-attention", N_("Binary representations of 0…7"), pe_binary),
    GalleryEntry("10.6-pe-similarity", "self-attention", "PE · PEᵀ", pe_similarity,  # (nothing to translate)
                 editions=NEITHER),
    GalleryEntry("10.6-pe-model", "self-attention", N_("Positional encoding of the trained Transformer"), pe_of_model,
                 _PE_LIVE),
    GalleryEntry("10.7-encoder-self", "transformer", N_("Transformer encoder self-attention, layer × head"),
                 transformer_heads, _translation_live("transformer", "encoder self-attention", True)),
    GalleryEntry("10.7-decoder-self", "transformer", N_("Transformer decoder self-attention (causal: masked cells "
                                                        "marked)"), transformer_decoder_self,
                 _translation_live("transformer", "decoder self-attention", True)),
    GalleryEntry("10.7-cross", "transformer", N_("Transformer encoder–decoder attention"), transformer_cross,
                 _translation_live("transformer", "cross-attention", True)),
    GalleryEntry("10.7-training", "transformer", N_("Transformer: training curve"), transformer_training),
    GalleryEntry("10.7-encoder-decoder-vs-decoder-only", "decoder-only", N_("Encoder–decoder vs decoder-only on the "
                 "same sentence: cross-attention beside the decoder-only model's source view"),
                 encoder_decoder_vs_decoder_only, Live("transformer.safetensors", "compare", BOOK_SENTENCE,
                                                       compare_with="decoder-only.safetensors"), NEITHER),
    GalleryEntry("10.7-vit-patches-and-cls", "vision", N_("A ViT reads [CLS] and the image's patches as one sequence"),
                 vit_patches_and_cls, _VISION_LIVE_ATTENTION, editions=NEW_ONLY),
    GalleryEntry("10.7-vit-attention-by-layer", "vision", N_("[CLS]'s attention over the image, layer by layer"),
                 vit_attention_by_layer, _VISION_LIVE_IMAGE, editions=NEW_ONLY),
    GalleryEntry("10.7-vit-attention-distance", "vision", N_("Mean attention distance by depth (the ViT paper's "
                                                             "Figure 7)"), vit_attention_distance, _VISION_LIVE_HEADS,
                 editions=NEW_ONLY),
    *(GalleryEntry(f"learn-{task}", "watch", caption, functools.partial(learned, task)) for task, caption in (
        ("copy", N_("Learning to copy (the diagonal): the map untrained, midway and trained")),
        ("reverse", N_("Learning to reverse (the anti-diagonal): the map untrained, midway and trained")),
        ("sort", N_("Learning to sort (a permutation): the map untrained, midway and trained")),
        ("dates", N_("Learning to rewrite dates (crossing lines): the map untrained, midway and trained")))),
    *(GalleryEntry(f"modern-{name}", "modern", caption, build, needs_transformers=True)
      for name, caption, build in (
        ("masks", N_("Full, sliding-window and bidirectional-window masks (Gemma 3's global and local layers, "
                     "ModernBERT's local one): a window bounds what a layer reads, and its cost"), modern.masks),
        ("grouped-query", N_("Grouped-query attention (Qwen3, Llama 3): query heads share key/value heads, so the "
                             "cache of keys is smaller"), modern.grouped_query),
        ("qk-norm", N_("QK-norm (Qwen3, Gemma 3, OLMo 2): queries and keys normalised before RoPE keep scores "
                       "bounded and training stable"), modern.qk_norm),
        ("softcap", N_("Logit soft-capping (Gemma 2): scores squashed by tanh so no key can take the whole row"),
         modern.softcap),
        ("sink", N_("A learned sink (gpt-oss): a logit per head that lets a query attend to nothing"),
         modern.learned_sink))),
    GalleryEntry("paper-lr-schedules", "paper-training", N_("Learning-rate schedules"), lr_schedules),
    GalleryEntry("paper-why-scale", "paper-scaling", N_("Why dot products are scaled by √d"), why_scale),
    GalleryEntry("paper-layer-costs", "paper-table-1", N_("Cost per layer: self-attention, recurrent, convolutional"),
                 layer_costs),
)


def _has_transformers() -> bool:
    import importlib.util

    return importlib.util.find_spec("transformers") is not None


# The gallery this install can draw: the supplement on today's models needs transformers (a source install has it;
# the standalone app does not carry it)
GALLERY: tuple[GalleryEntry, ...] = tuple(e for e in _EVERY_FIGURE if not e.needs_transformers or _has_transformers())


def entries(only: list[str] | None = None, edition: str = DEFAULT_EDITION) -> list[GalleryEntry]:
    """The gallery in ``edition``'s order (book.in_edition_order: its supplementary figures last), or the
    entries whose key, file name in ``edition``, or section number in either edition, starts with one of
    ``only`` ("10.6" and "11.6" alike, "paper", "10.3-additive", "11.2-kernels", "supplement"); ValueError
    listing the choices if none does."""
    ordered = book.in_edition_order(GALLERY, edition)
    if not only:
        return ordered
    chosen = [e for e in ordered if any(e.key.startswith(o) or e.file_stem(edition).startswith(o)
                                        or e.section.matches(o) for o in only)]
    if not chosen:
        other_edition = next(e for e in SHORT_NAMES if e != edition)
        numbers = " ".join(dict.fromkeys(n for e in GALLERY
                                         if e.section.book and (n := e.section.numbers.get(edition))))
        others = " ".join(dict.fromkeys(n for e in GALLERY
                                        if e.section.book and (n := e.section.numbers.get(other_edition))))
        other_name = SHORT_NAMES[other_edition]
        raise ValueError(tr("no book figure matches {only}; sections: {numbers} ({other_name}: {others}), paper; "
                            "keys: {keys}").format(only=", ".join(only), numbers=numbers, other_name=other_name,
                                                   others=others, keys=", ".join(e.key for e in GALLERY)))
    return chosen


def index_html(chosen: list[GalleryEntry], formats: list[str], edition: str = DEFAULT_EDITION) -> str:
    """A static page (no script, no network): the figures under their sections' headings, numbered as
    ``edition`` numbers them, the other edition's number beside; the figures ``edition`` does not have last,
    under "Not in the book", each marked so. Pictures and links by the files' names in ``edition``."""
    picture = next((fmt for fmt in ("svg", "png") if fmt in formats), None)
    rows = []
    heading = None
    for entry in book.in_edition_order(chosen, edition):
        supplement = entry.supplementary(edition)
        group = tr(NOT_IN_BOOK_HEADING) if supplement else entry.section.heading(edition)
        if group != heading:
            heading = group
            rows.append(f"<h2 id={SUPPLEMENT_PREFIX}>{html.escape(heading)}</h2>" if supplement
                        else f"<h2>{html.escape(heading)}</h2>")
        caption = html.escape(tr(entry.caption))
        stem = entry.file_stem(edition)
        links = " · ".join(f'<a href="{stem}.{fmt}">{fmt.upper()}</a>' for fmt in formats)
        image = f'<img src="{stem}.{picture}" alt="{caption}">' if picture else ""
        number = entry.label(edition) if supplement else entry.section.shown_number(edition)
        rows.append(f"<section><h3>{html.escape(number)} — {caption}</h3>{image}<p>{links}</p></section>")
    other = next(e for e in EDITION_NAMES if e != edition)
    lang = "zh-CN" if language() == CHINESE else "en"
    title, h1 = tr("attnviz: the book's attention figures"), tr("The book's attention figures")
    about = tr("Rendered by <code>attnviz figures</code> from attnviz's own code: the attention chapter of <i>Dive "
               "into Deep Learning</i> and “Attention Is All You Need”. Sections are numbered as in {edition}; the "
               "number in {other} stands beside each (<code>attnviz figures --edition {other_key}</code> numbers "
               "them that way).").format(edition=html.escape(tr(EDITION_NAMES[edition])),
                                         other=html.escape(tr(EDITION_NAMES[other])), other_key=other)
    return (f"<!doctype html><html lang={lang}><meta charset=utf-8><title>{html.escape(title, quote=False)}</title>"
            "<style>body{font-family:sans-serif;max-width:72em;margin:2em auto;padding:0 1em}"
            "img{max-width:100%;border:1px solid #ddd}h2{font-size:1.2em;margin-top:2.5em}"
            "h3{font-size:1em;margin-top:1.5em}</style>"
            f"<h1>{html.escape(h1, quote=False)}</h1><p>{about}</p>"
            + "".join(rows) + "</html>\n")
