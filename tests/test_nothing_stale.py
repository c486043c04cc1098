"""Nothing stale, nothing silent: what a panel or field shows belongs to what is loaded and typed now,
and what the window does on the user's behalf it says."""

from __future__ import annotations

import re

import numpy as np
from PySide6 import QtCore

from attnviz.core.results import Beam


def test_the_batch_caption_goes_with_its_batch_when_another_model_loads(window, tiny_models):
    panel = window.panels.panels["batch"]
    window.docks["batch"].raise_()
    panel.sentences.setPlainText("a b c d e f\na b")
    panel.decode_button.click()
    assert panel.caption.text().startswith("→ ") and "Valid length 2 of 6" in panel.caption.text()
    window.load(tiny_models["rnn-dot"][0])
    window.load(tiny_models["transformer"][0])
    assert window.session.state.batch is None
    assert "→" not in panel.caption.text() and "Valid length" not in panel.caption.text()
    assert panel.caption.text().startswith("Decode two or more sentences")


def test_forced_words_are_forgotten_on_reset_a_new_sentence_and_another_model(window, tiny_models):
    field = window.decoding_area.force_field
    window.set_sentence("a b c", run=True)
    field.setText("ax bx")
    window.decoding_area.force_button.click()
    assert window.output.text().startswith("ax bx") and field.text() == "ax bx"  # kept while it applies
    window.reset_action.trigger()
    assert field.text() == ""
    field.setText("ax bx")
    window.set_sentence("c d e")  # (an example sentence, a saved session: set in the field)
    assert field.text() == ""
    field.setText("cx")
    window.sentence.setFocus()
    window.sentence.end(False)
    window.sentence.insert(" f")  # typed
    assert field.text() == ""
    field.setText("cx")
    window.load(tiny_models["rnn-dot"][0])
    assert field.text() == ""


def test_a_forced_word_the_model_does_not_know_is_refused_with_the_nearest_it_knows(window, errors):
    window.set_sentence("a b c", run=True)
    before = window.session.state.steps
    window.decoding_area.force_field.setText("ax zorglub bxx")
    window.decoding_area.force_button.click()
    assert window.session.state.steps is before  # nothing forced, not even the known "ax"
    assert "“zorglub”" in errors[-1] and "“bxx” (nearest it knows: “bx”" in errors[-1]
    assert "<unk>" not in window.output.text()


def test_the_beam_list_shows_and_names_the_score_it_ranks_by(window):
    window.beam_box.setValue(3)
    window.set_sentence("a b c", run=True)
    beams = window.session.state.steps[-1].beams
    text = window.decoding_area.beams.text()
    assert "ranked by score = log p / T<sup>0.75</sup>" in text and "length-normalised" in text
    shown = [float(value.replace("−", "-")) for value in re.findall(r"score <b>([−\d.]+)</b>", text)]
    assert shown == [round(beam.log_prob / len(beam.tokens) ** 0.75, 2) for beam in beams]
    assert shown == sorted(shown, reverse=True)  # the order on show is the order of the score on show


def test_a_longer_beam_with_a_lower_log_p_shows_why_it_ranks_first():
    from attnviz.gui.decoding_area import beams_html

    longer = Beam(("je", "suis", "chez", "moi", ".", "<eos>"), -1.94, True)
    shorter = Beam(("je", "suis", "<eos>"), -1.71, True)
    text = beams_html([longer, shorter])
    first, second = text.split("<br>")[1:]
    assert first.startswith("1. je suis chez moi . &lt;eos&gt;") and "score <b>−0.51</b>" in first
    assert "log p −1.94" in first and "score <b>−0.75</b>" in second and "log p −1.71" in second


def _lay_out() -> None:
    for _ in range(3):  # (layout requests are posted events; a layout pass may post more)
        QtCore.QCoreApplication.sendPostedEvents()


def test_bad_dimension_entries_are_named_and_the_valid_ones_still_plot(window):
    panel = window.panels.panels["positional"]
    window.docks["positional"].raise_()
    panel.tabs.setCurrentIndex(1)
    _lay_out()
    width = panel.table.shape[1]
    field_width, dock_width = panel.dims_edit.width(), window.docks["positional"].width()
    message_top = panel.message.geometry().top()
    panel.dims_edit.setText(f"0, 1, abc, {width + 300}")
    panel.dims_edit.editingFinished.emit()
    curves = panel.curves.getPlotItem().listDataItems()
    assert [item.name() for item in curves] == ["dim 0", "dim 1"]
    np.testing.assert_array_equal(curves[1].yData, panel.table[:, 1])
    assert panel.message.text() == f"Skipped “abc” (not a number), “{width + 300}” (outside 0…{width - 1})"
    _lay_out()
    assert (panel.dims_edit.width(), window.docks["positional"].width()) == (field_width, dock_width)
    assert panel.message.geometry().top() == message_top


def test_parse_dims_keeps_what_is_valid():
    from attnviz.gui.panels.positional import parse_dims

    assert parse_dims("6, 7, 8-9", 32) == ([6, 7, 8, 9], [])
    assert parse_dims("0, 1, abc, 300", 32) == ([0, 1], ["“abc” (not a number)", "“300” (outside 0…31)"])
    assert parse_dims("3-1, 30-40, 2-3; 2", 32) == ([2, 3], ["“3-1” (outside 0…31)", "“30-40” (outside 0…31)"])


def test_unknown_source_words_are_quoted_so_their_edges_show(window):
    window.set_sentence("a (really b !)", run=True)
    assert "Unknown words (read as <unk>): “(really”, “!)”" in window.notice.text()
