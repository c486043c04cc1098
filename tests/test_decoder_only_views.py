"""The decoder-only model in the real window: its one sequence in the Attention, Masks, Computation,
Rollout and Compare views, with the model's own numbers."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore

from attnviz.core.attention.kind import AttentionKind
from tests.helpers import WAIT_MS, pixels, raised

ENC, DEC, CROSS = AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS


@pytest.fixture
def decoder_only(window, tiny_models):
    window.load(tiny_models["decoder-only"][0])
    window.set_sentence("a b c d", run=True)
    return window


def test_the_attention_view_shows_the_whole_sequence_and_names_the_kinds(decoder_only):
    window, attention = decoder_only, decoder_only.attention
    source, step = window.session.state.source, window.session.state.step
    assert [attention.kind_box.itemText(i) for i in range(attention.kind_box.count())] == \
        ["Self-attention (prompt)", "Self-attention (prompt + answer)", "Source view"]
    attention.select_view(DEC, 1, 2)
    tokens = (*source.tokens, *step.query_tokens)
    matrix = attention.current
    assert matrix.rows == tokens and matrix.cols == tokens and "self-attention (prompt + answer)" in matrix.title()
    s = len(source.tokens)
    np.testing.assert_array_equal(matrix.values[:s, :s], source.encoder_weights[1, 2])  # the prompt's rows
    np.testing.assert_array_equal(matrix.values[s:], step.self_weights[1, 2])  # the answer's rows
    np.testing.assert_array_equal(matrix.masked, ~np.tri(len(tokens), dtype=bool))  # causal over everything
    np.testing.assert_allclose(matrix.values.sum(-1), 1.0, atol=1e-5)
    assert not attention.note.isVisible()
    attention.select_view(CROSS, 1, 2)
    view = attention.current
    np.testing.assert_array_equal(view.values, step.self_weights[1, 2, :, :s])  # the English columns, as they are
    assert (view.values.sum(-1) < 1).all() and attention.note.isVisible()
    assert "not renormalised" in attention.note.text().lower() and "source view" in view.title()


@pytest.mark.parametrize(("row", "kind", "query"), [(1, ENC, 1), (4, DEC, 0), (6, DEC, 2)])
def test_a_clicked_row_of_the_sequence_recomputes_that_query(decoder_only, qtbot, row, kind, query):
    window = decoder_only
    window.attention.select_view(DEC, 2, 1)
    heatmap = window.attention.heatmap
    qtbot.mouseClick(heatmap, QtCore.Qt.MouseButton.LeftButton, pos=heatmap.cell_rect(row, 0).center().toPoint())
    comp = window.session.state.computation
    assert (comp.kind, comp.layer, comp.head, comp.query_index) == (kind, 2, 1, query)
    np.testing.assert_allclose(comp.weights[: row + 1], window.attention.current.values[row, : row + 1], atol=1e-5)
    assert comp.difference_from_model() < 1e-5
    assert comp.key_tokens == window.attention.current.cols[: len(comp.key_tokens)]


def test_the_masks_panel_shows_the_causal_mask_over_prompt_and_answer(decoder_only):
    panel = raised(decoder_only, "masks")
    source, step = decoder_only.session.state.source, decoder_only.session.state.step
    size = len(source.tokens) + len(step.query_tokens)
    assert panel.causal.values.shape == (size, size) and panel.causal.row_labels[len(source.tokens)] == "<bos>"
    np.testing.assert_array_equal(panel.causal.values, np.tri(size, dtype=np.float32))
    assert "prompt | answer" in panel.causal.spec.title.lower() and panel.causal.spec.divider == len(source.tokens)


def test_the_rollout_runs_over_the_whole_sequence(decoder_only, qtbot):
    panel = raised(decoder_only, "rollout")
    source, step = decoder_only.session.state.source, decoder_only.session.state.step
    qtbot.waitUntil(lambda: panel.attribution.values.shape == (len(step.query_tokens), len(source.tokens)),
                    timeout=WAIT_MS)
    # by hand: each layer's heads averaged, 0.5·A + 0.5·I, rows renormalised, layers multiplied
    s, t = len(source.tokens), len(step.query_tokens)
    flow = np.eye(s + t)
    for layer in range(source.encoder_weights.shape[0]):
        full = np.zeros((s + t, s + t))
        full[:s, :s] = source.encoder_weights[layer].mean(0)
        full[s:] = step.self_weights[layer].mean(0)
        mixed = 0.5 * full + 0.5 * np.eye(s + t)
        flow = (mixed / mixed.sum(-1, keepdims=True)) @ flow
    np.testing.assert_allclose(panel.attribution.values, flow[s:, :s], atol=1e-5)
    assert "source view" in panel.decoder_layer.prefix() and "prompt" in panel.encoder_layer.prefix()


def test_compare_puts_the_cross_attention_beside_the_source_view(window, tiny_models):
    window.set_sentence("a b c d", run=True)  # the encoder–decoder Transformer first
    panel = raised(window, "compare")
    panel.compare_with(tiny_models["decoder-only"][0])
    assert "cross-attention" in panel.first.spec.title and "source view" in panel.second.spec.title
    np.testing.assert_allclose(panel.second.values.sum(-1), 1.0, atol=1e-5)  # renormalised, as it says
    np.testing.assert_allclose(panel.difference.values, panel.first.values - panel.second.values, atol=1e-6)


def _orange(source) -> np.ndarray:
    """(H, W) bool: the pixels of ``source`` (a QImage or a widget) in the prompt | answer divider's colour."""
    rows = pixels(source)
    picture = rows.reshape(rows.shape[0], -1, 4)  # RGB32: blue, green, red, alpha bytes
    blue, green, red = (picture[..., i].astype(int) for i in range(3))
    return (abs(red - 230) < 20) & (abs(green - 85) < 25) & (abs(blue - 13) < 25)


def test_the_prompt_answer_boundary_is_drawn_on_screen_and_in_exports(decoder_only, window, tiny_models):
    from attnviz.render.figure_painter import figure_image

    attention = decoder_only.attention
    attention.select_view(DEC, 0, 0)
    exported = _orange(figure_image(attention.figure().spec))
    on_screen = _orange(attention.heatmap)
    s = len(decoder_only.session.state.source.tokens)
    for orange in (exported, on_screen):
        assert (orange.sum(axis=0) > orange.shape[0] // 4).any()  # a line down
        assert (orange.sum(axis=1) > orange.shape[1] // 4).any()  # and one across
    rect = attention.heatmap.cell_rect(s, s)  # the line runs along the first answer cell's top-left corner
    assert any(abs(c - rect.left()) <= 2 for c in np.nonzero(on_screen.sum(axis=0) > 20)[0])
    window.load(tiny_models["transformer"][0])
    window.set_sentence("a b c d", run=True)
    window.attention.select_view(DEC, 0, 0)
    assert not _orange(figure_image(window.attention.figure().spec)).any()  # no prompt: no line


def test_the_batch_panel_says_where_a_left_padded_row_is_padded(decoder_only):
    panel = raised(decoder_only, "batch")
    panel.sentences.setPlainText("a b c d e f\na b")
    panel.decode_button.click()
    panel.row_box.setValue(2)
    caption = panel.caption.text()
    assert "Valid length 2 of 6: keys 1–4 are <pad>" in caption and "pads on the left" in caption
    assert decoder_only.session.state.batch.sources[1].tokens == ("<pad>",) * 4 + ("a", "b")
    assert [panel.kind_box.itemText(i) for i in range(panel.kind_box.count())] == \
        ["source view", "self-attention (prompt)"]
    panel.kind_box.setCurrentIndex(1)
    assert "self-attention (prompt)" in panel.attention.spec.title
    assert panel.attention.spec.masked[4, 5] and not panel.attention.spec.masked[5, 4]  # causal, padding masked
    assert panel.attention.spec.masked[5, :4].all()


def test_the_scoring_panel_replays_the_whole_self_attention_row(decoder_only):
    panel = raised(decoder_only, "scoring")
    source, step = decoder_only.session.state.source, decoder_only.session.state.step
    assert panel.keys == source.tokens + step.query_tokens  # the English, then the answer so far
    np.testing.assert_allclose(panel.weights(), step.self_weights[0, 0, -1], atol=1e-6)  # the model's own row
    assert "one self-attention" in panel.caption.text()
    panel.valid_len.setValue(len(source.tokens))  # only the English visible: the answer's keys masked
    assert panel.weights()[len(source.tokens):].sum() == 0 and panel.weights().sum() == pytest.approx(1, abs=1e-6)


def test_the_positional_panel_outlines_the_whole_sequence_in_use(decoder_only):
    panel = raised(decoder_only, "positional")
    source, step = decoder_only.session.state.source, decoder_only.session.state.step
    assert panel.table.shape[0] == 10 + 12 + 1  # max_src_len + max_tgt_len + <bos>
    assert panel.table_view.highlighted_rows == (0, len(source.tokens) + len(step.query_tokens))
    decoder_only.session.show(0)  # back at step 1: the English, <bos>
    assert panel.table_view.highlighted_rows == (0, len(source.tokens) + 1)


def test_the_beams_panel_names_the_source_view(decoder_only):
    panel = raised(decoder_only, "beams")
    assert panel.attention.spec.title.startswith("Source view of “")
