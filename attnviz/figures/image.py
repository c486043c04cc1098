"""Attention drawn over the image a vision model read: one query's row laid over the picture, every head's, the
rollout's, and the similarity of learned 2-D position embeddings (numpy only; painted by
:mod:`attnviz.render.figure_painter`, shown by the window's image area).

A query's row holds N values over the positions (the specials, then the P patches row by row); only the patches
have a place on the image, so the overlay draws the patches' values on the (rows, columns) patch grid and says in
its title how much of the row the specials ([CLS], a distillation token, registers) hold.
Shapes: L layers, H heads, N positions, D width.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from attnviz.core.attention.rollout import rollout
from attnviz.core.layout import Picture
from attnviz.core.results import EncodedSource
from attnviz.figures.spec import FigureSpec, GridSpec, NamedFigure
from attnviz.i18n import N_, tr

ATTENTION, ROLLOUT, ROLLOUT_PLAIN = "attention", "rollout", "rollout-plain"
SOURCES = {ATTENTION: N_("attention"), ROLLOUT: N_("rollout (+ 0.5·I for the residual)"),
           ROLLOUT_PLAIN: N_("rollout (no residual)")}
RESIDUAL = {ROLLOUT: 0.5, ROLLOUT_PLAIN: 0.0}
DEFAULT_OPACITY = 0.6
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


def overlay(source: EncodedSource, choice: OverlayChoice, max_grid_px: float = OVERLAY_PX) -> FigureSpec:
    """One query's row over the picture: the patches' values on their grid, the query's patch outlined."""
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
    high = float(grid.max()) if grid.size and float(grid.max()) > 0 else 1.0
    return FigureSpec(grid.astype(np.float32), _row_labels(picture), _col_labels(picture), title, levels=(0.0, high),
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
            one = OverlayChoice(ATTENTION, layer, head, choice.query, choice.opacity)
            grid = picture.on_grid(query_row(source, one))
            panels.append(FigureSpec(grid.astype(np.float32), _row_labels(picture), _col_labels(picture),
                                     tr("layer {layer}, head {head}").format(layer=layer + 1, head=head + 1),
                                     colormap="inferno", colour_bar=False, max_grid_px=GRID_PANEL_PX, row_axis="",
                                     col_axis="", picture=picture.pixels, opacity=choice.opacity,
                                     marked=_marked(picture, choice.query), ticks=False))
    high = max((float(p.values.max()) for p in panels), default=1.0) or 1.0
    panels = [replace(panel, levels=(0.0, high)) for panel in panels]
    title = tr("Attention of {query} over {image}, every layer and head").format(
        query=_query_name(source, choice.query), image=source.text)
    return GridSpec(tuple(panels), heads, title, (0.0, high), tuple(f"layer {i + 1}" for i in range(layers)),
                    tuple(f"head {i + 1}" for i in range(heads)), colormap="inferno")


def image_export_figures(source: EncodedSource) -> list[NamedFigure]:
    """What ``attnviz export --image`` adds to the maps: [CLS]'s overlay in every layer × head, its rollout after
    every layer (+ 0.5·I), and all the heads' overlays in one grid."""
    weights = source.encoder_weights
    assert weights is not None
    layers, heads = weights.shape[:2]
    choices = [OverlayChoice(ATTENTION, layer, head) for layer in range(layers) for head in range(heads)]
    choices += [OverlayChoice(ROLLOUT, layer, None) for layer in range(layers)]
    figures = [NamedFigure(overlay_stem(choice, source), overlay(source, choice)) for choice in choices]
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
