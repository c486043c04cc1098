"""The head atlas's figures (numpy only): a grid of layer × head coloured by one statistic, one panel per kind;
the pruning curves; the importance of every head."""

from __future__ import annotations

import numpy as np

from attnviz.core.heads.atlas import HeadAtlas
from attnviz.core.heads.pruning import PruningCurve
from attnviz.core.heads.sinks import SinkSums
from attnviz.figures.spec import FigureSpec, GridSpec, LineSpec, NamedFigure, Series, fit_levels
from attnviz.i18n import N_, tr

# the statistic, what its figure is titled (marked for translation), and whether it is a share of weight (0…1)
ATLAS_FIGURES = (
    ("entropy", N_("mean entropy of a row (nats)"), False),
    ("confidence", N_("confidence: mean largest weight"), True),
    ("confidence_without_end", N_("confidence without the end of the source (Voita et al.)"), True),
    ("rare", N_("share of rows whose argmax is a least frequent source token"), True),
    ("previous", N_("share on the previous position"), True),
    ("same", N_("share on the same position"), True),
    ("next", N_("share on the next position"), True),
    ("sink", N_("share on sinks (first token, end, punctuation)"), True),
    ("distance", N_("mean |query − key| distance (positions)"), False),
    ("importance", N_("importance E|∂L/∂ξ|"), False),
)  # (importance: not with --documents, whose atlas measures none)
ALIGNMENT_FIGURES = (("diagonal", N_("cross-attention: share on the diagonal"), True),
                     ("monotonic", N_("cross-attention: share on the monotone argmax path"), True))
PANEL_PX = 220  # a kind's grid of cells, at scale 1


def _numbers(count: int) -> tuple[str, ...]:
    return tuple(str(n) for n in range(1, count + 1))


def atlas_grid(atlas: HeadAtlas, name: str, title: str, share: bool, model: str) -> GridSpec:
    """Statistic ``name`` of every head: one panel (layers × heads) per kind that has it, one colour range."""
    kinds = [k for k in atlas.kinds if name == "importance" or name in k.names]
    values = [k.statistic(name) for k in kinds]
    levels = (0.0, 1.0) if share else fit_levels(np.concatenate([v.ravel() for v in values]))
    panels = tuple(FigureSpec(v, _numbers(v.shape[0]), _numbers(v.shape[1]), k.kind.label(), levels,
                              colormap="viridis", row_axis=tr("layer"), col_axis=tr("head"),
                              colour_bar=False, max_grid_px=PANEL_PX)
                   for k, v in zip(kinds, values, strict=True))
    return GridSpec(panels, len(panels), tr("{model}: {statistic}, {count:,} sentences").format(
        model=model, statistic=title, count=atlas.sentences), levels, (name,) * (1 if panels else 0),
        tuple(k.kind.slug for k in kinds), name_columns=("statistic", "kind"))


def pruning_figure(curve: PruningCurve, model: str) -> LineSpec:
    """BLEU against the number of heads switched off, in order of importance and at random (mean of the seeds)."""
    x = np.arange(len(curve.importance_bleu), dtype=np.float64)
    series = (Series(tr("least important first"), x, curve.importance_bleu),
              Series(tr("random order (mean of {seeds})").format(seeds=len(curve.random_orders)), x,
                     curve.random_mean, "dashed"))
    return LineSpec(series, tr("{model}: BLEU with heads pruned ({count:,} sentences)").format(
        model=model, count=curve.sentences), tr("heads switched off (of {count}; least important first: by the "
                                                  "normalised importance)").format(count=len(curve.heads)), "BLEU")


def _head_axis(atlas: HeadAtlas) -> tuple[tuple[float, str], ...]:
    """x ticks of the per-head bars: each layer's head 1, labelled layer.1 (the colour says the kind)."""
    ticks, start = [], 1
    for k in atlas.kinds:
        layers, heads = k.importance.shape
        ticks += [(float(start + layer * heads), f"{layer + 1}.1") for layer in range(layers)]
        start += layers * heads
    return tuple(ticks)


def importance_figure(atlas: HeadAtlas, model: str, normalised: bool = False) -> LineSpec:
    """Every head's importance as bars, kind after kind, layer by layer (heads.csv's order); ``normalised``: the
    importance divided by its layer's ℓ2 norm, the score the pruning order sorts by (Michel et al. 2019)."""
    series, start = [], 1
    for k in atlas.kinds:
        values = (k.normalised if normalised else k.importance).ravel()
        series.append(Series(k.kind.label(), np.arange(start, start + values.size, dtype=np.float64), values, "bars"))
        start += values.size
    title = (tr("{model}: normalised importance of each head (each layer's ℓ2 norm 1; the pruning order)")
             if normalised else
             tr("{model}: raw importance of each head (target: {target}; the pruning order uses the normalised one)"))
    return LineSpec(tuple(series), title.format(model=model, target=tr(atlas.target)),
                    tr("head (layer.head; colour: the kind of attention)"),
                    tr("normalised importance") if normalised else tr("importance E|∂L/∂ξ|"),
                    x_ticks=_head_axis(atlas))


def atlas_figure_stems(cross: bool, curve: bool, importance: bool = True) -> list[str]:
    """The file stems :func:`atlas_figures` writes, known before the work: for a model with cross-attention
    (``cross``: its alignment grids too) and with a pruning curve (``curve``) or not."""
    return ([f"atlas_{name}" for name, _title, _share in ATLAS_FIGURES if importance or name != "importance"]
            + ([f"atlas_{name}" for name, _title, _share in ALIGNMENT_FIGURES] if cross else [])
            + (["importance_per_head", "importance_normalised_per_head"] if importance else [])
            + (["pruning_curve"] if curve else []))


def atlas_figures(atlas: HeadAtlas, curve: PruningCurve | None, model: str) -> list[NamedFigure]:
    """Every figure of ``attnviz heads``: the atlas grids, the importance bars and (with references) the curves
    (named as :func:`atlas_figure_stems` says)."""
    figures = [NamedFigure(f"atlas_{name}", atlas_grid(atlas, name, tr(title), share, model))
               for name, title, share in ATLAS_FIGURES if atlas.target != "none" or name != "importance"]
    if any("diagonal" in k.names for k in atlas.kinds):
        figures += [NamedFigure(f"atlas_{name}", atlas_grid(atlas, name, tr(title), share, model))
                    for name, title, share in ALIGNMENT_FIGURES]
    if atlas.target != "none":  # (documents: the importance is not measured)
        figures.append(NamedFigure("importance_per_head", importance_figure(atlas, model)))
        figures.append(NamedFigure("importance_normalised_per_head", importance_figure(atlas, model,
                                                                                     normalised=True)))
    if curve is not None:
        figures.append(NamedFigure("pruning_curve", pruning_figure(curve, model)))
    return figures


TARGETS = (N_("references"), N_("model output"))  # (what the importance's loss used: translated where shown)


SINK_FIGURES = (("weight", N_("share of the weight on the first position, by the query's position")),
                ("norm", N_("share of ‖α f(x)‖ on the first position, by the query's position (Kobayashi et al.)")))


def sink_figure_stems(kind_slug: str | None = None) -> list[str]:
    """The file stems :func:`sink_figures` writes; ``kind_slug``: one kind's of several (an atlas over decoding:
    ``sinks_first_weight_cross`` …)."""
    return [f"sinks_first_{view}" + (f"_{kind_slug}" if kind_slug else "") for view, _title in SINK_FIGURES]


def sink_grid(sinks: SinkSums, view: str, title: str, model: str, kind_label: str) -> GridSpec:
    """The share on the first position of every layer × head, one panel per bin of query positions (StreamingLLM:
    the sinks grow with the distance from the start); a bin no query reached is left out. view: weight or norm."""
    from attnviz.core.heads.sinks import bin_labels

    weight, norm = sinks.means()
    values = (weight if view == "weight" else norm)[0]  # (N, L, H): the first position's class
    bins = [index for index in range(values.shape[0]) if np.isfinite(values[index]).any()]
    panels = tuple(FigureSpec(np.nan_to_num(values[index]), _numbers(values.shape[1]), _numbers(values.shape[2]),
                              tr("queries at positions {positions}").format(positions=bin_labels()[index]),
                              (0.0, 1.0), colormap="viridis", row_axis=tr("layer"), col_axis=tr("head"),
                              colour_bar=False, max_grid_px=PANEL_PX) for index in bins)
    return GridSpec(panels, len(panels), tr("{model} ({kind}): {statistic}").format(
        model=model, kind=kind_label, statistic=title), (0.0, 1.0), (view,) * (1 if panels else 0),
        tuple(bin_labels()[index] for index in bins), name_columns=("share", "queries"))


def sink_figures(sinks: SinkSums, model: str, kind_label: str, kind_slug: str | None = None) -> list[NamedFigure]:
    """``heads``' sinks figures: the weight and the norm view's share on the first position (a model whose norm
    view is not known: the weight alone); ``kind_slug``: their stems name the kind (:func:`sink_figure_stems`)."""
    return [NamedFigure(stem, sink_grid(sinks, view, tr(title), model, kind_label))
            for stem, (view, title) in zip(sink_figure_stems(kind_slug), SINK_FIGURES, strict=True)
            if view == "weight" or np.isfinite(sinks.norm).all()]


def sink_line(sinks: SinkSums, layer: int, head: int | None, model: str, kind_label: str) -> LineSpec:
    """The Head atlas dock's Sinks view: the first position's share of the weight and of ‖α f(x)‖ against the bin of
    the query's position, for head ``head`` of ``layer`` (0-based; None: the mean of the layer's heads); the bins
    no query reached are left out, and the norm view where the model's is not known."""
    from attnviz.core.heads.sinks import bin_labels

    weight, norm = sinks.means()  # (C, N, L, H): class 0 is the first position
    picked = [(values[0, :, layer, :] if head is None else values[0, :, layer, head: head + 1]) for values in
              (weight, norm)]  # (N, h)
    bins = [index for index in range(picked[0].shape[0]) if np.isfinite(picked[0][index]).any()]
    x = np.array([index + 1 for index in bins], np.float64)
    with np.errstate(invalid="ignore"):
        weights, norms = (np.nanmean(values[bins], axis=1) if bins else np.zeros(0) for values in picked)
    series = [Series(tr("weight"), x, weights)]
    if bins and np.isfinite(norms).all():
        series.append(Series(tr("‖α f(x)‖"), x, norms, "dashed"))
    which = tr("layer {layer}, mean of the heads").format(layer=layer + 1) if head is None else \
        tr("layer {layer}, head {head}").format(layer=layer + 1, head=head + 1)
    return LineSpec(tuple(series), tr("{model} ({kind}), {which}: share on the first position").format(
        model=model, kind=kind_label, which=which), tr("query's position"), tr("share on the first position"),
        (0.0, 1.0), tuple((float(index + 1), bin_labels()[index]) for index in bins))
