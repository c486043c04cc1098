"""Sentences decoded together as one padded batch: padding is masked out of every softmax, so each
sentence's numbers equal those of decoding it alone (d2l's valid lengths, made visible)."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.decoding.stepping import DecodeSession, decode_together

TEXTS = ["a b c d e f", "a b", "c d e"]


@pytest.mark.parametrize("kind", ["transformer", "decoder-only", "rnn-additive"])
def test_each_sentence_of_a_batch_equals_decoding_it_alone(tiny_models, kind):
    """Padding on the right (encoder–decoders) or on the left (decoder-only: every row's answer starts in
    the same column); either way each sentence's numbers are its own, and padded keys get weight 0."""
    loaded = load_checkpoint(tiny_models[kind][0])
    batch = decode_together(loaded, TEXTS)
    assert batch.valid_lens == (6, 2, 3)
    for row, text in enumerate(TEXTS):
        alone = DecodeSession(loaded)
        source = alone.encode(text)
        last = alone.run()[-1]
        together, padded = batch.steps[row], batch.sources[row]
        width, pad = len(source.tokens), 6 - len(source.tokens)
        real = slice(pad, None) if loaded.model_kind.decoder_only else slice(0, width)
        padding = slice(0, pad) if loaded.model_kind.decoder_only else slice(width, None)
        assert padded.layout is loaded.layout
        assert padded.tokens[real] == source.tokens and padded.tokens[padding] == ("<pad>",) * pad
        assert padded.padding_mask.tolist() == [padded.tokens[i] != "<pad>" for i in range(6)]
        assert together.output_tokens == last.output_tokens
        np.testing.assert_allclose(together.cross_weights[..., real], last.cross_weights, atol=1e-5)
        assert np.all(together.cross_weights[..., padding] == 0)  # padded keys: weight exactly 0
        if together.self_weights is not None and loaded.model_kind.decoder_only:  # the prompt's columns first
            np.testing.assert_allclose(together.self_weights[..., pad:], last.self_weights, atol=1e-5)
            assert np.all(together.self_weights[..., :pad] == 0)
        if source.encoder_weights is not None:
            np.testing.assert_allclose(padded.encoder_weights[:, :, real, real], source.encoder_weights, atol=1e-5)
            assert np.all(padded.encoder_weights[:, :, real, padding] == 0)


def test_the_batch_panel_shows_padding_masked_and_the_masks_panel_shows_it_too(window):
    panel = window.panels.panels["batch"]
    window.docks["batch"].raise_()
    panel.sentences.setPlainText("a b c d e f\na b")
    panel.decode_button.click()
    batch = window.session.state.batch
    assert batch is not None and batch.valid_lens == (6, 2)
    assert panel.row_box.value() == 2  # the shortest (most padded) sentence first
    spec = panel.attention.spec
    assert spec.col_labels == ("a", "b", "<pad>", "<pad>", "<pad>", "<pad>")
    assert spec.masked is not None and spec.masked[:, 2:].all() and not spec.masked[:, :2].any()
    assert np.all(spec.values[:, 2:] == 0)
    assert "Valid length 2 of 6" in panel.caption.text()
    window.docks["masks"].raise_()
    padding = window.panels.panels["masks"].padding.spec
    np.testing.assert_array_equal(padding.values, [[1] * 6, [1, 1, 0, 0, 0, 0]])
    window.set_sentence("c d e f g h", run=True)  # a sentence not in the batch: its own (unpadded) mask
    assert window.panels.panels["masks"].padding.spec.title.startswith("Padding mask: valid length 6")
    window.load(window.session.state.model.path)  # another model (here the same file): the batch is gone
    assert window.session.state.batch is None


def test_a_batch_of_one_sentence_is_refused_in_words(window, errors):
    panel = window.panels.panels["batch"]
    panel.sentences.setPlainText("a b c\n\n")
    panel.decode_button.click()
    assert errors and "two or more sentences" in errors[-1] and window.session.state.batch is None
