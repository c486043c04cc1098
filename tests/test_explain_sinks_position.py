"""explain's sinks by the query's position (sinks_by_position.csv): the tally of the explained steps equals
SinkSums fed the same query rows by hand, and the shares are the sums a reader would write down."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.explain import explain_step
from attnviz.core.explain.corpus import CorpusTally, sinks_by_position_csv
from attnviz.core.explain.internals import step_internals
from attnviz.core.explain.step import POSITION_SINK_KEYS
from attnviz.core.heads.sinks import POSITION_BINS, SinkSums, bin_labels, key_classes
from attnviz.core.models.loaded import LoadedModel

SOURCE = ["a", "c", "e", "b", "d", "a", "c", "e", "b", "d"]  # 10 tokens: a decoder-only model's queries pass 16
TARGET = ["dx", "bx", "ex", "cx", "ax", "dx", "bx", "ex", "cx", "ax"]
SLUG = {"cross": ("cross", False), "decoder self": ("dec-self", True), "self": ("dec-self", True)}


def _by_hand(loaded: LoadedModel, steps: int) -> dict[str, SinkSums]:
    """Each step's query row read from step_internals and added to SinkSums here, row by row."""
    import torch

    assert loaded.src_vocab is not None and loaded.tgt_vocab is not None
    out: dict[str, SinkSums] = {}
    for t in range(steps):
        prefix = TARGET[:t]
        src = torch.tensor([loaded.src_vocab.ids(SOURCE)])
        tgt_in = torch.tensor([[loaded.tgt_vocab.bos_id, *loaded.tgt_vocab.ids(prefix)]])
        internals = step_internals(loaded.model, src, tgt_in, tuple(SOURCE), ("<bos>", *prefix))
        for kind in internals.kinds:
            slug, causal = SLUG[kind.name]
            position = t if kind.name == "cross" else len(kind.keys) - 1
            layers, heads, _ = kind.weights.shape
            sums = out.setdefault(slug, SinkSums.empty(POSITION_SINK_KEYS, layers, heads))
            masks = key_classes(kind.keys, POSITION_SINK_KEYS[1:])
            for layer in range(layers):
                norms = np.linalg.norm(kind.transformed[layer], axis=-1)  # (H, K)
                sums.add(layer, kind.weights[layer][:, None, :], norms, np.array([position]), masks, causal)
    return out


@pytest.mark.parametrize("family", ["decoder-only", "transformer"])
def test_the_tally_by_bin_equals_sink_sums_fed_the_same_rows(family: str, tiny_models: dict) -> None:
    loaded = load_checkpoint(tiny_models[family][0])
    steps = 8
    tally = CorpusTally()
    for t in range(steps):
        tally.add(explain_step(loaded, SOURCE, TARGET[:t], methods=("attention",), token=TARGET[t]))
    expected = _by_hand(loaded, steps)
    assert list(tally.position_sinks) == list(expected)
    for slug, sums in expected.items():
        got = tally.position_sinks[slug]
        np.testing.assert_allclose(got.weight, sums.weight, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.norm, sums.norm, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(got.rows, sums.rows)
    rows = list(csv.DictReader(io.StringIO(sinks_by_position_csv(tally))))
    assert list(rows[0]) == ["kind", "layer", "head", "queries", "key", "rows", "weight_share", "norm_share"]
    if family == "decoder-only":  # prompt of 10 + <bos> + prefix: queries at positions 11 … 18 (1-16 and 17-128)
        first = [r for r in rows if r["kind"] == "dec-self" and r["key"] == "first" and r["layer"] == "1"
                 and r["head"] == "1"]
        assert [(r["queries"], r["rows"]) for r in first] == [(bin_labels()[0], "6"), (bin_labels()[1], "2")]
        # the first bin's share on the first position, written down: the mean of the rows' weight on key 0
        import torch

        assert loaded.src_vocab is not None and loaded.tgt_vocab is not None
        shares, norm_shares = [], []
        for t in range(6):
            src = torch.tensor([loaded.src_vocab.ids(SOURCE)])
            tgt_in = torch.tensor([[loaded.tgt_vocab.bos_id, *loaded.tgt_vocab.ids(TARGET[:t])]])
            kind = step_internals(loaded.model, src, tgt_in, tuple(SOURCE), ("<bos>", *TARGET[:t])).kinds[0]
            alpha = kind.weights[0, 0]  # (K,)
            weighted = alpha * np.linalg.norm(kind.transformed[0, 0], axis=-1)
            shares.append(alpha[0])
            norm_shares.append(weighted[0] / weighted.sum())
        assert float(first[0]["weight_share"]) == pytest.approx(np.mean(shares), abs=1e-12)
        assert float(first[0]["norm_share"]) == pytest.approx(np.mean(norm_shares), abs=1e-12)
        bos = [r for r in rows if r["kind"] == "dec-self" and r["key"] == "<bos>"]
        assert bos and all(0 < float(r["weight_share"]) < 1 for r in bos)
    else:  # cross: the target positions 1 … 8; dec-self reads <bos> first, so its first and <bos> rows agree
        assert {r["kind"] for r in rows} == {"cross", "dec-self"}
        assert {r["queries"] for r in rows} == {bin_labels()[0]}
        first = {(r["layer"], r["head"]): r["weight_share"] for r in rows if r["kind"] == "dec-self"
                 and r["key"] == "first"}
        bos = {(r["layer"], r["head"]): r["weight_share"] for r in rows if r["kind"] == "dec-self"
               and r["key"] == "<bos>"}
        assert first == bos
    assert len(POSITION_BINS) == 4


def test_parts_extended_in_any_order_give_the_same_sums(tiny_models: dict) -> None:
    loaded = load_checkpoint(tiny_models["decoder-only"][0])
    explained = [explain_step(loaded, SOURCE, TARGET[:t], methods=("attention",), token=TARGET[t]) for t in range(3)]
    whole, first, second = CorpusTally(), CorpusTally(), CorpusTally()
    for step in explained:
        whole.add(step)
    first.add(explained[0])
    second.add(explained[1])
    second.add(explained[2])
    joined = CorpusTally()
    joined.extend(second)
    joined.extend(first)
    for slug, sums in whole.position_sinks.items():  # (the same sums, added in another order: to rounding)
        np.testing.assert_allclose(joined.position_sinks[slug].flat(), sums.flat(), rtol=1e-12)
    assert explained[0].position_sinks["dec-self"].rows.sum() > 0  # (the steps' own sums were not added into)
    np.testing.assert_array_equal(explained[0].position_sinks["dec-self"].rows[0, 0],
                                  np.ones_like(explained[0].position_sinks["dec-self"].rows[0, 0]))
