"""Heads panel: the head atlas of the open model over a corpus, switching heads off, and the pruning curve.

For an image model the corpus is a folder of images (the shipped samples by default) and the grid a row per layer:
its heads' mean attention distance in pixels, entropy and ``[CLS]`` share; a second tab draws the distance by layer
against the distance of attention spread evenly (Dosovitskiy et al. 2021, Figure 7 right). Its heads are not switched
off.

One heatmap holds every head: a row per attention kind and layer (``enc-self 1`` …), a column per head, coloured
by the statistic chosen (importance, confidence, entropy, the positional shares, the sinks' share, …). Hovering
a cell reads out all of its statistics; clicking it shows that head in the Attention dock; Ctrl+click or its
context menu switches it off (or on again), and the sentence is decoded again without it. The atlas and the
pruning curve are computed off the GUI thread (``Session.compute_atlas``), with a progress bar and Cancel.

A Hugging Face language model can also be mapped over a file of documents (one a line, one forward pass each, no
decoding). Either atlas has sinks by the query's position (over decoded sentences one per kind: encoder self-,
decoder self- and cross-attention), drawn on a Sinks tab — the first position's share of the weight and of
‖α f(x)‖ against the bin of the query's position, for one head or the mean of a layer's heads.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.core.attention.kind import AttentionKind
from attnviz.figures.spec import FigureSpec, LineSpec, empty_figure, fit_levels
from attnviz.gui import file_dialogs
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.panels.family_views import views_of
from attnviz.gui.panels.patching import PatchingPanel
from attnviz.gui.titled_plot import TitledPlot, legend_below
from attnviz.gui.wrap_row import WrapRow
from attnviz.i18n import N_, tr
from attnviz.session import Session, SessionState, changed
from attnviz.session.images import sample_images

if TYPE_CHECKING:
    from attnviz.core.heads import HeadAtlas, KindAtlas
    from attnviz.core.heads.image_atlas import ImageAtlas

SESSION_SENTENCES, OTHER_FILE, OTHER_FOLDER, OTHER_DOCUMENTS = "", "\0other", "\0folder", "\0documents"
DOCUMENTS = "\0documents:"  # a chosen file of documents: this, then its path
SHARES = ("confidence", "previous", "same", "next", "sink", "diagonal", "monotonic")  # weights' shares: 0…1
IMPORTANCE_PEN = pg.mkPen((31, 119, 180), width=2)
RANDOM_PEN = pg.mkPen((255, 127, 14), width=2, style=QtCore.Qt.PenStyle.DashLine)
HEAD_BRUSH = pg.mkBrush(31, 119, 180, 140)
MARK_PEN = pg.mkPen((214, 39, 40), width=1, style=QtCore.Qt.PenStyle.DotLine)
READOUT_HINT = N_("Point at a head to read its statistics here; click it to open its map")
PRUNE_TIP = N_("BLEU with 0, 1, 2, … heads switched off: least important first, and at random (needs a file with "
               "references)")


class HeadGrid(Heatmap):
    """The atlas heatmap; its context menu also switches the head under the pointer off or on."""

    toggle_requested = QtCore.Signal(int, int)  # (row, column) of the head to switch off or on

    def __init__(self) -> None:
        super().__init__()
        self.pressed_with = QtCore.Qt.KeyboardModifier.NoModifier  # the keys held at the last press (Ctrl: toggle)
        self.toggles = True  # its heads can be switched off (not an image model's)
        self.cells_are_positions = False  # a cell is a head, not a query and a key

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        self.pressed_with = event.modifiers()
        super().mousePressEvent(event)
        self.pressed_with = QtCore.Qt.KeyboardModifier.NoModifier

    def contextMenuEvent(self, event: QtGui.QContextMenuEvent) -> None:
        row, col = self.cell_at(QtCore.QPointF(event.pos()))
        if row < 0 or not self.spec.values.size:
            super().contextMenuEvent(event)
            return
        menu = QtWidgets.QMenu(self)
        if self.toggles:
            masked = self.spec.masked is not None and bool(self.spec.masked[row, col])
            toggle = menu.addAction(tr("Switch this head on again") if masked else tr("Switch this head off"))
            toggle.triggered.connect(lambda _checked=False: self.toggle_requested.emit(row, col))
            menu.addSeparator()
        for text, signal in ((tr("Export picture or numbers…"), self.export_requested),
                             (tr("Copy picture"), self.copy_requested)):
            action = menu.addAction(text)
            action.triggered.connect(lambda _checked=False, s=signal: s.emit(self.spec))
        menu.exec(event.globalPos())


class HeadsPanel(QtWidgets.QWidget):
    """Corpus chooser, Map heads / Pruning curve / Cancel with progress, the statistic, the grid, the heads off
    and the pruning curve (see the module)."""

    head_chosen = QtCore.Signal(object, int, int)  # AttentionKind, layer, head (0-based): show it in Attention
    sentence_requested = QtCore.Signal(str)  # decode this sentence to its end (the Patching tab's patched pair)

    def __init__(self, session: Session | None = None, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.state = SessionState()
        self.corpus_box = QtWidgets.QComboBox()
        self._images: bool | None = None  # the corpus listed is of images (an image model) or of sentences
        self._documents = False  # the model on show can also be mapped over documents
        self.map_button = QtWidgets.QPushButton(tr("Map heads"))
        self.prune_button = QtWidgets.QPushButton(tr("Pruning curve"))
        self.prune_button.setToolTip(tr(PRUNE_TIP))
        self.cancel_button = QtWidgets.QPushButton(tr("Cancel"))
        self.progress = QtWidgets.QProgressBar()
        self.progress.setTextVisible(True)
        self.statistic_box = QtWidgets.QComboBox()
        self.statistic_box.setToolTip(tr("What colours the heads"))
        self.grid = HeadGrid()
        self.grid.title_lines = 3  # (the model, the statistic and the corpus: whole in a narrow dock)
        self.grid.set_hint(tr("Map the heads over a corpus: every head's statistics, and which ones matter"))
        self.readout = QtWidgets.QLabel(" ")
        self.readout.setWordWrap(True)
        self.banner = QtWidgets.QLabel()
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("QLabel { background: #fff3cd; color: #664d03; padding: 3px; }")
        self.all_on_button = QtWidgets.QPushButton(tr("All heads on"))
        self.all_on_button.setToolTip(tr("Switch every head on again"))
        self.curve_view = TitledPlot(title=tr("BLEU with heads pruned"))
        legend_below(self.curve_view.plot, columns=1)
        self.curve_view.plot.setLabel("bottom", tr("heads pruned"))
        self.curve_view.plot.setLabel("left", "BLEU")
        self.importance_curve = self.curve_view.plot.plot([], [], pen=IMPORTANCE_PEN, name=tr("least important first"))
        self.random_curve = self.curve_view.plot.plot([], [], pen=RANDOM_PEN, name=tr("random order"))
        self.curve_view.setMinimumSize(140, 120)  # (its legend's names would set the dock's width)
        self.mark = pg.InfiniteLine(angle=90, pen=MARK_PEN)
        self.curve_view.plot.addItem(self.mark)
        self.cells: list[list[tuple[AttentionKind, int, int]]] = []  # (kind, layer, head) of each cell, by row

        corpus = WrapRow((QtWidgets.QLabel(tr("Corpus")), self.corpus_box), max_lines=2, stretch=1)
        buttons = WrapRow((self.map_button, self.prune_button, self.cancel_button), max_lines=3)
        colour = WrapRow((QtWidgets.QLabel(tr("Colour by")), self.statistic_box), max_lines=2, stretch=1)
        self.off_row = off = WrapRow((self.banner, self.all_on_button), max_lines=2, stretch=0)
        for box in (self.corpus_box, self.statistic_box):  # (long names: the dock stays as narrow as the others)
            box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(10)
        self.tabs = maps = QtWidgets.QTabWidget()
        maps.setDocumentMode(True)
        maps.addTab(self.grid, tr("Atlas"))
        maps.addTab(self.curve_view, tr("Pruning curve"))
        self.distance_view = TitledPlot(title=tr("Mean attention distance by layer"))  # (an image model's)
        legend_below(self.distance_view.plot, columns=3)
        self.distance_view.plot.setLabel("bottom", tr("layer"))
        self.distance_view.plot.setLabel("left", tr("distance (pixels)"))
        self.head_points = self.distance_view.plot.plot([], [], pen=None, symbol="o", symbolSize=6,
                                                        symbolBrush=HEAD_BRUSH, symbolPen=None, name=tr("each head"))
        self.mean_curve = self.distance_view.plot.plot([], [], pen=IMPORTANCE_PEN, name=tr("mean of the heads"))
        self.even_curve = self.distance_view.plot.plot([], [], pen=RANDOM_PEN,
                                                       name=tr("spread evenly"))
        self.distance_view.setMinimumSize(140, 120)
        maps.addTab(self.distance_view, tr("Distance by layer"))
        self.sink_box = QtWidgets.QComboBox()  # (layer, head or None: the mean of the layer's heads)
        self.sink_box.setToolTip(tr("The head whose sinks are drawn, or the mean of a layer's heads"))
        self.sink_box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.sink_box.setMinimumContentsLength(10)
        self.sink_view = TitledPlot(title=tr("Sinks by the query's position"))
        legend_below(self.sink_view.plot, columns=1)
        self.sink_view.plot.setLabel("bottom", tr("query's position"))
        self.sink_view.plot.setLabel("left", tr("share on the first position"))
        self.sink_view.plot.setYRange(0.0, 1.0)
        self.sink_weight_curve = self.sink_view.plot.plot([], [], pen=IMPORTANCE_PEN, symbol="o", symbolSize=6,
                                                          symbolBrush=HEAD_BRUSH, name=tr("weight"))
        self.sink_norm_curve = self.sink_view.plot.plot([], [], pen=RANDOM_PEN, symbol="s", symbolSize=6,
                                                        name=tr("‖α f(x)‖"))
        self.sink_view.setMinimumSize(140, 120)
        self.sinks_tab = QtWidgets.QWidget()
        sinks_layout = QtWidgets.QVBoxLayout(self.sinks_tab)
        sinks_layout.setContentsMargins(0, 0, 0, 0)
        sinks_layout.addWidget(WrapRow((QtWidgets.QLabel(tr("Head")), self.sink_box), max_lines=2, stretch=1))
        sinks_layout.addWidget(self.sink_view, 1)
        maps.addTab(self.sinks_tab, tr("Sinks"))
        self.atlas_page = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(self.atlas_page)
        layout.setContentsMargins(4, 4, 4, 4)
        for widget in (corpus, buttons, self.progress, colour, off):
            layout.addWidget(widget)
        layout.addWidget(maps, 1)
        layout.addWidget(self.readout)
        self.patching = PatchingPanel(session)
        self.patching.sentence_requested.connect(self.sentence_requested)
        self.sections = QtWidgets.QTabWidget()  # the atlas, and patching over minimal pairs
        self.sections.addTab(self.atlas_page, tr("Atlas of heads"))
        self.sections.addTab(self.patching, tr("Patching"))
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.sections)

        self.corpus_box.activated.connect(self._on_corpus_chosen)
        self.map_button.clicked.connect(self._on_map_clicked)
        self.prune_button.clicked.connect(self._on_prune_clicked)
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        self.statistic_box.currentIndexChanged.connect(self._draw)
        self.sink_box.currentIndexChanged.connect(self._draw_sinks)
        self.all_on_button.clicked.connect(lambda: self.switch_off(()))
        self.grid.hovered.connect(self._on_grid_hovered)
        self.grid.clicked.connect(self._on_grid_clicked)
        self.grid.toggle_requested.connect(self._on_toggle_requested)
        self._show_progress(None)
        self._show_heads_off("")
        self.tabs.setTabEnabled(1, False)
        self.tabs.setTabVisible(3, False)
        self._list_corpora(False)

    def _list_corpora(self, images: bool, documents: bool = False) -> None:
        """Offer the corpora of the model on show: sentences (the session's, a file; a Hugging Face language
        model: a file of documents too) or images (the shipped samples, a folder)."""
        if self._images == images and self._documents == documents:
            return
        self._images, self._documents = images, documents
        self.corpus_box.clear()
        if images:
            self.corpus_box.addItem(tr("The sample images ({count})").format(count=len(sample_images())),
                                    SESSION_SENTENCES)
            self.corpus_box.addItem(tr("A folder of images…"), OTHER_FOLDER)
            self.corpus_box.setToolTip(tr("The images directly in a folder (PNG, JPEG, WebP, BMP, GIF), by name"))
        else:
            self.corpus_box.addItem(tr("The sentences of this session"), SESSION_SENTENCES)
            self.corpus_box.addItem(tr("A file of sentences…"), OTHER_FILE)
            if documents:
                self.corpus_box.addItem(tr("A file of documents…"), OTHER_DOCUMENTS)
            self.corpus_box.setToolTip(tr("One source sentence a line, or source<TAB>reference lines (then the "
                                          "pruning curve can measure BLEU)") + ("\n" + tr(
                "A file of documents: one a line, each read whole in one pass (up to the model's positions); the "
                "atlas then has the sinks by the query's position") if documents else ""))
        self.prune_button.setVisible(not images)
        self.grid.toggles = not images
        self.tabs.setTabVisible(1, not images)
        self.tabs.setTabVisible(2, images)
        self.grid.set_hint(tr("Map the heads over a folder of images: how far each head looks, how spread it is, "
                              "how much it gives [CLS]") if images else
                           tr("Map the heads over a corpus: every head's statistics, and which ones matter"))

    @property
    def images(self) -> bool:
        """The model on show reads images: the atlas is of a folder of images."""
        return bool(self._images)
    # -- requests (also used by tests) ----------------------------------------------------------------
    def map_heads(self, corpus: str | Path | None = None) -> None:
        """Map the heads over the file ``corpus`` (None: the corpus chosen, the session's sentences by default)."""
        if self.session is None:
            return
        chosen = self.corpus_box.currentData()
        if corpus is None and isinstance(chosen, str) and chosen.startswith(DOCUMENTS):
            self.session.compute_atlas(chosen[len(DOCUMENTS):], documents=True)
            return
        path = corpus if corpus is not None else (chosen or None)
        self.session.compute_atlas(path, self.session.sentences_seen)

    def map_documents(self, path: str | Path) -> None:
        """Map the heads of a Hugging Face language model over the documents of ``path`` (one a line)."""
        if self.session is not None:
            self.session.compute_atlas(path, documents=True)

    def switch_off(self, heads: Sequence[str]) -> None:
        """Decode again with ``heads`` (``cross:2.1``, …) off; none: every head on."""
        if self.session is not None:
            self.session.switch_heads_off(",".join(heads))

    def heads_off(self) -> list[str]:
        model = self.state.model
        return [h for h in (model.heads_off.split(",") if model is not None else []) if h]

    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        self.state = new
        self.patching.show_state(old, new)
        if changed(old, new, "model"):
            self.sections.setTabVisible(1, new.model is not None and new.model.patchable)
        if changed(old, new, "model"):
            self._list_corpora(views_of(new.model.layout if new.model is not None else None).corpus_of_its_own,
                               new.model is not None and new.model.documents)
        if changed(old, new, "atlas_progress"):
            self._show_progress(new.atlas_progress)
        if changed(old, new, "model"):
            self._show_heads_off(new.model.heads_off if new.model is not None else "")
            self._show_progress(new.atlas_progress)
        if changed(old, new, "atlas", "image_atlas"):
            self._fill_statistics(new.atlas)
            self._offer_pruning()
        if changed(old, new, "atlas", "image_atlas", "model"):
            self._draw()
            self._reserve_readout()
            self.readout.setText(tr(READOUT_HINT) if self._atlas() is not None else " ")
        if changed(old, new, "pruning", "model"):
            self._draw_curve()
        if changed(old, new, "atlas"):
            self._fill_sink_heads()
            self._draw_sinks()
        if changed(old, new, "pruning") and new.pruning is not None:
            self.tabs.setCurrentWidget(self.curve_view)  # (the curve asked for)
        if changed(old, new, "atlas") and new.atlas is not None and new.pruning is None:
            self.tabs.setCurrentWidget(self.grid)

    def _atlas(self) -> HeadAtlas | ImageAtlas | None:
        """The atlas on show: an image model's, or a text model's."""
        return self.state.image_atlas if self.images else self.state.atlas

    def figure(self) -> FigureSpec | LineSpec | None:
        """The grid on show, or an image model's distance by layer on its tab (what Export writes); None before an
        atlas."""
        if self.sections.currentWidget() is self.patching:
            return self.patching.figure()
        if self.images and self.tabs.currentWidget() is self.distance_view and self.state.image_atlas is not None:
            from attnviz.figures.image import distance_figure

            return distance_figure(self.state.image_atlas, self._model_name())
        if self.tabs.currentWidget() is self.sinks_tab and (spec := self.sink_figure()) is not None:
            return spec
        return self.grid.spec if self.grid.spec.values.size else None

    def _sink_kinds(self) -> list[KindAtlas]:
        """The kinds of the atlas on show that have sinks by the query's position (an atlas over decoded sentences:
        every kind; over documents: its one)."""
        atlas = self.state.atlas
        return [] if atlas is None else [k for k in atlas.kinds if k.sinks is not None]

    def sink_figure(self) -> LineSpec | None:
        """The Sinks tab's plot: the chosen head's (or layer's mean) first-position shares by the query's position;
        None without an atlas that has sinks."""
        kinds, chosen = self._sink_kinds(), self.sink_box.currentData()
        if not kinds or chosen is None:
            return None
        from attnviz.figures.heads import sink_line

        index, layer, head = chosen
        kind = kinds[index]
        assert kind.sinks is not None
        return sink_line(kind.sinks, layer, head, self._model_name(), kind.kind.label())

    def _model_name(self) -> str:
        return self.state.model.base_name if self.state.model is not None else ""

    # -- drawing --------------------------------------------------------------------------------------
    def _fill_statistics(self, atlas: HeadAtlas | None) -> None:
        if self.images:
            self._fill_image_statistics()
            return
        if atlas is None:
            return
        from attnviz.figures.heads import ALIGNMENT_FIGURES, ATLAS_FIGURES

        current = self.statistic_box.currentData() or ("importance" if atlas.target != "none" else "sink")
        present = {name for k in atlas.kinds for name in k.names} | ({"importance"} if atlas.target != "none" else
                                                                     set())  # (documents: importance not measured)
        self.statistic_box.blockSignals(True)
        self.statistic_box.clear()
        for name, title, _share in (*ATLAS_FIGURES, *ALIGNMENT_FIGURES):
            if name in present:
                self.statistic_box.addItem(tr(title), name)
        self.statistic_box.setCurrentIndex(max(0, self.statistic_box.findData(current)))
        self.statistic_box.blockSignals(False)

    def _fill_image_statistics(self) -> None:
        atlas = self.state.image_atlas
        if atlas is None:
            return
        from attnviz.figures.image import image_statistics

        current = self.statistic_box.currentData() or "distance"
        self.statistic_box.blockSignals(True)
        self.statistic_box.clear()
        for name, title, _share in image_statistics(atlas):
            self.statistic_box.addItem(tr(title), name)
        self.statistic_box.setCurrentIndex(max(0, self.statistic_box.findData(current)))
        self.statistic_box.blockSignals(False)

    def _draw_images(self) -> None:
        """An image model's atlas: the grid of the statistic chosen (a row per layer) and the distance by layer."""
        atlas, name = self.state.image_atlas, self.statistic_box.currentData()
        if atlas is None or not name:
            self.cells = []
            self.grid.show_figure(empty_figure(tr("Head atlas")))
            for curve in (self.head_points, self.mean_curve, self.even_curve):
                curve.setData([], [])
            return
        from attnviz.figures.image import distance_figure, image_atlas_grid

        layers, heads = atlas.distance.shape
        self.cells = [[(AttentionKind.ENCODER_SELF, layer, head) for head in range(heads)] for layer in range(layers)]
        self.grid.show_figure(image_atlas_grid(atlas, name, self._model_name()))
        figure = distance_figure(atlas, self._model_name())  # (what Export writes on this tab)
        for curve, series in zip((self.head_points, self.mean_curve, self.even_curve), figure.series, strict=True):
            curve.setData(series.x, series.y)
        self.distance_view.set_title(figure.title)
        self.distance_view.bottom_axis.set_level([(int(x), label) for x, label in figure.x_ticks or ()])

    def _draw(self) -> None:
        if self.images:
            self._draw_images()
            return
        atlas, name = self.state.atlas, self.statistic_box.currentData()
        if atlas is None or not name:
            self.cells = []
            self.grid.show_figure(empty_figure(tr("Head atlas")))  # (the hint under it says what to do)
            return
        rows, labels, cells = [], [], []
        width = max(k.importance.shape[1] for k in atlas.kinds)
        for k in atlas.kinds:
            values = k.statistic(name) if name == "importance" or name in k.names else \
                np.full(k.importance.shape, np.nan)
            for layer in range(values.shape[0]):
                row = np.full(width, np.nan)
                row[: values.shape[1]] = values[layer]
                rows.append(row)
                labels.append(f"{k.kind.slug} {layer + 1}")
                cells.append([(k.kind, layer, head) for head in range(values.shape[1])])
        values = np.array(rows)
        self.cells = cells
        off = set(self.heads_off())
        masked = np.array([[f"{kind.slug}:{layer + 1}.{head + 1}" in off for kind, layer, head in row]
                           + [True] * (width - len(row)) for row in cells])
        shown = np.nan_to_num(values)
        levels = (0.0, 1.0) if name in SHARES else fit_levels(shown.ravel())
        title = (tr("{model}: {statistic}, {count:,} documents") if atlas.over_documents else
                 tr("{model}: {statistic}, {count:,} sentences")).format(
            model=self.state.model.base_name if self.state.model is not None else "", count=atlas.sentences,
            statistic=self.statistic_box.currentText())
        self.grid.show_figure(FigureSpec(shown.astype(np.float32), tuple(labels),
                                         tuple(str(h) for h in range(1, width + 1)), title, levels,
                                         colormap="viridis", row_axis=tr("kind and layer"), col_axis=tr("head"),
                                         masked=masked if masked.any() else None))

    def _fill_sink_heads(self) -> None:
        """List the layers' means and every head of the sinks on show; the Sinks tab only where there are some."""
        kinds = self._sink_kinds()
        current = self.sink_box.currentData()
        self.sink_box.blockSignals(True)
        self.sink_box.clear()
        for index, kind in enumerate(kinds):
            assert kind.sinks is not None
            _classes, _bins, layers, heads = kind.sinks.weight.shape
            named = (lambda text, kind=kind: text) if len(kinds) == 1 else (
                lambda text, kind=kind: tr("{kind}, {which}").format(kind=kind.kind.label(), which=text))
            for layer in range(layers):
                self.sink_box.addItem(named(tr("layer {layer}, mean of the heads").format(layer=layer + 1)),
                                      (index, layer, None))
                for head in range(heads):
                    self.sink_box.addItem(named(tr("layer {layer}, head {head}").format(layer=layer + 1,
                                                                                       head=head + 1)),
                                          (index, layer, head))
        if kinds:
            self.sink_box.setCurrentIndex(max(0, self.sink_index(current)))
        self.sink_box.blockSignals(False)
        self.tabs.setTabVisible(3, bool(kinds))

    def sink_index(self, choice: tuple[int, int, int | None] | None) -> int:
        """The Sinks tab's entry for (kind's index among the kinds with sinks, layer, head or None: the layer's mean),
        0-based; −1 where there is none (QComboBox.findData does not compare tuples)."""
        return next((i for i in range(self.sink_box.count()) if self.sink_box.itemData(i) == choice), -1)

    def _draw_sinks(self) -> None:
        figure = self.sink_figure()
        curves = (self.sink_weight_curve, self.sink_norm_curve)
        if figure is None:
            for curve in curves:
                curve.setData([], [])
            return
        for index, curve in enumerate(curves):
            series = figure.series[index] if index < len(figure.series) else None
            curve.setData([] if series is None else series.x, [] if series is None else series.y)
        self.sink_view.set_title(figure.title)
        self.sink_view.bottom_axis.set_level([(int(x), label) for x, label in figure.x_ticks or ()])
        ticks = [x for x, _label in figure.x_ticks or ()]
        if ticks:
            self.sink_view.plot.setXRange(min(ticks) - 0.5, max(ticks) + 0.5, padding=0)
        self.sink_view.plot.setYRange(0.0, 1.0, padding=0.02)

    def _draw_curve(self) -> None:
        curve = self.state.pruning
        self.tabs.setTabEnabled(1, curve is not None)
        if curve is None:
            return
        x = np.arange(len(curve.importance_bleu))
        self.importance_curve.setData(x, curve.importance_bleu)
        self.random_curve.setData(x, curve.random_mean)
        self.mark.setPos(len(self.heads_off()))
        self.curve_view.set_title(tr("BLEU with heads pruned ({count:,} sentences); dotted: the heads off now").format(
            count=curve.sentences))

    def _show_progress(self, progress: tuple[str, int, int] | None) -> None:
        running = progress is not None
        shown: tuple[QtWidgets.QWidget, ...] = (self.progress, self.cancel_button)
        for widget in shown:
            widget.setVisible(running)
        switch = self.state.model is not None and (self.state.model.heads_switch or self.images
                                                   or self.state.model.documents)
        enabled: tuple[QtWidgets.QWidget, ...] = (self.map_button, self.prune_button, self.corpus_box)
        for widget in enabled:
            widget.setEnabled(not running and switch)
        self._offer_pruning()
        self.map_button.setToolTip("" if switch or self.state.model is None else tr(
            "The head atlas covers translation models (attnviz's own and Hugging Face folders): this model's heads "
            "cannot be switched off"))
        if progress is not None:
            what, done, total = progress
            self.progress.setRange(0, max(total, 0))  # (0, 0: busy, before the first batch)
            self.progress.setValue(done)
            self.progress.setFormat(f"{what} %p%")

    def _offer_pruning(self) -> None:
        """The Pruning curve button: off, saying why, while the atlas on show is over documents (nothing decoded, so
        no head has an importance to prune by)."""
        atlas = self.state.atlas
        documents = atlas is not None and atlas.over_documents and not self.images
        if documents:
            self.prune_button.setEnabled(False)
        self.prune_button.setToolTip(tr(
            "Documents are read, not translated: their heads have no importance to prune by. Map the heads over a "
            "file of source<TAB>reference lines for a pruning curve.") if documents else tr(PRUNE_TIP))

    def _show_heads_off(self, heads: str) -> None:
        self.banner.setText(tr("Heads off: {heads} — the sentence and every map are decoded without them").format(
            heads=heads.replace(",", ", ")))
        self.off_row.setVisible(bool(heads))

    # -- handlers -------------------------------------------------------------------------------------
    def _head_at(self, row: int, col: int) -> tuple[AttentionKind, int, int] | None:
        """The head of the grid's cell (row, col); None off the grid or in a layer with fewer heads."""
        if 0 <= row < len(self.cells) and 0 <= col < len(self.cells[row]):
            return self.cells[row][col]
        return None

    def _on_grid_hovered(self, row: int, col: int) -> None:
        atlas, head = self._atlas(), self._head_at(row, col)
        if atlas is None or head is None:
            self.readout.setText(tr(READOUT_HINT) if atlas is not None else " ")
            return
        self.readout.setText(self._readout_text(atlas, *head))

    @staticmethod
    def _image_readout_text(atlas: ImageAtlas, layer: int, index: int) -> str:
        parts = [tr("mean attention distance {value:.1f} px").format(value=atlas.distance[layer, index]),
                 tr("entropy {value:.3g}").format(value=atlas.entropy[layer, index]),
                 tr("[CLS] share {value:.1%}").format(value=atlas.cls_share[layer, index])]
        if len(atlas.specials) > 1:
            parts.append(tr("other specials' share {value:.1%}").format(value=atlas.other_specials[layer, index]))
        return tr("<b>layer {layer}, head {head}</b> — ").format(layer=layer + 1, head=index + 1) + " · ".join(parts)

    def _readout_text(self, atlas: HeadAtlas | ImageAtlas, kind: AttentionKind, layer: int, index: int) -> str:
        """One head's statistics, as the read-out under the grid shows them (rich text)."""
        if self.images:
            return self._image_readout_text(cast("ImageAtlas", atlas), layer, index)
        atlas = cast("HeadAtlas", atlas)
        found = next(k for k in atlas.kinds if k.kind is kind)
        parts = [f"{name} {found.means[i, layer, index]:.3g}" for i, name in enumerate(found.names)]
        if np.isfinite(found.importance[layer, index]):  # (over documents: not measured)
            parts.append(tr("importance {value:.3g}").format(value=found.importance[layer, index]))
        return f"<b>{kind.slug}:{layer + 1}.{index + 1}</b> — " + " · ".join(parts)

    def _reserve_readout(self) -> None:
        """Keep the read-out as tall as the longest head's statistics need at the panel's width, so that the
        grid keeps its size when the pointer enters it (the read-out appearing took room from it)."""
        atlas = self._atlas()
        if atlas is None:
            self.readout.setMinimumHeight(0)
            return
        width = max(self.readout.width(), 1)
        document = QtGui.QTextDocument()
        document.setDefaultFont(self.readout.font())
        document.setDocumentMargin(0)
        document.setTextWidth(width)
        tallest = 0.0
        shapes = [(AttentionKind.ENCODER_SELF, cast("ImageAtlas", atlas).distance.shape)] if self.images else \
            [(found.kind, found.importance.shape) for found in cast("HeadAtlas", atlas).kinds]
        for kind, (layers, heads) in shapes:
            for layer in range(layers):
                for index in range(heads):
                    document.setHtml(self._readout_text(atlas, kind, layer, index))
                    tallest = max(tallest, document.size().height())
        self.readout.setMinimumHeight(math.ceil(tallest) + 2)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._reserve_readout()

    def _on_grid_clicked(self, row: int, col: int) -> None:
        head = self._head_at(row, col)
        if head is None:
            return
        if self.grid.pressed_with & QtCore.Qt.KeyboardModifier.ControlModifier and self.grid.toggles:
            self._on_toggle_requested(row, col)
            return
        self.head_chosen.emit(*head)

    def _on_toggle_requested(self, row: int, col: int) -> None:
        head = self._head_at(row, col)
        if head is None:
            return
        kind, layer, index = head
        name = f"{kind.slug}:{layer + 1}.{index + 1}"
        off = self.heads_off()
        self.switch_off([h for h in off if h != name] if name in off else [*off, name])

    def _on_corpus_chosen(self, _index: int) -> None:
        chosen = self.corpus_box.currentData()
        if chosen not in (OTHER_FILE, OTHER_FOLDER, OTHER_DOCUMENTS):
            return
        if chosen == OTHER_FOLDER:
            path = file_dialogs.existing_folder(self, tr("A folder of images"), "")
        elif chosen == OTHER_DOCUMENTS:
            path, _ = file_dialogs.open_file_name(self, tr("A file of documents"), "",
                                                  tr("Text files (*.txt);;All files (*)"))
            if path:
                self.add_documents(path)
            else:
                self.corpus_box.setCurrentIndex(0)
            return
        else:
            path, _ = file_dialogs.open_file_name(self, tr("A file of sentences"), "",
                                                  tr("Text files (*.txt *.tsv);;All files (*)"))
        if not path:
            self.corpus_box.setCurrentIndex(0)
            return
        index = self.corpus_box.findData(path)
        if index < 0:
            index = self.corpus_box.count() - 1
            self.corpus_box.insertItem(index, Path(path).name, path)
        self.corpus_box.setCurrentIndex(index)

    def _on_map_clicked(self) -> None:
        self.map_heads()

    def _on_prune_clicked(self) -> None:
        if self.session is not None:
            self.session.compute_pruning()

    def _on_cancel_clicked(self) -> None:
        if self.session is not None:
            self.session.cancel_atlas()

    def add_documents(self, path: str | Path) -> None:
        """Offer (and choose) the file of documents ``path`` as the corpus: Map heads reads it as documents."""
        data = DOCUMENTS + str(path)
        index = self.corpus_box.findData(data)
        if index < 0:
            index = self.corpus_box.count() - 1
            self.corpus_box.insertItem(index, tr("{name} (documents)").format(name=Path(path).name), data)
        self.corpus_box.setCurrentIndex(index)
