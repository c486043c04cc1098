"""Compare panel: a second translation model on the same sentence, side by side with the loaded one.

Choose the second model (a shipped one or any checkpoint file); the session decodes the sentence with
it by itself (its translation is shown) and forced to take the loaded model's output, so the two
cross-attention maps have the same query rows; the third map is their difference, on a diverging
colour map centred on 0. A pointer over any of the three shows a crosshair on all three.

With an image model on show, the second model (an image model: a checkpoint or a Hugging Face folder) reads the
same image, and the panel shows both models' [CLS] attention over it (last layer, heads averaged) side by side, each
on its own patch grid, with each model's top class.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6 import QtCore, QtWidgets

from attnviz.core.checkpoints.header import checkpoint_kind
from attnviz.core.layout import Capability, SequenceLayout
from attnviz.core.models.kinds import KINDS
from attnviz.figures.compare import comparison_figures, comparison_grid
from attnviz.figures.image import image_comparison_figures, image_comparison_grid
from attnviz.figures.spec import FigureSpec, GridSpec, empty_figure
from attnviz.gui import file_dialogs
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.panels.family_views import views_of
from attnviz.gui.panels.image import FigureCanvas
from attnviz.gui.wrap_row import WrapRow
from attnviz.i18n import N_, tr
from attnviz.paths import shipped_models
from attnviz.session import Session, SessionState, changed

NONE = N_("(choose a model)")
OTHER = N_("Other checkpoint…")  # (the English also marks the entry: its item data)
OTHER_HF = N_("Other Hugging Face model…")
COMPARE_DELAY_MS = 150  # the second model decodes again once stepping pauses
TRANSLATING, FILLING, IMAGES = "translating", "filling", "images"  # the models listed: what the one on show does


class ComparePanel(QtWidgets.QWidget):
    """Asks the session to compare with a chosen checkpoint and draws the three maps it publishes."""

    export_requested = QtCore.Signal()  # its Export button: write the three maps as one figure (:meth:`figure`)

    def __init__(self, session: Session | None = None, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.state = SessionState()
        self.model_box = QtWidgets.QComboBox()
        self._listing: str | None = None  # the models listed: TRANSLATING, FILLING or IMAGES
        self._overlays: tuple[FigureSpec, FigureSpec] = (empty_figure(""), empty_figure(""))
        self._list_models(TRANSLATING)
        self.model_box.setToolTip(tr("The model to compare with the loaded one, on the same sentence"))
        self.export_button = QtWidgets.QPushButton(tr("Export…"))
        self.export_button.setToolTip(tr("Export the three maps as one figure"))
        self.own = QtWidgets.QLabel(" ")
        self.own.setWordWrap(True)
        self.own.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.first, self.second, self.difference = Heatmap(), Heatmap(), Heatmap()
        self.heatmaps = (self.first, self.second, self.difference)
        chooser = WrapRow((QtWidgets.QLabel(tr("Compare with")), self.model_box, self.export_button), max_lines=3,
                          stretch=1)  # (on more lines in a narrow dock with large text)
        self.maps = maps = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        for heatmap in self.heatmaps:
            maps.addWidget(heatmap)
            heatmap.hovered.connect(self._on_hovered)
        # an image model's: two [CLS] overlays side by side, each titled above it
        self.overlays = QtWidgets.QWidget()
        pair = QtWidgets.QHBoxLayout(self.overlays)
        pair.setContentsMargins(0, 0, 0, 0)
        self.overlay_titles = (QtWidgets.QLabel(), QtWidgets.QLabel())
        self.canvases = (FigureCanvas(), FigureCanvas())
        for title, canvas in zip(self.overlay_titles, self.canvases, strict=True):
            title.setWordWrap(True)
            title.setStyleSheet("font-weight: bold")
            canvas.setMinimumSize(120, 120)
            canvas.setCursor(QtCore.Qt.CursorShape.ArrowCursor)
            column = QtWidgets.QVBoxLayout()
            column.addWidget(title)
            column.addWidget(canvas, 1)
            pair.addLayout(column, 1)
        self.overlays.hide()
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(chooser)
        layout.addWidget(self.own)
        layout.addWidget(maps, 1)
        layout.addWidget(self.overlays, 1)
        self.compare_timer = QtCore.QTimer(self, singleShot=True, interval=COMPARE_DELAY_MS)
        self.compare_timer.timeout.connect(self._on_compare_timer_timeout)
        self.model_box.activated.connect(self._on_model_chosen)
        self.export_button.clicked.connect(lambda: self.export_requested.emit())

    def _list_models(self, listing: str) -> None:
        """Offer the shipped models that compare with the one on show: those that translate, those that fill
        masks, or those that read images (``listing``), then the two "Other …" entries."""
        self._listing = listing
        self.model_box.blockSignals(True)
        self.model_box.clear()
        self.model_box.addItem(tr(NONE), "")
        for path in shipped_models():
            kind = KINDS.get(checkpoint_kind(path))
            if kind is not None and _listing_of(kind.sequence_layout) == listing:
                self.model_box.addItem(path.stem, str(path))
        self.model_box.addItem(tr(OTHER), OTHER)
        self.model_box.addItem(tr(OTHER_HF), OTHER_HF)
        self.model_box.blockSignals(False)

    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        self.state = new
        if new.model is not None and _listing_of(new.model.layout) != self._listing:
            self._list_models(_listing_of(new.model.layout))
            self._show_images(self._listing == IMAGES)
            self._choose(new.compared_with)
        if changed(old, new, "compared_with") or (not new.busy and not self._showing(new.compared_with)):
            self._choose(new.compared_with)  # (once idle: a refused choice goes back to what is compared)
        if changed(old, new, "shown_source", "steps") and new.compared_with:
            self.compare_timer.start()  # the loaded model's decoding changed: the second model follows
        if changed(old, new, "shown_source", "step", "comparison", "compared_image"):
            self._draw()

    def compare_with(self, path: str | Path | None) -> None:
        """Compare with ``path`` (None: stop)."""
        if self.session is not None:
            self.session.compare_with(path)

    def figure(self) -> GridSpec | None:
        """The three maps as one figure; None until the difference map exists (an image: the two overlays, once
        the second model has read it)."""
        if self._listing == IMAGES:
            figures = tuple(canvas.figure for canvas in self.canvases)
            source = self.state.shown_source
            if self.state.compared_image is None or source is None or not all(
                    isinstance(f, FigureSpec) and f.values.size for f in figures):
                return None
            return image_comparison_grid(self._overlays, source.text)
        if not self.difference.values.size:
            return None
        figures = (self.first.spec, self.second.spec, self.difference.spec)
        return comparison_grid(figures, tr("Attention of two models on the source sentence, and their difference"))

    def _show_images(self, images: bool) -> None:
        self.maps.setVisible(not images)
        self.overlays.setVisible(images)
        self.model_box.setToolTip(tr("The image model to compare with the loaded one, on the same image") if images
                                  else tr("The model to compare with the loaded one, on the same sentence"))

    def _draw_images(self) -> None:
        state = self.state
        model = state.model.name if state.model is not None else ""
        self._overlays = image_comparison_figures(model, state.shown_source, state.compared_image)
        for title, canvas, spec in zip(self.overlay_titles, self.canvases, self._overlays, strict=True):
            title.setText(spec.title)
            canvas.show_figure(replace(spec, title="") if spec.values.size else None, spec.title)
        self.export_button.setEnabled(self.figure() is not None)
        self.own.setText(" " if state.compared_image is not None or not state.compared_with else
                         tr("Reading the image with the second model…"))

    def _draw(self) -> None:
        if self._listing == IMAGES:
            self._draw_images()
            return
        state, comparison = self.state, self.state.comparison
        model = state.model.name if state.model is not None else ""
        for heatmap, spec in zip(self.heatmaps, comparison_figures(model, state.shown_source, state.step,
                                                                   comparison), strict=True):
            heatmap.show_figure(spec)
        self.export_button.setEnabled(bool(self.difference.values.size))
        if comparison is not None:
            self.own.setText(tr("{model} by itself: {translation}").format(
                model=comparison.model, translation=" ".join(comparison.own_translation)))
        else:
            self.own.setText(" ")

    def _showing(self, path: str) -> bool:
        """The chooser shows ``path`` (the session's choice; "": none)."""
        data = self.model_box.currentData()
        if not path or not data or data in (OTHER, OTHER_HF):
            return not path and not data
        return data == path or Path(data).resolve() == Path(path).resolve()

    def _choose(self, path: str) -> None:
        """Show ``path`` (the session's choice) in the chooser, adding it when it is not listed."""
        index = next((i for i in range(self.model_box.count()) if path and self.model_box.itemData(i) and
                      Path(self.model_box.itemData(i)).resolve() == Path(path).resolve()), -1) if path else 0
        if index < 0:
            index = self._insert(path)
        self.model_box.setCurrentIndex(index)

    def _insert(self, path: str) -> int:
        """List ``path`` above the two "Other …" entries; returns its index."""
        index = self.model_box.count() - 2
        self.model_box.insertItem(index, Path(path).stem, path)
        return index

    def _on_model_chosen(self, _index: int) -> None:
        data = self.model_box.currentData()
        if data in (OTHER, OTHER_HF):
            path = self._ask_for_model(data == OTHER_HF)
            if not path:  # cancelled: what is compared stays
                self._choose(self.state.compared_with)
                return
            self.model_box.setCurrentIndex(self._insert(path))
            data = path
        self.compare_with(data or None)

    def _ask_for_model(self, hugging_face: bool) -> str:
        """A checkpoint file, or a Hugging Face model folder (the File menu's dialog); "" when cancelled."""
        if not hugging_face:
            return file_dialogs.open_file_name(self, tr("Compare with"), "",
                                               tr("attnviz checkpoints (*.safetensors);;All files (*)"))[0]
        from attnviz.gui.hf_dialog import OpenHuggingFaceDialog

        dialog = OpenHuggingFaceDialog(self)
        try:
            accepted = dialog.exec() == QtWidgets.QDialog.DialogCode.Accepted and dialog.chosen is not None
            return str(dialog.chosen) if accepted else ""
        finally:
            dialog.deleteLater()

    def _on_compare_timer_timeout(self) -> None:  # (an image too: the second model reads it)
        if self.session is not None:
            self.session.compare()

    def _on_hovered(self, row: int, col: int) -> None:
        """One crosshair for the three maps: the cell under the pointer in one is marked in the others."""
        for heatmap in self.heatmaps:
            if heatmap is not self.sender():
                heatmap.show_linked_cell(row, col)


def _listing_of(layout: SequenceLayout) -> str:
    """Which models compare with a model of ``layout``: those its family lists (image models …), models that
    translate, or models that fill masks."""
    return views_of(layout).compare_listing or (TRANSLATING if layout.offers(Capability.DECODER) else FILLING)
