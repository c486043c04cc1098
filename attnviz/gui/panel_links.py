"""What the panels ask of the rest of the window, once the docks are built: a row clicked in the Attention map
shows how that query's weights are computed (Computation dock), a head chosen in the Head atlas is shown in the
Attention dock, and the Train dock's trained model is opened (its probe decoded), its messages shown and its
flip-book exported. A model trained on a task suggests its probe sentence when it is opened.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from PySide6 import QtCore, QtWidgets

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.layout import Capability
from attnviz.gui import file_dialogs
from attnviz.gui.decoding_controls import DecodingControls
from attnviz.gui.docks import Docks
from attnviz.gui.export_actions import ExportActions
from attnviz.gui.file_opening import FileOpening
from attnviz.gui.lecture import LectureView
from attnviz.gui.panels.train import TrainPanel, probe_of
from attnviz.gui.settings import Settings
from attnviz.i18n import tr
from attnviz.session import SessionState


class PanelLinks(QtCore.QObject):
    """Connects the panels of ``docks`` to ``window``: its files, decoding controls, exports and lecture view."""

    def __init__(self, window: QtWidgets.QMainWindow, docks: Docks, settings: Settings, files: FileOpening,
                 decoding: DecodingControls, exports: ExportActions, lecture: LectureView):
        super().__init__(window)
        self.window, self.docks, self.settings = window, docks, settings
        self.files, self.decoding, self.exports, self.lecture = files, decoding, exports, lecture
        docks.attention.heatmap.clicked.connect(self._on_attention_cell_clicked)
        docks.when_built(self._wire)  # (a panel is built when first shown or asked for)

    def _wire(self, name: str, panel: QtWidgets.QWidget) -> None:
        """Connect the requests of panel ``name`` (just built) to the window."""
        if name == "heads":
            panel.head_chosen.connect(self._on_head_chosen)  # type: ignore[attr-defined]
            panel.sentence_requested.connect(  # type: ignore[attr-defined]
                lambda text: self.decoding.set_sentence(text, run=True))  # (the Patching tab's patched pair)
        elif name == "image":
            panel.open_requested.connect(self.files.ask_and_open_image)  # type: ignore[attr-defined]
            panel.query_chosen.connect(self._on_image_query_chosen)  # type: ignore[attr-defined]
        elif name == "train":
            assert isinstance(panel, TrainPanel)
            panel.flipbook_requested.connect(self._on_train_panel_flipbook_requested)
            panel.message.connect(self._on_train_panel_message)
            panel.opened.connect(self._on_train_panel_opened)

    @property
    def train_panel(self) -> TrainPanel:
        """The Train dock's panel (built when first asked for)."""
        panel = self.docks.panels["train"]
        assert isinstance(panel, TrainPanel)
        return panel

    @property
    def training(self) -> bool:
        """The Train dock is training a model (a restart would lose the run)."""
        if not self.docks.panels.built("train"):  # (never shown: never trained)
            return False
        run = self.train_panel.run
        return run is not None and run.running

    def _on_attention_cell_clicked(self, row: int, _column: int) -> None:
        """A row of the Attention heatmap clicked: show how that query's weights are computed (in the lecture
        view: outline that query's row, and leave the layout as it is)."""
        attention = self.docks.attention
        matrix = attention.current
        if matrix is None:
            return
        if self.lecture.active:
            attention.heatmap.highlight_row(row)
            return
        dock = self.docks.docks["computation"]
        dock.show()
        dock.raise_()
        self.docks.ensure_current("computation")
        kind, query = matrix.query_of(row)
        self.docks.panels["computation"].inspect(kind, matrix.layer, matrix.head, query)  # type: ignore[attr-defined]

    def _on_image_query_chosen(self, query: int) -> None:
        """A patch clicked on the image: where the Computation dock is on show, it shows that query's computation in
        the layer and head of the Attention view."""
        if self.lecture.active or not self.docks.showing("computation"):
            return
        view = self.docks.session.state.view
        self.docks.panels["computation"].inspect(AttentionKind.ENCODER_SELF, view.layer,  # type: ignore[attr-defined]
                                                 view.head, query)

    def _on_head_chosen(self, kind: AttentionKind, layer: int, head: int) -> None:
        """A head of the Heads dock's atlas clicked: show its map in the Attention dock."""
        dock = self.docks.docks["attention"]
        dock.show()
        dock.raise_()
        self.docks.attention.select_view(kind, layer, head)

    # -- the Train dock ---------------------------------------------------------------------
    def _on_train_panel_opened(self, path: str, probe: str) -> None:
        """A run of the Train dock ended: open its model like any checkpoint, its probe decoded to the end."""
        self.files.load(path)
        if probe:
            self.decoding.set_sentence(probe, run=True)

    def _on_train_panel_message(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 10000)

    def _on_train_panel_flipbook_requested(self) -> None:
        """The Train dock's Export flip-book…: a frame per snapshot, the loss so far under each."""
        panel = self.train_panel
        start = Path(self.settings.export_dir or Path.home()) / f"{panel.stem()}_training.pdf"
        path, _chosen = file_dialogs.save_file_name(
            self.window, tr("Export the training's flip-book"), str(start),
            tr("PDF, a page per snapshot, with an animated GIF beside it (*.pdf)"))
        if path:
            self.exports.export_frames(path, panel.flipbook_figures(),
                                       tr("attnviz training: {name}").format(name=panel.stem()), "snapshots")

    def suggest_probe(self, old: SessionState, new: SessionState) -> None:
        """A checkpoint trained on a task was opened: its probe in the sentence field, decoded to the end (also
        when the field holds it already, as when the model is opened again); a model without one opened after it
        gets the example sentence back instead of the old task's input (its unknown words). Not while a saved
        session is being opened: its own sentence wins. Said here, as the model loads, never when the Train dock
        catches up later (a hidden tab is drawn only once it is shown)."""
        from attnviz import paths

        probe, before = (probe_of(s.model.history) if s.model is not None and s.model.history is not None else ""
                         for s in (new, old))
        text = self.decoding.area.sentence.text()
        opening = self.files.session_opening
        # (after the state now being drawn: asked for from inside a state change, it would be drawn first)
        # An image task's probe is a picture, opened with the model (Session.image_path): its seed typed as a
        # sentence would replace it with nothing to show.
        reads_sentences = new.model is not None and new.model.offers(Capability.SENTENCE)
        if probe and not opening and reads_sentences:
            QtCore.QTimer.singleShot(0, self.decoding.session.run_to_end if probe == text else
                                     partial(self.decoding.set_sentence, probe, True))
        elif before and before == text and not opening and reads_sentences:
            QtCore.QTimer.singleShot(0, partial(self.decoding.set_sentence, paths.EXAMPLE_SENTENCE, True))
