"""The overview of a long prompt's map is pooled on the GUI thread when it is painted (issue 60.5: opening a
2,500-token prompt stalled the event loop 0.5–0.8 s, most of it a padded full-size copy of the map and reductions over
its blocks' short inner axis): the pooling is the max (NaN left out) or the all-masked of each block, the last blocks
cut short, and it allocates a fraction of the map, never a copy of it. Asserted on values and bytes, not times."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from attnviz.gui.heatmap import all_pooled, max_pooled


def _blocks(values: np.ndarray, rows: int, cols: int):
    for top in range(0, values.shape[0], rows):
        yield [values[top: top + rows, left: left + cols] for left in range(0, values.shape[1], cols)]


@pytest.mark.parametrize(("shape", "rows", "cols"), [((10, 7), 3, 2), ((31, 29), 4, 5), ((5, 5), 5, 5),
                                                     ((7, 3), 8, 4), ((100, 1), 3, 1), ((1, 100), 1, 7)])
def test_each_block_is_the_max_of_its_cells_and_the_last_ones_are_cut_short(shape, rows, cols):
    rng = np.random.default_rng(sum(shape))
    values = rng.random(shape).astype(np.float32)
    values[rng.random(shape) < 0.3] = np.nan
    values[:, :1] = np.nan  # (a first column of masked scores: blocks of only NaN stay NaN)
    masked = rng.random(shape) < 0.8
    expected = np.array([[np.nan if np.isnan(block).all() else np.nanmax(block) for block in line]
                         for line in _blocks(values, rows, cols)], np.float32)
    np.testing.assert_array_equal(max_pooled(values, rows, cols), expected)
    assert max_pooled(values, rows, cols).dtype == np.float32
    np.testing.assert_array_equal(all_pooled(masked, rows, cols),
                                  [[bool(block.all()) for block in line] for line in _blocks(masked, rows, cols)])


def test_pooling_a_long_prompts_map_allocates_a_fraction_of_it():
    tokens, block = 2720, 9  # (2,720 tokens into ~300 pixels: 9 × 9 cells a pixel, the last block cut short)
    values = np.random.default_rng(0).random((tokens, tokens)).astype(np.float32)
    masked = np.triu(np.ones((tokens, tokens), bool), 1)  # (a causal prompt's hidden cells)
    tracemalloc.start()
    try:
        pooled, hidden = max_pooled(values, block, block), all_pooled(masked, block, block)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert pooled.shape == hidden.shape == (303, 303)
    assert peak < values.nbytes / 4  # (a padded copy of the map alone would be all of it: 29.6 MB)
    assert hidden[0, -1] and not hidden[-1, 0] and not hidden[5, 5]  # (a diagonal block holds shown cells)
