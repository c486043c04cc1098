"""The main window: assembles the docks, the actions and the decoding controls around a Session."""

from __future__ import annotations

import html
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz import __version__
from attnviz.core.device import available_devices
from attnviz.core.kernel_regression import KernelFit
from attnviz.core.stepping import DecodeStep, EncodedSource
from attnviz.gui.exporting import ExportActions, ExportContext
from attnviz.gui.figure import FigureSpec
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.panels.attention import AttentionPanel
from attnviz.gui.panels.kernel import KernelPanel
from attnviz.gui.panels.masks import MasksPanel
from attnviz.gui.panels.positional import PositionalPanel
from attnviz.gui.panels.scoring import ScoringPanel
from attnviz.gui.settings import Settings
from attnviz.paths import shipped_models
from attnviz.session import ModelInfo, Runner, Session

TYPING_DEBOUNCE_MS = 250


class Poster(QtCore.QObject):
    """Hands callables from worker threads to the GUI thread (queued signal)."""

    posted = QtCore.Signal(object)

    def __init__(self):
        super().__init__()
        self.posted.connect(self._on_posted, QtCore.Qt.ConnectionType.QueuedConnection)

    def post(self, fn: Callable[[], None]) -> None:
        self.posted.emit(fn)

    @staticmethod
    def _on_posted(fn: Callable[[], None]) -> None:
        fn()


class MainWindow(QtWidgets.QMainWindow):
    """Type a sentence, step the decoder, watch attention."""

    def __init__(self, settings: Settings, runner: Runner | None = None):
        super().__init__()
        self.settings = settings
        self.session = Session(self, runner)
        self.session.device_name = settings.device
        self.session.beam_size = settings.beam_size
        self.source: EncodedSource | None = None
        self.step_shown_now: DecodeStep | None = None
        self.info: ModelInfo | None = None
        self._run_after_encode = False
        self.setWindowTitle("attnviz")
        self.setAcceptDrops(True)
        self.setDockOptions(QtWidgets.QMainWindow.DockOption.AllowTabbedDocks
                            | QtWidgets.QMainWindow.DockOption.AllowNestedDocks
                            | QtWidgets.QMainWindow.DockOption.AnimatedDocks)

        self.attention = AttentionPanel()
        self.masks = MasksPanel()
        self.positional = PositionalPanel()
        self.scoring = ScoringPanel()
        self.kernel = KernelPanel()
        self.kernel.fit_requested.connect(self._on_kernel_fit_requested)
        self._build_central()
        self.docks: dict[str, QtWidgets.QDockWidget] = {}
        right, left = QtCore.Qt.DockWidgetArea.RightDockWidgetArea, QtCore.Qt.DockWidgetArea.LeftDockWidgetArea
        self._add_dock("attention", "Attention", self.attention, right)
        self._add_dock("kernel", "Kernel regression", self.kernel, right)
        self._add_dock("masks", "Masks", self.masks, left)
        self._add_dock("positional", "Positional encoding", self.positional, left)
        self._add_dock("scoring", "Scoring", self.scoring, left)
        self.tabifyDockWidget(self.docks["attention"], self.docks["kernel"])
        self.tabifyDockWidget(self.docks["masks"], self.docks["positional"])
        self.tabifyDockWidget(self.docks["positional"], self.docks["scoring"])
        self.docks["kernel"].hide()  # shown when a kernel-regression checkpoint is loaded
        self.docks["attention"].raise_()
        self.docks["masks"].raise_()
        self.resizeDocks([self.docks["masks"], self.docks["attention"]], [380, 620], QtCore.Qt.Orientation.Horizontal)
        self.exports = ExportActions(self, settings, self.export_context, self.current_figure,
                                     self._on_export_notified, self.error)
        for heatmap in self.findChildren(Heatmap):
            heatmap.export_requested.connect(self._on_heatmap_export_requested)
            heatmap.copy_requested.connect(self.exports.copy)
        self._build_actions()
        self.device_label = QtWidgets.QLabel()
        self.statusBar().addPermanentWidget(self.device_label)
        self.typing_timer = QtCore.QTimer(self, singleShot=True, interval=TYPING_DEBOUNCE_MS)
        self.typing_timer.timeout.connect(self._on_typing_timer_timeout)
        geometry, state = settings.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 800)
        if state is not None:
            self.restoreState(state)
        self._update_controls()

    # -- construction -----------------------------------------------------------------------
    def _build_central(self) -> None:
        self.sentence = QtWidgets.QLineEdit()
        self.sentence.setPlaceholderText("Type an English sentence…")
        self.sentence.setClearButtonEnabled(True)
        self.sentence.textEdited.connect(self._on_sentence_text_edited)
        self.sentence.returnPressed.connect(self._on_run_clicked)
        self.notice = QtWidgets.QLabel(" ")
        self.notice.setStyleSheet("color: #a15c00;")
        self.back_button = QtWidgets.QPushButton("◀ Back")
        self.step_button = QtWidgets.QPushButton("Step ▶")
        self.run_button = QtWidgets.QPushButton("Run to end")
        self.reset_button = QtWidgets.QPushButton("Reset")
        self.beam_box = QtWidgets.QSpinBox()
        self.beam_box.setRange(1, 16)
        self.beam_box.setPrefix("beam ")
        self.beam_box.setSpecialValueText("greedy")
        self.beam_box.setValue(self.session.beam_size)
        self.timeline = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.timeline.setRange(0, 0)
        self.timeline.setToolTip("Scrub through the recorded decoding steps")
        self.timeline.setMinimumWidth(160)
        self.output = QtWidgets.QLabel()
        self.output.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.output.setWordWrap(True)
        self.topk = QtWidgets.QTableWidget(0, 2)
        self.topk.setHorizontalHeaderLabels(["next token", "probability"])
        self.topk.horizontalHeader().setStretchLastSection(True)
        self.topk.verticalHeader().hide()
        self.topk.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.topk.setMaximumHeight(170)

        buttons = QtWidgets.QHBoxLayout()
        for widget in (self.back_button, self.step_button, self.run_button, self.reset_button, self.beam_box):
            buttons.addWidget(widget)
        buttons.addWidget(self.timeline, 1)
        layout = QtWidgets.QVBoxLayout()
        layout.addWidget(QtWidgets.QLabel("Source sentence"))
        layout.addWidget(self.sentence)
        layout.addWidget(self.notice)
        layout.addLayout(buttons)
        layout.addWidget(QtWidgets.QLabel("Translation so far"))
        layout.addWidget(self.output)
        layout.addWidget(self.topk)
        layout.addStretch(1)
        self.decoding_area = QtWidgets.QWidget()
        self.decoding_area.setLayout(layout)
        self.setCentralWidget(self.decoding_area)
        self.back_button.clicked.connect(self._on_back_clicked)
        self.step_button.clicked.connect(self._on_step_clicked)
        self.run_button.clicked.connect(self._on_run_clicked)
        self.reset_button.clicked.connect(self._on_reset_clicked)
        self.beam_box.valueChanged.connect(self._on_beam_box_value_changed)
        self.timeline.valueChanged.connect(self._on_timeline_value_changed)

    def _add_dock(self, name: str, title: str, widget: QtWidgets.QWidget, area: QtCore.Qt.DockWidgetArea) -> None:
        dock = QtWidgets.QDockWidget(title, self)
        dock.setObjectName(f"dock_{name}")  # saveState/restoreState need it
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        self.docks[name] = dock

    def _action(self, text: str, slot: Callable[[], object],
                shortcut: QtGui.QKeySequence | QtGui.QKeySequence.StandardKey | str | None = None) -> QtGui.QAction:
        action = QtGui.QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QtGui.QKeySequence(shortcut))
        action.triggered.connect(slot)
        return action

    def _build_actions(self) -> None:
        Key = QtGui.QKeySequence.StandardKey
        self.open_action = self._action("&Open checkpoint…", self._on_open_triggered, Key.Open)
        self.quit_action = self._action("&Quit", self.close, Key.Quit)
        self.step_action = self._action("Step", self._on_step_clicked, "Right")
        self.back_action = self._action("Back", self._on_back_clicked, "Left")
        for action in (self.step_action, self.back_action):
            action.setShortcutContext(QtCore.Qt.ShortcutContext.WindowShortcut)
        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction(self.open_action)
        self.shipped_menu = file_menu.addMenu("Shipped &models")
        for path in shipped_models():
            self.shipped_menu.addAction(self._action(path.stem, partial(self.load, path)))
        self.recent_menu = file_menu.addMenu("&Recent files")
        self.recent_menu.aboutToShow.connect(self._on_recent_menu_about_to_show)
        file_menu.addSeparator()
        file_menu.addActions([self.exports.export_action, self.exports.export_all_action, self.exports.copy_action])
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        decode_menu = self.menuBar().addMenu("&Decode")
        decode_menu.addActions([self.step_action, self.back_action])
        device_menu = self.menuBar().addMenu("De&vice")
        group = QtGui.QActionGroup(self)
        for name in ["auto", *available_devices()]:
            action = self._action(name, partial(self.set_device, name))
            action.setCheckable(True)
            action.setChecked(name == self.session.device_name)
            group.addAction(action)
            device_menu.addAction(action)
        view_menu = self.menuBar().addMenu("&View")
        for dock in self.docks.values():
            view_menu.addAction(dock.toggleViewAction())
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction(self._action("&About attnviz", self._on_about_triggered))
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("toolbar_main")
        toolbar.addActions([self.open_action, self.back_action, self.step_action, self.exports.export_action])

    # -- user requests ----------------------------------------------------------------------
    def load(self, path: str | Path) -> None:
        self.session.load(path)

    def set_device(self, name: str) -> None:
        self.settings.device = name
        self.session.set_device(name)

    def set_sentence(self, text: str, run: bool = False) -> None:
        self.sentence.setText(text)
        self._run_after_encode = run
        self.session.encode(text)

    def export_context(self) -> ExportContext:
        info = self.info
        return ExportContext(self.source if self.session.text.strip() else None, list(self.session.steps),
                             self.step_shown_now, info.path.stem if info else "", info.kind if info else "",
                             str(info.path) if info else "", info.device if info else "")

    def current_figure(self) -> tuple[FigureSpec | None, str]:
        """The Attention panel's heatmap and a file stem naming what it shows."""
        view = self.attention.current
        step = self.step_shown_now.index if self.step_shown_now is not None else None
        return self.attention.heatmap.spec, view.stem(step) if view is not None else "attention"

    # -- SessionListener (called on the GUI thread) -----------------------------------------
    def model_loaded(self, info: ModelInfo, kernel: KernelFit | None) -> None:
        self.info = info
        self.settings.last_checkpoint = str(info.path)
        self.attention.set_model(info.path.stem, info.decoder_layers or 1, info.heads or 1)
        self.scoring.set_model(info.kind, info.decoder_layers or 1, info.heads or 1)
        self.positional.set_table(info.positional_table)
        self.docks["kernel"].setVisible(kernel is not None)
        self.decoding_area.setVisible(kernel is None)  # the sentence and decoding controls
        if kernel is not None:
            self.kernel.show_fit(kernel)
            self.docks["kernel"].raise_()
        else:
            self.docks["attention"].raise_()
        bleu = info.training.get("val_bleu")
        extra = f", validation BLEU {bleu}" if bleu is not None else ""
        noun = "parameter" if info.parameters == 1 else "parameters"
        self.statusBar().showMessage(f"Loaded {info.path.name}: {info.kind}, {info.parameters:,} {noun}{extra}", 8000)
        self.setWindowTitle(f"attnviz — {info.path.name}")
        if kernel is not None:
            self.source = None
            self.step_shown(None, -1, 0)
        self._update_controls()

    def source_encoded(self, source: EncodedSource) -> None:
        self.source = source
        notes = []
        if source.truncated_from:
            notes.append(f"Input truncated from {source.truncated_from} to {len(source.tokens)} tokens "
                         "(the model's limit).")
        if source.unknown:
            notes.append("Unknown words (read as <unk>): " + ", ".join(source.unknown))
        self.notice.setText(" ".join(notes) or " ")
        self.positional.set_sentence_length(len(source.tokens))
        self.step_shown(None, -1, 0)
        if self._run_after_encode:
            self._run_after_encode = False
            self.session.run_to_end()

    def step_shown(self, step: DecodeStep | None, index: int, count: int) -> None:
        self.step_shown_now = step
        self.timeline.blockSignals(True)
        self.timeline.setRange(0, count)
        self.timeline.setValue(index + 1)
        self.timeline.blockSignals(False)
        self.attention.set_data(self.source if self.session.text.strip() else None, step)
        self.masks.set_data(self.source if self.session.text.strip() else None, step)
        self.scoring.set_data(self.source if self.session.text.strip() else None, step)
        self._show_output(step)
        if step is not None:
            self.device_label.setText(f"{self.info.device if self.info else ''} · step {step.seconds * 1000:.1f} ms")
        self._update_controls()

    def kernel_fitted(self, fit: KernelFit) -> None:
        self.kernel.show_fit(fit)

    def busy(self, message: str) -> None:
        self.statusBar().showMessage(message)

    def error(self, message: str) -> None:
        self.statusBar().showMessage(message, 15000)
        QtWidgets.QMessageBox.warning(self, "attnviz", message)

    # -- handlers ---------------------------------------------------------------------------
    def _on_kernel_fit_requested(self, kernel: str, bandwidth: float, query: float) -> None:
        self.session.fit_kernel(kernel, bandwidth, query)

    def _on_export_notified(self, message: str) -> None:
        self.statusBar().showMessage(message, 10000)

    def _on_heatmap_export_requested(self, spec: FigureSpec) -> None:
        stem = "".join(c if c.isalnum() else "-" for c in spec.title.lower()).strip("-") or "heatmap"
        self.exports.ask_and_export(spec, "-".join(filter(None, stem.split("-"))))

    def _on_sentence_text_edited(self, _text: str) -> None:
        self.typing_timer.start()

    def _on_typing_timer_timeout(self) -> None:
        self.session.encode(self.sentence.text())

    def _flush_typing(self) -> None:
        if self.typing_timer.isActive():
            self.typing_timer.stop()
            self.session.encode(self.sentence.text())

    def _on_step_clicked(self) -> None:
        self._flush_typing()
        self.session.step()

    def _on_back_clicked(self) -> None:
        self.session.back()

    def _on_run_clicked(self) -> None:
        self._flush_typing()
        self.session.run_to_end()

    def _on_reset_clicked(self) -> None:
        self.session.reset()

    def _on_beam_box_value_changed(self, value: int) -> None:
        self.settings.beam_size = value
        self.session.set_beam_size(value)

    def _on_timeline_value_changed(self, value: int) -> None:
        self.session.show(value - 1)

    def _on_open_triggered(self) -> None:
        start = str(Path(self.settings.last_checkpoint).parent) if self.settings.last_checkpoint else ""
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open checkpoint", start,
                                                        "attnviz checkpoints (*.safetensors);;All files (*)")
        if path:
            self.load(path)

    def _on_recent_menu_about_to_show(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.recent_files:
            self.recent_menu.addAction(self._action(path, partial(self.load, path)))
        self.recent_menu.setEnabled(bool(self.settings.recent_files))

    def _on_about_triggered(self) -> None:
        import torch
        from pyqtgraph import __version__ as pg_version
        from PySide6 import __version__ as pyside_version

        QtWidgets.QMessageBox.about(self, "About attnviz", (
            f"<h3>attnviz {__version__}</h3><p>See attention: step a decoder and watch its attention.</p>"
            f"<p>torch {torch.__version__} · PySide6 {pyside_version} · pyqtgraph {pg_version} · "
            f"numpy {np.__version__}</p><p>Licence: MIT.</p>"
            "<p>Translation models are trained on English–French sentence pairs from the Tatoeba Project "
            "(tatoeba.org, CC-BY 2.0 FR), packaged by manythings.org/anki.</p>"))

    # -- drag and drop ----------------------------------------------------------------------
    def dragEnterEvent(self, event: QtGui.QDragEnterEvent) -> None:
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QtGui.QDropEvent) -> None:
        files = [url.toLocalFile() for url in event.mimeData().urls() if url.isLocalFile()]
        if files:
            self.load(files[0])
            event.acceptProposedAction()

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        self.settings.save_window_state(self.saveGeometry(), self.saveState())
        self.settings.sync()
        super().closeEvent(event)

    # -- helpers ----------------------------------------------------------------------------
    def _show_output(self, step: DecodeStep | None) -> None:
        if step is None:
            self.output.setText("<i>(press Step or →)</i>" if self.source is not None else "")
            self.topk.setRowCount(0)
            return
        words = [html.escape(t) for t in step.output_tokens]
        if words and not step.finished:
            words[-1] = f"<b>{words[-1]}</b>"
        tail = " <span style='color:gray'>&lt;eos&gt;</span>" if step.finished and step.token == "<eos>" else ""
        self.output.setText(f"<span style='font-size:14pt'>{' '.join(words)}{tail}</span>")
        self.topk.setRowCount(len(step.topk_tokens))
        for row, (token, prob) in enumerate(zip(step.topk_tokens, step.topk_probs, strict=True)):
            self.topk.setItem(row, 0, QtWidgets.QTableWidgetItem(token))
            self.topk.setItem(row, 1, QtWidgets.QTableWidgetItem(f"{prob:.3f}"))

    def _update_controls(self) -> None:
        ready = self.info is not None and self.info.kind != "kernel-regression" and self.source is not None
        self.step_button.setEnabled((ready and not self.session.finished)
                                    or self.session.position + 1 < len(self.session.steps))
        self.run_button.setEnabled(ready and not self.session.finished)
        self.back_button.setEnabled(self.session.position >= 0)
        self.reset_button.setEnabled(ready)
