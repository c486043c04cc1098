"""A panel is its module and its row in gui/docks.py: the window docks it, feeds it the state and exports
its figure (Export, Copy, its own Export, its heatmap's context menu) with no code of its own."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.figures.spec import FigureSpec, NamedFigure, empty_figure, figure_stem_of
from attnviz.gui import docks, file_dialogs
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.render.figure_painter import figure_image
from attnviz.session import InlineRunner, SessionState, changed
from tests.helpers import pixels


class PositionsPanel(QtWidgets.QWidget):
    """A panel only this test has: each source token's position (0 to 1) as one heatmap row, and an Export
    button of its own."""

    export_requested = QtCore.Signal()

    def __init__(self, _session=None):
        super().__init__()
        self.heatmap = Heatmap()
        self.export_button = QtWidgets.QPushButton("Export…")
        self.export_button.clicked.connect(lambda: self.export_requested.emit())
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.export_button)
        layout.addWidget(self.heatmap, 1)

    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        if not changed(old, new, "shown_source"):
            return
        source = new.shown_source
        if source is None:
            self.heatmap.show_figure(empty_figure("Type a sentence"))
            return
        count = len(source.tokens)
        positions = np.arange(count, dtype=np.float32)[None, :] / max(count - 1, 1)
        self.heatmap.show_figure(FigureSpec(positions, ("position",), source.tokens, f"Positions · {source.text}"))

    def figure(self) -> NamedFigure | None:
        spec = self.heatmap.spec
        return NamedFigure("token-positions", spec) if spec.values.size else None


ROW = docks.PanelEntry("positions", "Positions", PositionsPanel, docks.Area.RightDockWidgetArea,
                       docks.family("translation"), figure=PositionsPanel.figure, main=True)


@pytest.fixture
def asked(monkeypatch, tmp_path) -> list[str]:
    """The file names the save dialog offers; it answers ``<tmp_path>/<offered name>`` as a PNG."""
    offered: list[str] = []

    def save_dialog(_parent, _title, start, _filters):
        offered.append(Path(start).name)
        return str(tmp_path / Path(start).name), "PNG image (*.png)"

    monkeypatch.setattr(file_dialogs, "save_file_name", save_dialog)
    return offered


def test_a_new_panel_is_one_row_docked_fed_and_exported(qtbot, tmp_path, tiny_models, monkeypatch, asked):
    monkeypatch.setattr(docks, "PANELS", (ROW, *docks.PANELS))  # the row, and nothing else
    window = MainWindow(Settings(tmp_path / "settings.ini"), InlineRunner())
    qtbot.addWidget(window)
    window.show()
    window.load(tiny_models["transformer"][0])
    window.set_sentence("a b c d", run=True)
    dock, panel = window.docks["positions"], window.panels.panels["positions"]
    assert dock.objectName() == "dock_positions" and dock.isVisibleTo(window)
    assert dock.toggleViewAction() in window.menus.view_menu.actions()
    assert panel.heatmap.col_labels == ("a", "b", "c", "d")  # it draws the session's state
    np.testing.assert_allclose(panel.heatmap.values, [[0, 1 / 3, 2 / 3, 1]], rtol=1e-6)
    expected = pixels(figure_image(panel.heatmap.spec, window.settings.export_scale))

    window.exports.export_action.trigger()  # Ctrl+E, the toolbar's Export: the main panel's figure
    assert asked == ["token-positions.png"]
    picture = QtGui.QImage(str(tmp_path / "token-positions.png"))
    assert not picture.isNull() and np.array_equal(pixels(picture), expected)
    (tmp_path / "token-positions.png").unlink()
    panel.export_button.click()  # its own Export
    panel.heatmap.export_requested.emit(panel.heatmap.spec)  # its heatmap's context menu
    assert asked[1:] == ["token-positions.png"] * 2
    assert np.array_equal(pixels(tmp_path / "token-positions.png"), expected)
    QtWidgets.QApplication.clipboard().clear()
    window.exports.copy_action.trigger()
    assert QtWidgets.QApplication.clipboard().image().size() == picture.size()


def test_each_panels_own_export_offers_the_name_its_row_gives(window, tiny_models, tmp_path, asked):
    """The Attention heatmap's and grid's context menus name the figure as Ctrl+E does; the beam tree's,
    Compare's button and any other heatmap name theirs."""
    window.beam_box.setValue(2)
    window.set_sentence("a b c d", run=True)
    attention = window.attention
    attention.heatmap.export_requested.emit(attention.heatmap.spec)
    shown = window.current_figure().stem
    attention.all_heads.setChecked(True)
    attention.grid.export_requested.emit()
    for name in ("beams", "compare", "masks"):
        window.docks[name].show()
        window.docks[name].raise_()
    window.panels.panels["beams"].tree.export_requested.emit()
    compare = window.panels.panels["compare"]
    compare.compare_with(tiny_models["rnn-dot"][0])
    compare.export_button.click()
    causal = window.panels.panels["masks"].causal
    causal.export_requested.emit(causal.spec)
    step = window.session.state.step.index + 1
    assert asked == [f"{shown}.png", f"cross_all-heads_step{step:02d}.png", "beam-tree.png", "compare.png",
                     f"{figure_stem_of(causal.spec.title)}.png"]
    assert shown.startswith("cross_layer") and all((tmp_path / name).is_file() for name in asked)
