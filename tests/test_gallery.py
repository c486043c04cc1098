"""The book's figures: each renders to a real picture, and the numbers match the book's closed forms."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from attnviz import gallery
from attnviz.figures.spec import LineSpec
from attnviz.gui import file_dialogs
from tests.helpers import WAIT_MS, colour_count, pixels, run_cli


@pytest.mark.parametrize("entry", gallery.GALLERY, ids=lambda entry: entry.key)
def test_every_book_figure_renders_to_a_real_picture(qapp, entry):
    from attnviz.render.figure_painter import figure_image

    spec = entry.build()
    assert spec.title and np.asarray(spec.values).size
    assert colour_count(pixels(figure_image(spec, 1.0))) > 10  # drawn, not a blank page


def test_the_toy_examples_give_exactly_one_half_and_one_sixth():
    expected = np.zeros((2, 10))
    expected[0, :2], expected[1, :6] = 1 / 2, 1 / 6
    for weights in (gallery.additive_toy_weights(), gallery.dot_product_toy_weights()):
        np.testing.assert_allclose(weights[:, 0].numpy(), expected, atol=1e-6)
        assert np.all(weights[0, 0, 2:].numpy() == 0) and np.all(weights[1, 0, 6:].numpy() == 0)


def test_masked_softmax_figures_zero_the_masked_keys_exactly():
    one_d = gallery.masked_softmax_example().values  # (1, 2, Q, K)
    assert np.all(one_d[0, 0, :, 2:] == 0) and np.all(one_d[0, 1, :, 3:] == 0)
    np.testing.assert_allclose(one_d.sum(-1), 1, rtol=1e-6)
    two_d = gallery.masked_softmax_2d_example().values
    assert np.all(two_d[0, 0, 0, 1:] == 0) and np.all(two_d[0, 0, 1, 3:] == 0) and np.all(two_d[0, 1, 0, 2:] == 0)


def test_positional_encoding_follows_the_formula():
    table = gallery.pe_table().values
    assert table.shape == (60, 32)
    p, i = 7, 5
    assert table[p, 2 * i] == pytest.approx(math.sin(p / 10000 ** (2 * i / 32)), abs=1e-6)
    assert table[p, 2 * i + 1] == pytest.approx(math.cos(p / 10000 ** (2 * i / 32)), abs=1e-6)


def test_the_paper_schedule_peaks_at_the_warm_up_step_and_scaling_keeps_the_softmax_soft():
    steps = np.arange(1, 20001)
    assert int(steps[np.argmax(gallery.transformer_lr(steps))]) == 4000
    _dims, spread, spread_scaled, entropy = gallery.scaling_effect(samples=500)
    assert spread[-1] > 10 * spread_scaled[-1]  # unscaled q·k spreads like √d
    assert entropy[1, -1] > 1.5 and entropy[0, -1] < 0.5  # scaled stays soft, unscaled saturates


def test_attnviz_figures_writes_the_pictures_their_numbers_and_an_index(qapp, capsys, tmp_path):
    out = tmp_path / "book"
    code, _stdout, err = run_cli(capsys, "figures", "--out", str(out), "--only", "10.3,paper-lr", "--format",
                                "png,svg,csv")
    assert code == 0, err
    keys = [e.key for e in gallery.entries(["10.3", "paper-lr"])]
    for key in keys:
        for fmt in ("png", "svg", "csv"):
            assert (out / f"{key}.{fmt}").is_file()
    index = (out / "index.html").read_text(encoding="utf-8")
    assert all(f'src="{key}.svg"' in index for key in keys) and "http" not in index.split("</style>")[1][:200]
    with open(out / "paper-lr-schedules.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    spec = gallery.lr_schedules()
    assert isinstance(spec, LineSpec) and rows[0] == ["series", "training step", "learning rate"]
    assert len(rows) - 1 == sum(len(s.x) for s in spec.series)
    code, _out, err = run_cli(capsys, "figures", "--out", str(out), "--only", "nonsense")
    assert code == 2 and "no book figure matches nonsense" in err


def test_help_book_figures_lists_the_gallery_and_shows_the_chosen_figure(window, qtbot, tmp_path, monkeypatch):

    dialog = window.open_book_figures()
    qtbot.waitExposed(dialog)
    leaves = [dialog.tree.topLevelItem(i).child(j) for i in range(dialog.tree.topLevelItemCount())
              for j in range(dialog.tree.topLevelItem(i).childCount())]
    assert [leaf.text(0) for leaf in leaves] == [e.caption for e in gallery.entries()]  # (supplementary last)
    assert not dialog.export_button.isEnabled()  # nothing chosen yet
    dialog.select("10.3-additive-toy")
    qtbot.waitUntil(lambda: dialog.book is not None, timeout=WAIT_MS)
    weights = np.asarray(dialog.book.figure.values)
    np.testing.assert_allclose(weights[0, 0, 0, :2], 1 / 2, atol=1e-6)  # the book's closed form, on screen
    assert dialog.view.figure is dialog.book.figure and not dialog.live_button.isEnabled()  # no live view for it
    assert colour_count(pixels(dialog.view)) > 10  # painted, not blank
    target = tmp_path / "toy"
    monkeypatch.setattr(file_dialogs, "save_file_name",
                        lambda *_args, **_kw: (str(target), "SVG vector image (*.svg)"))
    dialog.export_button.click()
    assert (tmp_path / "toy.svg").read_text(encoding="utf-8").startswith("<?xml")


def _shown_live(window, qtbot, key, checkpoint):
    """Help ▸ Book figures, entry ``key``, Show live; returns the dialog once ``checkpoint`` has decoded."""
    dialog = window.open_book_figures()
    dialog.select(key)
    qtbot.waitUntil(lambda: dialog.book is not None and dialog.live_button.isEnabled(), timeout=WAIT_MS)
    dialog.live_button.click()
    state = lambda: window.session.state  # noqa: E731
    qtbot.waitUntil(lambda: state().model is not None and state().model.path.name == checkpoint
                    and state().finished, timeout=WAIT_MS)
    return dialog


def test_a_book_figure_shown_live_loads_its_model_decodes_its_sentence_and_picks_its_view(window, qtbot):
    from attnviz.core.attention.kind import AttentionKind

    dialog = _shown_live(window, qtbot, "10.4-bahdanau-attention", "rnn-additive.safetensors")
    state = lambda: window.session.state  # noqa: E731
    assert window.sentence.text() == gallery.BOOK_SENTENCE and window.attention.kind is AttentionKind.CROSS
    np.testing.assert_allclose(window.attention.heatmap.values, dialog.book.figure.values, atol=1e-6)  # live = book
    dialog.select("10.2-bandwidths")
    qtbot.waitUntil(lambda: dialog.book is not None and dialog.book.entry.key == "10.2-bandwidths", timeout=WAIT_MS)
    dialog.live_button.click()
    qtbot.waitUntil(lambda: state().model is not None and state().model.family == "regression", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: window.docks["kernel"].isVisible(), timeout=WAIT_MS)


def test_one_query_recomputed_by_hand_equals_the_models_weights_and_shows_live(window, qtbot):
    figure = gallery.one_query_computed()
    by_hand, models = figure.values
    np.testing.assert_allclose(by_hand, models, atol=1e-5)
    assert by_hand.sum() == pytest.approx(1.0, abs=1e-5) and figure.col_labels[0] == "i"
    _shown_live(window, qtbot, "10.5-one-query", "transformer.safetensors")
    state = lambda: window.session.state  # noqa: E731
    qtbot.waitUntil(lambda: state().computation is not None, timeout=WAIT_MS)  # the dock follows the newest query
    assert window.docks["computation"].isVisible()
    assert state().computation.difference_from_model() < 1e-5


def test_each_task_has_a_gallery_entry_whose_attention_is_seen_to_align():
    """Watching attention learn: the stored run of each task, its map untrained, midway and trained, the trained
    one on the task's right alignment far more often than the untrained one."""
    from attnviz.core.learning.tasks import TASKS

    for task in TASKS:
        entry = next(e for e in gallery.GALLERY if e.key == f"learn-{task}")
        assert entry.section.number("0.17") == entry.section.number("1.0") == "attnviz"
        figure = entry.build()
        untrained, midway, trained = (name.split("agreement ")[1] for name in figure.col_names)
        assert figure.values.shape[:2] == (1, 3) and figure.col_names[0].startswith("untrained: step 0 ")
        assert int(trained.rstrip(" %")) >= 90 > int(untrained.rstrip(" %")) + 40
        assert int(untrained.rstrip(" %")) <= int(midway.rstrip(" %")) <= int(trained.rstrip(" %"))
        assert np.allclose(figure.values[0, 2].sum(-1), 1, atol=2e-3)  # attention rows (rounded when stored)


def _saturated_rows(picture: np.ndarray, x: int) -> np.ndarray:
    """The rows whose pixel in column ``x`` is coloured (not white, grey or black text)."""
    column = picture[:, 4 * x: 4 * x + 3].astype(int)  # (B, G, R of RGB32)
    return np.flatnonzero(column.max(axis=1) - column.min(axis=1) > 60)


def _dark_rows(picture: np.ndarray, left: int, right: int) -> np.ndarray:
    """The rows with text (a dark pixel) between columns ``left`` and ``right``."""
    band = picture[:, 4 * left: 4 * right].reshape(picture.shape[0], -1, 4)[..., :3]
    return np.flatnonzero((band.max(axis=2) < 160).any(axis=1))


def test_the_trained_models_positional_encoding_has_a_colour_bar_as_high_as_its_map(qapp, capsys, tmp_path):
    """10.6-pe-model is wide and low (32 positions × 256 dimensions): its colour bar spans the map's rows, not a
    taller minimum, so the dimension axis' name sits right under the tick labels beside the bar. Measured in
    the PNG `attnviz figures` writes (scale 2)."""
    from attnviz.render.figure_painter import _fonts, _layout

    code, _stdout, err = run_cli(capsys, "figures", "--out", str(tmp_path), "--only", "10.6-pe-model", "--format",
                                 "png")
    assert code == 0, err
    spec, scale = gallery.pe_of_model(), 2
    layout = _layout(spec, *_fonts())
    assert (layout.bar.top(), layout.bar.bottom()) == (layout.grid.top(), layout.grid.bottom())
    picture = pixels(tmp_path / "10.6-pe-model.png")
    assert picture.shape[0] == round(layout.height * scale)
    grid = _saturated_rows(picture, int((layout.grid.right() - layout.cell / 2) * scale))  # the last column: red
    bar = _saturated_rows(picture, int(layout.bar.center().x() * scale))  # red at the top … blue at the bottom
    assert grid.size >= 0.9 * layout.grid.height() * scale
    assert abs(bar[0] - grid[0]) <= 1 and abs(bar[-1] - grid[-1]) <= 1, (bar[[0, -1]], grid[[0, -1]])
    # below the map: the rotated tick labels, then the axis' name a few pixels under them, then the margin
    below = _dark_rows(picture, int(layout.grid.left() * scale), int(layout.grid.right() * scale))
    below = below[below > layout.grid.bottom() * scale + 2]
    gaps = np.diff(below)
    assert gaps.max() < 12 * scale  # (before, a 120 px bar pushed the name 50 px further down)
    assert picture.shape[0] - below[-1] < 16 * scale


def test_other_maps_keep_their_colour_bar(qapp):
    """A map lower than 120 px keeps a 120 px bar unless its figure asks otherwise (only 10.6-pe-model does)."""
    from attnviz.render.figure_painter import _fonts, _layout

    small = gallery._heat(np.eye(3, dtype=np.float32), "three")
    layout = _layout(small, *_fonts())
    assert layout.grid.height() < 120 and layout.bar.height() == 120
    table = _layout(gallery.pe_table(), *_fonts())
    assert table.bar.height() == table.grid.height() > 120
