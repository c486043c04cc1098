"""The Explain dock on an image model: the image on show explained by its predicted class (or another of its top
classes), one overlay per method over the picture — the same numbers as the core's own explain_image — and the τ
of every pair of methods."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.figures.spec import GridSpec
from tests.helpers import WAIT_MS, raised
from tests.vit_images import save_tiny_vit


@pytest.fixture(scope="module")
def vit_path(tmp_path_factory) -> Path:
    return save_tiny_vit(tmp_path_factory.mktemp("vit"))


@pytest.fixture()
def image_file(tmp_path) -> Path:
    path = tmp_path / "noise.png"
    rng = np.random.default_rng(2)
    Image.fromarray((rng.random((8, 8)) * 255).astype(np.uint8), mode="L").save(path)
    return path


def _explained(window, qtbot, panel):
    panel.explain()
    qtbot.waitUntil(lambda: window.session.state.explanation is not None, timeout=WAIT_MS)
    return window.session.state.explanation


def test_the_image_on_show_is_explained_over_its_patches_as_the_core_explains_it(window, qtbot, errors, vit_path,
                                                                                image_file):
    from attnviz.core.explain import explain_image
    from attnviz.core.images import open_image

    window.load(vit_path)
    window.session.open_image(image_file)
    assert window.docks["explain"].isVisibleTo(window)  # the dock applies to an image model
    panel = raised(window, "explain")
    explanation = _explained(window, qtbot, panel)
    source = window.session.state.shown_source
    assert source.text == "noise.png" and explanation.token == source.classes[0]
    loaded = load_checkpoint(vit_path)
    expected = explain_image(loaded, open_image(image_file), layer=1)
    assert explanation.methods == expected.methods == ("attention", "rollout", "grad_x_input", "ig", "occlusion")
    np.testing.assert_allclose(explanation.rows, expected.rows, rtol=1e-4, atol=1e-7)
    figure = panel.figure()
    assert isinstance(figure, GridSpec) and len(figure.panels) == 5
    peak = np.abs(expected.rows).max(axis=1, keepdims=True)
    np.testing.assert_allclose(figure.values.reshape(5, 4), expected.rows / peak, rtol=1e-4, atol=1e-6)
    assert all(p.picture is not None and p.picture.shape == (8, 8, 3) for p in figure.panels)  # over the image
    assert "noise.png" in figure.title and explanation.token in figure.title
    np.testing.assert_allclose(panel.agreement.spec.values, np.nan_to_num(expected.kendall), atol=1e-9)
    assert "Integrated gradients" in panel.summary.text()
    assert window.current_figure() is not None
    panel.layer_box.setValue(1)  # layer 1, head 2: the attention row follows
    panel.head_box.setCurrentIndex(panel.head_box.findData(1))
    qtbot.waitUntil(lambda: window.session.state.explanation is not None
                    and window.session.state.explanation.head == 1, timeout=WAIT_MS)
    head = explain_image(loaded, open_image(image_file), layer=0, head=1)
    np.testing.assert_allclose(window.session.state.explanation.row("attention"), head.row("attention"), atol=1e-6)
    other = source.classes[1]  # another of its top classes explained instead
    panel.token_box.setCurrentIndex(panel.token_box.findData(other))
    qtbot.waitUntil(lambda: window.session.state.explanation is not None
                    and window.session.state.explanation.token == other, timeout=WAIT_MS)
    candidate = explain_image(loaded, open_image(image_file), layer=0, head=1, target=other)
    np.testing.assert_allclose(window.session.state.explanation.rows, candidate.rows, rtol=1e-4, atol=1e-7)
    assert not errors, errors


def test_the_overlays_of_a_narrow_dock_are_laid_out_in_the_columns_that_draw_them_largest(qtbot):
    """Five 7 × 7 overlays under a long title in a dock 380 px wide: in one row under a one-line title they were drawn
    ~50 px wide with ~5-px titles; reflowed, in fewer columns under the title wrapped, each is drawn larger, and a
    click still names the panel, row and column under it."""
    from dataclasses import replace

    from PySide6 import QtCore

    from attnviz.figures.spec import FigureSpec
    from attnviz.gui.panels.image import FigureCanvas
    from attnviz.render.figure_painter import figure_size

    labels = tuple(f"r{i}" for i in range(7))
    panels = tuple(FigureSpec(np.full((7, 7), i / 5, np.float32), labels, labels, name, levels=(-1.0, 1.0),
                              colour_bar=False, max_grid_px=160.0, row_axis="", col_axis="", ticks=False)
                   for i, name in enumerate(("raw", "rollout", "grad × input", "IG", "occlusion")))
    title = "vit · 0-t-shirt-top.png · What explains “T-shirt/top”: one overlay per method, each scaled to its largest"
    grid = GridSpec(panels, 5, title, (-1.0, 1.0), ("T-shirt/top",), tuple(p.title for p in panels))
    canvas = FigureCanvas(reflow=True)
    qtbot.addWidget(canvas)
    canvas.resize(380, 330)
    canvas.show_figure(grid)
    shown = canvas.shown_figure()
    assert shown.columns < 5 and shown.title == ""
    assert [(p.title, p.values.tobytes()) for p in shown.panels] == [(p.title, p.values.tobytes()) for p in panels]
    scale, left, top = canvas._placement()
    one_row = min(380 / figure_size(grid).width(), 330 / figure_size(grid).height())
    drawn = shown.panels[0].max_grid_px * scale  # px of an overlay's cells on screen
    assert drawn > 1.5 * 160.0 * one_row  # each overlay drawn half as large again at least
    assert top >= canvas.title_rect().bottom() > 2 * canvas.fontMetrics().height()  # the title wrapped, above
    assert canvas.figure is grid  # (Export writes the figure as it is)
    clicked = []
    canvas.clicked.connect(lambda *cell: clicked.append(cell))
    from attnviz.render.figure_painter import _fonts, _grid_layout, _layout

    layout = _grid_layout(shown)
    inner = _layout(panels[3], *_fonts()).grid  # panel 4 ("IG"): its cell (row 2, column 5)
    row, col = divmod(3, shown.columns)
    x = layout.origin.x() + col * layout.panel.width() + inner.left() + (5 + 0.5) * inner.width() / 7
    y = layout.origin.y() + row * layout.panel.height() + inner.top() + (2 + 0.5) * inner.height() / 7
    qtbot.mouseClick(canvas, QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(round(left + x * scale),
                                                                                 round(top + y * scale)))
    assert clicked == [(3, 2, 5)]
    canvas.reflow = False  # (the image dock's All heads keeps layers as rows)
    canvas.show_figure(replace(grid))
    assert canvas.shown_figure().columns == 5
