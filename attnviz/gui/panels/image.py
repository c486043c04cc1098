"""The image panel: the picture a vision model read, with one query's attention laid over it.

Open an image (the button, File ▸ Open image…, a file dropped on the window) or pick a shipped sample; the model's
top-5 classes stand beside the picture. The overlay shows the ``[CLS]`` query's attention — or any patch's: click
it — in the chosen layer and head (or the heads' mean), or the rollout up to that layer (with or without the
residual's 0.5·I); All heads shows every layer × head as small overlays (click one to choose it). Layer and head
are the Attention panel's: the two views always show the same map. What is drawn is the figure Export writes
(PNG/SVG/PDF: the overlay; CSV/NPY: the patches' values on their grid).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.core.attention.kind import AttentionKind
from attnviz.figures.image import (
    ATTENTION,
    DEFAULT_OPACITY,
    SCALES,
    SOURCES,
    WHOLE_RANGE,
    OverlayChoice,
    overlay,
    overlay_grid,
)
from attnviz.figures.spec import AnyFigure, FigureSpec, GridSpec, NamedFigure, bar_ticks, tick_text
from attnviz.gui.heatmap_layout import BAR_GAP, BAR_TEXT_SLACK, BAR_WIDTH
from attnviz.i18n import tr
from attnviz.render.figure_painter import FONT_PIXELS, cell_at, figure_size, paint_colour_bar, paint_figure
from attnviz.session import Session, SessionState, changed
from attnviz.session.images import SAMPLE_NAMES, sample_images, sample_name

TOP_SHOWN = 5
MIN_FONT_PIXELS, MAX_FONT_PIXELS = 6, 96  # a lone heatmap's text size before scaling, px (FigureCanvas)


def classes_note(labels: tuple[str, ...]) -> str:
    """What the top classes can be at all: a classifier names one of its own classes for any picture (a cat gets a
    clothing label from a Fashion-MNIST model)."""
    if tuple(labels) == tuple(SAMPLE_NAMES.values()):  # (Fashion-MNIST's, in its order)
        return tr("The model knows only Fashion-MNIST's 10 classes of clothing, learnt from 28 × 28 grey pictures "
                  "on a black ground: any picture gets one of them.")
    return tr("The model knows only its {count:,} classes: any picture gets one of them.").format(count=len(labels))


def _bold(label: QtWidgets.QLabel) -> None:
    """Bold text that still takes its size from the panel (the lecture view's; a style sheet would fix it)."""
    font = QtGui.QFont()
    font.setBold(True)  # (only the weight is set: the size keeps following the parent's font)
    label.setFont(font)


class FigureCanvas(QtWidgets.QWidget):
    """Paints a figure scaled to fit (as its export paints it) and says which cell a click fell on.

    reflow: a grid of small multiples (a GridSpec) is laid out in the number of columns that draws its panels
    largest in the widget, its title wrapped above it in the widget's bold font (five overlays in one row under a
    one-line title were drawn ~50 px wide with ~5-px titles in a narrow dock). The figure itself, what Export
    writes, is unchanged.

    A lone heatmap (an overlay) is laid out with its text as large as the widget's font once scaled (its labels were
    as large as the room allowed: a Hugging Face folder's overlay beside no class list drew them twice the shipped
    ViT's size). Unless reflowed, a grid's shared colour bar is drawn beside the scaled panels in the widget's own
    font, as a heatmap's is (scaled with the sixteen overlays of All heads, its values were ~6 px high); a reflowed
    grid keeps it in the figure, its room going to the overlays."""

    clicked = QtCore.Signal(int, int, int)  # (panel, row, column) of the cell clicked

    def __init__(self, parent: QtWidgets.QWidget | None = None, reflow: bool = False):
        super().__init__(parent)
        self.figure: AnyFigure | None = None
        self.message = ""
        self.reflow = reflow
        self._shown: tuple[tuple, AnyFigure | None] | None = None  # ((figure id, width, height), as painted)
        self.setMinimumSize(200, 200)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Expanding)
        self.setCursor(QtCore.Qt.CursorShape.PointingHandCursor)

    def show_figure(self, figure: AnyFigure | None, message: str = "") -> None:
        self.figure, self.message, self._shown = figure, message, None
        self.update()

    def _title(self) -> str:
        """The title painted above a reflowed grid ("" where the figure paints its own)."""
        return self.figure.title if self.reflow and isinstance(self.figure, GridSpec) else ""

    def title_rect(self) -> QtCore.QRectF:
        """Where a reflowed grid's title is painted: the widget's width, as many lines as it wraps to."""
        title = self._title()
        if not title:
            return QtCore.QRectF(0, 0, self.width(), 0)
        font = QtGui.QFont(self.font())
        font.setBold(True)
        flags = int(QtCore.Qt.AlignmentFlag.AlignHCenter | QtCore.Qt.TextFlag.TextWordWrap)
        needed = QtGui.QFontMetrics(font).boundingRect(QtCore.QRect(0, 0, max(self.width() - 8, 1), 10_000), flags,
                                                      title)
        return QtCore.QRectF(4, 2, max(self.width() - 8, 1), min(needed.height(), self.height() // 3) + 4)

    def _has_own_bar(self) -> bool:
        """The figure is a grid with a shared colour bar, not reflowed: the bar is drawn here beside the scaled panels,
        in the widget's font."""
        return not self.reflow and isinstance(self.figure, GridSpec) and self.figure.shared_bar \
            and bool(self.figure.panels)

    def _bar_room(self) -> float:
        """Width in px right of the scaled figure taken by its colour bar: gap, bar, tick marks, the widest value."""
        if not self._has_own_bar():
            return 0.0
        assert isinstance(self.figure, GridSpec)
        metrics = QtGui.QFontMetricsF(self.font())
        widest = max(metrics.horizontalAdvance(tick_text(v)) for v in bar_ticks(self.figure.levels))
        return BAR_GAP + BAR_WIDTH + 5 + widest + BAR_TEXT_SLACK

    def shown_figure(self) -> AnyFigure | None:
        """The figure as painted: a reflowed grid in the columns that draw its panels largest (without its title);
        a grid without its shared colour bar (drawn beside it: :meth:`colour_bar`)."""
        figure = self.figure
        if not isinstance(figure, GridSpec) or not figure.panels or not (self.reflow or figure.shared_bar):
            return figure
        key = (id(figure), self.width(), self.height(), self.font().key())
        if self._shown is not None and self._shown[0] == key:
            return self._shown[1]
        if not self.reflow:
            figure = replace(figure, shared_bar=False)  # (its bar drawn beside it: colour_bar)
            self._shown = (key, figure)
            return figure
        room = QtCore.QSizeF(self.width(), max(self.height() - self.title_rect().bottom(), 1.0))
        best: tuple[float, AnyFigure] | None = None
        count = len(figure.panels)
        for columns in range(1, count + 1):
            rows = -(-count // columns)
            candidate = replace(figure, columns=columns, title="", row_names=tuple(map(str, range(rows))))
            size = figure_size(candidate)
            scale = min(room.width() / max(size.width(), 1.0), room.height() / max(size.height(), 1.0))
            if best is None or scale > best[0] + 1e-9:
                best = (scale, candidate)
        assert best is not None
        self._shown = (key, best[1])
        return best[1]

    def _placement(self) -> tuple[float, float, float]:
        """(scale, left, top) of the figure as painted, under a reflowed grid's title."""
        scale, left, top, _pixels = self._placed()
        return scale, left, top

    def font_pixels(self) -> int:
        """The text size the figure is laid out in, px before scaling (:func:`label_pixels` once scaled)."""
        return self._placed()[3]

    def label_pixels(self) -> float:
        """How high the figure's labels are drawn on screen, px."""
        scale, _left, _top, pixels = self._placed()
        return pixels * scale

    def _placed(self) -> tuple[float, float, float, int]:
        """(scale, left, top, text px before scaling) of the figure as painted. A lone heatmap's text size is chosen
        so that, scaled to fit, its labels come out as high as the widget's font (two or three tries: a larger text
        takes more room, which scales the figure down a little); other figures keep the export's."""
        shown = self.shown_figure()
        assert shown is not None
        above = self.title_rect().bottom()
        width, height = max(self.width() - self._bar_room(), 1.0), max(self.height() - above, 1.0)
        wanted = QtGui.QFontInfo(self.font()).pixelSize()
        pixels = FONT_PIXELS
        for _try in range(4):
            size = figure_size(shown, pixels)
            scale = min(width / max(size.width(), 1.0), height / max(size.height(), 1.0))
            better = min(max(round(wanted / max(scale, 1e-6)), MIN_FONT_PIXELS), MAX_FONT_PIXELS)
            if not isinstance(shown, FigureSpec) or better == pixels:
                break
            pixels = better
            size = figure_size(shown, pixels)
            scale = min(width / max(size.width(), 1.0), height / max(size.height(), 1.0))
        left = (self.width() - size.width() * scale - self._bar_room()) / 2
        return scale, left, above + (height - size.height() * scale) / 2, pixels

    def colour_bar(self) -> QtCore.QRectF:
        """Where a grid's shared colour bar is drawn, in widget px (empty: the figure has none of its own); its
        values are in the widget's font, right of it. It spans the panels as the export's does (a grid margin in,
        at both ends), at least three text lines high."""
        if not self._has_own_bar():
            return QtCore.QRectF()
        shown = self.shown_figure()
        assert shown is not None
        scale, left, top = self._placement()
        size = figure_size(shown)
        line = QtGui.QFontMetricsF(self.font()).height()
        inset = 24 * scale  # (the figure's margin, then as far again: where the export's bar begins)
        height = max(size.height() * scale - 2 * inset, 3 * line)
        middle = top + size.height() * scale / 2
        return QtCore.QRectF(left + size.width() * scale + BAR_GAP, middle - height / 2, BAR_WIDTH, height)

    def paintEvent(self, _event: QtGui.QPaintEvent) -> None:
        painter = QtGui.QPainter(self)
        painter.fillRect(self.rect(), QtGui.QColor("white"))
        if self.figure is None:
            painter.setPen(QtGui.QColor(90, 90, 90))
            painter.drawText(self.rect().adjusted(12, 12, -12, -12),
                             QtCore.Qt.AlignmentFlag.AlignCenter | QtCore.Qt.TextFlag.TextWordWrap, self.message)
            return
        if title := self._title():
            font = QtGui.QFont(self.font())
            font.setBold(True)
            painter.setFont(font)
            painter.setPen(QtGui.QColor("black"))
            painter.drawText(self.title_rect(), int(QtCore.Qt.AlignmentFlag.AlignHCenter
                                                    | QtCore.Qt.TextFlag.TextWordWrap), title)
        shown = self.shown_figure()
        assert shown is not None
        scale, left, top, pixels = self._placed()
        painter.save()
        painter.translate(left, top)
        painter.scale(scale, scale)
        paint_figure(painter, shown, font_pixels=pixels)
        painter.restore()
        bar = self.colour_bar()
        if not bar.isEmpty():
            assert isinstance(self.figure, GridSpec)
            painter.setFont(self.font())
            painter.setPen(QtGui.QColor("black"))
            paint_colour_bar(painter, bar, self.figure.levels, self.figure.colormap, QtGui.QFontMetricsF(self.font()))
        painter.end()

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        shown = self.shown_figure()
        if shown is None or event.button() != QtCore.Qt.MouseButton.LeftButton:
            return super().mousePressEvent(event)
        scale, left, top, pixels = self._placed()
        point = event.position()
        cell = cell_at(shown, (point.x() - left) / scale, (point.y() - top) / scale, pixels)
        if cell is not None:
            self.clicked.emit(*cell)


class ImagePanel(QtWidgets.QWidget):
    """The image, its top classes and the attention over it; asks the session to open images and to show a layer
    and head (the Attention panel's view)."""

    open_requested = QtCore.Signal()  # File ▸ Open image…'s dialog (the window's: it remembers the folder)
    query_chosen = QtCore.Signal(int)  # a patch clicked: its position (the Computation dock follows when on show)
    export_requested = QtCore.Signal()

    def __init__(self, session: Session | None = None, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.state = SessionState()
        self.query = 0  # the position whose row is drawn (0: [CLS])
        self.open_button = QtWidgets.QPushButton(tr("Open image…"))
        self.open_button.setToolTip(tr("Open a PNG, JPEG, WebP, BMP or GIF image (or drop one on the window)"))
        self.open_button.clicked.connect(self.open_requested)
        self.samples = QtWidgets.QComboBox()
        self.samples.addItem(tr("Samples…"), None)
        for path in sample_images():
            self.samples.addItem(sample_name(path), str(path))
        self.samples.setToolTip(tr("Fashion-MNIST test images shipped with attnviz (the ViT never trained on them)"))
        self.samples.activated.connect(self._on_sample)
        self.name = QtWidgets.QLabel("")
        self.name.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.open_button)
        top.addWidget(self.samples)
        top.addWidget(self.name, 1)

        self.source_box = QtWidgets.QComboBox()
        for key, label in SOURCES.items():
            self.source_box.addItem(tr(label), key)
        self.source_box.setToolTip(tr("Attention: one head's (or the heads' mean) weights of the query. Rollout: "
                                      "how much of each patch reaches the query after this layer, the heads averaged "
                                      "(Abnar & Zuidema 2020), with or without 0.5·I for the residual"))
        self.layer = QtWidgets.QSpinBox()
        self.layer.setRange(1, 1)
        self.head = QtWidgets.QComboBox()
        self.opacity = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.opacity.setRange(0, 100)
        self.opacity.setValue(round(DEFAULT_OPACITY * 100))
        self.opacity.setToolTip(tr("How strongly the attention covers the image"))
        self.scale_box = QtWidgets.QComboBox()
        for key, label in SCALES.items():
            self.scale_box.addItem(tr(label), key)
        self.scale_box.setToolTip(tr("0 to 1: the Attention dock's scale, a uniform row (each patch 1/n) stays dark. "
                                     "0 to the largest: the largest weight on show is bright yellow, however small "
                                     "(the title says how many times a uniform share it is)"))
        self.all_heads = QtWidgets.QCheckBox(tr("All heads"))
        self.all_heads.setToolTip(tr("Every layer × head as a small overlay; click one to show it"))
        self.cls_button = QtWidgets.QPushButton("[CLS]")
        self.cls_button.setToolTip(tr("Show the attention of [CLS], the query the class is read from (click a patch "
                                      "to show that patch's)"))
        self.cls_button.clicked.connect(lambda: self._set_query(0))
        controls = QtWidgets.QGridLayout()
        for column, (label, widget) in enumerate(((tr("Show"), self.source_box), (tr("Layer"), self.layer),
                                                  (tr("Head"), self.head), (tr("Opacity"), self.opacity))):
            controls.addWidget(QtWidgets.QLabel(label), 0, column)
            controls.addWidget(widget, 1, column)
        controls.addWidget(self.all_heads, 1, 4)
        controls.addWidget(self.cls_button, 1, 5)
        controls.addWidget(self.scale_box, 2, 0, 1, 2)
        controls.setColumnStretch(6, 1)

        self.title = QtWidgets.QLabel("")
        self.title.setWordWrap(True)
        _bold(self.title)
        self.canvas = FigureCanvas()
        self.canvas.show_figure(None, tr("Open an image, or pick a sample"))
        self.canvas.clicked.connect(self._on_cell_clicked)
        self.classes_title = QtWidgets.QLabel(tr("Top classes"))
        _bold(self.classes_title)
        self.class_names = [QtWidgets.QLabel("") for _ in range(TOP_SHOWN)]
        self.class_bars = [QtWidgets.QProgressBar() for _ in range(TOP_SHOWN)]
        # the probability beside its bar, never drawn on it (a style draws a bar's text under its chunk)
        self.class_percents = [QtWidgets.QLabel("") for _ in range(TOP_SHOWN)]
        # what the model can answer at all: a picture of anything gets one of its classes
        self.classes_note = QtWidgets.QLabel("")
        self.classes_note.setWordWrap(True)
        self.classes_note.setStyleSheet("color: #555;")
        self.classes_note.setMaximumWidth(240)
        classes = QtWidgets.QGridLayout()
        classes.addWidget(self.classes_title, 0, 0, 1, 3)
        for row, (name, bar, percent) in enumerate(zip(self.class_names, self.class_bars, self.class_percents,
                                                       strict=True), start=1):
            bar.setRange(0, 1000)
            bar.setTextVisible(False)
            bar.setMaximumWidth(90)
            bar.setMaximumHeight(max(8, self.fontMetrics().height() - 4))
            percent.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
            classes.addWidget(name, row, 0)
            classes.addWidget(bar, row, 1)
            classes.addWidget(percent, row, 2)
        classes.addWidget(self.classes_note, TOP_SHOWN + 1, 0, 1, 3)
        classes.setRowStretch(TOP_SHOWN + 2, 1)
        self.info = QtWidgets.QLabel("")
        self.info.setWordWrap(True)
        middle = QtWidgets.QHBoxLayout()
        shown = QtWidgets.QVBoxLayout()
        shown.addWidget(self.title)
        shown.addWidget(self.canvas, 1)
        middle.addLayout(shown, 1)
        middle.addLayout(classes)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(controls)
        layout.addLayout(middle, 1)
        layout.addWidget(self.info)
        self.all_heads.toggled.connect(self._on_all_heads_toggled)
        for signal in (self.source_box.currentIndexChanged, self.opacity.valueChanged, self.all_heads.toggled,
                       self.scale_box.currentIndexChanged):
            signal.connect(self._redraw)
        self.layer.valueChanged.connect(self._on_layer_or_head)
        self.head.currentIndexChanged.connect(self._on_layer_or_head)
        self.setAcceptDrops(False)  # (the window takes dropped files)

    # -- input ------------------------------------------------------------------------------
    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        self.state = new
        source = new.shown_source
        picture = source.picture if source is not None else None
        if changed(old, new, "shown_source"):
            self.query = 0
            self._fill_extent()
            self._show_classes()
            self.name.setText(source.text if source is not None and picture is not None else "")
        if changed(old, new, "shown_source", "view"):
            self._follow_view(new)
            self._redraw()

    def _fill_extent(self) -> None:
        source = self.state.shown_source
        weights = source.encoder_weights if source is not None and source.picture is not None else None
        layers, heads = (weights.shape[0], weights.shape[1]) if weights is not None else (1, 1)
        for widget in (self.layer, self.head):
            widget.blockSignals(True)
        self.layer.setRange(1, layers)
        current = self.head.currentData()
        self.head.clear()
        for head in range(heads):
            self.head.addItem(tr("head {head}").format(head=head + 1), head)
        self.head.addItem(tr("mean of heads"), None)
        self.head.setCurrentIndex(max(0, self.head.findData(current)) if current is not None else 0)
        for widget in (self.layer, self.head):
            widget.blockSignals(False)

    def _follow_view(self, state: SessionState) -> None:
        """Layer and head as the Attention panel's (the mean of heads stays while the view's head is unchanged)."""
        for widget in (self.layer, self.head):
            widget.blockSignals(True)
        self.layer.setValue(state.view.layer + 1)
        if self.head.currentData() is not None:
            self.head.setCurrentIndex(max(0, self.head.findData(state.view.head)))
        for widget in (self.layer, self.head):
            widget.blockSignals(False)

    def _show_classes(self) -> None:
        source = self.state.shown_source
        classes = source.classes if source is not None else ()
        probs = [float(p) for p in source.class_probs] if source is not None and source.class_probs is not None else []
        self.classes_title.setVisible(bool(classes))
        for index, (label, bar, percent) in enumerate(zip(self.class_names, self.class_bars, self.class_percents,
                                                          strict=True)):
            shown = index < len(classes)
            for widget in (label, bar, percent):
                widget.setVisible(shown)
            if shown:
                label.setText(tr(classes[index]))  # (Fashion-MNIST's names in the interface's language; others as is)
                label.setToolTip(tr("The model's own name: {name}").format(name=classes[index]))
                bar.setValue(round(float(probs[index]) * 1000))
                percent.setText(f"{float(probs[index]):.1%}")
        model = self.state.model
        self.classes_note.setText(classes_note(model.labels) if classes and model is not None else "")
        self.classes_note.setVisible(bool(self.classes_note.text()))

    # -- what is drawn ----------------------------------------------------------------------
    def choice(self) -> OverlayChoice:
        return OverlayChoice(self.source_box.currentData() or ATTENTION, self.layer.value() - 1,
                             self.head.currentData(), self.query, self.opacity.value() / 100,
                             self.scale_box.currentData() or WHOLE_RANGE)

    def figure(self) -> NamedFigure | None:
        """The overlay on show (every layer × head's with All heads), named as its file; None with no image."""
        source = self.state.shown_source
        if source is None or source.picture is None:
            return None
        choice = self.choice()
        if self.all_heads.isChecked():
            query = source.tokens[choice.query].strip("[]")
            return NamedFigure(f"overlay_all-heads_query-{query}", overlay_grid(source, choice))
        from attnviz.figures.image import overlay_stem

        model = self.state.model.name if self.state.model is not None else ""
        return NamedFigure(overlay_stem(choice, source), overlay(source, choice, model=model))

    def _redraw(self, *_args: object) -> None:
        source = self.state.shown_source
        if source is None or source.picture is None:
            self.canvas.show_figure(None, tr("Open an image, or pick a sample"))
            self.info.setText("")
            self.title.setText("")
            return
        rollout = self.source_box.currentData() != ATTENTION
        self.head.setEnabled(not rollout and not self.all_heads.isChecked())
        self.source_box.setEnabled(not self.all_heads.isChecked())
        named = self.figure()
        assert named is not None
        self.title.setText(named.spec.title)
        spec = named.spec
        assert isinstance(spec, FigureSpec | GridSpec)
        self.canvas.show_figure(replace(spec, title=""))  # (its title above it, wrapped: the grid stays large)
        self.cls_button.setEnabled(self.query != 0)
        self.info.setText(tr("Query: {query}. Click a patch to show its attention; {cls} for the class's.").format(
            query=source.tokens[self.query], cls="[CLS]"))

    def set_lecture(self, label_pixels: tuple[int, int] | None) -> None:
        """The lecture view: the overlay as large as the dock allows, its title, the classes and the controls in
        the lecture's text size (↑/↓ head and Page Up/Down layer move the view, which the overlay follows); the
        file row and the help line hidden. None: as it was."""
        lecture = label_pixels is not None
        font = QtGui.QFont()  # (unset: the application's)
        if label_pixels is not None:
            font = QtGui.QFont(QtWidgets.QApplication.font())
            font.setPixelSize(label_pixels[1])
        self.setFont(font)
        for widget in (self.open_button, self.samples, self.name, self.info):
            widget.setVisible(not lecture)

    # -- handlers ---------------------------------------------------------------------------
    def _set_query(self, query: int) -> None:
        self.query = query
        self._redraw()

    def _on_cell_clicked(self, panel: int, row: int, col: int) -> None:
        source = self.state.shown_source
        if source is None or source.picture is None:
            return
        named = self.figure()
        if named is not None and isinstance(named.spec, GridSpec):  # a small overlay: show its layer and head
            heads = named.spec.columns
            self.all_heads.setChecked(False)
            self._choose(panel // heads, panel % heads)
            return
        self._set_query(source.picture.specials + row * source.picture.grid[1] + col)
        self.query_chosen.emit(self.query)

    def _on_all_heads_toggled(self, checked: bool) -> None:
        """All heads draws each head's attention (rollout averages the heads: it has none per head), so Show says
        attention while it is on, and a head clicked in it shows that head's attention."""
        if checked and self.source_box.currentData() != ATTENTION:
            self.source_box.blockSignals(True)
            self.source_box.setCurrentIndex(self.source_box.findData(ATTENTION))
            self.source_box.blockSignals(False)

    def _on_layer_or_head(self, *_args: object) -> None:
        head = self.head.currentData()
        self._choose(self.layer.value() - 1, head, keep_mean=head is None)

    def _choose(self, layer: int, head: int | None, keep_mean: bool = False) -> None:
        """Show ``layer`` and ``head`` here and in the Attention panel (None: the heads' mean, here only)."""
        if head is not None or not keep_mean:
            self.head.blockSignals(True)
            self.head.setCurrentIndex(max(0, self.head.findData(head)))
            self.head.blockSignals(False)
        view = self.state.view
        new_view = replace(view, kind=AttentionKind.ENCODER_SELF, layer=layer,
                           head=view.head if head is None else head)
        if self.session is not None and new_view != view:
            self.session.set_view(new_view)  # (drawn again when the state comes back)
        else:
            self._redraw()

    def _on_sample(self, index: int) -> None:
        path = self.samples.itemData(index)
        self.samples.setCurrentIndex(0)
        if path and self.session is not None:
            self.session.open_image(Path(path))
