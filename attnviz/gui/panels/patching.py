"""The Head atlas dock's Patching tab: which heads carry a behaviour, over minimal pairs (``attnviz patch`` in the
window).

Pairs are generated (the tasks that apply to the model on show: gender, agreement, number, ioi) or read from a file
(clean<TAB>corrupt<TAB>answer<TAB>alternative a line); Run patches every head over them off the GUI thread
(``Session.compute_patching``), with a progress bar and Cancel. The grid has a row per attention kind and layer and a
column per head, coloured by the measure chosen (its mean share of the logit difference, a diverging colour map
centred at 0); hovering a head reads out its mean and 95 % interval. Clicking a head shows its attention map on the
clean and the corrupt side of the chosen pair and their difference, side by side. Ctrl+click or the head's context
menu patches it into the decoding on show: the pair's corrupt side is decoded with that head's output taken from a
run on its clean side (``Session.patch_heads``); the window's title names the patched heads, the grid outlines them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.layout import Capability
from attnviz.figures.spec import FigureSpec, empty_figure
from attnviz.gui import file_dialogs
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.wrap_row import WrapRow
from attnviz.i18n import N_, tr
from attnviz.session import Session, SessionState, changed

if TYPE_CHECKING:
    from attnviz.core.patching.pairs import MinimalPair
    from attnviz.core.patching.statistics import PatchingResult

# (the measures of attnviz.core.patching.engine.MEASURES, in its order: the GUI does not import torch-backed modules)
MEASURES = (
    ("denoise", N_("denoise: share restored, head from the clean run")),
    ("noise", N_("noise: share lost, head from the corrupt run")),
    ("pattern", N_("pattern: its attention weights alone")),
    ("values", N_("values: its values alone")),
    ("atp", N_("atp: attribution patching's estimate")),
)
TASK_NAMES = {
    "gender": N_("gender (he/she → il/elle)"),
    "agreement": N_("agreement (fatigué/fatiguée)"),
    "number": N_("number (peut/peuvent)"),
    "ioi": N_("indirect object (Mary/John)"),
}
OTHER_FILE = "\0file"
PAIRS_FILE = "\0pairs:"  # a chosen file of pairs: this, then its path
MOST_PAIRS = 400  # (attnviz.core.patching.tasks.MOST_PAIRS)
DIVERGING = "CET-D1"
PATCHED_OUTLINE = QtGui.QColor(20, 20, 20)  # the heads patched into the decoding on show: outlined in the grid
READOUT_HINT = N_("Point at a head to read its share; click it for its maps; Ctrl+click (or right-click) patches it "
                  "into the decoding on show")


class PatchGrid(Heatmap):
    """The patching grid; its context menu also patches the head under the pointer (or patches it no more)."""

    patch_requested = QtCore.Signal(int, int)  # (row, column) of the head to patch or unpatch

    def __init__(self) -> None:
        super().__init__()
        self.pressed_with = QtCore.Qt.KeyboardModifier.NoModifier  # the keys held at the last press
        self.patched: set[tuple[int, int]] = set()  # cells of the heads patched now
        self.live = True  # the model on show decodes a sentence: its heads can be patched into the decoding
        self.cells_are_positions = False  # a cell is a head, not a query and a key

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        self.pressed_with = event.modifiers()
        super().mousePressEvent(event)
        self.pressed_with = QtCore.Qt.KeyboardModifier.NoModifier

    def set_patched(self, cells: set[tuple[int, int]]) -> None:
        """Outline ``cells`` (row, column): the heads patched into the decoding on show."""
        if cells != self.patched:
            self.patched = cells
            self.update()

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        super().paintEvent(event)
        rows, cols = self.values.shape if self.values.ndim == 2 else (0, 0)
        cells = [(row, col) for row, col in self.patched if row < rows and col < cols]
        if not cells:
            return
        painter = QtGui.QPainter(self)
        for colour, inset in ((PATCHED_OUTLINE, 1.0), (QtGui.QColor("white"), 3.0)):
            painter.setPen(QtGui.QPen(colour, 2.0))
            painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            for row, col in cells:
                painter.drawRect(self.cell_rect(row, col).adjusted(inset, inset, -inset, -inset))
        painter.end()

    def contextMenuEvent(self, event: QtGui.QContextMenuEvent) -> None:
        row, col = self.cell_at(QtCore.QPointF(event.pos()))
        if row < 0 or not self.spec.values.size:
            super().contextMenuEvent(event)
            return
        menu = QtWidgets.QMenu(self)
        patch = menu.addAction(tr("Patch this head no more") if (row, col) in self.patched else
                               tr("Patch this head into the decoding on show"))
        patch.triggered.connect(lambda _checked=False: self.patch_requested.emit(row, col))
        patch.setEnabled(self.live)
        menu.addSeparator()
        for text, signal in ((tr("Export picture or numbers…"), self.export_requested),
                             (tr("Copy picture"), self.copy_requested)):
            action = menu.addAction(text)
            action.triggered.connect(lambda _checked=False, s=signal: s.emit(self.spec))
        menu.exec(event.globalPos())


def first_pair(result: PatchingResult, text: str) -> int:
    """The pair shown first: the one whose corrupt side is the sentence on show, else the first."""
    return next((i for i, pair in enumerate(result.pairs) if pair.corrupt == text), 0)


def head_name(kind: AttentionKind, layer: int, head: int) -> str:
    """``cross:3.1``: a head as the title and ``attnviz patch`` name it (counted from 1)."""
    return f"{kind.slug}:{layer + 1}.{head + 1}"


class PatchingPanel(QtWidgets.QWidget):
    """Pairs, Run / Cancel with progress, the measure, the grid, its read-out, the pair chosen and one head's maps
    on both sides of it (see the module)."""

    sentence_requested = QtCore.Signal(str)  # decode this sentence to its end (a pair's corrupt side, patched)

    def __init__(self, session: Session | None = None, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.state = SessionState()
        self.pairs_box = QtWidgets.QComboBox()
        self.pairs_box.setToolTip(tr("Generated minimal pairs for the model on show, or a file of pairs: "
                                     "clean<TAB>corrupt<TAB>answer<TAB>alternative a line"))
        self.count_box = QtWidgets.QSpinBox()
        self.count_box.setRange(1, MOST_PAIRS)
        self.count_box.setValue(40)
        self.count_box.setSuffix(tr(" pairs"))
        self.count_box.setToolTip(tr("How many of the generated pairs to patch (in their seeded order)"))
        self.run_button = QtWidgets.QPushButton(tr("Run"))
        self.cancel_button = QtWidgets.QPushButton(tr("Cancel"))
        self.progress = QtWidgets.QProgressBar()
        self.progress.setTextVisible(True)
        self.measure_box = QtWidgets.QComboBox()
        for name, title in MEASURES:
            self.measure_box.addItem(tr(title), name)
        self.measure_box.setToolTip(tr("What colours the heads: each head's mean share of the logit difference"))
        for box in (self.pairs_box, self.measure_box):
            box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(10)
        self.grid = PatchGrid()
        self.grid.title_lines = 3
        self.grid.set_hint(tr("Run patching over minimal pairs: which heads carry the difference"))
        self.readout = QtWidgets.QLabel(" ")
        self.readout.setWordWrap(True)
        self.banner = QtWidgets.QLabel()
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("QLabel { background: #dbeafe; color: #1e3a8a; padding: 3px; }")
        self.unpatch_button = QtWidgets.QPushButton(tr("Patch none"))
        self.unpatch_button.setToolTip(tr("Decode the sentence again with every head its own"))
        self.pair_box = QtWidgets.QComboBox()
        self.pair_box.setToolTip(tr("The pair whose maps are shown, and whose clean side patched heads come from"))
        self.pair_box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.pair_box.setMinimumContentsLength(10)
        self.clean_map, self.corrupt_map, self.difference_map = Heatmap(), Heatmap(), Heatmap()
        for heatmap in (self.clean_map, self.corrupt_map, self.difference_map):
            heatmap.title_lines = 2
            # (three side by side within the Head atlas dock's own minimum width: a wider tab would widen every
            # left dock and take the Attention dock's room; the dock is widened to read them)
            heatmap.setMinimumSize(42, 60)
        self.clean_map.set_hint(tr("Click a head"))
        self.chosen: tuple[AttentionKind, int, int] | None = None  # the head whose maps are shown
        self.cells: list[list[tuple[AttentionKind, int, int]]] = []  # (kind, layer, head) of each cell, by row

        pairs = WrapRow((QtWidgets.QLabel(tr("Pairs")), self.pairs_box, self.count_box), max_lines=3, stretch=1)
        buttons = WrapRow((self.run_button, self.cancel_button, self.progress), max_lines=2, stretch=2)
        colour = WrapRow((QtWidgets.QLabel(tr("Colour by")), self.measure_box), max_lines=2, stretch=1)
        self.patched_row = WrapRow((self.banner, self.unpatch_button), max_lines=2, stretch=0)
        chooser = WrapRow((QtWidgets.QLabel(tr("Pair")), self.pair_box), max_lines=2, stretch=1)
        maps = QtWidgets.QWidget()
        maps_layout = QtWidgets.QHBoxLayout(maps)
        maps_layout.setContentsMargins(0, 0, 0, 0)
        for heatmap in (self.clean_map, self.corrupt_map, self.difference_map):
            maps_layout.addWidget(heatmap, 1)
        below = QtWidgets.QWidget()
        below_layout = QtWidgets.QVBoxLayout(below)
        below_layout.setContentsMargins(0, 0, 0, 0)
        below_layout.addWidget(chooser)
        below_layout.addWidget(maps, 1)
        self.splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        self.splitter.setChildrenCollapsible(False)
        top = QtWidgets.QWidget()
        top_layout = QtWidgets.QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.grid, 1)
        top_layout.addWidget(self.readout)
        self.splitter.addWidget(top)
        self.splitter.addWidget(below)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        for widget in (pairs, buttons, colour, self.patched_row):
            layout.addWidget(widget)
        layout.addWidget(self.splitter, 1)

        self.pairs_box.activated.connect(self._on_pairs_chosen)
        self.run_button.clicked.connect(self.run)
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        self.measure_box.currentIndexChanged.connect(self._draw)
        self.pair_box.currentIndexChanged.connect(self._on_pair_chosen)
        self.unpatch_button.clicked.connect(lambda: self.patch(()))
        self.grid.hovered.connect(self._on_grid_hovered)
        self.grid.clicked.connect(self._on_grid_clicked)
        self.grid.patch_requested.connect(self._on_patch_requested)
        self._list_pairs(())
        self._show_progress(None)
        self._show_patched()

    # -- requests (also used by tests) ----------------------------------------------------------------
    def run(self) -> None:
        """Patch every head over the pairs chosen: a generated task's first N, or a file's."""
        if self.session is None:
            return
        chosen = self.pairs_box.currentData()
        if isinstance(chosen, str) and chosen.startswith(PAIRS_FILE):
            self.session.compute_patching(pairs_path=chosen[len(PAIRS_FILE):])
        elif chosen and chosen != OTHER_FILE:
            self.session.compute_patching(chosen, self.count_box.value())

    def add_pairs_file(self, path: str | Path) -> None:
        """Offer (and choose) the file of pairs ``path``: Run reads it."""
        data = PAIRS_FILE + str(path)
        index = self.pairs_box.findData(data)
        if index < 0:
            index = self.pairs_box.count() - 1
            self.pairs_box.insertItem(index, Path(path).name, data)
        self.pairs_box.setCurrentIndex(index)
        self.count_box.setEnabled(False)

    def patch(self, heads: Sequence[str]) -> None:
        """Decode the chosen pair's corrupt side with ``heads`` (``cross:3.1``, …) patched from its clean side; none:
        decode it with every head its own."""
        if self.session is None:
            return
        pair = self.pair()
        if not heads:
            self.session.patch_heads("")
            return
        if pair is None:
            return
        here = self.state.text == pair.corrupt
        self.session.patch_heads(",".join(heads), pair, decode_again=here)
        if not here:
            self.sentence_requested.emit(pair.corrupt)

    def heads_patched(self) -> list[str]:
        model = self.state.model
        return [h for h in (model.heads_patched.split(",") if model is not None else []) if h]

    def pair(self) -> MinimalPair | None:
        """The pair chosen (a MinimalPair of the patching on show), or None."""
        result, index = self.state.patching, self.pair_box.currentIndex()
        return result.pairs[index] if result is not None and 0 <= index < len(result.pairs) else None

    # -- state ----------------------------------------------------------------------------------------
    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        self.state = new
        if changed(old, new, "model"):
            self._list_pairs(new.model.patching_tasks if new.model is not None else ())
            self.grid.live = new.model is not None and new.decodes and new.model.offers(Capability.DECODER)
            self._show_patched()
        if changed(old, new, "patching_progress", "model"):
            self._show_progress(new.patching_progress)
        if changed(old, new, "patching"):
            self._list_pair_choices(new.patching)
        if changed(old, new, "patching", "model"):
            self._draw()
            self._show_patched()
            self._reserve_room()
            self.readout.setText(tr(READOUT_HINT) if new.patching is not None else " ")
        if changed(old, new, "pair_maps", "patching"):
            self._draw_maps()

    def _list_pairs(self, tasks: Sequence[str]) -> None:
        """Offer the generated tasks of the model on show and a file of pairs (the files chosen so far kept)."""
        kept = [(self.pairs_box.itemText(i), self.pairs_box.itemData(i)) for i in range(self.pairs_box.count())
                if str(self.pairs_box.itemData(i)).startswith(PAIRS_FILE)]
        current = self.pairs_box.currentData()
        self.pairs_box.blockSignals(True)
        self.pairs_box.clear()
        for task in tasks:
            self.pairs_box.addItem(tr(TASK_NAMES.get(task, task)), task)
        for text, data in kept:
            self.pairs_box.addItem(text, data)
        self.pairs_box.addItem(tr("A file of pairs…"), OTHER_FILE)
        index = self.pairs_box.findData(current)
        self.pairs_box.setCurrentIndex(index if index >= 0 and current != OTHER_FILE else 0)
        self.pairs_box.blockSignals(False)
        self.count_box.setEnabled(self.pairs_box.currentData() in tasks)

    def _list_pair_choices(self, result: PatchingResult | None) -> None:
        self.pair_box.blockSignals(True)
        self.pair_box.clear()
        for pair in result.pairs if result is not None else ():
            self.pair_box.addItem(tr("{clean} → {corrupt} ({answer}/{alternative})").format(
                clean=pair.clean, corrupt=pair.corrupt, answer=pair.answer, alternative=pair.alternative))
        self.pair_box.setCurrentIndex(first_pair(result, self.state.text) if result is not None and result.pairs
                                      else -1)
        self.pair_box.blockSignals(False)  # (the session asks for the first pair's maps itself)

    def _show_progress(self, progress: tuple[str, int, int] | None) -> None:
        running = progress is not None
        self.progress.setVisible(running)
        self.cancel_button.setVisible(running)
        model = self.state.model
        usable = model is not None and model.patchable
        for widget in (self.run_button, self.pairs_box):
            widget.setEnabled(usable and not running)
        self.run_button.setToolTip("" if usable or model is None else tr(
            "Patching reads minimal pairs of sentences through each head's output: this model's heads cannot be "
            "patched"))
        if progress is not None:
            what, done, total = progress
            self.progress.setRange(0, max(total, 0))
            self.progress.setValue(done)
            self.progress.setFormat(f"{what} %p%")

    def _show_patched(self) -> None:
        heads = self.heads_patched()
        pair = self.session.live_pair if self.session is not None else None
        text = ""
        if heads and pair is not None:
            text = (tr("Patched: {heads} — “{corrupt}” is decoded with their outputs from “{clean}”")
                    .format(heads=", ".join(heads), corrupt=pair.corrupt, clean=pair.clean))
        else:  # (the line stays, so that the grid's cells stay where they were while heads are patched one by one)
            text = tr("No head patched: Ctrl+click a head to patch it into the decoding on show")
        self.banner.setText(text)
        self.banner.setToolTip(text)  # (whole, where the banner's lines cut it)
        self.unpatch_button.setEnabled(bool(heads))
        self.patched_row.setVisible(self.state.patching is not None or bool(heads))
        self.grid.set_patched({(r, c) for r, row in enumerate(self.cells) for c, cell in enumerate(row)
                               if head_name(*cell) in heads})

    def _reserve_room(self) -> None:
        """Keep the banner and the read-out as tall at the panel's width as their longest texts need, so that the
        grid's cells stay where they are while the pointer moves over it and heads are patched one by one (a cell
        that moved under the pointer would take the next Ctrl+click)."""
        lines = self.banner.fontMetrics().lineSpacing()
        self.banner.setFixedHeight(3 * lines + 8)  # (at most three lines: the tooltip has the whole)
        width = max(self.readout.width(), 1)
        document = QtGui.QTextDocument()
        document.setDefaultFont(self.readout.font())
        document.setDocumentMargin(0)
        document.setTextWidth(width)
        texts = [tr(READOUT_HINT)]
        if self.state.patching is not None:
            texts += [self.readout_text(*cell) for row in self.cells for cell in row]
        tallest = 0.0
        for text in texts:
            document.setPlainText(text)
            tallest = max(tallest, document.size().height())
        self.readout.setMinimumHeight(int(tallest) + 2)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._reserve_room()

    # -- drawing --------------------------------------------------------------------------------------
    def _values(self, result: PatchingResult, what: str = "means") -> np.ndarray:
        """The measure chosen's means (or lows, highs) as the grid's rows: a row per kind and layer (N,) -> (R, H)."""
        measure = self.measure_box.currentData() or "denoise"
        flat = getattr(result.summary, what)[measure]
        width = max(s.heads for s in result.layout.kinds)
        rows, at = [], 0
        for shape in result.layout.kinds:
            for _layer in range(shape.layers):
                row = np.full(width, np.nan)
                row[: shape.heads] = flat[at: at + shape.heads]
                rows.append(row)
                at += shape.heads
        return np.array(rows, dtype=np.float64)

    def figure(self) -> FigureSpec | None:
        """The grid on show (what Export writes), or None before a patching run."""
        return self.grid.spec if self.grid.spec.values.size else None

    def _draw(self) -> None:
        result = self.state.patching
        if result is None:
            self.cells = []
            self.grid.show_figure(empty_figure(tr("Patching")))
            return
        values = self._values(result)
        labels, cells = [], []
        width = values.shape[1]
        for shape in result.layout.kinds:
            for layer in range(shape.layers):
                labels.append(f"{shape.kind.slug} {layer + 1}")
                cells.append([(shape.kind, layer, head) for head in range(shape.heads)])
        self.cells = cells
        finite = values[np.isfinite(values)]
        reach = float(np.max(np.abs(finite))) if finite.size else 1.0
        reach = reach if reach > 1e-6 else 1.0
        masked = ~np.isfinite(values)
        title = tr("{model}: {measure}, {source}, {count:,} pairs").format(
            model=result.model, measure=self.measure_box.currentText(), source=tr(TASK_NAMES.get(result.source,
                                                                                              result.source)),
            count=result.summary.counted)
        self.grid.show_figure(FigureSpec(np.nan_to_num(values).astype(np.float32), tuple(labels),
                                         tuple(str(h) for h in range(1, width + 1)), title, (-reach, reach),
                                         colormap=DIVERGING, row_axis=tr("kind and layer"), col_axis=tr("head"),
                                         masked=masked if masked.any() else None))
        self._show_patched()

    def _draw_maps(self) -> None:
        maps, chosen = self.state.pair_maps, self.chosen
        views = (self.clean_map, self.corrupt_map, self.difference_map)
        if maps is None or chosen is None or chosen[0] not in maps.clean:
            for view in views:
                view.show_figure(empty_figure(""))
            return
        kind, layer, head = chosen
        clean, corrupt = maps.clean[kind][layer, head], maps.corrupt[kind][layer, head]
        name = head_name(kind, layer, head)
        rows, columns = maps.rows[kind], maps.columns[kind]
        difference = clean - corrupt
        reach = float(np.max(np.abs(difference))) if difference.size else 0.0
        reach = reach if reach > 1e-6 else 1.0
        both = tuple(a if a == b else f"{a}/{b}" for a, b in zip(columns[0], columns[1], strict=True))
        both_rows = tuple(a if a == b else f"{a}/{b}" for a, b in zip(rows[0], rows[1], strict=True))
        self.clean_map.show_figure(FigureSpec(clean, rows[0], columns[0], tr("{head} · clean").format(head=name),
                                              colour_bar=False))
        self.corrupt_map.show_figure(FigureSpec(corrupt, rows[1], columns[1], tr("{head} · corrupt").format(
            head=name), colour_bar=False))
        self.difference_map.show_figure(FigureSpec(difference, both_rows, both, tr("{head} · clean − corrupt").format(
            head=name), (-reach, reach), colormap=DIVERGING, colour_bar=False))

    # -- handlers -------------------------------------------------------------------------------------
    def _head_at(self, row: int, col: int) -> tuple[AttentionKind, int, int] | None:
        if 0 <= row < len(self.cells) and 0 <= col < len(self.cells[row]):
            return self.cells[row][col]
        return None

    def readout_text(self, kind: AttentionKind, layer: int, head: int) -> str:
        """One head's mean share and interval for the measure chosen, over the pairs counted."""
        result = self.state.patching
        assert result is not None
        index = next(i for i, h in enumerate(result.summary.heads) if (h.kind, h.layer, h.head) == (kind, layer, head))
        measure = self.measure_box.currentData() or "denoise"
        summary = result.summary
        return tr("{kind} {layer}.{head} · {measure} {mean:.2f} [{low:.2f}, {high:.2f}] over {count:,} pairs").format(
            kind=kind.slug, layer=layer + 1, head=head + 1, measure=measure, mean=summary.means[measure][index],
            low=summary.lows[measure][index], high=summary.highs[measure][index], count=summary.counted)

    def _on_grid_hovered(self, row: int, col: int) -> None:
        head = self._head_at(row, col)
        if self.state.patching is None:
            self.readout.setText(" ")
        elif head is None:
            self.readout.setText(tr(READOUT_HINT))
        else:
            self.readout.setText(self.readout_text(*head))

    def _on_grid_clicked(self, row: int, col: int) -> None:
        head = self._head_at(row, col)
        if head is None:
            return
        if self.grid.pressed_with & QtCore.Qt.KeyboardModifier.ControlModifier and self.grid.live:
            self._on_patch_requested(row, col)
            return
        self.show_head(*head)

    def show_head(self, kind: AttentionKind, layer: int, head: int) -> None:
        """Show head (kind, layer, head)'s maps on both sides of the pair chosen and their difference."""
        self.chosen = (kind, layer, head)
        self._draw_maps()

    def _on_patch_requested(self, row: int, col: int) -> None:
        head = self._head_at(row, col)
        if head is None:
            return
        name = head_name(*head)
        patched = self.heads_patched()
        self.patch([h for h in patched if h != name] if name in patched else [*patched, name])

    def _on_pair_chosen(self, index: int) -> None:
        if self.session is not None and index >= 0:
            self.session.show_pair_maps(index)

    def _on_pairs_chosen(self, _index: int) -> None:
        chosen = self.pairs_box.currentData()
        tasks = self.state.model.patching_tasks if self.state.model is not None else ()
        self.count_box.setEnabled(chosen in tasks)
        if chosen != OTHER_FILE:
            return
        path, _ = file_dialogs.open_file_name(self, tr("A file of pairs"), "",
                                              tr("Pairs (*.tsv *.txt);;All files (*)"))
        if path:
            self.add_pairs_file(path)
        else:
            self.pairs_box.setCurrentIndex(0)
            self.count_box.setEnabled(self.pairs_box.currentData() in tasks)

    def _on_cancel_clicked(self) -> None:
        if self.session is not None:
            self.session.cancel_patching()
