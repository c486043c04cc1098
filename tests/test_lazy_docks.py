"""The docks' panels are built when first needed (gui/docks.py): a window never shown the Train, Kernel or
Positional tabs does not pay for them, yet looks and answers as if every panel had been built with it."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtWidgets

from attnviz.gui.panels.positional import PositionalPanel
from attnviz.gui.panels.train import TrainPanel
from attnviz.paths import MODELS_DIR
from tests.helpers import open_window, settle


def _layout(window) -> tuple:
    """Every dock's geometry and whether it is on screen, the central widget's geometry, the window's size and
    least size."""
    docks = tuple((name, dock.geometry().getRect(), dock.isVisible(), not dock.visibleRegion().isEmpty())
                  for name, dock in window.docks.items())
    least = window.minimumSizeHint()
    return docks, window.centralWidget().geometry().getRect(), window.size().toTuple(), least.toTuple()


@pytest.fixture
def lazy_window(window, qtbot, tmp_path):
    """A second window (the first one, ``window``, measured every panel of this process), at 1024 × 768."""
    def make(model: str, size: tuple[int, int] = (1024, 768)):
        opened = open_window(qtbot, tmp_path / model, MODELS_DIR / f"{model}.safetensors", size)
        settle(opened)
        return opened

    (tmp_path / "transformer").mkdir()
    (tmp_path / "vit").mkdir()
    return make


@pytest.mark.parametrize(("model", "size"), [("transformer", (1024, 768)), ("vit", (1280, 800))])
def test_the_window_is_laid_out_as_if_every_panel_were_built(lazy_window, model, size):
    """A tab behind another takes part in its dock area's least size: the docks not built yet ask for what their
    panels would, so building them all changes no geometry, and the window's least size stays the same."""
    window = lazy_window(model, size)
    assert not all(window.panels.panels.built(name) for name in window.panels.panels)
    before = _layout(window)
    window.panels.build_all()
    settle(window)
    assert _layout(window) == before


def test_a_tab_shown_for_the_first_time_shows_the_state_at_once(lazy_window):
    window = lazy_window("transformer")
    dock = window.docks["positional"]
    assert not window.panels.panels.built("positional") and dock.visibleRegion().isEmpty()
    dock.raise_()
    settle(window)
    panel = window.panels.panels["positional"]
    assert isinstance(panel, PositionalPanel) and panel.isVisible() and dock.widget() is panel
    assert not panel.visibleRegion().isEmpty()  # drawn in the dock, not an empty dock
    expected = window.session.state.model.positional_table
    assert expected is not None and np.array_equal(panel.table, expected)  # the model's table, drawn
    assert panel.table_view.values.size > 0


def test_the_train_tab_built_later_is_in_its_scroll_area_and_wired(lazy_window, monkeypatch):
    window = lazy_window("transformer")
    assert not window.links.training  # (asking does not build it)
    assert not window.panels.panels.built("train")
    window.docks["train"].raise_()
    settle(window)
    panel = window.panels.panels["train"]
    area = window.docks["train"].widget()
    assert isinstance(panel, TrainPanel) and isinstance(area, QtWidgets.QScrollArea) and area.widget() is panel
    panel.message.emit("a message from the Train dock")  # its requests reach the window
    assert window.statusBar().currentMessage() == "a message from the Train dock"


def test_a_text_size_change_reaches_the_panels_not_built_yet(lazy_window):
    """Presentation mode: the panels not shown yet follow it as those built do (a tab shown later is in the new
    size, and the layout is the one every panel built gives)."""
    window = lazy_window("transformer")
    window.presentation_action.trigger()
    settle(window)
    assert all(window.panels.panels.built(name) for name in window.panels.panels)
    font = QtWidgets.QApplication.font()
    window.docks["scoring"].raise_()
    settle(window)
    assert window.panels.panels["scoring"].font() == font
    window.presentation_action.trigger()
