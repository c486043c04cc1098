"""The beam tree and the coverage strip (numpy only).

Beam search keeps ``k`` hypotheses per step; every prefix that was ever kept is a node of the tree, its
parent the prefix one token shorter. A node whose prefix no hypothesis of the step on show extends (and
that did not end) was pruned. The tree is laid out with depth (step) across and the leaves down, each
inner node centred on its children; :mod:`attnviz.render.figure_painter` paints it like any other figure.
Shapes: L layers, H heads, T query rows, S source tokens.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.results import DecodeStep, EncodedSource
from attnviz.figures.spec import ROOT_TOKEN, FigureSpec, TreeNode, TreeSpec
from attnviz.i18n import tr


def beam_tree(steps: Sequence[DecodeStep], position: int, selected: tuple[str, ...] | None = None) -> TreeSpec:
    """The tree of every hypothesis kept up to step ``position`` (0-based); ``selected``: a node's tokens."""
    shown = list(steps[: position + 1])
    found: dict[tuple[str, ...], TreeNode] = {(): TreeNode((), 0.0, False, False, True, -1, 0)}
    for index, step in enumerate(shown):
        for beam_index, beam in enumerate(step.beams):
            if beam.tokens not in found:
                found[beam.tokens] = TreeNode(beam.tokens, beam.log_prob, beam.finished, pruned=False, best=False,
                                              step=index, beam=beam_index)
    final = shown[-1].beams if shown else ()
    alive = {beam.tokens[:depth] for beam in final for depth in range(len(beam.tokens) + 1)}
    best = final[0].tokens if final else ()
    on_best = {best[:depth] for depth in range(len(best) + 1)}
    nodes = {tokens: TreeNode(n.tokens, n.log_prob, n.finished, tokens not in alive, tokens in on_best, n.step, n.beam)
             for tokens, n in found.items()}
    children: dict[tuple[str, ...], list[tuple[str, ...]]] = {tokens: [] for tokens in nodes}
    for tokens in nodes:
        if tokens:
            children.setdefault(tokens[:-1], []).append(tokens)
    order: list[tuple[str, ...]] = []
    rows: dict[tuple[str, ...], float] = {}
    leaves = 0

    def place(tokens: tuple[str, ...]) -> float:  # depth first, likelier children above
        nonlocal leaves
        order.append(tokens)
        kids = sorted(children.get(tokens, []), key=lambda t: -nodes[t].log_prob)
        if not kids:
            rows[tokens] = float(leaves)
            leaves += 1
        else:
            below = [place(kid) for kid in kids]
            rows[tokens] = (below[0] + below[-1]) / 2
        return rows[tokens]

    place(())
    at = {tokens: i for i, tokens in enumerate(order)}
    return TreeSpec(tuple(nodes[t] for t in order), tuple(at[t[:-1]] if t else -1 for t in order),
                    tuple(len(t) for t in order), tuple(rows[t] for t in order),
                    tr("Beam search tree up to step {step} ({kept} kept; pruned branches faded)").format(
                        step=len(shown), kept=len(final)),
                    at.get(selected) if selected is not None else None)


def hypothesis_weights(steps: Sequence[DecodeStep], node: TreeNode) -> tuple[np.ndarray, tuple[str, ...]]:
    """The cross-attention of the hypothesis ``node`` (last layer, heads averaged): (T, S), and its query
    tokens (<bos> and its tokens but the last)."""
    if node.step < 0:
        return np.zeros((0, 0), np.float32), ()
    step = steps[node.step]
    beam = step.beams[node.beam]
    weights = beam.cross_weights if beam.cross_weights is not None else step.cross_weights
    return weights[-1].mean(axis=0), (ROOT_TOKEN, *node.tokens[:-1])


def hypothesis_figure(steps: Sequence[DecodeStep], node: TreeNode, source: EncodedSource) -> FigureSpec:
    values, queries = hypothesis_weights(steps, node)
    kind = source.layout.kind_label(AttentionKind.CROSS).capitalize()  # (a decoder-only model's: its source view)
    return FigureSpec(values.astype(np.float32), queries, source.tokens,
                      tr("{kind} of “{hypothesis}” (last layer, heads averaged)").format(
                          kind=kind, hypothesis=" ".join(node.tokens)))


def coverage_figure(weights: np.ndarray, source: EncodedSource, what: str) -> FigureSpec:
    """Total attention each source token has received so far: the column sums of ``weights`` (T, S).
    About 1 per token for a one-to-one translation; near 0: a dropped word, well above 1: a repeated one."""
    total = weights.sum(axis=0).astype(np.float32)[None, :] if weights.size else np.zeros((1, len(source.tokens)),
                                                                                       np.float32)
    return FigureSpec(total, (tr("coverage"),), source.tokens,
                      tr("Coverage of {what}: attention each source token received").format(what=what),
                      (0.0, max(1.0, float(total.max()) if total.size else 1.0)), row_axis="",
                      col_axis=tr("source tokens"), max_grid_px=420)
