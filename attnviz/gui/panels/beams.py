"""Beams panel: the beam-search tree up to the step on show, the cross-attention of the hypothesis
chosen in it, and the coverage strip (how much attention each source token has received so far).

The tree is painted by the export painter (:func:`attnviz.render.figure_painter.paint_tree`), so its
Export writes what is on screen. Click a node to show that hypothesis; the best one is shown otherwise.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.figures.beam_tree import beam_tree, coverage_figure, hypothesis_figure, hypothesis_weights
from attnviz.figures.spec import TreeSpec, empty_figure
from attnviz.gui.decoding_area import FIRST_STEP_HINT
from attnviz.gui.heatmap import Heatmap
from attnviz.i18n import tr
from attnviz.render.figure_painter import elided_title, paint_figure, tree_geometry
from attnviz.session import Session, SessionState, changed


class TreeView(QtWidgets.QWidget):
    """A beam tree at its natural size (inside a scroll area); ``node_clicked`` with the node's index."""

    node_clicked = QtCore.Signal(int)
    export_requested = QtCore.Signal()  # its context menu: write the tree on show

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.spec: TreeSpec | None = None
        self.boxes: list[QtCore.QRectF] = []
        self.setCursor(QtCore.Qt.CursorShape.PointingHandCursor)

    def show_tree(self, spec: TreeSpec | None) -> None:
        self.spec = spec
        if spec is None:
            self.boxes = []
            self.setFixedSize(10, 10)
        else:
            width, height, self.boxes = tree_geometry(spec)
            self.setFixedSize(int(width) + 1, int(height) + 1)
        self.update()

    def node_at(self, point: QtCore.QPointF) -> int | None:
        return next((i for i, box in enumerate(self.boxes) if box.contains(point)), None)

    def paintEvent(self, _event: QtGui.QPaintEvent) -> None:
        painter = QtGui.QPainter(self)
        painter.fillRect(self.rect(), QtGui.QColor("white"))
        if self.spec is not None:  # the title is the panel's, over the scroll area
            paint_figure(painter, replace(self.spec, title=""))
        painter.end()

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        index = self.node_at(event.position())
        if event.button() == QtCore.Qt.MouseButton.LeftButton and index is not None:
            self.node_clicked.emit(index)
        super().mousePressEvent(event)

    def contextMenuEvent(self, event: QtGui.QContextMenuEvent) -> None:
        if self.spec is None:
            return
        menu = QtWidgets.QMenu(self)
        menu.addAction(tr("Export tree…"), lambda: self.export_requested.emit())
        menu.exec(event.globalPos())


class TitleLabel(QtWidgets.QLabel):
    """A bold one-line title that stays put while the tree under it scrolls: cut with "…" to its width,
    "step N" kept (:func:`elided_title`), the whole text in its tooltip."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.full = ""
        font = QtGui.QFont(self.font())
        font.setBold(True)
        self.setFont(font)
        self.setMinimumWidth(20)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)

    def set_title(self, text: str) -> None:
        self.full = text
        self.setToolTip(text)
        self._fit()

    def _fit(self) -> None:
        self.setText(elided_title(QtGui.QFontMetricsF(self.font()), self.full, max(self.width() - 4, 10)))

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()


class BeamsPanel(QtWidgets.QWidget):
    """The tree, the chosen hypothesis's cross-attention and its coverage of the source."""

    export_requested = QtCore.Signal()  # the tree's Export: write the tree (:meth:`figure`)

    def __init__(self, session: Session | None = None, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.state = SessionState()
        self.selected: tuple[str, ...] | None = None  # the chosen hypothesis's tokens (None: the best)
        self.tree = TreeView()
        self.tree_title = TitleLabel()
        self.tree_area = QtWidgets.QScrollArea()
        self.tree_area.setWidget(self.tree)
        self.tree_area.setMinimumHeight(200)  # a few branches at least: the tree is what this panel is for
        self.attention = Heatmap()
        self.coverage = Heatmap()
        self.coverage.setMinimumHeight(100)
        self.coverage.setMaximumHeight(150)
        self.coverage.setToolTip(tr("Total attention each source token has received so far (last layer, heads "
                                    "averaged): about 1 where a word was translated once, near 0 for a dropped "
                                    "word, well above 1 for a repeated one"))
        caption = QtWidgets.QLabel(tr("Beam search keeps the best hypotheses at every step; faded branches were "
                                      "pruned. Click a node to see its attention. Set the beam size beside Reset."))
        caption.setWordWrap(True)
        tree_box = QtWidgets.QWidget()
        tree_layout = QtWidgets.QVBoxLayout(tree_box)
        tree_layout.setContentsMargins(0, 0, 0, 0)
        tree_layout.setSpacing(2)
        tree_layout.addWidget(self.tree_title)
        tree_layout.addWidget(self.tree_area, 1)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(tree_box)
        split.addWidget(self.attention)
        split.addWidget(self.coverage)
        split.setSizes([400, 300, 120])  # (scaled to the dock's height)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(caption)
        layout.addWidget(split, 1)
        self.tree.node_clicked.connect(self._on_node_clicked)
        self.tree.export_requested.connect(self.export_requested)

    def figure(self) -> TreeSpec | None:
        """The beam tree on show (None before the first step)."""
        return self.tree.spec

    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        self.state = new
        if changed(old, new, "shown_source"):
            self.selected = None
        if changed(old, new, "shown_source", "step"):
            self._draw()

    def _draw(self) -> None:
        state, source = self.state, self.state.shown_source
        self.attention.set_hint(tr(FIRST_STEP_HINT) if source is not None and state.step is None else "")
        if source is None or state.step is None:
            self.tree.show_tree(None)
            self.tree_title.set_title("")
            self.attention.show_figure(empty_figure(tr("Step the decoder to grow the beam tree")))
            self.coverage.show_figure(empty_figure(""))
            return
        spec = beam_tree(state.steps, state.position, self.selected)
        if spec.selected is None:  # nothing chosen (or gone): the best hypothesis on show
            best = next((i for i, n in enumerate(spec.nodes) if n.best and n.tokens == state.step.beams[0].tokens),
                        None)
            spec = TreeSpec(spec.nodes, spec.parents, spec.columns, spec.rows, spec.title, best)
        self.tree_title.set_title(spec.title)  # (over the scroll area: it never scrolls out of sight)
        self.tree.show_tree(spec)
        if spec.selected is not None:  # keep the hypothesis on show in view
            box = self.tree.boxes[spec.selected]
            centre = box.center().toPoint()
            self.tree_area.ensureVisible(centre.x(), centre.y(), int(box.width()), int(box.height()))
        node = spec.nodes[spec.selected] if spec.selected is not None else None
        if node is None or not node.tokens:
            self.attention.show_figure(empty_figure(tr("Click a hypothesis in the tree")))
            self.coverage.show_figure(empty_figure(""))
            return
        self.attention.show_figure(hypothesis_figure(state.steps, node, source))
        weights, _queries = hypothesis_weights(state.steps, node)
        self.coverage.show_figure(coverage_figure(weights, source, f"“{' '.join(node.tokens)}”"))

    def _on_node_clicked(self, index: int) -> None:
        spec = self.tree.spec
        if spec is not None:
            self.selected = spec.nodes[index].tokens
            self._draw()
