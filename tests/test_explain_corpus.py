"""CorpusTally: the sums attnviz explain keeps over many steps, and the CSV files written from them."""

from __future__ import annotations

import numpy as np

from attnviz.core.explain import SINK_CLASSES, Explanation, agreement_matrices
from attnviz.core.explain.corpus import CorpusTally, agreement_csv, layers_csv, sinks_csv


def _explanation(attention: list[float], occlusion: list[float], layers: list[list[float]]) -> Explanation:
    rows = np.array([attention, occlusion])
    tau, rho = agreement_matrices(rows)
    sinks = np.full((len(layers), 2, 3), np.nan)
    sinks[:, :, 2] = [[0.4, 0.1]] * len(layers)  # punctuation only
    return Explanation(("attention", "occlusion"), ("a", "b", "c"), rows, tau, rho,
                       {"attention": np.array(layers)}, "x", -1.0, None, len(layers) - 1, None, {"cross": sinks})


def test_means_quartiles_and_steps_without_an_order() -> None:
    tally = CorpusTally()
    tally.add(_explanation([0.1, 0.2, 0.7], [1.0, 2.0, 3.0], [[0.1, 0.2, 0.7], [0.7, 0.2, 0.1]]))  # τ = 1
    tally.add(_explanation([0.7, 0.2, 0.1], [1.0, 2.0, 3.0], [[0.1, 0.2, 0.7], [0.1, 0.2, 0.7]]))  # τ = −1
    tally.add(_explanation([0.5, 0.3, 0.2], [1.0, 1.0, 1.0], [[0.1, 0.2, 0.7], [0.1, 0.2, 0.7]]))  # no order
    pair = tally.pairs(magnitudes=False)[0]
    assert (pair.first, pair.second, pair.count) == ("attention", "occlusion", 2)
    assert pair.mean == 0.0 and pair.quartiles == (-0.5, 0.0, 0.5)
    means, counts = tally.layer_spearman()["attention", "occlusion"]
    np.testing.assert_allclose(means, [1.0, 0.0])  # layer 2: ρ = −1 and +1; the constant step left out
    assert counts.tolist() == [2, 2]
    text = agreement_csv(tally).splitlines()
    assert text[1] == "attention,occlusion,2,0.0000,-0.5000,0.0000,0.5000,0.0000,0.0000"  # (3 tokens: p ≥ 1/3)
    assert "attention,|occlusion|,2," in agreement_csv(tally)
    assert "attention,occlusion,2,0.0000,2" in layers_csv(tally)
    sinks = sinks_csv(tally, SINK_CLASSES).splitlines()
    assert "cross,1,<eos>,no such key,no such key,0" in sinks and "cross,2,punctuation,0.4000,0.1000,3" in sinks


def test_tallies_of_parts_extended_in_order_are_the_tally_of_the_whole() -> None:
    steps = [_explanation([0.1, 0.2, 0.7], [1.0, 2.0, 3.0], [[0.1, 0.2, 0.7], [0.7, 0.2, 0.1]]),
             _explanation([0.5, 0.3, 0.2], [1.0, 1.0, 1.0], [[0.1, 0.2, 0.7], [0.1, 0.2, 0.7]]),  # no order
             _explanation([0.7, 0.2, 0.1], [1.0, 3.0, 2.0], [[0.2, 0.1, 0.7], [0.1, 0.7, 0.2]])]
    whole, parts = CorpusTally(), [CorpusTally(), CorpusTally(), CorpusTally()]
    for step in steps:
        whole.add(step)
    parts[1].add(steps[0])  # parts[0]: a sentence with nothing decoded
    parts[2].add(steps[1])
    parts[2].add(steps[2])
    joined = CorpusTally()
    for part in parts:
        joined.extend(part)
    assert joined.steps == 3 and joined.methods == whole.methods
    assert agreement_csv(joined) == agreement_csv(whole) and layers_csv(joined) == layers_csv(whole)
    assert sinks_csv(joined, SINK_CLASSES) == sinks_csv(whole, SINK_CLASSES)
    assert joined.taus == whole.taus and list(joined.layer_rhos) == list(whole.layer_rhos)
