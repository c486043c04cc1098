"""The Head atlas dock over a file of documents (a tiny GPT-2 folder, random weights): Map heads reads it as documents
on the window's atlas job, and the Sinks tab plots the first position's share of the weight and of ‖α f(x)‖ by the
query's position — the numbers of SinkSums over the same documents — and exports them as the dock's figure."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.helpers import WAIT_MS, raised

pytest.importorskip("transformers")

DOCUMENTS = ["the house is big .", "the cat and the dog , the house and the tree : all are here , and so are we ."
             " the end of the long line is here", "where is the cat ? it sleeps .", "a"]


def test_documents_mode_draws_the_sinks_of_a_head_and_of_a_layers_mean(qtbot, tmp_path: Path, errors) -> None:
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.hf.documents import document_atlas, read_documents
    from attnviz.figures.spec import LineSpec
    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.panels.heads import OTHER_DOCUMENTS
    from attnviz.gui.settings import Settings
    from attnviz.render.figure_files import csv_bytes
    from attnviz.session import InlineRunner
    from tests.hf_folders import make_folder

    folder = make_folder("gpt2", tmp_path / "gpt2")
    data = tmp_path / "documents.txt"
    data.write_text("\n".join(DOCUMENTS) + "\n", encoding="utf-8")
    window = MainWindow(Settings(tmp_path / "settings.ini"), InlineRunner())
    qtbot.addWidget(window)
    window.show()
    window.load(folder)
    qtbot.waitUntil(lambda: window.session.state.model is not None, timeout=WAIT_MS)
    assert window.session.state.model.documents
    panel = raised(window, "heads")
    assert panel.corpus_box.findData(OTHER_DOCUMENTS) >= 0 and not panel.tabs.isTabVisible(3)
    panel.add_documents(data)
    assert panel.map_button.isEnabled()
    panel.map_heads()
    qtbot.waitUntil(lambda: window.session.state.atlas is not None, timeout=WAIT_MS)
    assert window.session.state.atlas.sentences == len(DOCUMENTS) and panel.tabs.isTabVisible(3)
    # documents have no importance: no pruning curve, and the button says why; the title counts documents
    assert not panel.prune_button.isEnabled() and "no importance to prune by" in panel.prune_button.toolTip()
    assert panel.grid.spec.title.endswith(f", {len(DOCUMENTS)} documents"), panel.grid.spec.title
    window.session.compute_pruning()  # (asked for all the same: the same sentence, not "Map the heads … first")
    assert errors and "no importance to prune by" in errors[-1] and "first" not in errors[-1]
    errors.clear()

    loaded = load_checkpoint(folder)
    expected = document_atlas(loaded, read_documents(data, loaded), "cpu").sinks
    weight, norm = expected.means()  # (C, N, L, H)
    bins = [i for i in range(weight.shape[1]) if np.isfinite(weight[0, i, 0, 0])]
    assert len(bins) >= 2  # (the long document's queries pass position 16)
    heads = weight.shape[3]
    panel.tabs.setCurrentWidget(panel.sinks_tab)
    panel.sink_box.setCurrentIndex(1 * (heads + 1) + 1 + 0)  # layer 2, head 1
    assert panel.sink_box.currentData() == (0, 1, 0)
    x, y = panel.sink_weight_curve.getData()
    np.testing.assert_allclose(x, [i + 1 for i in bins])
    np.testing.assert_allclose(y, weight[0, bins, 1, 0], rtol=1e-9)
    np.testing.assert_allclose(panel.sink_norm_curve.getData()[1], norm[0, bins, 1, 0], rtol=1e-9)
    panel.sink_box.setCurrentIndex(0)  # layer 1, the mean of its heads
    np.testing.assert_allclose(panel.sink_weight_curve.getData()[1], weight[0, bins, 0, :].mean(axis=-1), rtol=1e-9)
    np.testing.assert_allclose(panel.sink_norm_curve.getData()[1], norm[0, bins, 0, :].mean(axis=-1), rtol=1e-9)
    figure = panel.figure()  # what Export writes on this tab
    assert isinstance(figure, LineSpec) and figure.x_ticks[0][1] == "1-16"
    np.testing.assert_allclose(figure.series[0].y, weight[0, bins, 0, :].mean(axis=-1), rtol=1e-9)
    text = csv_bytes(figure).decode("utf-8")
    assert f"{figure.series[0].y[0]!r}"[:8] in text or f"{figure.series[0].y[0]:.6g}"[:6] in text
    assert 0 < weight[0, bins, 0, :].mean() <= 1 and not errors, errors


def test_an_atlas_over_decoded_sentences_draws_each_kinds_sinks(window, qtbot, errors) -> None:
    """The tiny Transformer mapped over the session's sentences (decoding): the Sinks tab lists every kind's layers
    and heads and draws the chosen one's shares — compute_atlas's own sums for that kind."""
    from attnviz.core.attention.kind import AttentionKind
    from attnviz.figures.spec import LineSpec

    for text in ("a b c", "d e f g", "b a"):
        window.set_sentence(text, run=True)
        qtbot.waitUntil(lambda: window.session.state.finished, timeout=WAIT_MS)
    panel = raised(window, "heads")
    assert not panel.tabs.isTabVisible(3)
    panel.map_heads()
    qtbot.waitUntil(lambda: window.session.state.atlas is not None, timeout=WAIT_MS)
    atlas = window.session.state.atlas
    assert panel.tabs.isTabVisible(3)
    kinds = [k.kind for k in atlas.kinds]
    assert kinds == [AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS]
    layers, heads = atlas.kinds[2].importance.shape
    assert panel.sink_box.count() == len(kinds) * layers * (heads + 1)
    index = panel.sink_index((2, 1, 0))  # cross-attention, layer 2, head 1
    assert panel.sink_box.itemText(index).startswith(AttentionKind.CROSS.label())
    panel.tabs.setCurrentWidget(panel.sinks_tab)
    panel.sink_box.setCurrentIndex(index)
    weight, norm = atlas.kinds[2].sinks.means()  # (C, N, L, H)
    x, y = panel.sink_weight_curve.getData()
    np.testing.assert_allclose(x, [1])  # (the tiny sentences: every query at positions 1-16)
    np.testing.assert_allclose(y, weight[0, :1, 1, 0], rtol=1e-9)
    np.testing.assert_allclose(panel.sink_norm_curve.getData()[1], norm[0, :1, 1, 0], rtol=1e-9)
    assert 0 < y[0] <= 1 and 0 < panel.sink_norm_curve.getData()[1][0] <= 1
    figure = panel.figure()
    assert isinstance(figure, LineSpec) and AttentionKind.CROSS.label() in figure.title
    panel.sink_box.setCurrentIndex(panel.sink_index((0, 0, None)))  # encoder self-attention, layer 1's mean
    np.testing.assert_allclose(panel.sink_weight_curve.getData()[1], atlas.kinds[0].sinks.means()[0][0, :1, 0].mean(),
                               rtol=1e-9)
    assert not errors, errors
