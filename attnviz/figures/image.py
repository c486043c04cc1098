"""Attention drawn over the image a vision model read: one query's row laid over the picture, every head's, the
rollout's, and the similarity of learned 2-D position embeddings (numpy only; painted by
:mod:`attnviz.render.figure_painter`, shown by the window's image area).

A query's row holds N values over the positions (the specials, then the P patches row by row); only the patches
have a place on the image, so the overlay draws the patches' values on the (rows, columns) patch grid and says in
its title how much of the row the specials ([CLS], a distillation token, registers) hold.
Shapes: L layers, H heads, N positions, D width.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from attnviz.core.attention.rollout import rollout
from attnviz.core.layout import Picture
from attnviz.core.results import EncodedSource, ImageComparison
from attnviz.figures.spec import FigureSpec, GridSpec, LineSpec, NamedFigure, Series, empty_figure, fit_levels
from attnviz.i18n import N_, tr

if TYPE_CHECKING:  # (torch behind it: the window's figures never import it)
    from attnviz.core.heads.image_atlas import ImageAtlas

ATTENTION, ROLLOUT, ROLLOUT_PLAIN = "attention", "rollout", "rollout-plain"
SOURCES = {ATTENTION: N_("attention"), ROLLOUT: N_("rollout (+ 0.5·I for the residual)"),
           ROLLOUT_PLAIN: N_("rollout (no residual)")}
RESIDUAL = {ROLLOUT: 0.5, ROLLOUT_PLAIN: 0.0}
DEFAULT_OPACITY = 0.6
# The overlay's colour scale: [0, 1] as the Attention dock's (a near-uniform row stays dark: honest, the default),
# or 0 to the largest value on show (a row's pattern however faint, the largest painted bright yellow)
WHOLE_RANGE, OWN_LARGEST = "0-1", "largest"
SCALES = {WHOLE_RANGE: N_("colours 0 to 1"), OWN_LARGEST: N_("colours 0 to the largest")}
OVERLAY_PX = 320.0  # the longer side of one overlay's cell grid at scale 1 (a lone overlay; a grid's panels: less)
GRID_PANEL_PX = 120.0


@dataclass(frozen=True)
class OverlayChoice:
    """What an overlay shows: source (:data:`SOURCES`), 0-based layer (rollout: after that layer), head (None: the
    heads' mean; rollout always averages them), query position (0: ``[CLS]``) and the cells' opacity."""

    source: str = ATTENTION
    layer: int = 0
    head: int | None = 0
    query: int = 0
    opacity: float = DEFAULT_OPACITY
    scale: str = WHOLE_RANGE  # (:data:`SCALES`)


def picture_of(source: EncodedSource) -> Picture:
    """The source's :class:`~attnviz.core.layout.Picture`; ValueError for a sentence."""
    if source.picture is None or source.encoder_weights is None:
        raise ValueError(tr("this input is not an image"))
    return source.picture


def query_row(source: EncodedSource, choice: OverlayChoice) -> np.ndarray:
    """(N,) the row ``choice`` draws: the query's attention in one head (or the heads' mean), or its rollout."""
    weights = source.encoder_weights
    assert weights is not None
    layers, heads = weights.shape[:2]
    layer = min(max(choice.layer, 0), layers - 1)
    query = min(max(choice.query, 0), weights.shape[-1] - 1)
    if choice.source in RESIDUAL:
        return rollout(weights[: layer + 1], RESIDUAL[choice.source])[-1, query].astype(np.float32)
    if choice.head is None:
        return weights[layer, :, query].mean(axis=0).astype(np.float32)
    return weights[layer, min(max(choice.head, 0), heads - 1), query].astype(np.float32)


def _query_name(source: EncodedSource, query: int) -> str:
    return source.tokens[min(max(query, 0), len(source.tokens) - 1)]


def _marked(picture: Picture, query: int) -> tuple[int, int] | None:
    if query < picture.specials:
        return None
    return divmod(query - picture.specials, picture.grid[1])


def _row_labels(picture: Picture) -> tuple[str, ...]:
    return tuple(f"r{row + 1}" for row in range(picture.grid[0]))


def _col_labels(picture: Picture) -> tuple[str, ...]:
    return tuple(f"c{col + 1}" for col in range(picture.grid[1]))


def _specials_share(picture: Picture, row: np.ndarray) -> float:
    return float(np.asarray(row)[: picture.specials].sum())


def levels_of(choice: OverlayChoice, largest: float) -> tuple[float, float]:
    """The colour range of an overlay whose largest value is ``largest``: [0, 1] (the default, as the Attention
    dock's), or [0, largest] where the choice asks for its own largest."""
    if choice.scale == OWN_LARGEST and largest > 0:
        return (0.0, largest)
    return (0.0, 1.0)


def scale_note(choice: OverlayChoice, row: np.ndarray) -> str:
    """Which colour scale is on show, and what its largest weight means against a uniform row (each of the n
    positions 1/n): "colours 0 to 1 · largest 0.034 = 6.7 × uniform (1/197)"."""
    count = max(int(np.asarray(row).size), 1)
    largest = float(np.max(row)) if np.asarray(row).size else 0.0
    return tr("{scale} · largest {largest:.3g} = {times:.1f} × uniform (1/{count:,})").format(
        scale=tr(SCALES.get(choice.scale, SCALES[WHOLE_RANGE])), largest=largest, times=largest * count, count=count)


def overlay(source: EncodedSource, choice: OverlayChoice, max_grid_px: float = OVERLAY_PX,
            model: str = "") -> FigureSpec:
    """One query's row over the picture: the patches' values on their grid, the query's patch outlined; coloured on
    [0, 1] or up to its largest patch value (``choice.scale``), which the title says with the × uniform reading. The
    title starts with ``model``'s name where one is given ("vit · 0-t-shirt-top.png: attention of [CLS], …")."""
    picture = picture_of(source)
    row = query_row(source, choice)
    grid = picture.on_grid(row)
    what = tr(SOURCES.get(choice.source, choice.source))
    head = (tr("heads averaged") if choice.head is None or choice.source in RESIDUAL
            else tr("head {head}").format(head=choice.head + 1))
    layer = min(max(choice.layer, 0), source.encoder_weights.shape[0] - 1)  # type: ignore[union-attr]
    title = tr("{image}: {what} of {query}, layer {layer}, {head} ({specials:.0%} on positions off the image)"
               ).format(what=what, query=_query_name(source, choice.query), image=source.text, layer=layer + 1,
                        head=head, specials=_specials_share(picture, row))
    title = " · ".join(part for part in (model, title, scale_note(choice, row)) if part)
    high = float(grid.max()) if grid.size else 0.0
    return FigureSpec(grid.astype(np.float32), _row_labels(picture), _col_labels(picture), title,
                      levels=levels_of(choice, high),
                      colormap="inferno",
                      row_axis=tr("patch rows"), col_axis=tr("patch columns"), max_grid_px=max_grid_px,
                      picture=picture.pixels, opacity=choice.opacity, marked=_marked(picture, choice.query))


def overlay_stem(choice: OverlayChoice, source: EncodedSource) -> str:
    """The file stem of an overlay, e.g. ``overlay_attention_layer2_head3_query-CLS``."""
    head = "heads-mean" if choice.head is None or choice.source in RESIDUAL else f"head{choice.head + 1}"
    query = _query_name(source, choice.query).strip("[]").replace("/", "-") or "query"
    return f"overlay_{choice.source}_layer{choice.layer + 1}_{head}_query-{query}"


def overlay_grid(source: EncodedSource, choice: OverlayChoice) -> GridSpec:
    """Every layer × head's overlay of the query's attention (rows: layers; columns: heads), on one colour range."""
    picture = picture_of(source)
    weights = source.encoder_weights
    assert weights is not None
    layers, heads = weights.shape[:2]
    panels = []
    for layer in range(layers):
        for head in range(heads):
            one = OverlayChoice(ATTENTION, layer, head, choice.query, choice.opacity, choice.scale)
            grid = picture.on_grid(query_row(source, one))
            panels.append(FigureSpec(grid.astype(np.float32), _row_labels(picture), _col_labels(picture),
                                     tr("layer {layer}, head {head}").format(layer=layer + 1, head=head + 1),
                                     colormap="inferno", colour_bar=False, max_grid_px=GRID_PANEL_PX, row_axis="",
                                     col_axis="", picture=picture.pixels, opacity=choice.opacity,
                                     marked=_marked(picture, choice.query), ticks=False))
    levels = levels_of(choice, max((float(p.values.max()) for p in panels), default=0.0))
    panels = [replace(panel, levels=levels) for panel in panels]
    title = tr("Attention of {query} over {image}, every layer and head").format(
        query=_query_name(source, choice.query), image=source.text)
    title = f"{title} · {tr(SCALES.get(choice.scale, SCALES[WHOLE_RANGE]))}"
    return GridSpec(tuple(panels), heads, title, levels, tuple(f"layer {i + 1}" for i in range(layers)),
                    tuple(f"head {i + 1}" for i in range(heads)), colormap="inferno")


def image_export_figures(source: EncodedSource, model: str = "") -> list[NamedFigure]:
    """What ``attnviz export --image`` adds to the maps: [CLS]'s overlay in every layer × head, its rollout after
    every layer (+ 0.5·I), and all the heads' overlays in one grid; the single overlays titled with ``model``."""
    weights = source.encoder_weights
    assert weights is not None
    layers, heads = weights.shape[:2]
    choices = [OverlayChoice(ATTENTION, layer, head) for layer in range(layers) for head in range(heads)]
    choices += [OverlayChoice(ROLLOUT, layer, None) for layer in range(layers)]
    figures = [NamedFigure(overlay_stem(choice, source), overlay(source, choice, model=model)) for choice in choices]
    return [*figures, NamedFigure("overlay_all-heads_query-CLS", overlay_grid(source, OverlayChoice()))]


def position_similarity(table: np.ndarray, picture: Picture) -> GridSpec:
    """The ViT paper's Figure 7 (centre): for each patch, the cosine similarity of its learned position embedding
    with every patch's, on the patch grid. table: the position embeddings, the specials' rows (some or none of
    them: DINOv2's registers have none) then the P patches' row by row, (≤ N, D)."""
    rows, cols = picture.grid
    if not rows * cols <= len(table) <= picture.specials + rows * cols:
        raise ValueError(tr("the position table has {count} rows, not one per patch").format(count=len(table)))
    patches = np.asarray(table, np.float64)[len(table) - rows * cols:]  # (the specials' rows come first; registers
    # have none)
    unit = patches / np.maximum(np.linalg.norm(patches, axis=1, keepdims=True), 1e-12)
    similarity = unit @ unit.T  # (P, P)
    panels = tuple(FigureSpec(similarity[index].reshape(rows, cols).astype(np.float32), _row_labels(picture),
                              _col_labels(picture), f"r{index // cols + 1}c{index % cols + 1}", levels=(-1.0, 1.0),
                              colormap="viridis", colour_bar=False, max_grid_px=48.0, row_axis="", col_axis="",
                              ticks=False)
                   for index in range(rows * cols))
    return GridSpec(panels, cols, tr("Position embedding similarity: each patch's learned position against every "
                                     "patch's (cosine)"), (-1.0, 1.0), tuple(f"r{r + 1}" for r in range(rows)),
                    tuple(f"c{c + 1}" for c in range(cols)), name_columns=("patch row", "patch column"))


# the Compare dock's two image models (figures/compare.py's maps for a sentence)
def cls_overlay(name: str, source: EncodedSource) -> FigureSpec:
    """An image model's [CLS] attention over the image in its last layer, its heads averaged, on its own patch grid;
    titled with the model's name and its top class."""
    weights = source.encoder_weights
    assert weights is not None and source.picture is not None
    spec = overlay(source, OverlayChoice(ATTENTION, weights.shape[0] - 1, None, 0))
    rows, cols = source.picture.grid
    top = tr("top class {name} ({prob:.0%})").format(name=source.classes[0], prob=float(source.class_probs[0])) \
        if source.classes and source.class_probs is not None else tr("no classifier head")
    return replace(spec, title=tr("{model}: {rows} × {cols} patches, {top}").format(model=name, rows=rows, cols=cols,
                                                                                 top=top))


def image_comparison_figures(first_name: str, source: EncodedSource | None,
                             comparison: ImageComparison | None) -> tuple[FigureSpec, FigureSpec]:
    """Two image models on one image: each one's [CLS] overlay (last layer, heads averaged) on its own patch grid
    (:func:`cls_overlay`); where the image or the second model is missing, a figure that says which to open."""
    if source is None or source.picture is None:
        return empty_figure(tr("Open an image")), empty_figure(tr("Choose a second image model"))
    second = cls_overlay(comparison.model, comparison.source) if comparison is not None else \
        empty_figure(tr("Choose a second image model"))
    return cls_overlay(first_name, source), second


def image_comparison_grid(figures: tuple[FigureSpec, FigureSpec], image: str) -> GridSpec:
    """The two overlays side by side as one figure, each with its own colour bar (their grids may differ)."""
    names = tuple(re.split("[:：]", f.title, maxsplit=1)[0] for f in figures)
    return GridSpec(figures, 2, tr("[CLS] over {image}, last layer, heads averaged, in two models").format(
        image=image), (0.0, 1.0), ("",), names, colormap="inferno", shared_bar=False,
        name_columns=("", "model"))


def _numbers(count: int) -> tuple[str, ...]:
    return tuple(str(n) for n in range(1, count + 1))


# an image model's atlas (attnviz.core.heads.image_atlas): the statistic, its title, whether it is a share (0…1)
IMAGE_ATLAS_FIGURES = (
    ("distance", N_("mean attention distance (pixels)"), False),
    ("entropy", N_("mean entropy of a row (nats)"), False),
    ("cls_share", N_("share of a patch's attention on [CLS]"), True),
    ("other_specials", N_("share on the other special positions (distillation token, registers)"), True),
)


def image_statistics(atlas: ImageAtlas) -> list[tuple[str, str, bool]]:
    """The statistics of :data:`IMAGE_ATLAS_FIGURES` that ``atlas`` has (the other specials' share only where the
    model has more than [CLS] before its patches)."""
    return [row for row in IMAGE_ATLAS_FIGURES if row[0] != "other_specials" or len(atlas.specials) > 1]


def image_atlas_grid(atlas: ImageAtlas, name: str, model: str) -> FigureSpec:
    """Statistic ``name`` of every head of an image model: layers × heads."""
    title, share = next((tr(t), s) for n, t, s in IMAGE_ATLAS_FIGURES if n == name)
    values = np.asarray(getattr(atlas, name), np.float32)
    levels = (0.0, 1.0) if share else fit_levels(values.ravel())
    return FigureSpec(values, tuple(tr("layer {layer}").format(layer=i) for i in _numbers(values.shape[0])),
                      _numbers(values.shape[1]), tr("{model}: {statistic}, {count:,} images").format(
                          model=model, statistic=title, count=atlas.images), levels, colormap="viridis",
                      row_axis=tr("layer"), col_axis=tr("head"))


def distance_figure(atlas: ImageAtlas, model: str) -> LineSpec:
    """The ViT paper's Figure 7 (right): each head's mean attention distance against its layer, their mean, and the
    distance of a head that spreads its attention evenly over the patches."""
    layers, heads = atlas.distance.shape
    depth = np.arange(1, layers + 1, dtype=np.float64)
    series = (Series(tr("each head"), np.repeat(depth, heads), atlas.distance.astype(np.float64).ravel(), "points"),
              Series(tr("mean of the heads"), depth, atlas.layer_distances().astype(np.float64)),
              Series(tr("spread evenly"), depth, np.full(layers, atlas.even_distance),
                     "dashed"))
    return LineSpec(series, tr("{model}: mean attention distance by layer, {count:,} images").format(
        model=model, count=atlas.images), tr("layer"), tr("mean attention distance (pixels)"),
        x_ticks=tuple((float(d), str(int(d))) for d in depth))
