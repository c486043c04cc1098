"""A saved session whose view is All heads opens into the grid (the monkey test found the window
re-applying the saved view from inside its own redraw, without end, when the grid's job ran at once)."""

from __future__ import annotations

from pathlib import Path

from attnviz.core.attention.kind import AttentionKind
from attnviz.figures.attention import AttentionView
from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.session import InlineRunner


def test_a_session_saved_with_all_heads_opens_into_the_grid(window, qtbot, tmp_path: Path):
    window.set_sentence("a b c", run=True)
    window.attention.set_view(AttentionView(AttentionKind.CROSS, 1, 0, all_heads=True))
    path = window.save_session(tmp_path / "grid.attnviz.json")

    other = MainWindow(Settings(tmp_path / "other.ini"), InlineRunner())  # the grid's job runs at once
    qtbot.addWidget(other)
    other.show()
    assert other.open_session(path)
    assert other.attention.view().all_heads and other.attention.all_heads.isChecked()
    assert other.attention.grid.spec is not None and other.attention.grid.shape == (2, 4)  # 2 layers × 4 heads


def test_the_attention_check_boxes_are_as_the_user_left_them_after_a_restart(window, qtbot, tiny_models):
    """All heads, Pre-softmax scores and Show masked cells come back on the next start (the lecture view's own
    switching All heads off for its large map is not remembered)."""
    window.set_sentence("a b c", run=True)
    window.attention.all_heads.click()
    window.attention.scores.click()
    window.attention.show_masked.click()
    assert window.session.state.view.all_heads and window.session.state.view.scores
    window.lecture.enter()
    window.lecture.leave()
    window.settings.sync()

    again = MainWindow(Settings(window.settings.path), InlineRunner())
    qtbot.addWidget(again)
    again.show()
    again.load(tiny_models["transformer"][0])
    again.set_sentence("a b c", run=True)
    view = again.session.state.view
    assert (view.all_heads, view.scores, view.show_masked) == (True, True, False)
    assert again.attention.all_heads.isChecked() and again.attention.scores.isChecked()
    assert not again.attention.show_masked.isChecked()
