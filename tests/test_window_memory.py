"""What the window keeps does not grow with use (issue 46 §5: 439 MB → 1,169 MB over 5,000 random actions).

Counts, not RSS: the lecture view gives back the widgets it made, a heatmap keeps the laid-out labels of the
last two label sizes it painted and a bounded number of label widths, an image of no pixels holds no memory,
and the session remembers the last SENTENCES_KEPT sentences. ``bench/monkey_window.py`` measures the RSS."""

from __future__ import annotations

import gc
import sys

import numpy as np
from PySide6 import QtCore, QtWidgets

from attnviz.figures.spec import FigureSpec
from attnviz.gui import heatmap as heatmap_module
from attnviz.gui.heatmap import Heatmap
from attnviz.render.figure_painter import qimage_of
from attnviz.session import base
from tests.helpers import settle


def _deleted_later() -> None:
    """Run Qt's deferred deletions now (the app's event loop runs them between two events)."""
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)


def _figure(words: tuple[str, ...]) -> FigureSpec:
    values = np.linspace(0, 1, len(words) ** 2, dtype=np.float32).reshape(len(words), len(words))
    return FigureSpec(values, words, words, "labels")


def test_a_heatmap_keeps_the_laid_out_labels_of_the_two_label_sizes_it_painted_last(qtbot):
    heatmap = Heatmap()
    qtbot.addWidget(heatmap)
    heatmap.resize(700, 600)
    heatmap.show()
    words = tuple(f"w{i}" for i in range(12))
    heatmap.show_figure(_figure(words))
    for _cycle in range(3):  # the lecture view's sizes, one after another, as window sizes change
        for pixels in (26, 23, 20, 17, 14):
            heatmap.set_label_pixels((pixels, pixels))
            heatmap.grab()  # painted at that size
    _widths, texts = heatmap.kept_labels()
    assert texts <= 2 * (len(words) + 4)  # (the words, and the colour bar's ticks): two sizes, not fifteen
    assert heatmap.label_font.pixelSize() == 14
    assert [text for _, text in heatmap.figure_layout().col_ticks] == list(words)  # still every label, whole


def test_a_heatmap_shown_new_words_again_and_again_keeps_a_bounded_number_of_labels(qtbot, monkeypatch):
    monkeypatch.setattr(heatmap_module, "KEPT_LABELS", 50)
    heatmap = Heatmap()
    qtbot.addWidget(heatmap)
    heatmap.resize(700, 600)
    heatmap.show()
    for sentence in range(20):  # 20 sentences of 10 words never seen before: 200 labels
        words = tuple(f"s{sentence}w{i}" for i in range(10))
        heatmap.show_figure(_figure(words))
        heatmap.grab()
    widths, texts = heatmap.kept_labels()
    assert 0 < widths <= 50 * heatmap_module.KEPT_SIZES and 0 < texts <= 50 * heatmap_module.KEPT_TEXT_SIZES
    assert [text for _, text in heatmap.figure_layout().col_ticks] == list(words)


def test_an_image_of_no_pixels_holds_no_memory():
    for shape in ((0, 0), (0, 7), (5, 0)):
        pixels = np.zeros(shape, np.uint32)
        held = sys.getrefcount(pixels)
        for _ in range(10):
            image = qimage_of(pixels)
            assert image.isNull()
            del image
        gc.collect()
        assert sys.getrefcount(pixels) == held  # (before: each image kept its empty buffer for ever)
    pixels = np.full((2, 3), 0xFF112233, np.uint32)
    assert qimage_of(pixels).pixel(2, 1) == 0xFF112233


def test_the_lecture_view_and_presentation_mode_again_and_again_leave_no_widgets_behind(window, qtbot):
    """A cycle of a user's actions, repeated: the same widgets and Qt objects afterwards as after the first."""
    window.resize(1024, 768)
    sentences = ("a b c", "b c d", "c d e f", "d e f g a", "e f g", "f g a b", "g a b c d")

    def cycle(number: int) -> None:
        window.set_sentence(sentences[number % len(sentences)])
        window.step_action.trigger()
        window.lecture.action.trigger()  # F5: in
        settle(window)
        window.step_action.trigger()
        window.lecture.action.trigger()  # and out
        window.presentation_action.trigger()
        window.presentation_action.trigger()
        window.attention.all_heads.toggle()
        settle(window)
        _deleted_later()

    def counts() -> tuple[int, int]:
        gc.collect()
        return len(QtWidgets.QApplication.allWidgets()), len(window.findChildren(QtCore.QObject))

    for number in range(2):
        cycle(number)
    after_two = counts()
    for number in range(2, 8):
        cycle(number)
    assert counts() == after_two  # (before: a title bar widget more each time the lecture view was entered)
    assert not window.lecture.active and window.docks["attention"].titleBarWidget() is None


def test_the_session_remembers_its_last_sentences_for_the_head_atlas(window, monkeypatch):
    monkeypatch.setattr(base, "SENTENCES_KEPT", 3)
    for sentence in ("a b", "b c", "a b", "c d", "d e", "e f"):
        window.set_sentence(sentence)
    assert window.session.sentences_seen == ["c d", "d e", "e f"]  # each once, the oldest dropped
