"""A long sentence keeps the window responsive: the numpy work of Rollout and All heads runs on the worker.

The window gets a runner that holds its jobs (``HeldRunner``): whatever is drawn before ``run_all()`` was
computed on the GUI thread; what needs the runner was not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attnviz.core.rollout import rollout, source_attribution
from attnviz.gui.grid_pixels import MAX_CELLS, pooled
from attnviz.gui.panels.attention import COMPUTING_GRID
from attnviz.gui.panels.rollout import COMPUTING
from attnviz.render.figure_painter import argb_pixels
from tests.helpers import HeldRunner

TOKENS = 300  # more than MAX_CELLS: the All heads images are averaged down


@pytest.fixture(scope="module")
def long_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A small random-weight Transformer that reads TOKENS source tokens, and a sentence of that length."""
    import torch

    from attnviz.core.checkpoint import save_checkpoint
    from attnviz.core.text import RESERVED, Vocab
    from attnviz.core.transformer import Transformer, TransformerConfig

    words = [f"w{i}" for i in range(40)]
    vocab = Vocab((*RESERVED, *words))
    torch.manual_seed(0)
    config = TransformerConfig(len(vocab), len(vocab), num_hiddens=16, ffn_hiddens=32, num_heads=2,
                               num_encoder_layers=2, num_decoder_layers=2, dropout=0.0, max_src_len=TOKENS,
                               max_tgt_len=8)
    path = save_checkpoint(tmp_path_factory.mktemp("long") / "long.safetensors", Transformer(config),
                           src_vocab=vocab, tgt_vocab=vocab)
    return path, [words[(7 * i) % len(words)] for i in range(TOKENS)]


@pytest.fixture
def held_window(qtbot, tmp_path, long_checkpoint, errors):
    """The main window whose jobs wait for ``runner.run_all()``, the long sentence encoded and stepped twice."""
    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings

    runner = HeldRunner()
    window = MainWindow(Settings(tmp_path / "settings.ini"), runner)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    path, words = long_checkpoint
    window.load(path)
    runner.run_all()
    window.set_sentence(" ".join(words))
    runner.run_all()
    for _ in range(2):
        window.step_action.trigger()
        runner.run_all()
    assert len(window.session.state.source.tokens) == TOKENS and len(window.session.state.steps) == 2
    return window, runner


def test_raising_rollout_computes_it_on_the_worker(held_window):
    window, runner = held_window
    window.docks["rollout"].show()
    window.docks["rollout"].raise_()
    window.panels.ensure_current("rollout")
    panel = window.panels.panels["rollout"]
    assert panel.encoder.spec.title == COMPUTING and panel.attribution.spec.title == COMPUTING
    assert window.session.state.busy == COMPUTING  # (the status bar names it, if it takes a while)
    runner.run_all()
    state = window.session.state
    flows = rollout(state.source.encoder_weights)
    np.testing.assert_allclose(panel.encoder.values, flows[-1], atol=1e-6)
    assert panel.encoder.values.shape == (TOKENS, TOKENS)
    np.testing.assert_allclose(panel.attribution.values, source_attribution(state.step.cross_weights, flows[-1])[-1],
                               atol=1e-6)
    assert not state.busy


def test_a_newer_rollout_request_wins(held_window):
    """Layer 1 asked for, then layer 2 before the worker ran: only layer 2's figure is drawn."""
    window, runner = held_window
    window.docks["rollout"].show()
    window.docks["rollout"].raise_()
    window.panels.ensure_current("rollout")
    runner.run_all()
    panel = window.panels.panels["rollout"]
    flows = rollout(window.session.state.source.encoder_weights)
    panel.encoder_layer.setValue(1)
    panel.encoder_layer.setValue(2)
    shown = []
    panel.encoder.show_figure = shown.append  # what reaches the heatmap from here on
    runner.run_all()
    assert len(shown) == 1
    np.testing.assert_allclose(shown[0].values, flows[1], atol=1e-6)


def test_all_heads_colours_every_head_on_the_worker(held_window):
    window, runner = held_window
    panel = window.attention
    panel.kind_box.setCurrentIndex(panel.kind_box.findData("encoder self-attention"))
    panel.all_heads.setChecked(True)
    assert panel.stack.currentWidget() is panel.grid
    assert panel.grid.spec is None and panel.grid.message == COMPUTING_GRID
    runner.run_all()
    assert panel.grid.shape == (2, 2) and panel.grid._cells() == (TOKENS, TOKENS)
    weights = window.session.state.source.encoder_weights
    pixels = panel.grid._images[2][0]  # layer 2, head 1: averaged down to at most MAX_CELLS a side
    assert pixels.shape == (TOKENS // 2, TOKENS // 2) and max(pixels.shape) <= MAX_CELLS
    np.testing.assert_array_equal(pixels, argb_pixels(pooled(weights[1, 0]), (0.0, 1.0), "viridis"))


def test_pooled_averages_blocks_and_leaves_masked_cells_out():
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(pooled(values, most=4), values)  # small enough: unchanged
    np.testing.assert_allclose(pooled(values, most=2), [[2.5, 4.5], [8.5, 10.5]])  # 2 × 2 blocks; the last row alone
    masked = values.copy()
    masked[0, :2] = np.nan
    masked[1, 0] = np.nan
    result = pooled(masked, most=2)
    assert result[0, 0] == 5.0  # the block's one cell that is not NaN
    all_masked = np.full((4, 4), np.nan, np.float32)
    assert np.isnan(pooled(all_masked, most=2)).all()
