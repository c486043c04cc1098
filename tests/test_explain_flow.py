"""Attention flow's maximum flow against networkx's, and on graphs whose flow is known."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from attnviz.core.attention.rollout import layer_matrices
from attnviz.core.explain import layered_flow, max_flow


def _reference(capacity: np.ndarray, source: int, sink: int) -> float:
    graph = nx.DiGraph()
    graph.add_nodes_from(range(capacity.shape[0]))
    for u, v in zip(*np.nonzero(capacity), strict=True):
        graph.add_edge(int(u), int(v), capacity=float(capacity[u, v]))
    return float(nx.maximum_flow_value(graph, source, sink))


@pytest.mark.parametrize("seed", range(8))
def test_max_flow_matches_networkx_on_random_graphs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 12))
    capacity = rng.random((n, n)) * (rng.random((n, n)) < 0.45)  # sparse, cycles and back edges included
    np.fill_diagonal(capacity, 0)
    assert max_flow(capacity, 0, n - 1) == pytest.approx(_reference(capacity, 0, n - 1), abs=1e-9)


def test_a_chain_carries_its_narrowest_edge_and_parallel_paths_add() -> None:
    chain = np.zeros((4, 4))
    chain[0, 1], chain[1, 2], chain[2, 3] = 0.7, 0.2, 0.9
    assert max_flow(chain, 0, 3) == pytest.approx(0.2)
    chain[0, 2] = 0.5  # a second path 0 → 2 → 3, sharing 2 → 3 (0.9): 0.2 + 0.5
    assert max_flow(chain, 0, 3) == pytest.approx(0.7)


@pytest.mark.parametrize("seed", range(4))
def test_layered_flow_matches_networkx_on_attention_graphs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    layers, heads, tokens = 3, 2, 6
    matrices = layer_matrices(rng.dirichlet(np.ones(tokens), size=(layers, heads, tokens)))  # (L, S, S)
    top = rng.dirichlet(np.ones(tokens))
    flows = layered_flow(top, list(matrices[::-1]))
    graph = nx.DiGraph()
    for i in range(tokens):
        graph.add_edge("query", (layers, i), capacity=top[i])
    for level in range(layers, 0, -1):  # node (level, i) reads (level − 1, j) through layer ``level``'s matrix
        for i in range(tokens):
            for j in range(tokens):
                graph.add_edge((level, i), (level - 1, j), capacity=matrices[level - 1][i, j])
    expected = [nx.maximum_flow_value(graph, "query", (0, j)) for j in range(tokens)]
    np.testing.assert_allclose(flows, expected, atol=1e-9)


def test_layered_flow_without_layers_below_is_the_top_row() -> None:
    top = np.array([0.2, 0.5, 0.3])
    np.testing.assert_allclose(layered_flow(top, []), top)
    np.testing.assert_allclose(layered_flow(top, [], sinks=[1]), [0.5])
    with pytest.raises(ValueError):
        layered_flow(top, [np.ones((2, 2))])
