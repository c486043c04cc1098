"""The supplement "Attention in today's models" (``attnviz figures --only modern``): each figure drawn from a tiny
model's real numbers — the masks are the ones the models hid, the capped scores lie on c·tanh(s/c), the sink's column
completes every row to 1, grouped heads name the key/value head they read."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("transformers")

from attnviz import modern_gallery as modern
from attnviz.gallery import entries


def test_only_modern_picks_the_five_figures_of_the_supplement():
    assert [e.key for e in entries(["modern"])] == ["modern-masks", "modern-grouped-query", "modern-qk-norm",
                                                    "modern-softcap", "modern-sink"]


def test_the_masks_are_a_triangle_a_causal_band_and_a_bidirectional_band():
    grid = modern.masks()
    full, sliding, both = (panel.values > 0.5 for panel in grid.panels)
    rows, cols = np.indices(full.shape)
    assert np.array_equal(full, cols <= rows)
    assert np.array_equal(sliding, (cols <= rows) & (cols > rows - modern.WINDOW))
    assert np.array_equal(both, np.abs(cols - rows) <= modern.WINDOW)


def test_the_capped_scores_lie_on_the_curve_and_the_cap_bites():
    figure = modern.softcap()
    points = figure.series[-1]
    cap = 2.0
    np.testing.assert_allclose(points.y, cap * np.tanh(points.x / cap), atol=1e-5)
    assert np.abs(points.x).max() > 2 * cap and np.abs(points.y).max() <= cap


def test_the_sinks_column_completes_every_row_and_takes_a_real_share():
    figure = modern.learned_sink()
    assert figure.col_labels[-1] == "⟨sink⟩"
    np.testing.assert_allclose(figure.values.sum(-1), 1.0, atol=1e-5)
    assert figure.values[:, -1].min() > 0.01


def test_qk_norm_gives_every_query_one_length_and_grouped_heads_name_their_keys():
    lengths = modern.qk_norm().series[1].y
    assert np.ptp(lengths) < 0.05 * lengths.mean()
    titles = [panel.title for panel in modern.grouped_query().panels]
    assert titles[0].endswith("key/value head 1") and titles[-1].endswith("key/value head 2")
