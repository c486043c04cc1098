"""Figures of the Masks, Positional-encoding and Kernel-regression panels (numpy only).

Each panel draws what these return, and its context-menu Export writes the same figure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.layout import Words
from attnviz.core.results import BatchDecoding, DecodeStep, EncodedSource, KernelFit, PositionalDescription
from attnviz.figures.attention import shown_index
from attnviz.figures.spec import FigureSpec, LineSpec, NamedFigure, Series, empty_figure, fit_levels
from attnviz.i18n import N_, tr

MASK_MAP = "mask"  # attnviz's two-colour map: light grey = masked, blue = may attend
# A PositionalDescription's kind in a table's title ("Sinusoidal PE: 50 positions × 32 dims").
DESCRIBED_TABLES = {"sinusoidal": N_("Sinusoidal PE: {positions} positions × {width} dims"),
                    "learned": N_("Learned PE: {positions} positions × {width} dims")}


def padding_mask_figure(source: EncodedSource | None) -> FigureSpec:
    """The valid-length mask over the source keys: one row, the same for every query (it changes with the
    sentence, never from step to step)."""
    if source is None:
        return empty_figure(tr("Padding mask"))
    padding = source.padding_mask[None, :].astype(np.float32)
    return FigureSpec(padding, (tr("all"),), source.tokens,  # (row axis "queries": all of them)
                      tr("Padding mask: valid length {length}").format(length=int(source.padding_mask.sum())),
                      colormap=MASK_MAP, colour_bar=False)


def batch_padding_figure(batch: BatchDecoding) -> FigureSpec:
    """The padding mask of a batch: one row per sentence, one column per key position (S_max)."""
    masks = np.stack([source.padding_mask for source in batch.sources]).astype(np.float32)
    row = tr("{sentence}: {tokens} tok.")
    rows = tuple(row.format(sentence=i + 1, tokens=n) for i, n in enumerate(batch.valid_lens))
    lengths = ", ".join(str(n) for n in batch.valid_lens)
    return FigureSpec(masks, rows, tuple(str(p + 1) for p in range(masks.shape[1])),
                      tr("Padding mask of the batch: valid lengths {lengths}").format(lengths=lengths),
                      colormap=MASK_MAP, colour_bar=False, row_axis=tr("sentence"), col_axis=tr("key position"))


def causal_mask_figure(source: EncodedSource | None, step: DecodeStep | None, layer: int = 0) -> FigureSpec:
    """The causal mask the decoder's self-attention applied at this step (None for RNN decoders); for a model
    whose layers mask differently (a sliding window on some: ``source.layer_notes``), layer ``layer``'s (0-based)
    own mask: the cells the model hid there (its recorded scores are -inf), named in the title."""
    if source is None or step is None:
        return empty_figure(tr((source.layout.words if source is not None else Words()).mask_before))
    if step.self_weights is None:
        return empty_figure(tr("No causal mask: this RNN decoder reads its prefix through its state"))
    index = shown_index(step)
    assert index is not None
    mask, words = source.layout.step_mask(source, step), source.layout.words
    title = tr(words.mask_title).format(step=index + 1)
    values = mask.values
    if source.layer_notes:
        kind = AttentionKind.DECODER_SELF if AttentionKind.DECODER_SELF in source.layout.kinds(source) \
            else AttentionKind.ENCODER_SELF
        layer = min(max(layer, 0), len(source.layer_notes) - 1)
        scores = source.layout.matrix(kind, layer, 0, source, step, True).values
        if scores.shape == values.shape:
            values = np.where(np.isneginf(scores), np.float32(0), values).astype(np.float32)
        title = tr("{title} · layer {layer} · {note}").format(title=title, layer=layer + 1,
                                                              note=source.layer_notes[layer])
    return FigureSpec(values, mask.rows, mask.cols, title,
                      colormap=MASK_MAP, colour_bar=False, row_axis=tr(words.mask_rows), divider=mask.divider)


def positional_table_figure(table: np.ndarray | None, levels: tuple[float, float] | None = (-1.0, 1.0),
                            described: PositionalDescription | None = None) -> FigureSpec:
    """The table added per position (positions, width): sinusoidal on its fixed [-1, 1] range; ``levels``
    None: its own range, symmetric about 0 (a learned table). ``described``: what the table is."""
    if table is None or not table.size:
        return empty_figure(tr("This model has no positional encoding table") if described is not None
                            else tr("This model has no positional encoding"))
    positions, width = table.shape
    if levels is None:
        high = float(np.abs(table).max()) or 1.0
        levels = (-high, high)
    title = tr("PE: {positions} positions × {width} dims").format(positions=positions, width=width)
    rows, columns = tuple(str(p) for p in range(positions)), tuple(str(d) for d in range(width))
    row_axis, col_axis = tr("position"), tr("dimension")
    if described is not None:
        if described.rope_frequencies is not None:
            title = tr("RoPE angles: sin, cos of m·θ_i, {positions} positions × {width} dims")
        elif described.kind in DESCRIBED_TABLES:
            title = tr(DESCRIBED_TABLES[described.kind])
        else:
            title = tr("{kind} PE: {positions} positions × {width} dims")
        title = title.format(kind=tr(described.kind).capitalize(), positions=positions, width=width)
        row_axis, col_axis = tr(described.row_axis), tr(described.col_axis)  # (marked N_ in attnviz.core)
        if described.row_values is not None:  # T5: one bias per head and relative distance
            rows = tuple(f"{v:+d}" if v else "0" for v in described.row_values.tolist())
            columns = tuple(str(d + 1) for d in range(width))
            title = tr("Relative position bias: {width} heads × distances {first}…{last}").format(
                width=width, first=rows[0], last=rows[-1])
    return FigureSpec(table, rows, columns, title, levels=levels, colormap="CET-D1", row_axis=row_axis,
                      col_axis=col_axis)


def positional_similarity_figure(table: np.ndarray | None, described: PositionalDescription | None = None
                                 ) -> FigureSpec:
    """PE·PEᵀ: how alike the encodings of two positions are."""
    if described is not None and not described.vectors:
        return empty_figure(tr("No position vectors to compare: this model adds a bias to the scores instead"))
    if table is None or not table.size:
        return empty_figure(tr("This model has no positional encoding"))
    similarity = table @ table.T
    labels = tuple(str(p) for p in range(table.shape[0]))
    return FigureSpec(similarity, labels, labels, tr("PE · PEᵀ: similarity of positions"),
                      levels=fit_levels(similarity), row_axis=tr("position"), col_axis=tr("position"))


def kernel_weights_figure(fit: KernelFit, parametric: bool) -> FigureSpec:
    """The (test × train) attention weights of the non-parametric or the trained parametric model."""
    weights = fit.parametric_weights if parametric else fit.nonparametric_weights
    name = (tr("parametric (w = {w:.2f})").format(w=fit.w) if parametric
            else _non_parametric(fit))
    # Kernel weights are spread thin (a Gaussian row of 50 keys peaks near 0.05): scale to the largest.
    finite = weights[np.isfinite(weights)]
    high = float(finite.max()) if finite.size else 0.0
    return FigureSpec(weights, tuple(f"{x:.1f}" for x in fit.x_test), tuple(f"{x:.2f}" for x in fit.x_train),
                      tr("Attention weights, {model}").format(model=name), levels=(0.0, max(high, 1e-6)),
                      row_axis=tr("test x (queries)"), col_axis=tr("training x (keys)"),
                      row_values=_increasing(fit.x_test), col_values=_increasing(fit.x_train))


KERNEL_NAMES = {"gaussian": N_("gaussian"), "boxcar": N_("boxcar"), "epanechnikov": N_("epanechnikov"),
                "constant": N_("constant")}  # KERNELS as the window and the figures name them


def _non_parametric(fit: KernelFit) -> str:
    kernel = tr(KERNEL_NAMES[fit.kernel]) if fit.kernel in KERNEL_NAMES else fit.kernel
    return tr("non-parametric ({kernel}, h = {bandwidth:.2f})").format(kernel=kernel, bandwidth=fit.bandwidth)


def _increasing(values: np.ndarray) -> np.ndarray | None:
    """``values`` as an axis of round ticks when they increase (as the sorted data do), else None."""
    values = np.asarray(values, np.float64)
    return values if values.size and np.all(np.isfinite(values)) and np.all(np.diff(values) > 0) else None


def kernel_prediction_figure(fit: KernelFit) -> LineSpec:
    """Training points, the true function and both models' predictions, with the query's two predictions."""
    query = [Series(tr("query x = {x:.2f}").format(x=fit.query), np.array([fit.query, fit.query]),
                    np.array([fit.query_nonparametric, fit.query_parametric]), "points")]
    finite = [s for s in query if np.isfinite(s.y).all()]
    return LineSpec((Series(tr("training points"), fit.x_train, fit.y_train, "points"),
                     Series(tr("true f(x) = 2 sin x + x^0.8"), fit.x_test, fit.y_test, "dashed"),
                     Series(_non_parametric(fit), fit.x_test, fit.nonparametric),
                     Series(tr("parametric (learned w = {w:.2f})").format(w=fit.w), fit.x_test, fit.parametric),
                     *finite),
                    tr("Nadaraya–Watson predictions ({kernel} kernel, h = {bandwidth:.2f})").format(
                        kernel=fit.kernel, bandwidth=fit.bandwidth))


def kernel_query_figure(fit: KernelFit) -> LineSpec:
    """The query's attention weights over the training points, for both models, as bars."""
    return LineSpec((Series(tr("non-parametric"), fit.x_train, fit.query_nonparametric_weights, "bars"),
                     Series(tr("parametric"), fit.x_train, fit.query_parametric_weights, "bars")),
                    tr("Attention weights of the query x = {x:.2f} over the training points").format(x=fit.query),
                    tr("training x"), tr("weight"))


def kernel_figures(fit: KernelFit) -> list[NamedFigure]:
    """Everything the kernel-regression panel draws, named for an export folder."""
    return [NamedFigure("predictions", kernel_prediction_figure(fit)),
            NamedFigure("query-weights", kernel_query_figure(fit)),
            NamedFigure("weights-non-parametric", kernel_weights_figure(fit, False)),
            NamedFigure("weights-parametric", kernel_weights_figure(fit, True))]


def kernel_sidecar(fit: KernelFit, checkpoint: Path, kind: str) -> dict[str, Any]:
    """What a kernel-regression export folder holds: the model, the kernel, bandwidth and query, the fit."""
    mse = fit.test_mse()
    return {"attnviz_export": 1, "model": checkpoint.stem, "kind": kind, "checkpoint": str(checkpoint),
            "kernel": fit.kernel, "bandwidth": fit.bandwidth, "query": fit.query, "learned_w": fit.w,
            "test_mse": {"non_parametric": mse[0], "parametric": mse[1]}}
