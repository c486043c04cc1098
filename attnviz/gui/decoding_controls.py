"""The decoding area's wiring: what its sentence field, buttons, beam box, timeline, top-k table and force
field ask of the session, and how each new state is drawn into it.

Typing is debounced (the views follow TYPING_DEBOUNCE_MS after the last key; Step and Run act on the text at
once), and once a step is on screen the next one is decoded in the background (PREFETCH_DELAY_MS later).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6 import QtCore, QtWidgets

from attnviz.figures.attention import shown_index
from attnviz.gui.decoding_area import DecodingArea, quoted_tokens
from attnviz.gui.settings import Settings
from attnviz.i18n import tr
from attnviz.session import Session, SessionState, changed

if TYPE_CHECKING:
    from attnviz.core.results import DecodeStep

TYPING_DEBOUNCE_MS = 250
PREFETCH_DELAY_MS = 15  # after a step is shown: its paint is done, a next press is still far off


def step_label(state: SessionState) -> str:
    """The step on show, numbered as its figure titles and export names number it (query rows); beam
    search can take more search steps than the best hypothesis has tokens, and then says both."""
    if state.step is None:
        return ""
    number = (shown_index(state.step) or 0) + 1
    search = state.position + 1
    label = (tr("step {number}").format(number=number) if search == number
             else tr("step {number} · search {search}").format(number=number, search=search))
    return tr("{label} · forced").format(label=label) if state.step.forced else label


def _output_index(step: DecodeStep, number: int) -> int:
    """Where step ``number``'s token is in the output: the ``number``-th word, or the mask it filled."""
    return number if step.focus is None else step.focus


class DecodingControls(QtCore.QObject):
    """Connects ``area`` (the window's centre) to ``session``; messages go to ``window``'s status bar."""

    def __init__(self, window: QtWidgets.QMainWindow, area: DecodingArea, session: Session, settings: Settings):
        super().__init__(window)
        self.window, self.area, self.session, self.settings = window, area, session, settings
        self.typing_timer = QtCore.QTimer(self, singleShot=True, interval=TYPING_DEBOUNCE_MS)
        self.typing_timer.timeout.connect(self._on_typing_timer_timeout)
        # Once a step is on screen (and painted), the next one is decoded in the background.
        self.prefetch_timer = QtCore.QTimer(self, singleShot=True, interval=PREFETCH_DELAY_MS)
        self.prefetch_timer.timeout.connect(self._on_prefetch_timer_timeout)
        area.sentence.textEdited.connect(self._on_sentence_text_edited)
        area.sentence.returnPressed.connect(self.run_to_end)
        area.back_button.clicked.connect(self.back)
        area.step_button.clicked.connect(self.step)
        area.run_button.clicked.connect(self.run_to_end)
        area.reset_button.clicked.connect(self.reset)
        area.beam_box.valueChanged.connect(self._on_beam_box_value_changed)
        area.timeline.valueChanged.connect(self._on_timeline_value_changed)
        area.topk.cellClicked.connect(self._on_topk_cell_clicked)
        area.force_field.returnPressed.connect(self._on_force_clicked)
        area.force_button.clicked.connect(self._on_force_clicked)

    # -- requests (the buttons, and the Decode menu's actions) --------------------------------
    def set_sentence(self, text: str, run: bool = False) -> None:
        """Put ``text`` in the sentence field and encode it (run: and decode it to the end)."""
        self.typing_timer.stop()  # a debounced encode of what was typed before must not follow
        self.area.sentence.setText(text)
        self.session.encode(text, run=run)

    def show_saved(self, sentence: str, beam_size: int) -> None:
        """A saved session's sentence and beam size in the controls, before the session restores its steps
        (the beam box says so without asking for a new search; the setting follows)."""
        self.typing_timer.stop()
        self.area.sentence.setText(sentence)
        self.area.beam_box.blockSignals(True)
        self.area.beam_box.setValue(beam_size)
        self.area.beam_box.blockSignals(False)
        self.settings.beam_size = beam_size

    def step(self) -> None:
        self.typing_timer.stop()  # Step encodes what the field says now, if it changed
        self.session.step()

    def back(self) -> None:
        self.session.back()

    def run_to_end(self) -> None:
        self.typing_timer.stop()
        self.session.run_to_end()

    def reset(self) -> None:
        self.typing_timer.stop()
        self.area.forget_forcing()
        self.session.reset()

    # -- drawing the state ------------------------------------------------------------------
    def show_state(self, old: SessionState, new: SessionState) -> None:
        """The notice, the step on show, the timeline and its forced marks, and which buttons act."""
        area = self.area
        if new.source is not old.source and new.source is not None:
            self._show_notice(new)
        if changed(old, new, "step", "shown_source", "source"):
            forced = tuple(_output_index(new.steps[i], i) for i in new.forced_steps if i <= new.position)
            area.show_step(new.step, new.shown_source is not None and not new.not_stepped, forced,
                           pieces=new.model is not None and new.model.subword)
        if (new.position, len(new.steps)) != (old.position, len(old.steps)):
            area.set_timeline(new.position, len(new.steps), step_label(new))
        if changed(old, new, "steps"):
            area.timeline.set_marks(tuple(i + 1 for i in new.forced_steps))
        self.enable_buttons(new)

    def prefetch_when_shown(self, old: SessionState, new: SessionState) -> None:
        """Once a new step is on show and nothing runs: decode the next one in the background, PREFETCH_DELAY_MS
        later (its paint done by then)."""
        if not new.busy and changed(old, new, "steps", "position", "source", "busy"):
            self.prefetch_timer.start()

    def enable_buttons(self, state: SessionState) -> None:
        area = self.area
        for button, enabled in ((area.step_button, state.can_step), (area.run_button, state.can_run),
                                (area.back_button, state.can_back), (area.reset_button, state.can_reset),
                                (area.force_button, state.can_force)):
            button.setEnabled(enabled)
        area.force_field.setEnabled(not state.not_stepped)

    def _show_notice(self, state: SessionState) -> None:
        source = state.source
        assert source is not None
        notes = []
        if source.truncated_from:
            notes.append(tr("Input truncated from {before} to {after} tokens (the model's limit).").format(
                before=source.truncated_from, after=len(source.tokens)))
        if source.unknown:
            notes.append(tr("Unknown words (read as <unk>): {words}").format(words=quoted_tokens(source.unknown)))
        if source.on_demand is not None:
            notes.append(self._on_demand_note(source.layout.name).format(tokens=f"{len(source.tokens):,}"))
        self.area.notice.setText(" ".join(notes) or " ")

    @staticmethod
    def _on_demand_note(layout: str) -> str:
        """What the notice says of an input whose maps are computed one at a time (``{tokens}`` to fill in): a
        decoder-only prompt's answer, an encoder-only sentence's masks, an encoder–decoder's translation are not
        decoded at that length."""
        if layout == "encoder-only":
            return tr("This sentence has {tokens} tokens: its maps are computed one at a time for the Attention view, "
                      "and no mask is filled at this length (that would need every position's word probabilities).")
        if layout == "encoder-decoder":
            return tr("This source has {tokens} tokens: its encoder's maps are computed one at a time for the "
                      "Attention view, and it is not translated at this length (export a target's maps with "
                      "attnviz export --prompt-map --target).")
        return tr("This prompt has {tokens} tokens: its maps are computed one at a time for the Attention view, and "
                  "the answer is not stepped at this length.")

    # -- handlers ---------------------------------------------------------------------------
    def _on_sentence_text_edited(self, text: str) -> None:
        self.session.set_text(text)  # Step and Run act on it at once; the views follow after the debounce
        self.typing_timer.start()

    def _on_typing_timer_timeout(self) -> None:
        self.session.encode()

    def _on_prefetch_timer_timeout(self) -> None:
        self.session.prefetch()

    def _on_beam_box_value_changed(self, value: int) -> None:
        self.settings.beam_size = value
        self.session.set_beam_size(value)

    def _on_timeline_value_changed(self, value: int) -> None:
        self.session.show(value - 1)

    def _on_topk_cell_clicked(self, row: int, _column: int) -> None:
        area = self.area
        token, step = area.topk_token(row), self.session.state.step
        area.topk.setCurrentCell(-1, -1)  # (no focus mark left on a row that the next step fills with another token)
        if token is not None and step is not None and token != step.token:
            self.session.force(token)

    def _on_force_clicked(self) -> None:
        if not self.session.state.can_reset:  # (Enter in the field works while the button is disabled)
            self.window.statusBar().showMessage(tr("Type a source sentence, with a translation model loaded, to force "
                                                   "target words."), 8000)
            return
        self.typing_timer.stop()
        self.session.force_prefix(self.area.force_field.text())
