"""Figures of ``attnviz explain`` (numpy only): how far the explanation methods agree over a corpus.

One histogram of Kendall's τ per pair of methods, and each layer's mean Spearman ρ of raw attention,
rollout, attention flow and norm-based attention against occlusion and integrated gradients (the table of
Abnar & Zuidema 2020, as curves over the layers). See :mod:`attnviz.core.explain`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attnviz.core.explain import LAYERED, METHODS, Explanation
from attnviz.core.explain.corpus import REFERENCES, CorpusTally
from attnviz.core.layout import Picture
from attnviz.figures.spec import FigureSpec, GridSpec, LineSpec, NamedFigure, Series
from attnviz.i18n import N_, tr

METHOD_LABELS = {"attention": N_("raw attention"), "rollout": N_("attention rollout"), "flow": N_("attention flow"),
                 "norm": N_("norm-based attention"), "grad_x_input": N_("gradient × input"),
                 "grad_x_input_detached": N_("gradient × input, attention detached"),
                 "ig": N_("integrated gradients"), "occlusion": N_("occlusion (<unk>)"),
                 "leave_one_out": N_("leave-one-out"),
                 "leave_one_out_tvd": N_("leave-one-out, total variation distance")}
BINS = np.linspace(-1.0, 1.0, 21)  # τ in steps of 0.1


def method_label(method: str) -> str:
    """The method's name as the views show it (translated)."""
    return tr(METHOD_LABELS[method]) if method in METHOD_LABELS else method


def scaled_rows(explanation: Explanation) -> np.ndarray:
    """(M, S): each method's row divided by its largest magnitude (methods keep their own units; a row of zeros
    stays 0), so that one diverging colour scale from −1 to 1 serves them all."""
    peak = np.abs(explanation.rows).max(axis=1, keepdims=True) if explanation.rows.size else np.ones((0, 1))
    return np.where(peak > 0, explanation.rows / np.where(peak > 0, peak, 1.0), 0.0)


def step_figure(explanation: Explanation) -> FigureSpec:
    """One step's explanations: a row per method over the source tokens, each scaled to its largest magnitude."""
    title = tr("What explains “{token}”: one row per method, each scaled to its largest value").format(
        token=explanation.token)
    return FigureSpec(scaled_rows(explanation), tuple(method_label(m) for m in explanation.methods),
                      explanation.labels, title, levels=(-1.0, 1.0), colormap="CET-D1", row_axis=tr("method"),
                      col_axis=tr("source tokens"))


def image_rows_figure(explanation: Explanation, picture: Picture, opacity: float = 0.6) -> GridSpec:
    """An image's explanations: one overlay per method over the picture, its row (one value per patch) on the patch
    grid, each scaled to its largest magnitude (one diverging scale from −1 to 1: red where a patch raises the
    class's log-probability, blue where it lowers it)."""
    scaled = scaled_rows(explanation)
    rows, cols = picture.grid
    row_labels = tuple(f"r{r + 1}" for r in range(rows))
    col_labels = tuple(f"c{c + 1}" for c in range(cols))
    panels = tuple(FigureSpec(row.reshape(rows, cols).astype(np.float32), row_labels, col_labels, method_label(method),
                              levels=(-1.0, 1.0), colormap="CET-D1", colour_bar=False, max_grid_px=160.0, row_axis="",
                              col_axis="", picture=picture.pixels, opacity=opacity, ticks=False)
                   for method, row in zip(explanation.methods, scaled, strict=True))
    title = tr("What explains “{token}”: one overlay per method, each scaled to its largest value").format(
        token=explanation.token)
    return GridSpec(panels, len(panels), title, (-1.0, 1.0), (explanation.token,),
                    tuple(explanation.methods), colormap="CET-D1", name_columns=("class", "method"))


def agreement_figure(explanation: Explanation, spearman: bool = False) -> FigureSpec:
    """The step's Kendall τ (or Spearman ρ) of every pair of methods, (M, M), from −1 to 1."""
    labels = tuple(method_label(m) for m in explanation.methods)
    values = explanation.spearman if spearman else explanation.kendall
    title = (tr("Spearman ρ of every pair of methods") if spearman else
             tr("Kendall τ of every pair of methods"))
    return FigureSpec(np.nan_to_num(values), labels, labels, title, levels=(-1.0, 1.0), colormap="CET-D1",
                      row_axis=tr("method"), col_axis=tr("method"), masked=~np.isfinite(values))


def tau_histograms(tally: CorpusTally) -> list[NamedFigure]:
    """One bar chart per pair of methods: how many decoded tokens had each τ (bins of 0.1 from −1 to 1)."""
    figures = []
    centres = (BINS[:-1] + BINS[1:]) / 2
    for pair in tally.pairs(magnitudes=False):
        counts, _ = np.histogram(tally.taus.get((pair.first, pair.second), []), bins=BINS)
        title = tr("Kendall τ: {first} vs {second} ({count} tokens, mean {mean:.2f})").format(
            first=method_label(pair.first), second=method_label(pair.second), count=pair.count, mean=pair.mean)
        spec = LineSpec((Series(tr("tokens"), centres, counts.astype(np.float64), "bars"),), title,
                        tr("Kendall τ"), tr("tokens"))
        figures.append(NamedFigure(f"tau_{pair.first}_vs_{pair.second}", spec))
    return figures


def layer_spearman_figures(tally: CorpusTally) -> list[NamedFigure]:
    """Per reference (occlusion, integrated gradients): each attention-based method's mean ρ after each layer."""
    table = tally.layer_spearman()
    figures = []
    for reference in dict.fromkeys(ref for _, ref in table):
        series = []
        for (method, ref), (means, _) in table.items():
            if ref == reference and np.isfinite(means).any():
                layers = np.arange(1, means.size + 1, dtype=np.float64)
                series.append(Series(method_label(method), layers, means, "line"))
        title = tr("Spearman ρ with {reference}, per layer").format(reference=method_label(reference))
        count = max((means.size for (_, ref), (means, _) in table.items() if ref == reference), default=0)
        ticks = tuple((float(layer), str(layer)) for layer in range(1, count + 1))
        figures.append(NamedFigure(f"layers_spearman_vs_{reference}", LineSpec(
            tuple(series), title, tr("layer of the attention explained (1: nearest the input)"),
            tr("mean Spearman ρ over the tokens"), (-1.0, 1.0), ticks)))
    return figures


def explain_figure_stems(methods: Sequence[str]) -> list[str]:
    """The stems :func:`explain_figures` may give a tally of ``methods`` (known before the work, so that a file in the
    way is said then): a τ histogram per pair of them, a layer-by-layer ρ figure per reference among them (occlusion,
    integrated gradients) where an attention-based method is too. A model that leaves a method out of a step (an RNN's
    rollout, a one-token source's leave-one-out) writes fewer."""
    names = [m for m in METHODS if m in methods]
    stems = [f"tau_{first}_vs_{second}" for i, first in enumerate(names) for second in names[i + 1:]]
    if any(m in LAYERED for m in names):
        stems += [f"layers_spearman_vs_{reference}" for reference in REFERENCES if reference in names]
    return stems


def explain_figures(tally: CorpusTally) -> list[NamedFigure]:
    return [*layer_spearman_figures(tally), *tau_histograms(tally)]
