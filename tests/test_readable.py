"""Every word readable from the back of the room: token labels, the All heads grid, titles, legends,
colour-bar ends and what an empty figure says."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from attnviz.core.attention.kind import AttentionKind
from attnviz.figures.spec import FigureSpec, bar_ticks
from attnviz.gui.decoding_area import FIRST_STEP_HINT
from attnviz.gui.heatmap import Heatmap
from attnviz.render.figure_painter import (
    MASK_FILL,
    MASK_HATCH,
    colour_bar_ticks,
    column_ticks,
    elided_title,
    wrapped_title,
)
from tests.helpers import open_window, settle

SENTENCE = "i think we should go home before it rains ."  # 10 source words
UNKNOWN_WORDS = "think we go before rains a b c d e"  # 10 tokens the tiny model keeps as typed


def _sentence_figure(rows: int = 6) -> FigureSpec:
    words = tuple(SENTENCE.split())
    queries = ("<bos>", "je", "pense", "que", "nous", "devrions")[:rows]
    values = np.random.default_rng(0).random((rows, len(words))).astype(np.float32)
    return FigureSpec(values, queries, words, "transformer · cross-attention · layer 1 · head 1 · step 6")


@pytest.mark.parametrize("size", [(520, 600), (340, 560)])  # the Attention dock at 1280×800 and at 1024×700
def test_every_source_word_is_labelled_rotated_when_a_cell_is_a_line_wide(qtbot, size):
    heatmap = Heatmap()
    qtbot.addWidget(heatmap)
    heatmap.resize(*size)
    heatmap.show_figure(_sentence_figure())
    layout = heatmap.figure_layout()
    assert layout.grid.width() / 10 >= heatmap._metrics.height()  # a cell is at least a text line wide …
    assert [text for _, text in layout.col_ticks] == SENTENCE.split()  # … so every word is there
    assert layout.rotated  # ("before" is wider than its cell: it reads upwards)
    assert [text for _, text in layout.row_ticks] == list(heatmap.row_labels)
    assert layout.grid.bottom() + layout.col_label_height <= size[1]


def test_labels_thin_only_below_a_line_and_the_hover_read_out_has_the_rest(qtbot):
    heatmap = Heatmap()
    qtbot.addWidget(heatmap)
    heatmap.resize(180, 400)  # 10 columns in ~100 px: below a line each
    heatmap.show_figure(_sentence_figure())
    layout = heatmap.figure_layout()
    shown = [i for i, _ in layout.col_ticks]
    assert layout.grid.width() / 10 < heatmap._metrics.height() and 1 < len(shown) < 10
    hidden = next(i for i in range(10) if i not in shown)
    assert f"keys {SENTENCE.split()[hidden]}:" in heatmap.cell_text(0, hidden)
    heatmap.setToolTip("what the figure shows")
    heatmap.show()
    at = heatmap.cell_rect(0, hidden).center().toPoint()
    QtWidgets.QApplication.sendEvent(heatmap, QtGui.QHelpEvent(QtCore.QEvent.Type.ToolTip, at,
                                                               heatmap.mapToGlobal(at)))
    assert QtWidgets.QToolTip.text() == f"{heatmap.cell_text(0, hidden)}\nwhat the figure shows"


def test_the_live_view_and_the_export_label_the_same_way():
    words = tuple(SENTENCE.split())
    metrics = QtGui.QFontMetricsF(QtGui.QFont())
    ticks, rotated = column_ticks(words, 20.0, metrics.height(), metrics.horizontalAdvance)
    assert rotated and [t for _, t in ticks] == list(words)
    ticks, rotated = column_ticks(words, 80.0, metrics.height(), metrics.horizontalAdvance)
    assert not rotated and len(ticks) == len(words)


def test_the_real_window_labels_every_source_word(window, qtbot):
    window.resize(1280, 800)
    window.set_sentence(UNKNOWN_WORDS, run=True)
    window.attention.select_view(AttentionKind.CROSS, 0, 0)
    heatmap = window.attention.heatmap
    qtbot.waitUntil(lambda: heatmap.figure_layout().grid.width() > 200, timeout=30000)
    layout = heatmap.figure_layout()
    assert [text for _, text in layout.col_ticks] == UNKNOWN_WORDS.split()


def _grid_cell_colour(grid, layer: int, head: int, row: int, col: int) -> QtGui.QColor:
    centre = grid.cell_rect(layer, head, row, col).center().toPoint()
    return grid.grab().toImage().pixelColor(centre)


def test_all_heads_has_a_colour_bar_labels_a_read_out_and_grey_masked_cells(window, qtbot):
    window.resize(1280, 800)
    window.set_sentence("a b c d e", run=True)
    panel = window.attention
    panel.select_view(AttentionKind.DECODER_SELF, 0, 0)
    panel.all_heads.setChecked(True)
    grid = panel.grid
    qtbot.waitUntil(lambda: grid.isVisible() and grid.width() > 200, timeout=30000)
    layout = grid.figure_layout()
    assert not layout.bar.isEmpty() and layout.bar.left() > layout.panels[0][-1].right()
    steps = len(window.session.state.steps)
    queries = window.session.state.step.query_tokens
    assert [t for _, t in layout.row_ticks] == list(queries)
    cell = layout.panels[0][0].width() / steps  # key labels under the last row: all that fit, in order
    shown = [i for i, _ in layout.col_ticks]
    assert [t for _, t in layout.col_ticks] == [queries[i] for i in shown] and shown[0] == 0
    assert len(shown) == steps or cell < grid._metrics.height()
    # a causal (future) cell: drawn as masked grey, not as weight 0
    colour = _grid_cell_colour(grid, 0, 0, 0, steps - 1)
    assert colour.rgb() in (MASK_FILL.rgb(), MASK_HATCH.rgb())
    panel.show_masked.setChecked(False)
    assert _grid_cell_colour(grid, 0, 0, 0, steps - 1).rgb() not in (MASK_FILL.rgb(), MASK_HATCH.rgb())
    panel.show_masked.setChecked(True)
    # the hover read-out: layer, head, query, key and weight
    at = grid.cell_rect(1, 2, steps - 1, 0).center().toPoint()
    QTest.mouseMove(grid, at)
    qtbot.waitUntil(lambda: "layer 2 · head 3" in panel.readout.text(), timeout=30000)
    weight = window.session.state.step.self_weights[1, 2, steps - 1, 0]
    assert f"query {queries[-1]} → key &lt;bos&gt;: weight {weight:.4f}" in panel.readout.text()
    QTest.mouseMove(grid, grid.cell_rect(0, 0, 0, steps - 1).center().toPoint())
    qtbot.waitUntil(lambda: panel.readout.text().endswith("masked"), timeout=30000)


def test_grid_labels_follow_the_widget_font(qtbot):
    from attnviz.gui.head_grid import HeadGrid

    grid = HeadGrid()
    qtbot.addWidget(grid)
    big = QtGui.QFont(grid.font())
    big.setPointSizeF(big.pointSizeF() * 2)
    grid.setFont(big)
    assert grid.label_font.pointSizeF() == big.pointSizeF() and grid.title_font.bold()


def test_chinese_head_names_keep_clear_of_the_panels_under_them(qtbot):
    """Issue 59 §4: after Book figures ▸ Show live, the Attention grid's column titles ("第 1 个头", glyphs from the
    carried CJK font, 17 px high) were given a 14 px line and ran into the panels under them."""
    from attnviz.figures.spec import GridSpec
    from attnviz.gui.head_grid import HeadGrid
    from attnviz.render.fonts import with_cjk_fallback

    grid = HeadGrid()
    qtbot.addWidget(grid)
    grid.setFont(with_cjk_fallback(grid.font()))  # (as the Chinese interface sets the application's font)
    words = ("i", "think", "that", "we", "should", "go", "home", ".")
    panel = FigureSpec(np.full((8, 8), 0.125, np.float32), words, words, "")
    names = tuple(f"第 {head} 个头" for head in range(1, 5))
    grid.show_grid(GridSpec((panel,) * 12, 4, "transformer · 编码器自注意力 · 所有头", (0.0, 1.0),
                            tuple(f"第 {layer} 层" for layer in range(1, 4)), names))
    grid.resize(383, 546)  # (its size in the window at 1024 × 768)
    layout = grid.figure_layout()
    metrics = QtGui.QFontMetricsF(grid.label_font)
    tallest = max(metrics.boundingRect(name).height() for name in names)
    assert tallest > metrics.height()  # (the case: CJK glyphs taller than the font's own line)
    name_room = layout.panels[0][0].top() - layout.title.bottom() - 2
    assert name_room >= tallest
    assert layout.title.height() >= QtGui.QFontMetricsF(grid.title_font).boundingRect(layout.title_text).height()


def test_a_cut_title_keeps_its_step_number_and_ends_its_cut_with_an_ellipsis():
    metrics = QtGui.QFontMetricsF(QtGui.QFont())
    title = "transformer · cross-attention · layer 1 · head 1 · step 6"
    for width in (300.0, 200.0, 120.0):
        cut = elided_title(metrics, title, width)
        assert cut.endswith(" · step 6") and "…" in cut and metrics.horizontalAdvance(cut) <= width
    assert elided_title(metrics, title, 2000.0) == title
    cut = elided_title(metrics, "Beam search · step 6 (4 kept, 2 ended)", 110.0)
    assert "step 6" in cut and cut.endswith("…")


def test_colour_bar_labels_both_ends():
    assert bar_ticks((-5.23, 3.71)) == [-5.23, -5.0, -2.5, 0.0, 2.5, 3.71]
    ticks = colour_bar_ticks(QtCore.QRectF(0, 0, 14, 200), (-5.23, 3.71), 15.0)
    assert ticks[0][0] == -5.23 and ticks[-1][0] == 3.71
    assert ticks[0][1] == 200 and ticks[-1][1] == 0  # the bottom end and the top end
    assert all(abs(y - 200) >= 15 and abs(y) >= 15 for _, y in ticks[1:-1])  # no inner text runs into an end


def test_before_the_first_step_the_empty_figures_say_what_to_do(window, qtbot):
    window.resize(1280, 800)
    window.set_sentence("a b c")
    assert window.session.state.step is None
    panel = window.attention
    panel.select_view(AttentionKind.CROSS, 0, 0)
    assert panel.heatmap.hint == FIRST_STEP_HINT and window.decoding_area.topk.hint == FIRST_STEP_HINT
    masks = window.panels.panels["masks"]
    assert masks.causal.hint == FIRST_STEP_HINT
    heatmap = panel.heatmap
    qtbot.waitUntil(lambda: heatmap.isVisible() and heatmap.height() > 100, timeout=30000)
    image = heatmap.grab().toImage()
    middle = [image.pixelColor(x, y) for x in range(0, heatmap.width(), 2)
              for y in range(heatmap.height() // 2 - 20, heatmap.height() // 2 + 30)]
    assert any(c.lightness() < 200 for c in middle)  # the hint is drawn across the middle
    window.step_action.trigger()
    assert panel.heatmap.hint == "" and window.decoding_area.topk.hint == ""


def test_scoring_bars_label_every_source_word_rotated(window, qtbot):
    window.resize(1280, 800)
    window.docks["scoring"].raise_()
    window.resizeDocks([window.docks["scoring"]], [400], QtCore.Qt.Orientation.Horizontal)
    window.set_sentence(UNKNOWN_WORDS, run=True)
    plot = window.panels.panels["scoring"].score_plot
    qtbot.waitUntil(lambda: plot.plot.getViewBox().sceneBoundingRect().width() > 250, timeout=30000)
    line = QtGui.QFontMetricsF(plot.plot.getAxis("bottom").font()).height()
    assert plot.plot.getViewBox().sceneBoundingRect().width() / 10 >= line  # a bar a line wide …
    ticks, rotated = plot.category_ticks("bottom")
    assert rotated and [t for _, t in ticks] == UNKNOWN_WORDS.split()  # … so every word, reading upwards
    axis = plot.plot.getAxis("bottom")
    widest = max(QtGui.QFontMetricsF(axis.font()).horizontalAdvance(w) for w in UNKNOWN_WORDS.split())
    assert axis.height() >= widest  # room under the bars for the longest word, reading upwards


@pytest.mark.parametrize("name", ["pe_curves", "lr_schedules", "nw_kernels", "why_scale", "layer_costs",
                                  "nw_nonparametric", "nw_parametric"])
def test_an_exported_legend_hides_no_data_and_the_title_is_whole(qapp, name):
    from attnviz import gallery
    from attnviz.render.figure_painter import _fonts, figure_size
    from attnviz.render.line_painter import data_points, line_layout

    spec = getattr(gallery, name)()
    font, bold = _fonts()
    layout = line_layout(spec, font, bold)
    points = data_points(spec, layout.plot, layout.x_range, layout.y_range)
    assert len(points) > 100 and not layout.legend.isEmpty()
    covered = [(x, y) for x, y in points if layout.legend.contains(QtCore.QPointF(x, y))]
    assert covered == []
    title_end = layout.plot.left() + QtGui.QFontMetricsF(bold).horizontalAdvance(spec.title)
    assert title_end <= figure_size(spec).width()  # "… Table 1 of the paper)" whole, not "… of the pa"
    metrics = QtGui.QFontMetricsF(font)
    assert layout.plot.left() >= metrics.height() + max(metrics.horizontalAdvance(t) for t in ("0.0006", "-0.5"))


def test_live_legends_sit_under_their_plots(window, qtbot, tmp_path):
    from attnviz.training.train import train_kernel_regression

    window.resize(1024, 700)
    train_kernel_regression(tmp_path / "kr.safetensors")
    window.load(tmp_path / "kr.safetensors")
    curves = window.panels.panels["kernel"].curves
    qtbot.waitUntil(lambda: curves.getViewBox().sceneBoundingRect().height() > 50, timeout=30000)
    settle(window)  # (the legend takes one or two columns as the plot's width allows, laid out after it)
    assert len(curves.legend.items) == 4
    assert curves.legend.sceneBoundingRect().top() >= curves.getViewBox().sceneBoundingRect().bottom()


def test_the_kernel_heatmap_ticks_are_round_with_both_ends_labelled(qtbot):
    from attnviz.render.figure_painter import _axis_ticks

    rng = np.random.default_rng(0)
    x_train = np.sort(rng.uniform(0.11, 4.93, 50))
    x_test = np.arange(0, 5, 0.1)
    spec = FigureSpec(rng.random((50, 50)).astype(np.float32), tuple(f"{x:.1f}" for x in x_test),
                      tuple(f"{x:.2f}" for x in x_train), "Attention weights", row_values=x_test, col_values=x_train)
    heatmap = Heatmap()
    qtbot.addWidget(heatmap)
    heatmap.resize(340, 520)
    heatmap.show_figure(spec)
    layout = heatmap.figure_layout()
    metrics = QtGui.QFontMetricsF(QtGui.QFont())
    for ticks, values in ((layout.row_ticks, x_test), (layout.col_ticks, x_train),
                          *zip(_axis_ticks(spec, 10.0, metrics)[:2], (x_test, x_train), strict=True)):
        texts = [t for _, t in ticks]
        assert texts[0] == f"{values[0]:.3g}" and texts[-1] == f"{values[-1]:.3g}"  # both ends
        assert len(texts) >= 3 and all(abs(float(t) * 2 - round(float(t) * 2)) < 1e-9 or abs(float(t) * 5 - round(
            float(t) * 5)) < 1e-9 for t in texts[1:-1])  # round values between them (…, 1, 2 or 0.2, 0.4 …)
        positions = [p for p, _ in ticks]
        assert positions == sorted(positions) and positions[0] == 0 and positions[-1] == len(values) - 1


def test_the_beam_tree_title_stays_in_sight_and_keeps_its_step(window, qtbot):
    window.resize(1024, 700)
    window.decoding_area.beam_box.setValue(3)
    window.docks["beams"].raise_()
    window.set_sentence("a b c d e", run=True)
    panel = window.panels.panels["beams"]
    title = panel.tree_title
    assert "step " in title.full and not panel.tree_area.isAncestorOf(title)  # over the scroll area, not in it
    step = title.full[title.full.index("step "):].split()[1]
    title.resize(120, title.height())
    assert "…" in title.text() and f"step {step}" in title.text()
    assert title.toolTip() == title.full


def test_all_heads_reads_out_scores_and_never_a_blank_score_as_nan(window, qtbot):
    window.resize(1280, 800)
    window.set_sentence("a b c d e", run=True)
    panel = window.attention
    panel.select_view(AttentionKind.DECODER_SELF, 0, 0)
    panel.scores.setChecked(True)
    panel.show_masked.setChecked(False)  # masked scores are then blank (NaN) cells
    panel.all_heads.setChecked(True)
    grid = panel.grid
    steps = len(window.session.state.steps)
    score = window.session.state.step.self_scores[0, 1, steps - 1, 0]
    assert grid.read_out(0, 1, steps - 1, 0).endswith(f"key <bos>: score {score:.4f}")
    assert grid.read_out(0, 1, 0, steps - 1).endswith(": masked")


def test_an_app_wide_font_size_reaches_the_heatmap_labels(qtbot, qapp):
    heatmap = Heatmap()
    qtbot.addWidget(heatmap)
    heatmap.resize(520, 600)
    heatmap.show_figure(_sentence_figure())
    line = heatmap.figure_layout().grid.top()
    original = QtGui.QFont(qapp.font())
    bigger = QtGui.QFont(original)
    bigger.setPointSizeF(original.pointSizeF() * 1.5)
    try:
        qapp.setFont(bigger)
        qtbot.waitUntil(lambda: heatmap.label_font.pointSizeF() == bigger.pointSizeF(), timeout=30000)
        assert heatmap.title_font.pointSizeF() == bigger.pointSizeF() and heatmap.title_font.bold()
        assert heatmap.figure_layout().grid.top() > line  # a taller title line: the layout follows
    finally:
        qapp.setFont(original)


def test_a_long_title_wraps_between_its_fields_before_anything_is_cut():
    metrics = QtGui.QFontMetricsF(QtGui.QFont())
    title = "transformer · cross-attention · layer 1 · head 1 · step 6"
    width = metrics.horizontalAdvance("transformer · cross-attention") + 2
    lines = wrapped_title(metrics, title, width, 2)
    assert lines == ["transformer · cross-attention", "layer 1 · head 1 · step 6"]  # every field, none cut
    assert wrapped_title(metrics, title, 2000.0, 2) == [title]
    three = wrapped_title(metrics, title, metrics.horizontalAdvance("cross-attention") + 2, 3)
    assert len(three) == 3 and three[-1].endswith("step 6") and "…" in three[-1]  # out of lines: cut, step kept
    words = wrapped_title(metrics, "Attention weights, non-parametric gaussian kernel, h = 1.00",
                          metrics.horizontalAdvance("non-parametric gaussian") + 2, 3)
    assert " ".join(words) == "Attention weights, non-parametric gaussian kernel, h = 1.00"  # one field: by words


def test_all_heads_labels_every_token_of_a_ten_word_sentence_at_1280_by_800(qtbot, tmp_path, errors):
    """Labels shrink (to 70 % of the window's text at least) before any token is thinned away."""
    from attnviz.paths import DEFAULT_CHECKPOINT

    window = open_window(qtbot, tmp_path, DEFAULT_CHECKPOINT, (1280, 800))
    window.set_sentence("i think we should go home before it rains .", run=True)
    window.attention.all_heads.setChecked(True)
    settle(window)
    grid = window.attention.grid
    layout = grid.figure_layout()
    rows, cols = grid._cells()
    assert cols == 10 and rows >= 10
    assert len(layout.row_ticks) == rows and [t for _, t in layout.col_ticks] == list(grid.spec.panels[0].col_labels)
    assert grid.label_font.pointSizeF() >= 0.7 * grid.font().pointSizeF() - 1e-6


def test_subword_pieces_too_many_to_label_show_their_words_not_every_other_piece(qtbot):
    """A Hugging Face model's pieces ("▁under", "·stand", "·ing"): where the axis cannot label every piece it
    labels the words they make, each centred on its pieces, so a word can be read back."""
    from attnviz.figures.spec import FigureSpec
    from attnviz.gui.heatmap import Heatmap

    words = [("▁under", "·stand", "·ing"), ("▁the",), ("▁trans", "·form", "·er"), ("▁is",), ("▁hard",)] * 3
    pieces = tuple(piece for word in words for piece in word)
    heatmap = Heatmap()
    qtbot.addWidget(heatmap)
    heatmap.resize(260, 260)
    heatmap.show_figure(FigureSpec(np.full((len(pieces), len(pieces)), 1 / len(pieces), np.float32), pieces, pieces,
                                   "pieces"))
    layout = heatmap.figure_layout()
    for ticks in (layout.row_ticks, layout.col_ticks):
        texts = [text.rstrip("…") for _, text in ticks]
        assert len(texts) < len(pieces) and all(t.startswith("▁") for t in texts)  # words, never a lone "·stand"
        assert any("▁understanding".startswith(t) and len(t) > len("▁under") for t in texts)
        assert ticks[0][0] == 1.0  # centred on its three pieces


def test_the_colour_bars_values_keep_their_room_after_the_labels_grew_back(qtbot):
    """Labels shrunk to fit a short widget, then the widget grew and they came back to the widget's font: the
    colour bar's widest value was still measured in the small font and ran past the widget's edge (the Head
    atlas at 1024 px cut "0.000604")."""
    from attnviz.gui.heatmap import MARGIN

    values = np.linspace(0.000604, 0.0402, 9 * 4).reshape(9, 4)
    spec = FigureSpec(values, tuple(f"enc-self {i}" for i in range(9)), ("1", "2", "3", "4"), "atlas",
                      levels=(float(values.min()), float(values.max())))
    heatmap = Heatmap()
    qtbot.addWidget(heatmap)
    heatmap.show_figure(spec)
    heatmap.show()
    full = QtGui.QFontInfo(heatmap.font()).pixelSize()
    for height in range(100, 400, 5):  # a height too short for nine rows in the widget's font: the labels shrink
        heatmap.resize(260, height)
        heatmap.figure_layout()
        if QtGui.QFontInfo(heatmap.label_font).pixelSize() < full:
            break
    assert QtGui.QFontInfo(heatmap.label_font).pixelSize() < full
    heatmap.resize(260, 600)  # room for every label in the widget's font again
    layout = heatmap.figure_layout()
    metrics = QtGui.QFontMetricsF(heatmap.label_font)
    assert QtGui.QFontInfo(heatmap.label_font).pixelSize() == full
    widest = max(metrics.horizontalAdvance(text) for text in ("0.000604", "0.0402"))
    assert layout.bar.right() + 5 + widest <= heatmap.width() - MARGIN + 0.5


def test_the_patching_tab_leaves_the_head_atlas_dock_as_narrow_as_the_atlas_alone(qtbot):
    """The Patching tab sits in the Head atlas dock, tabbed with the left docks: wider than the atlas, it would widen
    them all and take the Attention dock's room (All heads at 1280 × 800 then thinned its labels)."""
    from attnviz.gui.panels.heads import HeadsPanel

    panel = HeadsPanel()
    qtbot.addWidget(panel)
    assert panel.patching.minimumSizeHint().width() <= panel.atlas_page.minimumSizeHint().width()
