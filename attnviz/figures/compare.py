"""Figures of the Compare panel: two models' attention on one sentence and their difference (numpy); the layout
says which (``SequenceLayout.compared``).

Models with different depths and head counts are compared on what both have: the last layer's
cross-attention, averaged over its heads (the RNN models have one layer and one head). The second model
is forced to take the first model's output, so both matrices have the same query rows. A decoder-only
model has no cross-attention: its *source view* (its answer rows' self-attention on the English) stands in,
renormalised over the English so that its rows sum to 1 like a cross-attention row. Two encoder-only models
are compared on their last layer's self-attention of the sentence a fill read (the second fills the same words).
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from attnviz.core.layout import DecoderOnlyLayout
from attnviz.core.results import Comparison, DecodeStep, EncodedSource
from attnviz.figures.spec import FigureSpec, GridSpec, empty_figure
from attnviz.i18n import tr

DIFFERENCE_MAP = "CET-D1"  # blue (the second model attends more) – white (equal) – red (the first does)


def _attention(name: str, source: EncodedSource, step: DecodeStep) -> FigureSpec:
    layout = source.layout
    matrix = layout.compared(source, step)
    masked = matrix.masked if matrix.values.size else None
    return FigureSpec(matrix.values, matrix.rows, matrix.cols,
                      tr("{name}: {what}, last layer, heads averaged").format(name=name, what=tr(layout.compared_what)),
                      masked=masked)


def _source_view() -> str:
    return tr(DecoderOnlyLayout.compared_what)


def comparison_figures(first_name: str, source: EncodedSource | None, step: DecodeStep | None,
                       comparison: Comparison | None) -> tuple[FigureSpec, FigureSpec, FigureSpec]:
    """The first model's map at the step on show, the second model's at the same query rows, and their
    difference (first − second) on a colour range centred on 0."""
    if source is None or step is None:
        empty = empty_figure(tr("Step the decoder to compare the models' attention"))
        return empty, empty, empty
    first = _attention(first_name, source, step)
    if comparison is None:
        return first, empty_figure(tr("Choose a model to compare with")), empty_figure("")
    rows = source.layout.compared_step(step) + 1  # (with beam search, the hypothesis on show; search steps may be more)
    decoded = len(comparison.steps)
    if rows > decoded > 0 and comparison.steps[-1].finished and decoded < len(comparison.target):
        return first, empty_figure(tr("{model} stops at {words} words (its length limit)").format(
            model=comparison.model, words=decoded)), empty_figure("")
    if not 0 < rows <= decoded:
        return first, empty_figure(tr("{model}: decoding…").format(model=comparison.model)), empty_figure("")
    if comparison.steps[rows - 1].query_tokens != step.query_tokens:
        return first, empty_figure(tr("{model} followed the final translation: the hypothesis on show at this search "
                                      "step is not the start of the final translation").format(model=comparison.model)
                                   ), empty_figure("")
    second = _attention(comparison.model, comparison.source, comparison.steps[rows - 1])
    if first.values.shape != second.values.shape or first.row_labels != second.row_labels:
        return first, second, empty_figure(tr("No difference map: the two models read the sentence differently "
                                              "(a different length limit)"))
    difference = first.values - second.values
    reach = max(float(np.abs(difference).max()) if difference.size else 0.0, 1e-6)
    return first, second, FigureSpec(difference, first.row_labels, first.col_labels,
                                     tr("Difference: {first} − {second} (red: {first} attends more)").format(
                                         first=first_name, second=comparison.model),
                                     (-reach, reach), DIFFERENCE_MAP, first.masked)


def comparison_grid(figures: tuple[FigureSpec, FigureSpec, FigureSpec], title: str) -> GridSpec:
    """The three maps side by side as one figure, each with its own colour bar (the difference is signed)."""
    models = [re.split("[:：]", f.title, maxsplit=1)[0] for f in figures[:2]]  # (the title's model name)
    names = (*(tr("{model} (source view, renormalised)").format(model=model) if _source_view() in f.title else model
               for model, f in zip(models, figures, strict=False)), tr("difference"))
    shorter = tuple(replace(f, title=name) for f, name in zip(figures, names, strict=True))  # the title says the rest
    return GridSpec(shorter, 3, tr("{title} (last layer, heads averaged; red: {model} attends more)").format(
        title=title, model=models[0]), (0.0, 1.0), ("",), names, shared_bar=False)
