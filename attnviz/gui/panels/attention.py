"""Attention panel: one query × key heatmap with kind/layer/head selectors, or all heads as a grid."""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.core.results import DecodeStep, EncodedSource
from attnviz.gui.figure import FigureSpec, GridSpec, argb_pixels, fit_levels
from attnviz.gui.heatmap import CellImage, Heatmap
from attnviz.gui.selection import (
    AttentionKind,
    MatrixView,
    available_kinds,
    figure_stem,
    figure_title,
    select,
    stack_for,
)

GRID_PANEL_PX = 200  # the longer side of each small multiple's cells in an exported grid, at scale 1


class HeadGrid(pg.GraphicsLayoutWidget):
    """Layers × heads small multiples of one attention kind (labelled rows and columns); clicking one
    emits ``picked(layer, head)``; its context menu emits ``export_requested`` / ``copy_requested``."""

    picked = QtCore.Signal(int, int)
    export_requested = QtCore.Signal()
    copy_requested = QtCore.Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setBackground("w")
        self.images: list[list[CellImage]] = []
        self.shape = (0, 0)  # layers, heads
        self.cells: tuple[int, ...] = (-1, -1)  # queries, keys of the matrices shown

    def set_stack(self, values: np.ndarray, levels: tuple[float, float] | None) -> None:
        """values (L, H, Q, K)."""
        layers, heads = values.shape[:2]
        if (layers, heads) != self.shape:
            self.clear()
            self.images = []
            for head in range(heads):
                self.addLabel(f"head {head + 1}", row=0, col=head + 1, size="9pt")
            for layer in range(layers):
                self.addLabel(f"layer {layer + 1}", row=layer + 1, col=0, angle=-90, size="9pt")
                row = []
                for head in range(heads):
                    box = self.addViewBox(row=layer + 1, col=head + 1, lockAspect=False, enableMouse=False)
                    box.invertY(True)
                    image = CellImage()
                    box.addItem(image)
                    image.mouseClickEvent = self._click_handler(layer, head)
                    row.append(image)
                self.images.append(row)
            self.shape = (layers, heads)
            self.cells = (-1, -1)  # new boxes: fit them to the matrix
        if levels is None:
            levels = fit_levels(values)
        resized = values.shape[2:] != self.cells
        self.cells = values.shape[2:]
        for layer in range(layers):
            for head in range(heads):
                image = self.images[layer][head]
                image.set_pixels(argb_pixels(values[layer, head], levels, "viridis"))
                if resized:
                    image.getViewBox().autoRange(padding=0.02)

    def contextMenuEvent(self, event: QtGui.QContextMenuEvent) -> None:
        menu = QtWidgets.QMenu(self)
        for text, signal in (("Export all heads as one picture or table…", self.export_requested),
                             ("Copy picture", self.copy_requested)):
            action = menu.addAction(text)
            action.setEnabled(self.shape[0] * self.shape[1] > 0)
            action.triggered.connect(lambda _checked=False, s=signal: s.emit())
        menu.exec(event.globalPos())

    def _click_handler(self, layer: int, head: int):
        def handler(event) -> None:
            event.accept()
            self.picked.emit(layer, head)

        return handler


class AttentionPanel(QtWidgets.QWidget):
    """Shows the selected attention matrix of the current source and step."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.source: EncodedSource | None = None
        self.step: DecodeStep | None = None
        self.model_name = ""
        self.current: MatrixView | None = None

        self.kind_box = QtWidgets.QComboBox()
        self.layer_box = QtWidgets.QSpinBox()
        self.head_box = QtWidgets.QSpinBox()
        for box, prefix in ((self.layer_box, "layer "), (self.head_box, "head ")):
            box.setPrefix(prefix)
            box.setRange(1, 1)
        self.all_heads = QtWidgets.QCheckBox("All heads")
        self.scores = QtWidgets.QCheckBox("Pre-softmax scores")
        self.show_masked = QtWidgets.QCheckBox("Show masked cells")
        self.show_masked.setChecked(True)
        selectors = QtWidgets.QHBoxLayout()  # two short rows: the dock stays narrow enough for a laptop
        for widget in (self.kind_box, self.layer_box, self.head_box):
            selectors.addWidget(widget)
        selectors.addStretch(1)
        toggles = QtWidgets.QHBoxLayout()
        for check in (self.all_heads, self.scores, self.show_masked):
            toggles.addWidget(check)
        toggles.addStretch(1)
        controls = QtWidgets.QVBoxLayout()
        controls.setSpacing(2)
        controls.addLayout(selectors)
        controls.addLayout(toggles)

        self.heatmap = Heatmap()
        self.grid = HeadGrid()
        self.stack = QtWidgets.QStackedWidget()
        self.stack.addWidget(self.heatmap)
        self.stack.addWidget(self.grid)
        self.readout = QtWidgets.QLabel(" ")
        self.readout.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(controls)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.readout)
        self._set_kinds(list(AttentionKind))

        self.kind_box.currentIndexChanged.connect(self._on_selector_changed)
        self.layer_box.valueChanged.connect(self._on_selector_changed)
        self.head_box.valueChanged.connect(self._on_selector_changed)
        for check in (self.all_heads, self.scores, self.show_masked):
            check.toggled.connect(self._on_selector_changed)
        self.heatmap.hovered.connect(self._on_heatmap_hovered)
        self.grid.picked.connect(self._on_grid_picked)

    # -- input from the window --------------------------------------------------------------
    def set_model(self, name: str, layers: int, heads: int) -> None:
        """The layer range follows the kind on show (see refresh); this sets the start."""
        self.model_name = name
        self._set_range(self.layer_box, layers)
        self._set_range(self.head_box, heads)

    @staticmethod
    def _set_range(box: QtWidgets.QSpinBox, count: int) -> None:
        box.blockSignals(True)
        box.setRange(1, max(count, 1))
        box.blockSignals(False)

    def set_data(self, source: EncodedSource | None, step: DecodeStep | None) -> None:
        self.source, self.step = source, step
        self._set_kinds(available_kinds(source))
        self.refresh()

    @property
    def kind(self) -> AttentionKind:
        return AttentionKind(self.kind_box.currentData())

    def select_view(self, kind: AttentionKind, layer: int, head: int) -> None:
        """Programmatic selection (0-based layer and head)."""
        index = self.kind_box.findData(kind.value)
        if index >= 0:
            self.kind_box.setCurrentIndex(index)
        self.layer_box.setValue(layer + 1)
        self.head_box.setValue(head + 1)

    def refresh(self) -> None:
        if self.source is None:
            self.current = None
            self.heatmap.set_matrix(np.zeros((0, 0)), (), (), title="Type a sentence to see attention")
            return
        scores = self.scores.isChecked()
        levels = None if scores else (0.0, 1.0)
        values, *_ = stack_for(self.kind, self.source, self.step, scores)
        self._set_range(self.layer_box, values.shape[0])  # encoder and decoder depths may differ
        self._set_range(self.head_box, values.shape[1])
        if self.all_heads.isChecked():  # the single heatmap is redrawn when the grid is switched off
            self.grid.set_stack(values, levels)
            self.stack.setCurrentWidget(self.grid)
            self.current = None
            return
        self.stack.setCurrentWidget(self.heatmap)
        view = select(self.kind, self.layer_box.value() - 1, self.head_box.value() - 1, self.source, self.step,
                      scores)
        self.current = view
        step_index = self.step.index if self.step is not None else None
        masked = view.masked if self.show_masked.isChecked() else None
        self.heatmap.set_matrix(view.values, view.rows, view.cols, levels,
                                view.title(self.model_name, step_index), masked)
        current_row = len(view.rows) - 1 if view.kind is not AttentionKind.ENCODER_SELF and view.rows else None
        self.heatmap.highlight_row(current_row)

    def grid_figure(self) -> tuple[GridSpec, str] | None:
        """The all-heads grid on show as one exportable figure and its file stem; None when not shown."""
        if self.source is None or not self.all_heads.isChecked():
            return None
        scores = self.scores.isChecked()
        values, rows, cols, masked = stack_for(self.kind, self.source, self.step, scores)
        levels = fit_levels(values) if scores else (0.0, 1.0)
        shown_mask = np.asarray(masked) if self.show_masked.isChecked() else None
        layers, heads = values.shape[:2]
        panels = tuple(FigureSpec(values[layer, head], rows, cols, f"layer {layer + 1} · head {head + 1}", levels,
                                  masked=shown_mask, colour_bar=False, max_grid_px=GRID_PANEL_PX)
                       for layer in range(layers) for head in range(heads))
        step = self.step.index if self.step is not None else None
        spec = GridSpec(panels, heads, figure_title(self.model_name, self.kind, "all heads", step, scores), levels,
                        tuple(f"layer {i + 1}" for i in range(layers)), tuple(f"head {i + 1}" for i in range(heads)))
        return spec, figure_stem(self.kind, "all-heads", step, scores)

    # -- handlers ---------------------------------------------------------------------------
    def _set_kinds(self, kinds: list[AttentionKind]) -> None:
        if [self.kind_box.itemData(i) for i in range(self.kind_box.count())] == [k.value for k in kinds]:
            return
        current = self.kind_box.currentData()
        self.kind_box.blockSignals(True)
        self.kind_box.clear()
        for kind in kinds:
            self.kind_box.addItem(kind.value.capitalize(), kind.value)
        index = self.kind_box.findData(current)
        self.kind_box.setCurrentIndex(index if index >= 0 else self.kind_box.count() - 1)
        self.kind_box.blockSignals(False)

    def _on_selector_changed(self, *_args) -> None:
        self.refresh()

    def _on_grid_picked(self, layer: int, head: int) -> None:
        self.all_heads.setChecked(False)
        self.select_view(self.kind, layer, head)

    def _on_heatmap_hovered(self, row: int, col: int) -> None:
        view = self.current
        if view is None or row < 0:
            self.readout.setText(" ")
            return
        if self.source is None or row >= view.values.shape[0] or col >= view.values.shape[1]:
            return
        other = select(view.kind, view.layer, view.head, self.source, self.step, scores=not view.scores)
        weights, scores = (other, view) if view.scores else (view, other)
        text = (f"query <b>{html.escape(view.rows[row])}</b> → key <b>{html.escape(view.cols[col])}</b>: "
                f"weight {weights.values[row, col]:.4f}")
        text += " (masked)" if view.masked[row, col] else f", score {scores.values[row, col]:.3f}"
        self.readout.setText(text)
