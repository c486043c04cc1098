"""Kernel-regression panel: Nadaraya–Watson attention pooling on the book's synthetic data.

Left: training points, the true function, non-parametric and parametric predictions, a draggable
query line, and that query's attention weights over the training points. Right: the (test × train)
attention-weight heatmap of either model. A kernel and bandwidth control re-fits the non-parametric
model; every change is a request (``fit_requested``) answered with :meth:`show_fit`.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.core.limits import BANDWIDTH_CHOICES
from attnviz.core.results import KERNELS, KernelFit
from attnviz.figures.panels import KERNEL_NAMES, kernel_weights_figure
from attnviz.figures.spec import FigureSpec
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.titled_plot import TitledPlot, legend_below
from attnviz.i18n import N_, tr
from attnviz.session import Session, SessionState, changed

NONPARAMETRIC_PEN = pg.mkPen((31, 119, 180), width=2)
PARAMETRIC_PEN = pg.mkPen((255, 127, 14), width=2)
TRUTH_PEN = pg.mkPen((40, 40, 40), width=1.5, style=QtCore.Qt.PenStyle.DashLine)
LEGEND_OFFSET = 8  # px between the legend inside the plot and the plot's edges
LEGEND_SHARE = 0.4  # most of the height under the plot's title that the legend under it may take
HEATMAP_MODELS = (N_("non-parametric"), N_("parametric"))  # (shown translated; the English is the item data)


class KernelPanel(QtWidgets.QWidget):
    """Asks the session for a new fit (``fit_kernel``) when the user changes a control, and draws the
    fit the session publishes."""

    def __init__(self, session: Session | None = None, parent=None):
        super().__init__(parent)
        self.session = session
        self.fit: KernelFit | None = None
        self.kernel_box = QtWidgets.QComboBox()
        for kernel in KERNELS:
            self.kernel_box.addItem(tr(KERNEL_NAMES.get(kernel, kernel)), kernel)
        self.bandwidth = QtWidgets.QDoubleSpinBox()
        self.bandwidth.setRange(*BANDWIDTH_CHOICES)
        self.bandwidth.setSingleStep(0.05)
        self.bandwidth.setDecimals(2)
        self.bandwidth.setValue(1.0)
        self.bandwidth.setToolTip(tr("Bandwidth h of the non-parametric kernel K((x − xᵢ) / h)"))
        self.heatmap_model = QtWidgets.QComboBox()
        for model in HEATMAP_MODELS:
            self.heatmap_model.addItem(tr(model), model)
        self.summary = QtWidgets.QLabel(" ")
        self.summary.setWordWrap(True)
        controls = QtWidgets.QGridLayout()  # label above control: narrow enough to dock beside others
        for column, (label, widget) in enumerate(((tr("Kernel"), self.kernel_box), (tr("Bandwidth h"), self.bandwidth),
                                                  (tr("Heatmap"), self.heatmap_model))):
            controls.addWidget(QtWidgets.QLabel(label), 0, column)
            controls.addWidget(widget, 1, column)
        controls.setColumnStretch(3, 1)

        self.curves_view = TitledPlot(title=tr("Predictions (drag the red line to move the query)"))
        self.curves = self.curves_view.plot
        self.curves.setMouseEnabled(x=True, y=True)
        legend_below(self.curves, columns=1)  # (two columns of these names would widen the dock)
        self._legend_below = True  # False: the legend is drawn inside the plot (no room under it)
        self.curves.setLabel("bottom", "x")
        self.curves.setLabel("left", "y")
        self.points = self.curves.plot([], [], pen=None, symbol="o", symbolSize=6, symbolBrush=(150, 150, 150),
                                       symbolPen=None, name=tr("training points"))
        self.truth = self.curves.plot([], [], pen=TRUTH_PEN, name=tr("true f(x) = 2 sin x + x^0.8"))
        self.nonparametric = self.curves.plot([], [], pen=NONPARAMETRIC_PEN, name=tr("non-parametric"))
        self.parametric = self.curves.plot([], [], pen=PARAMETRIC_PEN, name=tr("parametric (learned w)"))
        self._legend_inside = self._inside_legend()
        self.curves.vb.sigResized.connect(self._on_curves_resized)  # (fonts changed: the room for the legend)
        self.query_line = pg.InfiniteLine(pos=2.5, angle=90, movable=True, pen=pg.mkPen((220, 40, 40), width=2),
                                          hoverPen=pg.mkPen((255, 0, 0), width=3))
        self.curves.addItem(self.query_line)
        self.query_marks = pg.ScatterPlotItem(size=11, pen=pg.mkPen("k"))
        self.curves.addItem(self.query_marks)

        self.weights_view = TitledPlot(title=tr("Attention weights of the query over training points"))
        self.weights_view.setMaximumHeight(200)
        self.weights = self.weights_view.plot
        self.weights.setLabel("bottom", tr("training x"))
        self.weights.setXLink(self.curves)
        self.nonparametric_bars = pg.BarGraphItem(x=[], height=[], width=0.04, brush=(31, 119, 180))
        self.parametric_bars = pg.BarGraphItem(x=[], height=[], width=0.04, brush=(255, 127, 14))
        self.weights.addItem(self.nonparametric_bars)
        self.weights.addItem(self.parametric_bars)

        self.heatmap = Heatmap()
        self.split_curves = left = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        left.addWidget(self.curves_view)
        left.addWidget(self.weights_view)
        self.split = split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(self.heatmap)
        self._split_sizes: list[int] | None = None  # before the lecture view made the two halves equal
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(controls)
        layout.addWidget(split, 1)
        layout.addWidget(self.summary)

        self.kernel_box.currentIndexChanged.connect(self._on_control_changed)
        self.bandwidth.valueChanged.connect(self._on_control_changed)
        self.query_line.sigPositionChanged.connect(self._on_control_changed)
        self.heatmap_model.currentIndexChanged.connect(self._on_heatmap_model_changed)

    def set_lecture(self, label_pixels: tuple[int, int] | None) -> None:
        """The lecture view: the predictions plot and the kernel map, large, with the kernel and h controls
        (what a teacher changes live); the weights plot and the summary line hidden. None: as it was."""
        lecture = label_pixels is not None
        self.weights_view.setVisible(not lecture)
        self.summary.setVisible(not lecture)
        self.heatmap.title_lines = 3  # (kernel and h stay in view: presentation mode at 1024 px cut them on two)
        self.heatmap.set_label_pixels(label_pixels)
        font = QtGui.QFont()  # (unset: the application's)
        if label_pixels is not None:
            font = QtGui.QFont(QtWidgets.QApplication.font())
            font.setPixelSize(label_pixels[0])
        self.setFont(font)  # the controls and their names
        self.curves_view.set_text_font(font if lecture else None)
        self._fit_legend()
        if lecture and self._split_sizes is None:
            self._split_sizes = self.split.sizes()
            half = sum(self._split_sizes) // 2
            self.split.setSizes([half, half])
        elif not lecture and self._split_sizes is not None:
            self.split.setSizes(self._split_sizes)
            self._split_sizes = None

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_legend()

    def _fit_legend(self) -> None:
        """The legend under the plot, in two columns where the plot is wide enough for them (large text in a
        narrow dock: one); where that legend would take more than LEGEND_SHARE of the height the plot and its
        legend share (presentation mode or Chinese at 1024×768), it goes inside the plot's top-left corner
        instead, on a white ground, so the predictions never shrink to a strip."""
        below = self.curves.legend
        labels = [label for _sample, label in below.items]
        widest = max((label.item.boundingRect().width() + 40 for label in labels), default=0.0)
        columns = 2 if self.curves_view.width() >= 2 * widest + 20 else 1
        if columns != below.columnCount:
            below.setColumnCount(columns)
        line = max((label.item.boundingRect().height() for label in labels), default=0.0)
        needed = -(-len(labels) // columns) * line
        room = self.curves.vb.height() + (below.geometry().height() if self._legend_below else 0.0)
        below_fits = not labels or room <= 0 or needed <= LEGEND_SHARE * room
        if below_fits != self._legend_below:
            self._legend_below = below_fits
            if below_fits:
                self.curves.layout.addItem(below, 4, 1)
            else:
                self.curves.layout.removeItem(below)
            below.setVisible(below_fits)
            self._legend_inside.setVisible(not below_fits)
            self.curves.layout.invalidate()
        if not below_fits:
            self._place_inside_legend()

    def _place_inside_legend(self) -> None:
        """Anchor the legend inside the plot at the corner whose legend-sized rectangle covers the fewest of the
        plotted points (matplotlib's loc="best", over the four corners)."""
        legend, box = self._legend_inside, self.curves.vb
        size = legend.boundingRect()
        if box.width() <= 0 or box.height() <= 0 or size.isEmpty():
            return
        points = [item.getData() for item in (self.points, self.truth, self.nonparametric, self.parametric)]
        xs = np.concatenate([np.asarray(x, float) for x, _ in points if x is not None] or [np.empty(0)])
        ys = np.concatenate([np.asarray(y, float) for _, y in points if y is not None] or [np.empty(0)])
        (left, right), (bottom, top) = box.viewRange()
        width = size.width() / box.width() * (right - left)
        height = size.height() / box.height() * (top - bottom)
        margin = LEGEND_OFFSET / box.width() * (right - left), LEGEND_OFFSET / box.height() * (top - bottom)
        best = None
        for corner in ((0, 0), (1, 0), (0, 1), (1, 1)):  # (x, y) of the anchor: 0 left/top, 1 right/bottom
            x0 = left + margin[0] if corner[0] == 0 else right - margin[0] - width
            y1 = top - margin[1] if corner[1] == 0 else bottom + margin[1] + height
            covered = int(np.count_nonzero((xs >= x0) & (xs <= x0 + width) & (ys <= y1) & (ys >= y1 - height)))
            if best is None or covered < best[0]:
                best = (covered, corner)
        assert best is not None
        corner = best[1]
        offset = tuple(LEGEND_OFFSET if side == 0 else -LEGEND_OFFSET for side in corner)
        legend.anchor(itemPos=corner, parentPos=corner, offset=offset)

    def _on_curves_resized(self, *_args) -> None:
        QtCore.QTimer.singleShot(0, self._fit_legend)  # (after the layout has settled, not inside it)

    def _inside_legend(self) -> pg.LegendItem:
        """The same entries as the legend below, drawn inside the plot (hidden until needed)."""
        below = self.curves.legend
        inside = pg.LegendItem(colCount=1, labelTextSize=below.opts["labelTextSize"], pen=pg.mkPen(200, 200, 200),
                               brush=pg.mkBrush(255, 255, 255, 215), offset=(LEGEND_OFFSET, LEGEND_OFFSET))
        inside.setParentItem(self.curves.vb)
        for sample, label in below.items:
            inside.addItem(sample.item, label.text)
        inside.hide()
        return inside

    # -- input ------------------------------------------------------------------------------
    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        if new.kernel is not None and changed(old, new, "kernel"):
            self.show_fit(new.kernel)

    def show_fit(self, fit: KernelFit) -> None:
        """Draw a fit (from the session); the controls follow its kernel, bandwidth and query."""
        first = self.fit is None
        self.fit = fit
        for widget in (self.kernel_box, self.bandwidth, self.query_line):
            widget.blockSignals(True)
        self.kernel_box.setCurrentIndex(max(0, self.kernel_box.findData(fit.kernel)))
        self.bandwidth.setValue(fit.bandwidth)
        if not self.query_line.moving:  # while dragged, the line leads and fits follow it
            self.query_line.setValue(fit.query)
        for widget in (self.kernel_box, self.bandwidth, self.query_line):
            widget.blockSignals(False)
        self.query_line.setBounds((float(fit.x_test.min()), float(fit.x_test.max())))
        self.points.setData(fit.x_train, fit.y_train)
        self.truth.setData(fit.x_test, fit.y_test)
        self.nonparametric.setData(fit.x_test, fit.nonparametric, connect="finite")
        self.parametric.setData(fit.x_test, fit.parametric)
        marks = [(fit.query, y, brush) for y, brush in ((fit.query_nonparametric, (31, 119, 180)),
                                                         (fit.query_parametric, (255, 127, 14))) if np.isfinite(y)]
        self.query_marks.setData([m[0] for m in marks], [m[1] for m in marks], brush=[m[2] for m in marks])
        self.nonparametric_bars.setOpts(x=fit.x_train - 0.02, height=fit.query_nonparametric_weights)
        self.parametric_bars.setOpts(x=fit.x_train + 0.02, height=fit.query_parametric_weights)
        if first:
            self.curves.autoRange()
        if not self._legend_below:
            self._place_inside_legend()  # (the curves moved: the emptiest corner may be another)
        self._draw_heatmap()
        mse_np, mse_p = fit.test_mse()
        self.summary.setText(tr(
            "Query x = {query:.2f}: non-parametric ŷ = {nonparametric:.3f}, parametric ŷ = {parametric:.3f}. "
            "Learned w = {w:.3f} (bandwidth 1/|w| = {bandwidth:.3f}). "
            "Test MSE: non-parametric {mse_np:.3f}, parametric {mse_p:.3f}.").format(
            query=fit.query, nonparametric=fit.query_nonparametric, parametric=fit.query_parametric, w=fit.w,
            bandwidth=1 / abs(fit.w) if fit.w else float("inf"), mse_np=mse_np, mse_p=mse_p))

    def figure(self) -> FigureSpec:
        """The (test × train) attention-weight heatmap on show (no cells before the first fit)."""
        return self.heatmap.spec

    # -- handlers ---------------------------------------------------------------------------
    def _draw_heatmap(self) -> None:
        fit = self.fit
        if fit is None:
            return
        self.heatmap.show_figure(kernel_weights_figure(fit, self.heatmap_model.currentData() == "parametric"))
        self.heatmap.highlight_row(int(np.argmin(np.abs(fit.x_test - fit.query))))

    def _on_heatmap_model_changed(self, _index: int) -> None:
        self._draw_heatmap()

    def _on_control_changed(self, *_args) -> None:
        if self.session is not None:
            self.session.fit_kernel(self.kernel_box.currentData(), float(self.bandwidth.value()),
                                    float(self.query_line.value()))
