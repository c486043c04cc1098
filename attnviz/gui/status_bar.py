"""The window's status bar: a message too long for the room left of the permanent labels ends in "…"
(Qt clips it mid-word), and the whole text is the bar's tooltip; it is cut again when the window resizes.
:class:`StatusReports` says in it what the session does: the job that runs (after BUSY_INDICATOR_DELAY_MS),
the device, how long the step on show took, the model loaded, and unusable settings."""

from __future__ import annotations

import logging
import time

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.gui.decoding_area import FixedTextLabel
from attnviz.gui.settings import Settings
from attnviz.i18n import tr
from attnviz.session import Session, SessionState, changed

log = logging.getLogger(__name__)
BUSY_INDICATOR_DELAY_MS = 150  # quicker jobs finish before an indicator would only flicker


class ElidingStatusBar(QtWidgets.QStatusBar):
    """QStatusBar whose ``showMessage`` cuts a long message with "…" (full_message keeps it whole)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.full_message = ""  # the message as it was given, before any cut
        self._shown = ""  # what showMessage last put up (to tell it from a later clear or timeout)
        self._until: float | None = None  # time.monotonic() when it goes away (None: it stays)
        self.messageChanged.connect(self._on_message_changed)

    def showMessage(self, text: str, timeout: int | None = 0) -> None:
        self.full_message = text
        self._until = time.monotonic() + timeout / 1000 if timeout else None
        self._shown = self._cut(text)
        self.setToolTip(text if self._shown != text else "")
        super().showMessage(self._shown, timeout or 0)

    def room(self) -> int:
        """The width the message may take: the bar less its visible permanent widgets, by their size hints
        (their positions are not laid out yet when a message comes with the change that showed them)."""
        taken = 18  # QStatusBar's margins around the message
        for child in self.findChildren(QtWidgets.QWidget, options=QtCore.Qt.FindChildOption.FindDirectChildrenOnly):
            if child.isVisibleTo(self):  # the permanent labels and the size grip
                taken += max(child.sizeHint().width(), child.minimumWidth()) + 6
        return max(self.width() - taken, 0)

    def _cut(self, text: str) -> str:
        return QtGui.QFontMetrics(self.font()).elidedText(text, QtCore.Qt.TextElideMode.ElideRight, self.room())

    def _on_message_changed(self, text: str) -> None:
        if text != self._shown:  # cleared, timed out or replaced by Qt itself (e.g. a menu's status tip)
            self.full_message = self._shown = ""
            self.setToolTip("")

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.full_message and self.currentMessage() == self._shown:
            left = 0 if self._until is None else max(1, round((self._until - time.monotonic()) * 1000))
            self._shown = self._cut(self.full_message)
            super().showMessage(self._shown, left)


class StatusReports(QtCore.QObject):
    """Gives ``window`` an :class:`ElidingStatusBar` with a busy indicator, the device and the step's time as
    permanent widgets, and reports ``session``'s states in it."""

    def __init__(self, window: QtWidgets.QMainWindow, settings: Settings, session: Session):
        super().__init__(window)
        self.settings, self.session = settings, session
        self.bar = ElidingStatusBar()
        window.setStatusBar(self.bar)
        self.busy_bar = QtWidgets.QProgressBar()  # indeterminate: a job runs that the user is waiting for
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setMaximumWidth(110)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.hide()
        self.bar.addPermanentWidget(self.busy_bar)
        self.busy_timer = QtCore.QTimer(window, singleShot=True, interval=BUSY_INDICATOR_DELAY_MS)
        self.busy_timer.timeout.connect(self._on_busy_timer_timeout)
        self.device_label = QtWidgets.QLabel()  # where the model runs
        self.step_time_label = FixedTextLabel(tr("step {ms:.1f} ms").format(ms=8888.8))  # how long the last step took
        self.step_time_label.setToolTip(tr("Time the model took for the decoding step on show"))
        self.bar.addPermanentWidget(self.device_label)
        self.bar.addPermanentWidget(self.step_time_label)
        self._reported_settings = 0

    def show_state(self, old: SessionState, new: SessionState) -> None:
        """The step's time (and a cut output), the busy indicator, and the model loaded once its job ended."""
        if changed(old, new, "step", "shown_source") and new.step is not None and new.model is not None:
            self.step_time_label.setText(tr("step {ms:.1f} ms").format(ms=new.step.seconds * 1000))
            self._say_if_cut(new)
        if new.busy != old.busy:
            # A job's name and the busy bar appear only once it has taken BUSY_INDICATOR_DELAY_MS: a step
            # of a few milliseconds must not make the status bar flicker (and repaint) every time.
            if new.busy and not old.busy:
                self.busy_timer.start()
            elif not new.busy:
                self.busy_timer.stop()
                if self.busy_bar.isVisible():
                    self.busy_bar.hide()
                    self.bar.clearMessage()
            if new.busy and self.busy_bar.isVisible():
                self.bar.showMessage(new.busy)
            if not new.busy and new.model is not None and new.model is not old.model:
                self.say_loaded(new)

    def model_loaded(self, state: SessionState) -> None:
        """A model was loaded: its device, no step time yet; what was loaded, and any unusable settings."""
        info = state.model
        assert info is not None
        self.device_label.setText(info.device)
        self.step_time_label.clear()
        self.say_loaded(state)
        self.report_settings_problems()

    def _say_if_cut(self, state: SessionState) -> None:
        """A Hugging Face model that sets no length limit of its own, stopped at attnviz's: say so (a folder's own
        limit is the model's behaviour, as generate has it; attnviz's is not)."""
        step, model = state.step, state.model
        if (step is not None and model is not None and step.finished and not step.ended
                and model.training.get("output_limit_set_by") == "attnviz"):
            self.bar.showMessage(tr("Stopped at attnviz's limit of {count} tokens: the model's folder sets no "
                                    "length limit of its own").format(count=len(step.output_tokens)), 15000)

    def report_settings_problems(self) -> None:
        """Unusable settings (reported once each) and a settings file that cannot be written (once)."""
        if failed := self.settings.sync():
            log.warning(failed)
            self.bar.showMessage(failed, 15000)
        new = self.settings.problems[self._reported_settings:]
        self._reported_settings = len(self.settings.problems)
        for problem in new:
            log.warning(problem)
        if new:
            self.bar.showMessage(tr("Some settings were unusable and reset: {problems}").format(
                problems="; ".join(new)), 15000)

    def say_loaded(self, state: SessionState) -> None:
        info = state.model
        assert info is not None
        from attnviz.model_card import card_bleu

        card = card_bleu(info.path, info.sha256)  # a shipped file: the model card's numbers (one owner)
        bleu = info.training.get("val_bleu")
        if card is not None:
            extra = tr(", validation BLEU {greedy:.2f} greedy, {beam:.2f} with beam 4 (models/MODELS.md)").format(
                greedy=card[0], beam=card[1])
        else:
            extra = tr(", validation BLEU {bleu}").format(bleu=bleu) if bleu is not None else ""
        kind = info.kind
        if info.training.get("source") == "Hugging Face":
            kind = tr("a Hugging Face {architecture} model").format(
                architecture=info.training.get("architecture", "")).replace("  ", " ")
        loaded = (tr("Loaded {label}: {kind}, {count:,} parameter{extra}") if info.parameters == 1
                  else tr("Loaded {label}: {kind}, {count:,} parameters{extra}"))
        self.bar.showMessage(loaded.format(label=info.label, kind=kind, count=info.parameters, extra=extra), 8000)

    def _on_busy_timer_timeout(self) -> None:
        if self.session.state.busy:
            self.busy_bar.setToolTip(self.session.state.busy)
            self.busy_bar.show()
            self.bar.showMessage(self.session.state.busy)
