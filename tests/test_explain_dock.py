"""The Explain dock: the step on show explained by every method, the same numbers as the core's own explain_step,
for the Transformer (layer and head chosen) and the RNN with additive attention (one map per step)."""

from __future__ import annotations

import numpy as np

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from tests.helpers import WAIT_MS, raised


def _explained(window, qtbot, text: str):
    window.set_sentence(text, run=True)
    qtbot.waitUntil(lambda: window.session.state.finished, timeout=WAIT_MS)
    window.session.show(1)
    panel = raised(window, "explain")
    panel.explain()
    qtbot.waitUntil(lambda: window.session.state.explanation is not None, timeout=WAIT_MS)
    return panel, window.session.state.explanation


def test_the_step_on_show_is_explained_by_every_method_as_the_core_explains_it(window, qtbot, errors,
                                                                              tiny_models):
    from attnviz.core.explain import explain_step

    panel, explanation = _explained(window, qtbot, "a b c d")
    step, source = window.session.state.step, window.session.state.source
    assert explanation.token == step.token and explanation.labels == source.tokens
    assert explanation.methods[:4] == ("attention", "rollout", "flow", "norm") and "ig" in explanation.methods
    loaded = load_checkpoint(tiny_models["transformer"][0])
    expected = explain_step(loaded, source.tokens, step.query_tokens[1:], token=step.token)
    np.testing.assert_allclose(explanation.rows, expected.rows, rtol=1e-4, atol=1e-6)
    peak = np.abs(expected.rows).max(axis=1, keepdims=True)
    np.testing.assert_allclose(panel.rows.spec.values, expected.rows / peak, rtol=1e-4, atol=1e-6)
    assert panel.rows.spec.col_labels == source.tokens and "step 2" in panel.rows.spec.title
    assert panel.agreement.spec.values.shape == (len(explanation.methods),) * 2
    assert "Integrated gradients" in panel.summary.text()
    panel.head_box.setCurrentIndex(panel.head_box.findData(2))  # head 3 of the last layer
    qtbot.waitUntil(lambda: window.session.state.explanation.head == 2, timeout=WAIT_MS)
    head = explain_step(loaded, source.tokens, step.query_tokens[1:], token=step.token, head=2)
    np.testing.assert_allclose(window.session.state.explanation.row("attention"), head.row("attention"), atol=1e-6)
    other = step.topk_tokens[1]
    panel.token_box.setCurrentIndex(panel.token_box.findData(other))  # another candidate explained instead
    qtbot.waitUntil(lambda: window.session.state.explanation.token == other, timeout=WAIT_MS)
    candidate = explain_step(loaded, source.tokens, step.query_tokens[1:], token=other, head=2)
    np.testing.assert_allclose(window.session.state.explanation.rows, candidate.rows, rtol=1e-4, atol=1e-6)
    assert panel.token_box.itemText(0) == f"“{step.token}” (chosen)"
    window.session.show(0)  # another step: the panel asks again once stepping pauses
    qtbot.waitUntil(lambda: window.session.state.explanation is not None
                    and window.session.state.explanation.token == window.session.state.step.token, timeout=WAIT_MS)
    assert not errors, errors


def test_the_rnn_with_additive_attention_is_explained_by_its_one_map(window, qtbot, errors, tiny_models):
    window.load(tiny_models["rnn-additive"][0])
    qtbot.waitUntil(lambda: window.session.state.model.kind == "rnn-additive", timeout=WAIT_MS)
    panel, explanation = _explained(window, qtbot, "a b c")
    assert "attention" in explanation.methods and "rollout" not in explanation.methods
    np.testing.assert_allclose(explanation.row("attention"), window.session.state.step.cross_weights[0, 0, -1],
                               atol=1e-5)
    assert panel.head_box.count() == 1 and not errors, errors


def test_at_1024_by_768_the_docks_titles_and_controls_show_whole(qtbot, tmp_path, errors):
    """The Explain dock beside the sentence on a 1024 × 768 screen: the title of its rows whole (it wraps onto a
    third line before anything is cut), the word box wide enough for "“<eos>” (chosen)", the head box for
    "heads' mean"; the Head atlas's empty grid names itself in a few words (the hint says the rest)."""
    from PySide6 import QtGui

    from attnviz.paths import DEFAULT_CHECKPOINT
    from tests.helpers import open_window, settle

    window = open_window(qtbot, tmp_path, DEFAULT_CHECKPOINT, (1024, 768))
    panel, _explanation = _explained(window, qtbot, "i'm home .")
    settle(window)
    layout = panel.rows.figure_layout()
    assert "…" not in layout.title_text, layout.title_text
    for box in (panel.token_box, panel.head_box):
        metrics = QtGui.QFontMetrics(box.font())
        assert box.width() >= metrics.horizontalAdvance(box.currentText()) + 20, (box.currentText(), box.width())
    atlas = raised(window, "heads")
    settle(window)
    assert "…" not in atlas.grid.figure_layout().title_text
