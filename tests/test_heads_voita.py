"""Voita et al. 2019's head tests in the atlas: confidence without the end of the source, positional heads (one
relative position the argmax in ≥ 90 % of the rows) and rare-word heads (the argmax on the sentence's least
frequent source token), each against a plain count over hand-built maps; and heads.csv's columns for them."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.heads.atlas import KindAtlas
from attnviz.core.heads.statistics import OFFSETS, Keys, KindSums


def _rows(rng: np.random.Generator, layers: int, heads: int, q: int, k: int) -> np.ndarray:
    w = rng.random((layers, heads, q, k)) ** 4
    return w / w.sum(-1, keepdims=True)


def test_confidence_without_end_is_the_largest_weight_off_the_last_source_token() -> None:
    # one head, three rows over "a b c ." (the end: ".")
    w = np.array([[0.1, 0.1, 0.1, 0.7], [0.5, 0.2, 0.2, 0.1], [0.0, 0.3, 0.1, 0.6]])[None, None]
    sums = KindSums.empty(1, 1, alignment=False)
    sums.add(w, np.arange(3), Keys.of(("a", "b", "c", "."), 3))
    means = dict(zip(sums.names, sums.means()[:, 0, 0], strict=True))
    assert means["confidence"] == pytest.approx((0.7 + 0.5 + 0.6) / 3)
    assert means["confidence_without_end"] == pytest.approx((0.1 + 0.5 + 0.3) / 3)
    # keys without a source end (a decoder's self-attention): nothing is left out
    sums = KindSums.empty(1, 1, alignment=False)
    sums.add(w, np.arange(3), Keys.of(("<bos>", "b", "c", "."), None))
    means = dict(zip(sums.names, sums.means()[:, 0, 0], strict=True))
    assert means["confidence_without_end"] == pytest.approx(means["confidence"])


def test_rare_share_counts_rows_whose_argmax_is_a_least_frequent_source_token() -> None:
    rng = np.random.default_rng(3)
    corpus = [("the", "cat", "sat", "."), ("the", "dog", "sat", "."), ("a", "cat", "ran", ".")]
    counts = Counter(t for s in corpus for t in s)  # the 1s: dog, a, ran
    sums = KindSums.empty(2, 2, alignment=True, rare=True)
    hits, chance, rows = np.zeros((2, 2)), 0.0, 0
    for words in corpus:
        w = _rows(rng, 2, 2, 5, len(words))
        sums.add(w, np.arange(5), Keys.of(words, len(words) - 1, counts))
        rows += 5
        least = min(counts[t] for t in words)
        chance += 5 * sum(counts[t] == least for t in words) / len(words)
        for layer in range(2):
            for head in range(2):
                for row in w[layer, head]:
                    hits[layer, head] += counts[words[int(np.argmax(row))]] == least
    means = sums.means()[sums.names.index("rare")]
    np.testing.assert_allclose(means, hits / rows, rtol=0, atol=1e-15)
    np.testing.assert_allclose(sums.means()[sums.names.index("rare_chance")], chance / rows, rtol=1e-12)
    assert 0 < hits.sum() < 2 * 2 * rows  # (the test sees both outcomes)


def test_argmax_offsets_count_each_relative_position_and_name_positional_heads() -> None:
    rng = np.random.default_rng(5)
    layers, heads, length = 1, 3, 12
    w = _rows(rng, layers, heads, length, length) * 0.5
    # head 0: always the previous token (row 0: itself); head 1: the next in 10 of 12 rows; head 2: random
    for q in range(length):
        w[0, 0, q, max(q - 1, 0)] += 2.0
        if q < 10:
            w[0, 1, q, q + 1] += 2.0
    w /= w.sum(-1, keepdims=True)
    sums = KindSums.empty(layers, heads, alignment=False)
    sums.add(w, np.arange(length), Keys.of(tuple("abcdefghijk.") , length - 1))
    expected = np.zeros((len(OFFSETS), layers, heads))
    for head in range(heads):
        for q in range(length):
            relative = int(np.argmax(w[0, head, q])) - q
            if relative in OFFSETS:
                expected[OFFSETS.index(relative), 0, head] += 1
    np.testing.assert_array_equal(sums.offsets, expected)
    atlas = KindAtlas(AttentionKind.ENCODER_SELF, sums.names, sums.means(), np.ones((layers, heads)),
                      np.ones((layers, heads)), int(sums.rows), expected / length)
    offset, share = atlas.positional()
    assert offset[0, :2].tolist() == [-1, 1]
    assert share[0, 0] == pytest.approx(11 / 12) and share[0, 1] == pytest.approx(10 / 12)
    assert share[0, 2] == pytest.approx(expected[:, 0, 2].max() / length)
    from attnviz.core.heads.atlas import HeadAtlas

    table = HeadAtlas((atlas,), 1, 0, 1, "references", 1).table()
    assert [(r["positional_offset"], r["positional"]) for r in table[:2]] == [("-1", "yes"), ("+1", "no")]
