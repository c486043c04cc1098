"""Patching's figures (numpy only): a layer × head grid per measure, one panel per kind, coloured by each head's mean
share of the logit difference; and attribution patching against activation patching, one point per head."""

from __future__ import annotations

import numpy as np

from attnviz.core.heads.mask import HeadLayout
from attnviz.core.patching.statistics import PatchingSummary
from attnviz.figures.spec import FigureSpec, GridSpec, LineSpec, NamedFigure, Series, fit_levels
from attnviz.i18n import N_, tr

PANEL_PX = 220  # a kind's grid of cells, at scale 1
MEASURE_TITLES = {
    "denoise": N_("share restored, head from the clean run into the corrupt one"),
    "noise": N_("share lost, head from the corrupt run into the clean one"),
    "pattern": N_("share restored by the head's attention weights alone (own values)"),
    "values": N_("share restored by the head's values alone (own attention weights)"),
    "atp": N_("attribution patching's estimate of the share restored"),
}


def _numbers(count: int) -> tuple[str, ...]:
    return tuple(str(n) for n in range(1, count + 1))


def measure_grid(summary: PatchingSummary, layout: HeadLayout, measure: str, model: str) -> GridSpec:
    """Each head's mean share for ``measure``: one panel (layers × heads) per kind, one colour range for all."""
    means = summary.means[measure]
    panels, at, values = [], 0, []
    for shape in layout.kinds:
        size = shape.layers * shape.heads
        values.append(means[at: at + size].reshape(shape.layers, shape.heads))
        at += size
    levels = fit_levels(np.concatenate([v.ravel() for v in values])) if values else (0.0, 1.0)
    for shape, grid in zip(layout.kinds, values, strict=True):
        panels.append(FigureSpec(grid, _numbers(shape.layers), _numbers(shape.heads), shape.kind.label(), levels,
                                 colormap="viridis", row_axis=tr("layer"), col_axis=tr("head"), colour_bar=False,
                                 max_grid_px=PANEL_PX))
    return GridSpec(tuple(panels), len(panels), tr("{model}: {measure}, {count:,} pairs").format(
        model=model, measure=tr(MEASURE_TITLES[measure]), count=summary.counted), levels,
        (measure,) * (1 if panels else 0), tuple(s.kind.slug for s in layout.kinds),
        name_columns=("measure", "kind"))


def agreement_scatter(summary: PatchingSummary, model: str) -> LineSpec:
    """One point per head: activation patching's mean share restored (x) and attribution patching's (y), with the
    diagonal where they agree."""
    x, y = summary.means["denoise"], summary.means["atp"]
    finite = np.isfinite(x) & np.isfinite(y)
    ends = np.array(fit_levels(np.concatenate([x[finite], y[finite]])) if finite.any() else (0.0, 1.0))
    return LineSpec((Series(tr("heads"), x[finite], y[finite], "points"),
                     Series(tr("agreement (y = x)"), ends, ends, "dashed")),
                    tr("{model}: attribution patching against patching, Kendall τ {tau:.2f} "
                       "[{low:.2f}, {high:.2f}]").format(model=model, tau=summary.tau, low=summary.tau_low,
                                                         high=summary.tau_high),
                    tr("share restored by patching"), tr("attribution patching's estimate"))


def patching_figure_stems() -> list[str]:
    return [*(f"patching_{measure}" for measure in MEASURE_TITLES), "atp_vs_patching"]


def patching_figures(summary: PatchingSummary, layout: HeadLayout, model: str) -> list[NamedFigure]:
    """The grid of every measure computed and (with both ``atp`` and ``denoise``) the scatter, named as
    :func:`patching_figure_stems` says."""
    grids = [NamedFigure(f"patching_{measure}", measure_grid(summary, layout, measure, model))
             for measure in MEASURE_TITLES if measure in summary.means]
    both = "atp" in summary.means and "denoise" in summary.means
    return [*grids, *([NamedFigure("atp_vs_patching", agreement_scatter(summary, model))] if both else [])]
