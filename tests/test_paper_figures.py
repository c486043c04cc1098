"""The figures of ``attnviz heads`` and ``attnviz explain`` say what they show: integer layer ticks, axes named
for their content (not "row of heads.csv"), the normalised importance the pruning order uses shown beside the raw
one, and a bar of a per-kind series standing on its own tick."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtGui

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.explain.corpus import CorpusTally
from attnviz.core.heads.atlas import HeadAtlas, KindAtlas
from attnviz.core.heads.statistics import names_for
from attnviz.figures.explain import layer_spearman_figures
from attnviz.figures.heads import atlas_figures, importance_figure
from attnviz.figures.spec import LineSpec, Series
from attnviz.render.figure_painter import _fonts, figure_image
from attnviz.render.line_painter import PALETTE, line_layout


def _atlas() -> HeadAtlas:
    rng = np.random.default_rng(0)
    kinds = []
    for kind in (AttentionKind.ENCODER_SELF, AttentionKind.CROSS):
        names = names_for(kind is AttentionKind.CROSS, True)
        importance = rng.random((2, 3))
        normalised = importance / np.linalg.norm(importance, axis=1, keepdims=True)
        kinds.append(KindAtlas(kind, names, rng.random((len(names), 2, 3)), importance, normalised, 10))
    return HeadAtlas(tuple(kinds), 5, 0, 1, "references", 5)


def test_importance_bars_name_their_axis_and_the_normalised_figure_holds_the_pruning_orders_scores(qapp) -> None:
    atlas = _atlas()
    raw, normalised = importance_figure(atlas, "m"), importance_figure(atlas, "m", normalised=True)
    for spec in (raw, normalised):
        assert "heads.csv" not in spec.x_label and "layer.head" in spec.x_label
        assert spec.x_ticks == ((1.0, "1.1"), (4.0, "2.1"), (7.0, "1.1"), (10.0, "2.1"))  # each layer's head 1
    np.testing.assert_allclose(np.concatenate([s.y for s in normalised.series]), atlas.normalised_importance())
    assert "normalised" in raw.title and "normalised" in normalised.y_label
    names = [f.stem for f in atlas_figures(atlas, None, "m")]
    assert "importance_per_head" in names and "importance_normalised_per_head" in names


def test_layer_curves_tick_each_layer_once_by_its_number() -> None:
    tally = CorpusTally()
    for layers in ([[0.1, 0.2, 0.7], [0.7, 0.2, 0.1], [0.3, 0.3, 0.4]], [[0.2, 0.1, 0.7], [0.1, 0.2, 0.7],
                                                                        [0.5, 0.3, 0.2]]):
        tally.layer_rhos["attention", "occlusion"].append(np.array([0.5, -0.2, 0.1]))
        tally.layer_rhos["attention", "ig"].append(np.array(layers)[:, 0])
    for figure in layer_spearman_figures(tally):
        spec = figure.spec
        assert isinstance(spec, LineSpec)
        assert spec.x_ticks == ((1.0, "1"), (2.0, "2"), (3.0, "3"))
        assert "layer" in spec.x_label and "Spearman" in spec.y_label


@pytest.mark.parametrize("shared", [False, True])
def test_a_bar_stands_on_its_tick_unless_series_share_an_x(qapp, shared: bool) -> None:
    first = Series("a", np.array([1.0, 2.0]), np.array([1.0, 1.0]), "bars")
    second = Series("b", np.array([1.0, 2.0]) if shared else np.array([3.0, 4.0]), np.array([1.0, 1.0]), "bars")
    spec = LineSpec((first, second), "bars", "x", "y", (0.0, 1.2), ((2.0, "2"), (3.0, "3")))
    image = figure_image(spec)
    layout = line_layout(spec, *_fonts())
    plot, (low, high) = layout.plot, layout.x_range
    tick = plot.left() + (2.0 - low) / (high - low) * plot.width()  # x = 2 (the bar at 1 is cut by the frame)
    row = int(plot.bottom() - 0.5 / 1.2 * plot.height())
    colour = QtGui.QColor(PALETTE[0]).rgb() & 0xFFFFFF
    coloured = [image.pixel(x, row) & 0xFFFFFF == colour for x in range(image.width())]
    start = coloured.index(True, coloured.index(False, coloured.index(True)))  # the first series' second bar
    end = coloured.index(False, start)
    centre = (start + end - 1) / 2
    if shared:  # grouped bars: the first series stands left of its x
        assert centre < tick - 2
    else:
        assert abs(centre - tick) <= 1.5


def test_an_atlas_figures_numbers_name_their_first_columns_statistic_and_kind() -> None:
    from attnviz.figures.heads import atlas_grid
    from attnviz.render.figure_files import csv_bytes

    lines = csv_bytes(atlas_grid(_atlas(), "entropy", "entropy", False, "m")).decode("utf-8").splitlines()
    assert lines[0].startswith("statistic,kind,layer \\ head,1,2,3")
    assert lines[1].startswith("entropy,enc-self,1,") and lines[3].startswith("entropy,cross,1,")
