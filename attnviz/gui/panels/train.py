"""The Train dock: train a model in the window and watch its attention learn.

Choose a model family, a size (editable), a task whose right alignment is known (or the book's kernel
regression, or a TSV of your own) and press Train. After every snapshot the probe's map, the loss and the
held-out score and alignment agreement are redrawn; Pause, Resume and Stop act between two steps. The
history slider scrubs back through the snapshots, live or from a checkpoint that keeps its history. When the
run ends the model opens in the window like any checkpoint (saved in the app's data folder; Save model…
writes a copy where the user wants it).
"""

from __future__ import annotations

import html
import math
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.core.learning.history import LEARNED_EVALUATIONS, LEARNED_PERCENT, Snapshot, TrainingHistory
from attnviz.core.models.kinds import (
    SIZE_PRESETS,
    all_tasks,
    arch_for,
    kind_named,
    model_size,
    size_of,
    task_kinds,
    tasks_of,
)
from attnviz.figures.spec import NamedFigure, StackSpec, empty_figure
from attnviz.figures.training import curves_figure, snapshot_caption, snapshot_figure
from attnviz.gui import file_dialogs
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.probe_image import ProbeImageView
from attnviz.gui.titled_plot import TitledPlot
from attnviz.i18n import N_, tr
from attnviz.session import Session, SessionState, changed
from attnviz.session.training import FILE_TASK, KERNEL_TASK, TrainingRun, TrainRequest, save_copy

FAMILIES = (*task_kinds(), KERNEL_TASK)  # the registry's kinds that learn tasks, then the book's kernel regression
# (a task's entry, its record's ``choice``: its short name before " — ", which the status line repeats; translations
# keep the " — "). A kind that reads text also trains on the user's own file.
FILE_CHOICE = N_("your own file (TSV)…")
FIRST_TASK = "reverse"  # chosen where the kind learns it: the clearest picture (an anti-diagonal)
SIZE_LABELS = {"tiny": N_("tiny"), "small": N_("small")}  # the names of SIZE_PRESETS, as shown
# values of TrainingHistory.score_name, translated where shown
SCORE_NAMES = (N_("exact match"), N_("accuracy"), N_("test MSE"))
LOSS_PEN = pg.mkPen((31, 119, 180), width=2)
SCORE_PEN = pg.mkPen((44, 160, 44), width=2)
AGREEMENT_PEN = pg.mkPen((255, 127, 14), width=2, style=QtCore.Qt.PenStyle.DashLine)


def trained_folder() -> Path:
    """Where finished runs are saved before the user saves them elsewhere: the app's data folder."""
    base = QtCore.QStandardPaths.writableLocation(QtCore.QStandardPaths.StandardLocation.AppLocalDataLocation)
    return Path(base or Path.home() / ".attnviz") / "trained"


def probe_of(history: TrainingHistory) -> str:
    """The input a task's history drew its maps for ("" for kernel regression; an image task's: its probe's seed)."""
    if history.probe_image is not None:
        return str(history.probe_image.seed)
    return " ".join(history.snapshots[-1].cols) if history.task != KERNEL_TASK and history.snapshots else ""


def write_probe_image(history: TrainingHistory, checkpoint: Path) -> Path | None:
    """An image task's probe as a PNG beside its trained ``checkpoint`` (``<stem>-probe.png``), for the window to
    open with the model; None for a text task or where it cannot be written (the model opens with a sample)."""
    probe = history.probe_image
    if probe is None:
        return None
    from PIL import Image

    target = checkpoint.with_name(f"{checkpoint.stem}-probe.png")
    try:
        Image.fromarray((np.clip(probe.pixels, 0, 1) * 255).round().astype(np.uint8), mode="L").save(target)
    except OSError:
        return None
    return target


def map_title(history: TrainingHistory, snapshot: Snapshot) -> str:
    """The dock's short title of a snapshot's map (the loss is in its curve; exports say everything)."""
    parts = [tr("step {step:,}").format(step=snapshot.step)]
    if math.isfinite(snapshot.score):
        score = f"{snapshot.score:.0f} %" if history.in_percent else f"{snapshot.score:.3g}"
        parts.append(f"{tr(history.score_name)} {score}")
    if snapshot.agreement is not None:
        parts.append(tr("agreement {percent:.0f} %").format(percent=100 * snapshot.agreement))
    if snapshot.note:
        parts.append(snapshot.shown_note)
    return " · ".join(parts)


class TrainPanel(QtWidgets.QWidget):
    """Starts a :class:`~attnviz.session.training.TrainingRun` through the session and draws its history."""

    export_requested = QtCore.Signal()  # Export curves…: the loss and scores as one figure (:meth:`figure`)
    flipbook_requested = QtCore.Signal()  # Export flip-book…: a frame per snapshot (the window asks where)
    message = QtCore.Signal(str)  # a sentence for the status bar
    opened = QtCore.Signal(str, str)  # a run ended: open this checkpoint, and decode this probe ("": none)

    def __init__(self, session: Session | None = None, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.run: TrainingRun | None = None
        self.history: TrainingHistory | None = None
        self.trained_folder = trained_folder()
        self.data_path: Path | None = None
        self.saved_path: Path | None = None  # the checkpoint the shown history belongs to
        self._follow = True  # the slider follows the newest snapshot (until the user moves it back)

        self.family_box = QtWidgets.QComboBox()
        for kind in FAMILIES:  # (one name per kind, the registry's, as the rest of the window calls it)
            self.family_box.addItem(tr(kind_named(kind).label), kind)
        self.task_box = QtWidgets.QComboBox()
        self.size_box = QtWidgets.QComboBox()
        for preset in SIZE_PRESETS:
            self.size_box.addItem(tr(SIZE_LABELS.get(preset, preset)), preset)
        self.size_box.setCurrentIndex(self.size_box.findData("small"))
        for box in (self.family_box, self.task_box):  # (their long names must not widen the dock)
            box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(10)
        self.width_box, self.layers_box, self.heads_box = (QtWidgets.QSpinBox() for _ in range(3))
        self.width_box.setRange(4, 512)
        self.layers_box.setRange(1, 6)
        self.heads_box.setRange(1, 8)
        self.width_box.setToolTip(tr("Width of the model (num_hiddens)"))
        self.layers_box.setToolTip(tr("Layers: the RNN's GRU layers, the Transformer's encoder and decoder layers "
                                      "each"))
        self.heads_box.setToolTip(tr("Attention heads per layer (Transformer models); they must divide the width"))
        self.epochs_box = QtWidgets.QSpinBox()
        self.epochs_box.setRange(1, 500)
        self.epochs_box.setValue(20)
        self.epochs_box.setToolTip(tr("Passes over the 8,192 training examples (the kernel regression: SGD steps)"))
        self.minutes_box = QtWidgets.QDoubleSpinBox()
        self.minutes_box.setRange(0, 600)
        self.minutes_box.setDecimals(1)
        self.minutes_box.setSpecialValueText(tr("no limit"))
        self.minutes_box.setToolTip(tr("Stop after this many minutes even if epochs remain (0: no limit)"))
        self.probe_edit = QtWidgets.QLineEdit()
        self.probe_edit.setToolTip(tr("The input whose attention map is drawn after every snapshot"))
        self.train_button = QtWidgets.QPushButton(tr("Train"))
        self.pause_button = QtWidgets.QPushButton(tr("Pause"))
        self.stop_button = QtWidgets.QPushButton(tr("Stop"))
        self.train_button.setToolTip(tr("Train a new model with these settings; it opens in the window when done"))
        self.stop_button.setToolTip(tr("Stop after the step under way; the model as it is then opens in the window"))

        controls = QtWidgets.QGridLayout()  # label above control, as the other panels; narrow enough to dock
        rows: tuple[tuple[tuple[str, QtWidgets.QWidget, int], ...], ...] = (
            ((tr("Model"), self.family_box, 4),),  # (each a row of its own: side by side, both were cut)
            ((tr("Task"), self.task_box, 4),),
            ((tr("Size"), self.size_box, 1), (tr("Width"), self.width_box, 1), (tr("Layers"), self.layers_box, 1),
             (tr("Heads"), self.heads_box, 1)),
            ((tr("Epochs"), self.epochs_box, 1), (tr("Minutes"), self.minutes_box, 1),
             (tr("Probe"), self.probe_edit, 2)))
        for number, row in enumerate(rows):
            column = 0
            for label, widget, span in row:
                controls.addWidget(QtWidgets.QLabel(label), 2 * number, column, 1, span)
                controls.addWidget(widget, 2 * number + 1, column, 1, span)
                column += span
        for column in range(4):
            controls.setColumnStretch(column, 1)
        buttons_row = QtWidgets.QHBoxLayout()
        for button in (self.train_button, self.pause_button, self.stop_button):
            buttons_row.addWidget(button)
        buttons_row.addStretch(1)

        self.status = QtWidgets.QLabel(tr("Choose a model and a task, then press Train."))
        self.status.setWordWrap(True)
        self.heatmap = Heatmap()
        self.heatmap.title_lines = 3  # (kind, task, probe and snapshot: whole at 1024 px, in Chinese too)
        self.loss_view = TitledPlot(title=tr("Training loss, by step"))  # (no axis name: the room goes to the plot)
        self.loss_curve = self.loss_view.plot.plot([], [], pen=LOSS_PEN, symbol="o", symbolSize=5,
                                                   symbolBrush=(31, 119, 180), symbolPen=None)
        self.score_view = TitledPlot(title=tr("Held-out exact match and alignment agreement (%), by step"))
        self.score_view.plot.setYRange(0, 100)
        for view in (self.loss_view, self.score_view):  # (short plots beside the map: two lines, never cut to one)
            view.wrap_height = 0
        self.score_curve = self.score_view.plot.plot([], [], pen=SCORE_PEN)
        self.agreement_curve = self.score_view.plot.plot([], [], pen=AGREEMENT_PEN)
        # the legend as a label that wraps: a plot's own legend would set the dock's least width
        self.legend = QtWidgets.QLabel()
        self.legend.setWordWrap(True)
        self._set_legend("exact match", True)
        self.cursor_lines = [pg.InfiniteLine(angle=90, pen=pg.mkPen((200, 40, 40), width=1)) for _ in range(2)]
        self.loss_view.plot.addItem(self.cursor_lines[0])
        self.score_view.plot.addItem(self.cursor_lines[1])
        curves = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        curves.addWidget(self.loss_view)
        scores = QtWidgets.QWidget()
        scores_layout = QtWidgets.QVBoxLayout(scores)
        scores_layout.setContentsMargins(0, 0, 0, 0)
        scores_layout.addWidget(self.score_view, 1)
        scores_layout.addWidget(self.legend)
        curves.addWidget(scores)
        # an image task's probe is drawn with its attention over it, in the map's place (the map stays for exports)
        self.probe_view = ProbeImageView()
        self.map_stack = QtWidgets.QStackedWidget()
        self.map_stack.addWidget(self.heatmap)
        self.map_stack.addWidget(self.probe_view)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(self.map_stack)
        split.addWidget(curves)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self.split, self._split_moved = split, False
        split.splitterMoved.connect(lambda *_: setattr(self, "_split_moved", True))

        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setEnabled(False)
        self.slider.setToolTip(tr("Scrub back through the snapshots of the training"))
        self.slider_label = QtWidgets.QLabel(tr("no history yet"))
        self.said_label = QtWidgets.QLabel(" ")  # what the model answers the probe at the snapshot on show
        self.said_label.setWordWrap(True)
        self.flipbook_button = QtWidgets.QPushButton(tr("Flip-book…"))
        self.flipbook_button.setToolTip(tr("Export the training as a flip-book: a PDF page and a GIF frame per "
                                           "snapshot, the loss so far under each map"))
        self.curves_button = QtWidgets.QPushButton(tr("Curves…"))
        self.curves_button.setToolTip(tr("Export the loss, score and agreement curves (PNG, SVG, PDF or CSV)"))
        self.save_button = QtWidgets.QPushButton(tr("Save model…"))
        self.save_button.setToolTip(tr("Write the trained model, with its history, as a checkpoint file"))
        history_row = QtWidgets.QHBoxLayout()
        history_row.addWidget(QtWidgets.QLabel(tr("History")))
        history_row.addWidget(self.slider, 1)
        history_row.addWidget(self.slider_label)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.flipbook_button, self.curves_button, self.save_button):
            buttons.addWidget(button)

        self._column = layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(controls)
        layout.addLayout(buttons_row)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)
        layout.addWidget(self.said_label)
        layout.addLayout(history_row)
        layout.addLayout(buttons)

        self.family_box.currentIndexChanged.connect(self._on_family_changed)
        self.task_box.currentIndexChanged.connect(lambda _index: self._update_probe_hint())
        self.task_box.activated.connect(self._on_task_chosen)
        self.size_box.currentIndexChanged.connect(lambda _index: self._apply_size())
        self.train_button.clicked.connect(self.start)
        self.pause_button.clicked.connect(self.toggle_pause)
        self.stop_button.clicked.connect(self.stop)
        self.slider.valueChanged.connect(self._on_slider_moved)
        self.flipbook_button.clicked.connect(lambda: self.flipbook_requested.emit())
        self.curves_button.clicked.connect(lambda: self.export_requested.emit())
        self.save_button.clicked.connect(self._on_save_clicked)
        self._on_family_changed()
        self._update_buttons()
        self._clear()

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        """The map keeps 55 % of the width (the plots' size hints would take most) until the user moves the
        divider."""
        super().resizeEvent(event)
        if not self._split_moved:
            width = max(self.width() - 8, 0)
            self.split.setSizes([int(0.55 * width), width - int(0.55 * width)])

    def heightForWidth(self, width: int) -> int:
        """The height the dock's scroll area gives the panel at ``width``: what its controls, the wrapped lines
        and a map of least size take, so that a short dock shows the whole panel (every row of the map) and
        scrolls only where even that does not fit. (The layout's own answer adds up the plots' preferred
        heights: the panel was laid out twice the dock's height, the map's rows below the fold.)"""
        layout = self._column
        margins = layout.contentsMargins()
        inner = width - margins.left() - margins.right()
        total = margins.top() + margins.bottom() + layout.spacing() * max(layout.count() - 1, 0)
        for index in range(layout.count()):
            item = layout.itemAt(index)
            assert item is not None
            total += item.heightForWidth(inner) if item.hasHeightForWidth() else item.minimumSize().height()
        return max(total, self.minimumSizeHint().height())

    def sizeHint(self) -> QtCore.QSize:
        """Modest, like the other panels: the plots' own hints (600 × 480 each) would claim the dock area."""
        least = self.minimumSizeHint()
        return QtCore.QSize(max(least.width(), 420), max(least.height(), 400))

    # -- settings ---------------------------------------------------------------------------
    @property
    def kind(self) -> str:
        return str(self.family_box.currentData())

    @property
    def task(self) -> str:
        return KERNEL_TASK if self.kind == KERNEL_TASK else str(self.task_box.currentData())

    def _on_family_changed(self) -> None:
        kernel = self.kind == KERNEL_TASK
        self.family_box.setToolTip(self.family_box.currentText())  # (the whole name: a narrow dock cuts it)
        self._fill_tasks()
        for widget in (self.task_box, self.size_box, self.width_box, self.layers_box, self.probe_edit):
            widget.setEnabled(not kernel)
        # (the heads box is on where the kind's architecture takes a heads setting: not the RNNs' one attention)
        self.heads_box.setEnabled(not kernel and "num_heads" in arch_for(self.kind, 32, 1, 2))
        self.epochs_box.setValue(5 if kernel else 20)
        self.epochs_box.setToolTip(tr("SGD steps on w (the book trains 5)") if kernel else tr(
            "Passes over the 8,192 training examples (or the file's pairs); a run on a task stops earlier once it "
            "has learned: held-out exact match at least {level:g} % at {count} evaluations in a row").format(
            level=LEARNED_PERCENT, count=LEARNED_EVALUATIONS))
        self._apply_size()
        self._update_probe_hint()

    def _apply_size(self) -> None:
        if self.kind == KERNEL_TASK:
            return
        width, layers, heads = model_size(self.kind, str(self.size_box.currentData()))
        self.width_box.setValue(width)
        self.layers_box.setValue(layers)
        self.heads_box.setValue(heads)

    def _on_task_chosen(self) -> None:
        if self.task == FILE_TASK:
            start = str(self.data_path or Path.home())
            path, _ = file_dialogs.open_file_name(
                self, tr("Train on a file of pairs"), start,
                tr("Tab-separated pairs, source<TAB>target (*.tsv *.txt);;All files (*)"))
            if path:
                self.data_path = Path(path)
                self.task_box.setItemText(self.task_box.currentIndex(),
                                          tr("file: {name}").format(name=self.data_path.name))
            elif self.data_path is None:
                self.task_box.setCurrentIndex(max(self.task_box.findData(FIRST_TASK), 0))
        self._update_probe_hint()

    def _fill_tasks(self) -> None:
        """The Task box offers the tasks the kind's registry record names (and the user's file where the kind reads
        text), keeping the task chosen where the kind learns it too."""
        if self.kind == KERNEL_TASK:
            return
        chosen = self.task_box.currentData()
        self.task_box.blockSignals(True)
        self.task_box.clear()
        for name, task in tasks_of(self.kind).items():
            self.task_box.addItem(tr(task.choice), name)
        if kind_named(self.kind).reads_text:
            self.task_box.addItem(tr("file: {name}").format(name=self.data_path.name) if self.data_path is not None
                                  else tr(FILE_CHOICE), FILE_TASK)
        index = self.task_box.findData(chosen)
        self.task_box.setCurrentIndex(index if index >= 0 else max(self.task_box.findData(FIRST_TASK), 0))
        self.task_box.blockSignals(False)

    def _update_probe_hint(self) -> None:
        """The probe field shows the task's own probe as its hint, and keeps no input of another task."""
        tasks = all_tasks()
        task = tasks.get(self.task)
        self.probe_edit.setPlaceholderText(task.probe if task else tr("the file's first sentence")
                                           if self.task == FILE_TASK else "")
        text = self.probe_edit.text()
        if text.strip() and (not task.accepts_probe(text) if task is not None else
                             any(other.accepts_probe(text) for other in tasks.values())):
            self.probe_edit.clear()  # another task's input: training would refuse it, or read it as unknown words

    def arch(self) -> dict:
        """The architecture settings the three numbers say (none for the kernel regression: it has one weight)."""
        if self.kind == KERNEL_TASK:
            return {}
        return arch_for(self.kind, self.width_box.value(), self.layers_box.value(), self.heads_box.value())

    def request(self) -> TrainRequest:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        task = self.task if self.task != FILE_TASK or self.data_path is None else self.data_path.stem
        name = f"{task}-{self.kind}-{stamp}.safetensors" if self.kind != KERNEL_TASK else \
            f"kernel-regression-{stamp}.safetensors"
        device = self.session.state.device if self.session is not None else "auto"
        return TrainRequest(self.kind, self.task, self.trained_folder / name, self.arch(), self.epochs_box.value(),
                            self.minutes_box.value() or None, probe=self.probe_edit.text().strip() or None,
                            data_path=self.data_path, device=device)

    # -- the run ----------------------------------------------------------------------------
    def start(self) -> None:
        """Train with the settings on show (the button)."""
        if (self.run is not None and self.run.running) or self.session is None:
            return
        if self.kind != KERNEL_TASK and self.heads_box.isEnabled() and self.width_box.value() % self.heads_box.value():
            self._say(tr("The width ({width}) must be a multiple of the heads ({heads}).").format(
                width=self.width_box.value(), heads=self.heads_box.value()), error=True)
            return
        if self.task == FILE_TASK and self.data_path is None:
            self._say(tr("Choose the file of source<TAB>target pairs to train on (Task ▸ your own file)."), error=True)
            return
        self.history, self.saved_path, self._follow = None, None, True
        self._clear()
        request = self.request()
        if self.kind == KERNEL_TASK:
            self._say(tr("Training the book's kernel regression: the first snapshot shows the untrained model…"))
        elif request.task in all_tasks() and request.learned is not None:  # (the rule attnviz train --task stops by)
            self._say(tr("Training {model} on {task}: the first snapshot shows the untrained model; training stops "
                         "once held-out {score} is at least {level:g} % at {count} evaluations in a row…").format(
                model=self.family_box.currentText(), task=self.task_box.currentText().split(" — ")[0],
                score=tr(all_tasks()[request.task].score_name), level=request.learned, count=LEARNED_EVALUATIONS))
        else:
            self._say(tr("Training {model} on {task}: the first snapshot shows the untrained model…").format(
                model=self.family_box.currentText(), task=self.task_box.currentText().split(" — ")[0]))
        self.run = self.session.train(request, self.show_history, self._on_done, self._on_failed)
        self._update_buttons()
        self.run.start()

    def toggle_pause(self) -> None:
        if self.run is None or not self.run.running:
            return
        if self.run.paused:
            self.run.resume()
            self._say(tr("Training resumed."))
        else:
            self.run.pause()
            self._say(tr("Paused: Resume goes on from here; Stop opens the model as it is."))
        self._update_buttons()

    def stop(self) -> None:
        if self.run is not None and self.run.running:
            self.run.stop()
            self._say(tr("Stopping after this step; the model will open as it is…"))
            self._update_buttons()

    def _on_done(self, path: Path, history: TrainingHistory) -> None:
        """The run ended (``history.ending`` says why): its model opens in the window."""
        self.saved_path = path
        self.show_history(history)
        last = history.snapshots[-1] if history.snapshots else None
        summary = snapshot_caption(history, last) if last else ""
        why = history.ending.shown if history.ending is not None else ""
        picture = write_probe_image(history, path)
        if picture is not None and self.session is not None:
            self.session.image_path = picture  # (the image model opens on its probe, drawn in every view)
        self._say(tr("Done — {why}. {summary}. The model is open in the window (Save model… keeps it).").format(
            why=why, summary=summary) if why else
            tr("Done: {summary}. The model is open in the window (Save model… keeps it).").format(summary=summary))
        self.opened.emit(str(path), "" if picture is not None else probe_of(history))  # (the window opens it, its
        # probe decoded in every view)

    def _on_failed(self, message: str) -> None:
        self._update_buttons()
        self._say(tr("Training stopped: {message}").format(message=message), error=True)

    def _update_buttons(self) -> None:
        running = self.run is not None and self.run.running
        self.train_button.setEnabled(not running)
        self.pause_button.setEnabled(running)
        self.stop_button.setEnabled(running)
        self.pause_button.setText(tr("Resume") if running and self.run is not None and self.run.paused else tr("Pause"))
        has = self.history is not None and bool(self.history.snapshots)
        self.flipbook_button.setEnabled(has)
        self.curves_button.setEnabled(has)
        self.save_button.setEnabled(not running and self.saved_path is not None)
        for widget in (self.family_box, self.size_box):
            widget.setEnabled(not running)

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #b00020;" if error else "")
        self.message.emit(text)

    # -- drawing ----------------------------------------------------------------------------
    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        """The dock follows the model opened (unless a run is on show): one that keeps its training history sets
        the model, task and probe and shows the history; any other clears them."""
        if not changed(old, new, "model") or new.model is None or (self.run is not None and self.run.running):
            return
        history = new.model.history  # (read on the worker as the model loaded: a long one takes seconds)
        if history is None:
            self._forget(new.model.kind)
            if new.model.history_problem:
                self._say(tr("{model}: its training history cannot be shown ({error}).").format(
                    model=new.model.label, error=new.model.history_problem), error=True)
            return
        if self.history is not None and self.saved_path == new.model.path:
            return  # the run just finished: its history is on show already
        self.saved_path, self._follow = new.model.path, True
        self._take_settings(history)
        self._take_size(history.kind, new.model.training.get("arch"))
        self.show_history(history)
        if history.ending is not None:
            self._say(tr("{model}: trained on {task} ({count} snapshots; {why}); scrub the history below.").format(
                model=new.model.label, task=history.task, count=len(history.snapshots), why=history.ending.shown))
        else:
            self._say(tr("{model}: trained on {task} ({count} snapshots); scrub the history below.").format(
                model=new.model.label, task=history.task, count=len(history.snapshots)))
        self.probe_edit.setText(probe_of(history))

    def _take_settings(self, history: TrainingHistory) -> None:
        """The model and task a checkpoint was trained with, in the dock's choices (a file's task stays)."""
        self._take_kind(history.kind)
        task = self.task_box.findData(history.task)
        if task >= 0:
            self.task_box.setCurrentIndex(task)

    def _take_size(self, kind: str, arch: object) -> None:
        """The width, layers and heads a checkpoint was trained with (where its training info keeps them), under
        the size preset they match, if one does."""
        size = size_of(kind, arch) if kind != KERNEL_TASK else None
        if size is None:
            return
        preset = next((name for name in SIZE_PRESETS if model_size(kind, name) == size), None)
        if preset is not None:
            self.size_box.setCurrentIndex(self.size_box.findData(preset))
        for box, value in zip((self.width_box, self.layers_box, self.heads_box), size, strict=True):
            box.setValue(value)

    def _take_kind(self, kind: str) -> None:
        """The open model's kind in the Model box, where the dock trains that kind."""
        family = self.family_box.findData(kind)
        if family >= 0 and family != self.family_box.currentIndex():
            self.family_box.setCurrentIndex(family)

    def _forget(self, kind: str) -> None:
        """A model without a training history is open: the dock shows its kind, and no run's history or probe."""
        self._take_kind(kind)
        self.probe_edit.clear()  # (the previous model's input is no probe of this one)
        if self.history is None and self.saved_path is None:
            return
        self.history, self.saved_path, self._follow = None, None, True
        self._clear()
        self.heatmap.show_figure(empty_figure(""))
        self.probe_edit.clear()
        self._say(tr("Choose a model and a task, then press Train."))
        self._update_buttons()

    def show_history(self, history: TrainingHistory) -> None:
        """Draw the curves; the map of the newest snapshot unless the user has scrubbed back."""
        self.history = history
        count = len(history.snapshots)
        steps = history.steps
        loss = history.curve("loss")
        keep = np.isfinite(loss)
        self.loss_curve.setData(steps[keep], loss[keep])
        self.loss_view.plot.enableAutoRange()
        self.score_view.plot.enableAutoRange(axis="x")
        percent = history.in_percent
        score = history.curve("score")
        self.score_view.set_title(
            tr("Held-out exact match and alignment agreement (%), by step") if history.score_name == "exact match" else
            tr("Held-out {score} and attention agreement (%), by step").format(score=tr(history.score_name))
            if percent else tr("Held-out {score}, by step").format(score=tr(history.score_name)))
        self.score_curve.setData(steps, score)
        self._set_legend(history.score_name, percent)
        agreement = 100 * history.curve("agreement")
        has_agreement = bool(np.isfinite(agreement).any())
        self.agreement_curve.setData(steps if has_agreement else [], agreement if has_agreement else [])
        for line in self.cursor_lines:
            line.show()
        self.agreement_curve.setVisible(has_agreement)
        if percent:
            self.score_view.plot.setYRange(0, 100)
        for view in (self.loss_view, self.score_view):  # (short plots beside the map: two lines, never cut to one)
            view.wrap_height = 0
        else:
            self.score_view.plot.enableAutoRange(axis="y")
        self.slider.blockSignals(True)
        self.slider.setRange(0, count - 1)
        self.slider.setEnabled(count > 1)
        if self._follow:
            self.slider.setValue(count - 1)
        self.slider.blockSignals(False)
        self._show_snapshot(self.slider.value())
        self._update_buttons()
        if self.run is not None and self.run.running and history.snapshots:  # the status line follows the run
            self._say(tr("Training: {summary}").format(summary=snapshot_caption(history, history.snapshots[-1])))

    def _set_legend(self, score_name: str, with_agreement: bool) -> None:
        name = html.escape(tr(score_name)).replace(" ", "&nbsp;")  # (an entry never breaks between swatch and name)
        score = f'<span style="color:{SCORE_PEN.color().name()}">━━</span>&nbsp;{name}'
        agreement = (f' &nbsp; <span style="color:{AGREEMENT_PEN.color().name()}">╍╍</span>&nbsp;'
                     + html.escape(tr("agreement")).replace(" ", "&nbsp;"))
        self.legend.setText(score + (agreement if with_agreement else ""))

    def _on_slider_moved(self, index: int) -> None:
        self._follow = self.history is not None and index == len(self.history.snapshots) - 1
        self._show_snapshot(index)

    def _show_snapshot(self, index: int) -> None:
        if self.history is None or not self.history.snapshots:
            return
        index = min(max(index, 0), len(self.history.snapshots) - 1)
        snapshot = self.history.snapshots[index]
        figure = snapshot_figure(self.history, index)
        self.heatmap.show_figure(replace(figure, title=map_title(self.history, snapshot)))
        self.map_stack.setCurrentWidget(self.probe_view if self.history.probe_image is not None else self.heatmap)
        for line in self.cursor_lines:
            line.setValue(snapshot.step)
        self.slider_label.setText(tr("snapshot {index} of {count} · step {step:,}").format(
            index=index + 1, count=len(self.history.snapshots), step=snapshot.step))
        if self.history.probe_image is not None:
            self._show_probe_image(snapshot)
        elif self.history.task != KERNEL_TASK:
            known = self.history.task in all_tasks()  # (its rows are the right answer; a file's are what it said)
            right = " ".join(snapshot.rows[:-1]) if known and snapshot.rows[-1:] == ("<eos>",) else ""
            said = dict(step=snapshot.step, probe=" ".join(snapshot.cols),
                        answer=" ".join(snapshot.said) or tr("(nothing)"), right=right)
            if right and " ".join(snapshot.said) != right:
                text = tr("At step {step:,} the model answers {probe} with {answer} (right: {right})").format(**said)
            else:
                text = tr("At step {step:,} the model answers {probe} with {answer}").format(**said)
                text += " ✓" if right else ""
            self.said_label.setText(text)
        else:
            self.said_label.setText(snapshot.shown_note)

    def _show_probe_image(self, snapshot: Snapshot) -> None:
        """An image task's snapshot: the probe with ``[CLS]``'s attention over it, and what the model calls it."""
        history = self.history
        assert history is not None and history.probe_image is not None
        probe = history.probe_image
        top = max(float(s.map.max()) for s in history.snapshots)
        self.probe_view.show_probe(map_title(history, snapshot), probe.pixels, snapshot.map, probe.patches, top)
        task = all_tasks().get(history.task)

        def name(english: str) -> str:  # (a class as the history keeps it, in English, shown in the interface's)
            classes = getattr(task, "classes", ())
            return task.class_label(classes.index(english)) if task is not None and english in classes else tr(english)

        said = dict(step=snapshot.step, seed=probe.seed, answer=name(snapshot.said[0]) if snapshot.said else
                    tr("(nothing)"), right=name(probe.answer))
        overlap = "" if snapshot.overlap is None else " · " + tr("top-k overlap {percent:.0f} %").format(
            percent=100 * snapshot.overlap)
        if snapshot.said[:1] == (probe.answer,):
            text = tr("At step {step:,} the model calls probe image {seed} a {answer}").format(**said) + " ✓"
        else:
            text = tr("At step {step:,} the model calls probe image {seed} a {answer} (right: {right})").format(**said)
        self.said_label.setText(text + overlap)

    def _clear(self) -> None:
        """No history: empty plots on their usual ranges, no step cursor."""
        for curve in (self.loss_curve, self.score_curve, self.agreement_curve):
            curve.setData([], [])
        for line in self.cursor_lines:
            line.hide()
        self.loss_view.plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        self.score_view.plot.setRange(xRange=(0, 1), yRange=(0, 100), padding=0)
        self.slider.setEnabled(False)
        self.slider_label.setText(tr("no history yet"))
        self.said_label.setText(" ")
        self.probe_view.clear()
        self.map_stack.setCurrentWidget(self.heatmap)

    # -- figures and files ------------------------------------------------------------------
    def figure(self) -> StackSpec | None:
        """The curves (loss above score and agreement): what Export curves… writes."""
        return curves_figure(self.history) if self.history is not None and self.history.snapshots else None

    def flipbook_figures(self) -> list:
        from attnviz.figures.training import training_frames

        return training_frames(self.history) if self.history is not None and self.history.snapshots else []

    def stem(self) -> str:
        return self.saved_path.stem if self.saved_path is not None else "training"

    def map_figure(self) -> NamedFigure | None:
        if self.history is None or not self.history.snapshots:
            return None
        index = self.slider.value()
        return NamedFigure(f"{self.stem()}_map_step{self.history.snapshots[index].step:06d}",
                           snapshot_figure(self.history, index))

    def _on_save_clicked(self) -> None:
        if self.saved_path is None:
            return
        start = str(Path.home() / self.saved_path.name)
        path, _ = file_dialogs.save_file_name(self, tr("Save the trained model"), start,
                                              tr("attnviz checkpoint (*.safetensors)"))
        if path:
            self.save_model(Path(path) if Path(path).suffix else Path(path + ".safetensors"))

    def save_model(self, target: Path) -> bool:
        """Copy the trained checkpoint to ``target`` (a new file, or an attnviz checkpoint the dialog agreed to
        replace), whole or not at all; the result is said in the status line."""
        assert self.saved_path is not None
        try:
            save_copy(self.saved_path, target)
        except (ValueError, OSError) as error:
            self._say(tr("The model was not saved: {error}").format(error=error), error=True)
            return False
        history = self.history
        probe = probe_of(history) if history is not None else ""
        if history is not None and history.probe_image is not None:
            probe = ""  # (the image on show stays: the model reopens on it)
        self.opened.emit(str(target), probe)  # the window shows it under its new name (title, figures, status bar)
        self._say(tr("Saved the trained model, with its training history, as {target}.").format(target=target))
        return True

