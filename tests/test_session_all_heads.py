"""A saved session whose view is All heads opens into the grid (the monkey test found the window
re-applying the saved view from inside its own redraw, without end, when the grid's job ran at once)."""

from __future__ import annotations

from pathlib import Path

from attnviz.core.kinds import AttentionKind
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
