"""Attention flow (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers"), numpy + Python.

The layers' attention is a layered graph: a node per position per layer, an edge from position i in layer k
to position j in layer k − 1 whose capacity is A_k[i, j] (the head-averaged weights with the residual
modelled as in rollout: :func:`attnviz.core.attention.rollout.layer_matrices`). The flow of input token j into a query
is the maximum flow from the query's node to token j's node in the bottom layer. Unlike rollout (products of
weights along every path, summed) a path carries at most its narrowest edge, and paths share capacities.
Max flow here is Dinic's algorithm on a dense residual matrix (the graphs have at most a few hundred nodes).
Shapes: L layers, P positions, S input tokens (the bottom layer's sinks).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np

EPS = 1e-12  # residual capacities below this are treated as saturated


def max_flow(capacity: np.ndarray, source: int, sink: int) -> float:
    """The value of a maximum flow from ``source`` to ``sink`` in the graph with capacities (N, N) ≥ 0
    (capacity[u, v]: the edge u → v; 0: no edge). Dinic's algorithm: BFS levels, then blocking flows by DFS."""
    capacity = np.asarray(capacity, dtype=np.float64)
    if capacity.ndim != 2 or capacity.shape[0] != capacity.shape[1]:
        raise ValueError(f"capacity must be square, got {capacity.shape}")
    if (capacity < 0).any():
        raise ValueError("capacities must be non-negative")
    if source == sink:
        raise ValueError("source and sink must differ")
    n = capacity.shape[0]
    residual = capacity.tolist()  # residual[u][v]; pushing d along u → v moves d from [u][v] to [v][u]
    linked = (capacity > EPS) | (capacity.T > EPS)
    neighbours = [np.flatnonzero(linked[u]).tolist() for u in range(n)]
    total = 0.0
    while True:
        level = _levels(residual, neighbours, source)
        if level[sink] < 0:
            return total
        cursor = [0] * n
        while (pushed := _push(residual, neighbours, level, cursor, source, sink, float("inf"))) > EPS:
            total += pushed


def _levels(residual: list[list[float]], neighbours: list[list[int]], source: int) -> list[int]:
    level = [-1] * len(residual)
    level[source] = 0
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for v in neighbours[u]:
            if level[v] < 0 and residual[u][v] > EPS:
                level[v] = level[u] + 1
                queue.append(v)
    return level


def _push(residual: list[list[float]], neighbours: list[list[int]], level: list[int], cursor: list[int],
          u: int, sink: int, limit: float) -> float:
    """Push up to ``limit`` from u to the sink along level-increasing edges; the amount pushed (0: none)."""
    if u == sink:
        return limit
    edges = neighbours[u]
    while cursor[u] < len(edges):
        v = edges[cursor[u]]
        room = residual[u][v]
        if room > EPS and level[v] == level[u] + 1:
            pushed = _push(residual, neighbours, level, cursor, v, sink, min(limit, room))
            if pushed > EPS:
                residual[u][v] -= pushed
                residual[v][u] += pushed
                return pushed
        cursor[u] += 1
    return 0.0


def layered_flow(top: np.ndarray, matrices: Sequence[np.ndarray], sinks: Sequence[int] | None = None) -> np.ndarray:
    """Max flow from one query into each input token through a layered graph.

    top (n_K,): the capacities from the query's node to the nodes of the highest layer it reads;
    matrices: K − 1 ≥ 0 arrays, highest layer first, each (n_k, n_{k-1}): capacity from node i of a layer to
    node j of the one below; the last one's columns are the input tokens (with no matrices: top's entries).
    sinks: which input tokens (default all). Returns (len(sinks),) float64: each token's max flow.
    Example (an encoder of L layers read by one cross-attention row c): layered_flow(c, A[::-1]) with A the
    encoder's (L, S, S) layer matrices, first layer first.
    """
    top = np.asarray(top, dtype=np.float64)
    matrices = [np.asarray(m, dtype=np.float64) for m in matrices]
    widths = [top.size, *(np.asarray(m).shape[1] for m in matrices)]
    for k, m in enumerate(matrices):
        if np.asarray(m).shape[0] != widths[k]:
            raise ValueError(f"matrix {k} has {np.asarray(m).shape[0]} rows, the layer above has {widths[k]} nodes")
    inputs = widths[-1]
    sinks = list(range(inputs)) if sinks is None else list(sinks)
    if len(matrices) == 0:
        return top[sinks].copy()
    # nodes: 0 = the query, then every layer but the bottom one, then one sink node (the chosen input token)
    offsets = np.cumsum([1, *widths[:-1]])  # first node of each non-bottom layer
    sink_node = int(offsets[-1])
    n = sink_node + 1
    base = np.zeros((n, n))
    base[0, offsets[0]: offsets[0] + widths[0]] = top
    for k, m in enumerate(matrices[:-1]):
        rows, cols = offsets[k], offsets[k + 1]
        base[rows: rows + widths[k], cols: cols + widths[k + 1]] = m
    last = np.asarray(matrices[-1], dtype=np.float64)
    flows = np.zeros(len(sinks))
    for index, token in enumerate(sinks):
        capacity = base.copy()
        capacity[offsets[-2]: offsets[-2] + widths[-2], sink_node] = last[:, token]
        flows[index] = max_flow(capacity, 0, sink_node)
    return flows
