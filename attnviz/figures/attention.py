"""Attention figures: which matrix a view shows, and the one function that turns it into a figure.

The Attention panel, Copy, Export, Export all and ``attnviz export`` all call
:func:`attention_figure` / :func:`attention_figures` with the same :class:`AttentionView`, so a file
shows what the screen shows (scores or weights, masked cells marked or not).
Shapes: L layers, H heads, Q queries, K keys, S source tokens, T decoded steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.results import DecodeStep, EncodedSource
from attnviz.figures.spec import AnyFigure, FigureSpec, GridSpec, NamedFigure, fit_levels
from attnviz.i18n import tr

GRID_PANEL_PX = 200  # the longer side of each small multiple's cells in a grid figure, at scale 1


@dataclass(frozen=True)
class AttentionView:
    """What the Attention panel is set to show: kind, 0-based layer and head, and the display options."""

    kind: AttentionKind = AttentionKind.CROSS
    layer: int = 0
    head: int = 0
    scores: bool = False  # pre-softmax scores instead of weights
    show_masked: bool = True  # mark masked cells (else they are simply left blank)
    all_heads: bool = False  # layers × heads small multiples


@dataclass(frozen=True)
class MatrixView:
    """One matrix: values (Q, K), weights or scores; masked (Q, K) True where attention was not allowed."""

    values: np.ndarray
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    masked: np.ndarray
    kind: AttentionKind
    layer: int
    head: int
    scores: bool
    label: str = ""  # what the kind is called for this model (AttentionKind.label); default its value
    prompt_rows: int = 0  # a decoder-only model's whole sequence: its first rows are the prompt's
    overlap: int = 0  # 1 where the answer's first query is the prompt's last row (no separator: sequence.overlap)
    stepped: bool | None = None  # its values change from step to step, so its name says the step (None: not
    # the encoder's; the layout says: an encoder-only model's self-attention is read again at each step)
    layer_note: str = ""  # what its layer's attention does beyond the plain one: "sliding window 512" (EncodedSource)
    slug: str = ""  # the kind's short name in file names for this model (SequenceLayout.kind_slug); default kind.slug

    def query_of(self, row: int) -> tuple[AttentionKind, int]:
        """The kind and 0-based query a row of this matrix is (what the Computation panel recomputes)."""
        if self.prompt_rows and self.kind is AttentionKind.DECODER_SELF:
            if row < self.prompt_rows:
                return AttentionKind.ENCODER_SELF, row
            return AttentionKind.DECODER_SELF, row - self.prompt_rows + self.overlap
        return self.kind, row

    def stem(self, step: int | None = None) -> str:
        """File name stem, e.g. ``cross_layer1_head2_step03`` (1-based; encoder maps have no step)."""
        return figure_stem(self.kind, f"layer{self.layer + 1}_head{self.head + 1}", step, self.scores, self.stepped,
                           self.slug)

    def title(self, model: str = "", step: int | None = None) -> str:
        return figure_title(model, self.kind, layer_head(self.layer, self.head, self.layer_note), step, self.scores,
                            self.label, self.stepped)


def layer_head(layer: int, head: int, note: str = "") -> str:
    """'layer 2 · head 1' (``layer`` and ``head`` 0-based), in the interface's language; with the layer's ``note``
    'layer 2 · sliding window 512 · head 1'."""
    if note:
        return tr("layer {layer} · {note} · head {head}").format(layer=layer + 1, note=note, head=head + 1)
    return tr("layer {layer} · head {head}").format(layer=layer + 1, head=head + 1)


def figure_stem(kind: AttentionKind, what: str, step: int | None, scores: bool, stepped: bool | None = None,
                slug: str = "") -> str:
    """``{kind}_{what}[_stepNN][_scores]``; step is 0-based and left out for the encoder (it runs once) unless
    ``stepped`` says the maps change from step to step (:meth:`SequenceLayout.names_step`); slug: the kind's short
    name for this model (:meth:`SequenceLayout.kind_slug`; default ``kind.slug``)."""
    stem = f"{slug or kind.slug}_{what}"
    if step is not None and (kind is not AttentionKind.ENCODER_SELF if stepped is None else stepped):
        stem += f"_step{step + 1:02d}"
    return stem + ("_scores" if scores else "")


def figure_title(model: str, kind: AttentionKind, what: str, step: int | None, scores: bool,
                 label: str = "", stepped: bool | None = None) -> str:
    """'model · kind · what · step N · pre-softmax scores' with the empty or meaningless parts left out;
    label: the kind's name for this model (default its value); stepped: as :func:`figure_stem`."""
    parts = [model, label or kind.label(), what]
    if step is not None and (kind is not AttentionKind.ENCODER_SELF if stepped is None else stepped):
        parts.append(tr("step {step}").format(step=step + 1))
    if scores:
        parts.append(tr("pre-softmax scores"))
    return " · ".join(p for p in parts if p)


def available_kinds(source: EncodedSource | None) -> list[AttentionKind]:
    """The kinds the model recorded, as its layout says (an RNN has cross-attention only)."""
    return [AttentionKind.CROSS] if source is None else source.layout.kinds(source)


def shown_index(step: DecodeStep | None) -> int | None:
    """The 0-based step number a figure names: the number of query rows it shows, minus one.

    For beam search this is the best hypothesis's length, not the count of search steps (a finished
    best hypothesis can be shorter), so greedy and beam name the same matrix the same way. A step that filled a
    mask (it has a ``focus`` row) is named by its own number: its rows are the whole sentence.
    """
    if step is None:
        return None
    return step.index if step.focus is not None else len(step.query_tokens) - 1  # (a filled mask: its own number)


def stack_for(kind: AttentionKind, source: EncodedSource, step: DecodeStep | None,
              scores: bool = False) -> tuple[np.ndarray, tuple[str, ...], tuple[str, ...], np.ndarray]:
    """All layers and heads of one kind: values (L, H, Q, K), row and column tokens, masked (Q, K)."""
    stack = source.layout.stack(kind, source, step, scores)
    return stack.values, stack.rows, stack.cols, stack.masked


def stack_extent(kind: AttentionKind, source: EncodedSource, step: DecodeStep | None) -> tuple[int, int]:
    """(L, H): the layers and heads of :func:`stack_for`'s stack for ``kind``, read off the recorded arrays."""
    return source.layout.extent(kind, source, step)


def fit_view(view: AttentionView, source: EncodedSource, step: DecodeStep | None) -> AttentionView:
    """``view`` within what ``source`` at ``step`` has, as the Attention panel's pickers offer it: a kind the
    model has (else the last one offered, cross-attention), its layer and head clamped to that kind's (L, H).
    ``view`` itself when it fits."""
    kinds = available_kinds(source)
    kind = view.kind if view.kind in kinds else kinds[-1]
    layers, heads = stack_extent(kind, source, step)
    fitted = replace(view, kind=kind, layer=min(max(view.layer, 0), max(layers, 1) - 1),
                     head=min(max(view.head, 0), max(heads, 1) - 1))
    return view if fitted == view else fitted


def select(kind: AttentionKind, layer: int, head: int, source: EncodedSource, step: DecodeStep | None,
           scores: bool = False) -> MatrixView:
    """One layer and head of one kind (indices clamped to what exists)."""
    layout = source.layout
    layers, heads = layout.extent(kind, source, step)
    layer, head = min(max(layer, 0), layers - 1), min(max(head, 0), heads - 1)
    matrix = layout.matrix(kind, layer, head, source, step, scores)
    masked = np.asarray(matrix.masked)
    note = layer_note(source, layer)
    if note and source.on_demand is None:  # (a layer with a mask of its own: the cells the model hid, -inf scores)
        raw = matrix.values if scores else layout.matrix(kind, layer, head, source, step, True).values
        masked = masked | np.isneginf(raw)
    values, cols = matrix.values, matrix.cols
    if source.learned_sink and not scores:
        totals = layout.whole_row_sums(kind, source, step)
        values, cols, masked = with_sink_column(values, cols, masked,
                                                None if totals is None else totals[layer, head])
    return MatrixView(values, matrix.rows, cols, masked, kind, layer, head, scores,
                      layout.kind_label(kind), matrix.divider, matrix.overlap, layout.names_step(kind),
                      layer_note=note, slug=layout.kind_slug(kind))


SINK_COLUMN = "⟨sink⟩"  # the column a learned sink logit's weight is drawn in, after the keys (gpt-oss)


def with_sink_column(values: np.ndarray, cols: tuple[str, ...], masked: np.ndarray,
                     totals: np.ndarray | None = None) -> tuple[np.ndarray, tuple[str, ...], np.ndarray]:
    """A map of weights (…, Q, K) of a model with a learned sink (gpt-oss), its sink's weight appended as a column:
    (…, Q, K + 1), each row's p_sink = 1 − Σ_j α_ij over every key its query read (what the softmax gave the sink), so
    a whole row visibly sums to 1. The leading axes (a grid's L layers and H heads) are kept; masked (Q, K) or
    (…, Q, K) gets a column of False. totals (…, Q): each row's weights summed over all the keys its query read,
    where the map shows only some of them (a decoder-only model's source view: the prompt's columns of rows that
    also read the answer; :meth:`SequenceLayout.whole_row_sums`); None: the map's rows are whole, and a row of no
    real query (all masked: left padding) gets 0."""
    masked = np.asarray(masked)
    if totals is None:
        totals = values.sum(-1, dtype=np.float64)
        rows_real = ~masked.all(-1) if masked.shape[-1] else np.ones(masked.shape[:-1], bool)
    else:
        rows_real = np.ones(masked.shape[:-1], bool)
    sink = np.where(rows_real, 1.0 - totals, 0.0).clip(0.0, 1.0).astype(np.float32)  # (…, Q)
    return (np.concatenate([values, sink[..., None]], axis=-1), (*cols, SINK_COLUMN),
            np.concatenate([masked, np.zeros((*masked.shape[:-1], 1), bool)], axis=-1))


def layer_note(source: EncodedSource, layer: int) -> str:
    """What layer ``layer`` (0-based) does beyond the plain attention ("sliding window 512"; ""), whatever the kind: the
    source's notes are its model's one stack (a decoder-only or encoder-only model's, whose every kind — a
    decoder-only model's source view too — is that stack's self-attention); an encoder–decoder has none."""
    notes = source.layer_notes
    return notes[layer] if 0 <= layer < len(notes) else ""


def levels_of(values: np.ndarray, masked: np.ndarray, scores: bool) -> tuple[float, float]:
    """Weights: the fixed softmax range [0, 1]; scores: their own range over the cells not masked."""
    return fit_levels(values, masked) if scores else (0.0, 1.0)


def _blank_masked_scores(values: np.ndarray, masked: np.ndarray, scores: bool) -> np.ndarray:
    """Scores of masked cells were never computed: NaN (drawn blank, written as nan), never a value.
    Masked weights stay 0, which is what the softmax gives them."""
    return np.where(masked, np.float32(np.nan), values).astype(np.float32) if scores and masked.any() else values


def matrix_figure(view: MatrixView, model: str, step: int | None, show_masked: bool) -> FigureSpec:
    """The figure of one matrix. Masked cells never enter the colour range; ``show_masked`` marks them."""
    values = _blank_masked_scores(view.values, view.masked, view.scores)
    return FigureSpec(values, view.rows, view.cols, view.title(model, step),
                      levels_of(view.values, view.masked, view.scores),
                      masked=view.masked if show_masked else None, divider=view.prompt_rows)


def grid_figure(kind: AttentionKind, source: EncodedSource, step: DecodeStep | None, model: str, scores: bool,
                show_masked: bool) -> NamedFigure:
    """Every layer × head of one kind as small multiples with one colour bar."""
    values, rows, cols, masked = stack_for(kind, source, step, scores)
    masked = np.asarray(masked)
    layers, heads = values.shape[:2]
    own = [layer for layer in range(layers) if layer_note(source, layer)]
    if own and source.on_demand is None:  # (layers with masks of their own, as the single map marks them)
        raw = values if scores else stack_for(kind, source, step, True)[0]
        masked = np.broadcast_to(masked, values.shape).copy()  # (L, H, Q, K): each panel its own mask
        masked[own] |= np.isneginf(np.asarray(raw)[own])
    if source.learned_sink and not scores:  # (the sink's column in every panel, as the single map has it)
        values, cols, masked = with_sink_column(values, cols, masked,
                                                source.layout.whole_row_sums(kind, source, step))
    levels = levels_of(values, masked, scores)
    shown = _blank_masked_scores(values, masked, scores)
    divider = source.layout.divider(kind, source)
    panel_masks = np.broadcast_to(masked, shown.shape)  # (L, H, Q, K)
    panels = tuple(FigureSpec(shown[layer, head], rows, cols, layer_head(layer, head), levels,
                              masked=panel_masks[layer, head] if show_masked else None, colour_bar=False,
                              max_grid_px=GRID_PANEL_PX,
                              divider=divider)
                   for layer in range(layers) for head in range(heads))
    index = shown_index(step)
    spec = GridSpec(panels, heads, figure_title(model, kind, tr("all heads"), index, scores,
                                                source.layout.kind_label(kind), source.layout.names_step(kind)),
                    levels, tuple(tr("layer {layer}").format(layer=i + 1) for i in range(layers)),
                    tuple(tr("head {head}").format(head=i + 1) for i in range(heads)))
    return NamedFigure(figure_stem(kind, "all-heads", index, scores, source.layout.names_step(kind),
                                   source.layout.kind_slug(kind)), spec)


def attention_figure(source: EncodedSource, step: DecodeStep | None, view: AttentionView,
                     model: str = "") -> tuple[NamedFigure, MatrixView | None]:
    """The figure the Attention panel shows for ``view`` (and Copy/Export write), with the matrix it
    shows (None for the all-heads grid)."""
    kinds = available_kinds(source)
    kind = view.kind if view.kind in kinds else kinds[-1]  # (the last a model offers: cross-attention if it has one)
    if view.all_heads:
        return grid_figure(kind, source, step, model, view.scores, view.show_masked), None
    matrix = select(kind, view.layer, view.head, source, step, view.scores)
    index = shown_index(step)
    return NamedFigure(matrix.stem(index), matrix_figure(matrix, model, index, view.show_masked)), matrix


def flipbook_figures(source: EncodedSource, steps: Sequence[DecodeStep | None], view: AttentionView,
                     model: str = "") -> list[AnyFigure]:
    """A flip-book's frames: the view's figure at each of ``steps``, each the shape of the last one (see
    :func:`held_still`)."""
    return held_still([attention_figure(source, step, view, model)[0].spec for step in steps])


def held_still(figures: Sequence[AnyFigure]) -> list[AnyFigure]:
    """``figures`` (one per step, rows growing) laid out alike: each padded to the last one's rows with blank
    rows whose labels are measured but not drawn (no token is given away before its step), and all on one
    colour range, so that the axes and the colour bar stay in place from frame to frame."""
    figures = list(figures)
    if not figures:
        return figures
    last = figures[-1]
    if isinstance(last, GridSpec):
        lows = [f.levels[0] for f in figures if isinstance(f, GridSpec)]
        highs = [f.levels[1] for f in figures if isinstance(f, GridSpec)]
        levels = (min(lows), max(highs))
        return [replace(f, levels=levels, panels=tuple(_padded(p, q, levels) for p, q in zip(
            f.panels, last.panels, strict=True))) if isinstance(f, GridSpec) and len(f.panels) == len(last.panels)
            else f for f in figures]
    if not isinstance(last, FigureSpec):
        return figures
    specs = [f for f in figures if isinstance(f, FigureSpec)]
    levels = (min(f.levels[0] for f in specs), max(f.levels[1] for f in specs))
    return [_padded(f, last, levels) if isinstance(f, FigureSpec) else f for f in figures]


def _padded(spec: FigureSpec, last: FigureSpec, levels: tuple[float, float]) -> FigureSpec:
    rows, cols = spec.values.shape
    total = last.values.shape[0]
    if cols != last.values.shape[1] or rows > total:
        return replace(spec, levels=levels)  # (another sentence's figure: left as it is)
    missing = total - rows
    if missing == 0:
        return replace(spec, levels=levels)
    values = np.vstack([np.asarray(spec.values, np.float32), np.full((missing, cols), np.nan, np.float32)])
    masked = None if spec.masked is None else np.vstack([spec.masked, np.zeros((missing, cols), bool)])
    # (beam search: a step's best hypothesis may differ from the last one's; its own rows keep its labels)
    return replace(spec, values=values, masked=masked, row_labels=(*spec.row_labels, *last.row_labels[rows:]),
                   levels=levels, hidden_rows=missing)


def attention_figures(source: EncodedSource, steps: Sequence[DecodeStep | None], view: AttentionView,
                      model: str = "") -> list[NamedFigure]:
    """Export all: every kind × layer × head at each of ``steps``, with the view's scores and masked-cell
    choices (encoder self-attention once: it has no step)."""
    figures: dict[str, NamedFigure] = {}
    for step in steps:
        for kind in available_kinds(source):
            if step is None and kind is not AttentionKind.ENCODER_SELF:
                continue
            values = stack_for(kind, source, step, view.scores)[0]
            for layer in range(values.shape[0]):
                for head in range(values.shape[1]):
                    matrix = select(kind, layer, head, source, step, view.scores)
                    stem = matrix.stem(shown_index(step))
                    if stem not in figures:
                        figures[stem] = NamedFigure(stem, matrix_figure(matrix, model, shown_index(step),
                                                                        view.show_masked))
    return list(figures.values())


def attention_sidecar(source: EncodedSource, steps: Sequence[DecodeStep | None], view: AttentionView, model: str,
                      kind: str, checkpoint: str, device: str) -> dict[str, Any]:
    """What an export-all folder holds: the sentence, its tokens, the model, the step(s) and the view; for an image
    (read in one pass: no sentence, no steps), the image's name and its positions ([CLS] and the patches)."""
    shown = [s for s in steps if s is not None]
    values = {"values": "pre-softmax scores" if view.scores else "attention weights",
              "masked_cells": "marked" if view.show_masked else "blank"}
    if source.picture is not None:
        return {"attnviz_export": 1, "image": source.text, "positions": list(source.tokens), "model": model,
                "kind": kind, "checkpoint": checkpoint, "device": device, **values}
    return {
        "attnviz_export": 1, "sentence": source.text, "source_tokens": list(source.tokens),
        "unknown_words": list(source.unknown), "truncated_from": source.truncated_from,
        "model": model, "kind": kind, "checkpoint": checkpoint, "device": device,
        "steps": [(shown_index(s) or 0) + 1 for s in shown],
        "output_tokens": list(shown[-1].output_tokens) if shown else [],
        "query_tokens": list(shown[-1].query_tokens) if shown else [],
        "finished": bool(shown and shown[-1].finished), **values,
    }
