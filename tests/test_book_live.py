"""Help ▸ Book figures ▸ Show live: whatever the window showed before, it then shows exactly the book
figure — same model, sentence, last step, attention kind, layer/head or all heads, computed query,
kernel, bandwidth and query point."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore

from attnviz import gallery
from attnviz.core.attention.kind import AttentionKind
from attnviz.figures.attention import AttentionView
from attnviz.figures.spec import GridSpec, LineSpec

LIVE_ENTRIES = [entry for entry in gallery.GALLERY if entry.live is not None]


def _disturb(window) -> None:
    """Leave the window the way a user might have: a beam search, scores instead of weights, another
    kind, layer and head; another kernel, bandwidth, query point and heatmap."""
    from PySide6 import QtWidgets

    state = window.session.state
    window.beam_box.setValue(3)
    if state.decodes and state.shown_source is not None:
        window.panels.ensure_current("attention")
        window.attention.set_view(AttentionView(AttentionKind.DECODER_SELF, 5, 7, scores=True, show_masked=False,
                                                all_heads=not window.attention.all_heads.isChecked()))
    if state.model is not None and state.model.family == "regression":
        kernel = window.panels.panels["kernel"]
        kernel.heatmap_model.setCurrentIndex(1 - kernel.heatmap_model.currentIndex())
        window.session.fit_kernel("boxcar", 0.3, 4.0)
    QtWidgets.QApplication.processEvents()


def _show_live(window, qtbot, dialog, entry) -> None:
    """Choose ``entry`` in the dialog, press Show live, wait until the window has done what it asked."""
    dialog.select(entry.key)
    qtbot.waitUntil(lambda: dialog.book is not None and dialog.book.entry.key == entry.key
                    and dialog.live_button.isEnabled(), timeout=30000)
    dialog.live_button.click()
    live, state = entry.live, lambda: window.session.state

    def applied() -> bool:
        now = state()
        if window.live_view.pending is not None or now.busy or now.model is None:
            return False
        if now.model.path.name != live.checkpoint:
            return False
        if live.image:
            return now.shown_source is not None and now.shown_source.text == live.image
        if live.kernel:
            return now.kernel is not None
        if live.dock == "computation":
            return now.computation is not None
        if live.compare_with:
            return now.comparison is not None and now.compared_with.endswith(live.compare_with)
        return now.finished

    qtbot.waitUntil(applied, timeout=30000)
    window.panels.ensure_current(live.dock)


def _curves(panel) -> list[tuple[np.ndarray, np.ndarray]]:
    return [tuple(np.asarray(a, np.float64) for a in item.getData())
            for item in (panel.points, panel.truth, panel.nonparametric, panel.parametric)]


def _check_kernel_panel(window, entry, figure) -> None:
    panel, live = window.panels.panels["kernel"], entry.live
    assert window.docks["kernel"].isVisible()
    assert (panel.kernel_box.currentText(), panel.bandwidth.value(), panel.query_line.value()) == \
        (live.kernel, pytest.approx(live.bandwidth), pytest.approx(live.query_x)), entry.key
    if isinstance(figure, LineSpec):  # every line of the figure is a line of the window
        shown = _curves(panel)
        for series in figure.series:
            assert any(x.shape == series.x.shape and np.allclose(x, series.x) and np.allclose(
                y, series.y, atol=1e-5, equal_nan=True) for x, y in shown), f"{entry.key}: {series.name} not shown"
    elif isinstance(figure, GridSpec):  # one panel of the bandwidths: the one at the live bandwidth
        chosen = next(p for p in figure.panels if p.title == f"h = {live.bandwidth:g}")
        np.testing.assert_allclose(panel.heatmap.values, chosen.values, atol=1e-6, err_msg=entry.key)
    else:
        np.testing.assert_allclose(panel.heatmap.values, figure.values, atol=1e-6, err_msg=entry.key)


def _check_attention_panel(window, entry, figure) -> None:
    from attnviz.render.figure_painter import argb_pixels

    panel = window.attention
    assert window.sentence.text() == gallery.BOOK_SENTENCE and window.beam_box.value() == 1
    shown = panel.figure().spec
    assert type(shown) is type(figure) and shown.title in figure.title, entry.key
    np.testing.assert_allclose(shown.values, figure.values, atol=1e-6, err_msg=entry.key)
    if isinstance(figure, GridSpec):  # the grid on screen: every head's picture is the figure's
        assert panel.stack.currentWidget() is panel.grid and panel.grid.shape == figure.values.shape[:2]
        heads = figure.values.shape[1]
        for index, (pixels, _image) in enumerate(panel.grid._images):  # layer by layer, head by head
            layer, head = divmod(index, heads)
            expected = argb_pixels(figure.values[layer, head], figure.levels, "viridis")
            assert np.array_equal(pixels, expected), f"{entry.key}: layer {layer + 1} head {head + 1}"
    else:
        assert panel.stack.currentWidget() is panel.heatmap, entry.key
        np.testing.assert_allclose(panel.heatmap.values, figure.values, atol=1e-6, err_msg=entry.key)


def _check_computation(window, entry, figure) -> None:
    comp = window.session.state.computation
    assert window.panels.panels["computation"].computation is comp and window.docks["computation"].isVisible()
    np.testing.assert_allclose(np.stack([comp.weights, comp.model_weights]), figure.values, atol=1e-6)
    assert comp.key_tokens == figure.col_labels and repr(comp.query_token) in figure.title
    assert f"layer {comp.layer + 1} · head {comp.head + 1}" in figure.title


def _check_compare_panel(window, entry, figure) -> None:
    panel = window.panels.panels["compare"]
    assert window.docks["compare"].isVisible() and window.sentence.text() == gallery.BOOK_SENTENCE
    assert panel.model_box.currentText() == entry.live.compare_with.removesuffix(".safetensors")
    shown = panel.figure()
    assert shown is not None and len(shown.panels) == len(figure.panels) == 3
    for on_screen, in_figure in zip(shown.panels, figure.panels, strict=True):
        np.testing.assert_allclose(on_screen.values, in_figure.values, atol=1e-6, err_msg=entry.key)
        assert on_screen.row_labels == in_figure.row_labels and on_screen.col_labels == in_figure.col_labels


def test_show_live_puts_the_window_into_each_figures_state(window, qtbot):
    dialog = window.open_book_figures()
    for entry in LIVE_ENTRIES:  # in the book's order: Bahdanau (rnn-additive) is followed by 10.5's Transformer
        _disturb(window)
        _show_live(window, qtbot, dialog, entry)
        figure = dialog.book.figure  # the gallery's figure, as the dialog shows it (entry.build())
        assert dialog.book.entry.key == entry.key
        assert not dialog.isVisible()  # the dialog steps aside: the window it covered shows the figure
        if entry.live.image:  # a vision figure: the shipped ViT on the figure's sample, in the dock that shows it
            assert window.session.state.model.path.name == "vit.safetensors"
            assert window.docks[entry.live.dock].isVisible()
            if entry.live.dock == "image":
                assert window.panels.panels["image"].name.text() == gallery.VISION_SAMPLE
        elif entry.live.kernel:
            _check_kernel_panel(window, entry, figure)
        elif entry.live.dock == "computation":
            _check_computation(window, entry, figure)
        elif entry.live.compare_with:
            _check_compare_panel(window, entry, figure)
        elif entry.live.dock == "positional":
            assert window.docks["positional"].isVisible()
            np.testing.assert_allclose(window.panels.panels["positional"].table_view.values, figure.values,
                                       atol=1e-6)
        else:
            _check_attention_panel(window, entry, figure)
    assert {entry.live.dock for entry in LIVE_ENTRIES if entry.topic == "vision"} == {"attention", "image", "heads"}
    last = LIVE_ENTRIES[-1].key
    assert window.open_book_figures() is dialog and dialog.isVisible()  # Help ▸ Book figures: back, on that figure
    assert dialog.tree.currentItem().data(0, QtCore.Qt.ItemDataRole.UserRole) == last
