"""The window's centre: the sentence field, the decoding controls, the output and the top-k table.

Plain Qt widgets only (no pyqtgraph), so the window can paint them before anything heavy loads.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.core.hf.vocab import CONTINUES
from attnviz.core.layout import ENCODER_DECODER, Capability, SequenceLayout
from attnviz.core.limits import MAX_BEAM
from attnviz.core.results import LENGTH_PENALTY, Beam, DecodeStep
from attnviz.gui.wrap_row import WrapRow
from attnviz.i18n import N_, tr

STEP_KEYS = ("F10", "Alt+Right", "Right")  # Right (and Left) step only where focus is not in a text field
BACK_KEYS = ("Shift+F10", "Alt+Left", "Left")
# (shown through tr() where they are used)
STEP_HINT = N_("F10 or Alt+→; → outside the text field")
BACK_HINT = N_("Shift+F10 or Alt+←; ← outside the text field")
FIRST_STEP_HINT = N_("Press Step (F10) to decode the first word")  # where a step's figure is still empty


class ShortcutPassThrough(QtCore.QObject):
    """An event filter for the text fields and spin boxes of ``window``: there the window's
    shortcuts given to :meth:`pass_shortcuts` act instead of the field's own binding (on X11 a line
    edit claims Ctrl+E, "end of line", so Export would otherwise do nothing there)."""

    def __init__(self, window: QtWidgets.QWidget):
        super().__init__(window)
        self._window = window
        self._passed: set[str] = set()

    def pass_shortcuts(self, sequences: Iterable[QtGui.QKeySequence]) -> None:
        self._passed = {sequence.toString(QtGui.QKeySequence.SequenceFormat.PortableText) for sequence in sequences}

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if (event.type() == QtCore.QEvent.Type.ShortcutOverride and isinstance(event, QtGui.QKeyEvent)
                and isinstance(watched, QtWidgets.QLineEdit | QtWidgets.QAbstractSpinBox | QtWidgets.QPlainTextEdit)
                and watched.window() is self._window):
            portable = QtGui.QKeySequence.SequenceFormat.PortableText
            if QtGui.QKeySequence(event.keyCombination()).toString(portable) in self._passed:
                event.ignore()  # not claimed by the field: the window's shortcut fires
                return True
        return False


MAX_LINES = 5  # the translation's view grows to this many lines of its text, then scrolls


class OutputView(QtWidgets.QTextBrowser):
    """The translation so far: selectable rich text, as tall as its lines.

    A QLabel asks the whole window to lay itself out again whenever its text changes (every step);
    this view changes its height, and so the layout, only when the number of lines does."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.setOpenLinks(False)
        self.viewport().setAutoFillBackground(False)
        # (a palette, not a style sheet: a widget with a style sheet keeps its font when presentation mode
        # changes the application's)
        palette = self.palette()
        palette.setColor(QtGui.QPalette.ColorRole.Base, QtCore.Qt.GlobalColor.transparent)
        self.setPalette(palette)
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # it grows instead
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed)
        self.document().setDocumentMargin(1)
        self._html = ""
        self._fit_height()

    def text(self) -> str:
        """The text on show, without markup (as QLabel.text() would give it for plain text)."""
        return self.toPlainText()

    def setText(self, html_text: str) -> None:
        if html_text != self._html:
            self._html = html_text
            self.setHtml(html_text)
            self._fit_height()

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_height()

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.FontChange:  # presentation mode: taller lines
            self._fit_height()

    def _fit_height(self) -> None:
        """As tall as its lines (at least one of the large text, at most MAX_LINES: a longer output — a
        Hugging Face model's 64 subword pieces in a narrow window — scrolls, its newest words in view); the
        layout is asked again only when the height changes."""
        line = QtGui.QFontMetrics(self.font()).lineSpacing()
        self.document().setTextWidth(self.viewport().width())
        text_height = self.document().size().height()
        most = int(MAX_LINES * 1.5 * line)  # (the output is written x-large: 1.5 × the font)
        wanted = int(min(max(text_height, 1.6 * line), most)) + 2
        policy = QtCore.Qt.ScrollBarPolicy
        self.setVerticalScrollBarPolicy(policy.ScrollBarAsNeeded if text_height > most else policy.ScrollBarAlwaysOff)
        if wanted != self.height():
            self.setFixedHeight(wanted)
        if text_height > most:
            bar = self.verticalScrollBar()
            bar.setValue(bar.maximum())


class BlankHidingLabel(QtWidgets.QLabel):
    """A label that takes no room while its text is blank (a notice, the beam list): at 1024×700 with large
    text those lines are what the top-5 table needs to show its five rows. ``allowed`` False keeps it hidden."""

    def __init__(self, text: str = "", parent: QtWidgets.QWidget | None = None):
        super().__init__(text, parent)
        self.allowed = True
        self._follow()

    def setText(self, text: str) -> None:
        super().setText(text)
        self._follow()

    def clear(self) -> None:
        super().clear()
        self._follow()

    def set_allowed(self, allowed: bool) -> None:
        self.allowed = allowed
        self._follow()

    def _follow(self) -> None:
        shown = self.allowed and bool(self.text().strip())
        if shown == self.isHidden():  # (only a change re-lays out the area)
            self.setVisible(shown)


class FixedTextLabel(QtWidgets.QLabel):
    """A label as large as ``sample`` in its font, whatever text it shows: a label whose text changes
    every step would otherwise lay the window out again each time. Its size follows font changes."""

    def __init__(self, sample: str, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self._sample = sample
        self._fit()

    def _fit(self) -> None:
        self.setFixedSize(QtGui.QFontMetrics(self.font()).size(0, self._sample) + QtCore.QSize(6, 2))

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.FontChange:
            self._fit()


TOPK_ROWS = 5  # rows of the top-k table shown without scrolling

def beams_html(beams: Sequence[Beam]) -> str:
    """The beam list, best first, each with the score beam search ranks it by (named in the heading) and
    its plain log-probability: a shorter hypothesis can have the higher log p and still rank lower."""
    penalty = beams[0].length_penalty if beams else LENGTH_PENALTY
    ranked = tr("ranked by score = log p / T<sup>{penalty:g}</sup> (length-normalised; T: its tokens)")
    heading = f"<b>{tr('Beams')}</b> <span style='color:gray'>{ranked.format(penalty=penalty)}</span>"
    lines = []
    for i, b in enumerate(beams):
        detail = (tr("(score <b>{score}</b>, log p {log_prob}, T = {length}, ended)") if b.finished
                  else tr("(score <b>{score}</b>, log p {log_prob}, T = {length})"))
        detail = detail.format(score=_signed(b.score), log_prob=_signed(b.log_prob), length=len(b.tokens))
        lines.append(f"{i + 1}. {html.escape(' '.join(b.tokens))} <span style='color:gray'>{detail}</span>")
    return "<br>".join([heading, *lines])


def _text_scale(widget: QtWidgets.QWidget) -> float:
    """How much larger ``widget``'s text is than the platform's (presentation mode: 1.5)."""
    from attnviz.gui.text_size import base_font

    base = QtGui.QFontInfo(base_font()).pixelSize()
    return QtGui.QFontInfo(widget.font()).pixelSize() / base if base > 0 else 1.0


def _signed(value: float) -> str:
    return f"{value:.2f}".replace("-", "−")


def quoted_tokens(tokens: Iterable[str]) -> str:
    """Tokens listed so that each one's edges show: “(really”, “!)” (not "(really, !)")."""
    return ", ".join(f"“{token}”" for token in tokens)


FORCED_COLOUR = QtGui.QColor(214, 95, 0)  # forced tokens: in the output, the timeline and the top-k table


class Timeline(QtWidgets.QSlider):
    """The steps slider, with a small orange mark under every step whose token the user forced."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(QtCore.Qt.Orientation.Horizontal, parent)
        self._marks: tuple[int, ...] = ()

    def set_marks(self, values: tuple[int, ...]) -> None:
        """Mark these slider values (step index + 1)."""
        if values != self._marks:
            self._marks = values
            self.update()

    def marks(self) -> tuple[int, ...]:
        return self._marks

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._marks or self.maximum() <= self.minimum():
            return
        option = QtWidgets.QStyleOptionSlider()
        self.initStyleOption(option)
        style = self.style()
        handle = style.subControlRect(QtWidgets.QStyle.ComplexControl.CC_Slider, option,
                                      QtWidgets.QStyle.SubControl.SC_SliderHandle, self)
        span = self.width() - handle.width()
        painter = QtGui.QPainter(self)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(FORCED_COLOUR)
        for value in self._marks:
            x = handle.width() / 2 + QtWidgets.QStyle.sliderPositionFromValue(
                self.minimum(), self.maximum(), value, span)
            y = self.height() - 1
            painter.drawPolygon(QtGui.QPolygonF([QtCore.QPointF(x, y - 5), QtCore.QPointF(x - 4, y),
                                                 QtCore.QPointF(x + 4, y)]))
        painter.end()


class TopKTable(QtWidgets.QTableWidget):
    """The next-token table; while it has no rows it says what fills it (``hint``)."""

    def __init__(self, rows: int, columns: int):
        super().__init__(rows, columns)
        self.hint = ""

    def set_hint(self, text: str) -> None:
        if text != self.hint:
            self.hint = text
            self.viewport().update()

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        super().paintEvent(event)
        if self.hint and self.rowCount() == 0:
            painter = QtGui.QPainter(self.viewport())
            painter.setPen(self.palette().color(QtGui.QPalette.ColorRole.PlaceholderText))
            painter.drawText(QtCore.QRectF(self.viewport().rect()).adjusted(6, 4, -6, -4),
                             QtCore.Qt.AlignmentFlag.AlignCenter | QtCore.Qt.TextFlag.TextWordWrap, self.hint)
            painter.end()


class DecodingArea(QtWidgets.QWidget):
    """Widgets the main window wires to its session; ``show_step`` draws a step's output."""

    def __init__(self, beam_size: int, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.sentence = QtWidgets.QLineEdit()
        self.sentence.setPlaceholderText(tr("Type an English sentence…"))
        self.sentence.setClearButtonEnabled(True)
        self.notice = BlankHidingLabel(" ")
        self.notice.setWordWrap(True)
        self.notice.setTextFormat(QtCore.Qt.TextFormat.PlainText)  # typed words are shown, never rendered
        palette = self.notice.palette()  # (not a style sheet: see OutputView)
        palette.setColor(QtGui.QPalette.ColorRole.WindowText, QtGui.QColor("#a15c00"))
        self.notice.setPalette(palette)
        for label in (self.notice,):  # one unbroken 300-letter word must not widen the window
            label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.back_button = QtWidgets.QPushButton(tr("◀ Back"))
        self.step_button = QtWidgets.QPushButton(tr("Step ▶"))
        self.run_button = QtWidgets.QPushButton(tr("Run to end"))
        self.reset_button = QtWidgets.QPushButton(tr("Reset"))
        for button, tip in ((self.back_button, tr("Back one step ({keys})").format(keys=tr(BACK_HINT))),
                            (self.step_button, tr("Decode one token ({keys})").format(keys=tr(STEP_HINT))),
                            (self.run_button, tr("Decode to the end (Ctrl+Return)")),
                            (self.reset_button, tr("Start the decoding again (Ctrl+R)"))):
            button.setToolTip(tip)
        self.beam_box = QtWidgets.QSpinBox()
        self.beam_box.setRange(1, MAX_BEAM)
        self.beam_box.setPrefix(tr("beam "))
        self.beam_box.setSpecialValueText(tr("greedy"))
        self.beam_box.setToolTip(tr("1 = greedy decoding; more = beam search with that many hypotheses"))
        self.beam_box.setValue(beam_size)
        self.timeline = Timeline()
        self.timeline.setRange(0, 0)
        self.timeline.setToolTip(tr("Scrub through the recorded decoding steps (orange marks: forced tokens)"))
        self.timeline.setMinimumWidth(90)
        self.step_label = FixedTextLabel(tr("step 888 · search 888"))  # (a sample: the size of the longest label)
        self.output = OutputView()
        self.topk = TopKTable(0, 2)
        self.topk.setHorizontalHeaderLabels([tr("next token"), tr("probability")])
        self.topk.horizontalHeader().setStretchLastSection(True)
        self.topk.horizontalHeader().hide()  # (the line above names the table: its rows are what fills the room)
        self.topk.verticalHeader().hide()
        self.topk.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.topk.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.NoSelection)
        self.topk.setToolTip(tr("Click a token to make the decoder take it at this step instead of its own choice"))
        self.topk.setCursor(QtCore.Qt.CursorShape.PointingHandCursor)
        self.force_field = QtWidgets.QLineEdit()
        self.force_field.setPlaceholderText(tr("Force target words (a reference translation or its start)…"))
        self.force_field.setClearButtonEnabled(True)
        self.force_field.setToolTip(tr("Teacher forcing: the decoder takes these words, then goes on by itself; "
                                       "Enter to decode"))
        self.force_button = QtWidgets.QPushButton(tr("Force"))
        self.force_button.setToolTip(tr("Decode again taking the typed target words (teacher forcing)"))
        self.beams = BlankHidingLabel()
        self.beams.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.beams.setWordWrap(True)
        self.beams.setToolTip(tr("Beam search keeps this many hypotheses; the best one is shown above"))

        # Rows that wrap where the centre is narrow (large text in a 1024-px window)
        buttons = WrapRow((self.back_button, self.step_button, self.run_button, self.reset_button, self.beam_box))
        self.scrub = WrapRow((QtWidgets.QLabel(tr("Steps")), self.timeline, self.step_label), stretch=1)
        self.lecture_row: QtWidgets.QWidget | None = None  # the lecture view's controls, while it is on
        layout = QtWidgets.QVBoxLayout(self)
        layout.setSpacing(4)  # (with large text on a 700-px screen the top-5 table needs every line)
        layout.addWidget(QtWidgets.QLabel(tr("Source sentence")))
        layout.addWidget(self.sentence)
        layout.addWidget(self.notice)
        layout.addWidget(buttons)
        layout.addWidget(self.scrub)
        self.output_title = QtWidgets.QLabel(tr("Translation so far"))  # (the layout names it: follow())
        self.output_title.setWordWrap(True)  # (a layout's name may be longer than a narrow lecture column)
        layout.addWidget(self.output_title)
        layout.addWidget(self.output)
        self.forcing = QtWidgets.QWidget()
        forcing = QtWidgets.QHBoxLayout(self.forcing)
        forcing.setContentsMargins(0, 0, 0, 0)
        forcing.addWidget(self.force_field, 1)
        forcing.addWidget(self.force_button)
        layout.addWidget(self.forcing)
        self.candidates_title = QtWidgets.QLabel(tr("Next-token probabilities at this step"))
        self.candidates_title.setWordWrap(True)
        layout.addWidget(self.candidates_title)
        layout.addWidget(self.topk)
        layout.addWidget(self.beams)
        layout.addStretch(1)
        self._shown: tuple[DecodeStep | None, bool, tuple[int, ...], bool] | None = None  # show_step's arguments
        self._words = ENCODER_DECODER.words
        self._fit_topk()
        self.sentence.textChanged.connect(self.forget_forcing)  # typed, an example, a session: another sentence

    def follow(self, layout: SequenceLayout) -> None:
        """Name the output, the top-k and Step as the model's layout does (a translation, or masks to fill); the
        beam size shows only for a model that translates."""
        words = self._words = layout.words
        self.output_title.setText(tr(words.output_title))
        self.candidates_title.setText(tr(words.candidates_title))
        self.topk.setToolTip(tr(words.candidates_tip))
        self.force_field.setPlaceholderText(tr(words.force_placeholder))
        self.step_button.setToolTip(tr(words.step_tip).format(keys=tr(STEP_HINT)))
        self.beam_box.setVisible(layout.offers(Capability.DECODER))

    def set_lecture(self, row: QtWidgets.QWidget | None, font: QtGui.QFont | None = None) -> None:
        """The lecture view: the sentence, the step buttons, ``row`` (auto-play) under them, the translation
        and the whole top-5 in ``font``; Reset, the beam width, the timeline, forcing and the beam list hidden.
        None: the area as it was (the row taken out, the application's font)."""
        lecture = row is not None
        layout = self.layout()
        assert isinstance(layout, QtWidgets.QVBoxLayout)
        if self.lecture_row is not None and self.lecture_row is not row:
            layout.removeWidget(self.lecture_row)
            self.lecture_row.hide()
            self.lecture_row.setParent(None)
        if row is not None and self.lecture_row is not row:
            layout.insertWidget(layout.indexOf(self.scrub), row)
            row.show()
        self.lecture_row = row
        for widget in (self.scrub, self.forcing, self.reset_button, self.beam_box):
            widget.setVisible(not lecture)
        self.beams.set_allowed(not lecture)
        self.setFont(font if font is not None else QtGui.QFont())

    def _fit_topk(self) -> None:
        """The top-k table shows its header and TOPK_ROWS rows (more text: taller rows, a taller table)."""
        table = self.topk
        rows = max(table.verticalHeader().defaultSectionSize(), QtGui.QFontMetrics(table.font()).height() + 6)
        header = table.horizontalHeader().sizeHint().height() if not table.horizontalHeader().isHidden() else 0
        table.setMaximumHeight(header + TOPK_ROWS * rows + 2 * table.frameWidth())

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.FontChange:
            self._fit_topk()
            if self._shown is not None:  # (the translation's size follows the text's: written again)
                self.show_step(*self._shown)

    def forget_forcing(self) -> None:
        """Empty *Force target words*: the words typed there were for the sentence (and model) on show, and
        no longer apply once the sentence changes, decoding starts again (Reset) or another model loads."""
        self.force_field.clear()

    def set_timeline(self, index: int, count: int, label: str = "") -> None:
        """Position ``index + 1`` of ``count`` recorded steps (0 = before the first), without echo;
        ``label`` names the step on show as the figures do."""
        self.timeline.blockSignals(True)
        self.timeline.setRange(0, count)
        self.timeline.setValue(index + 1)
        self.timeline.blockSignals(False)
        self.step_label.setText(label)

    def show_step(self, step: DecodeStep | None, has_source: bool, forced: tuple[int, ...] = (),
                  pieces: bool = False) -> None:
        """Draw ``step``'s output (forced: indices of the output tokens the user forced) and its top-k.
        pieces: the tokens are subword pieces: one that continues a word ("·s") is joined to the one before."""
        self._shown = (step, has_source, forced, pieces)
        if step is None:
            self.output.setText(f"<i>{tr('(press Step or F10)')}</i>" if has_source else "")
            self.topk.setRowCount(0)
            self.topk.set_hint(tr(self._words.first_step) if has_source else "")
            self.beams.clear()
            return
        self.topk.set_hint("")
        if len(step.beams) > 1:
            self.beams.setText(beams_html(step.beams))
        elif self.beams.text():
            self.beams.clear()  # (clearing an empty label would still re-lay out the area)
        joins = [pieces and len(t) > 1 and t.startswith(CONTINUES)  # a piece continuing the word before it
                 for t in step.output_tokens]
        words = [html.escape(t[len(CONTINUES):] if join else t) for t, join in zip(step.output_tokens, joins,
                                                                                  strict=True)]
        colour, note = FORCED_COLOUR.name(), html.escape(tr("forced"), quote=True)
        for index in forced:
            if index < len(words):
                words[index] = f"<u style='color:{colour}' title='{note}'>{words[index]}</u>"
        if step.focus is not None and 0 <= step.focus < len(words):  # the word a filled mask took
            words[step.focus] = f"<b>{words[step.focus]}</b>"
        elif words and not step.finished:
            words[-1] = f"<b>{words[-1]}</b>"
        tail = f" <span style='color:gray'>{html.escape(step.token)}</span>" if step.ended else ""
        # x-large: 1.5 × the widget's font, so that it grows with presentation mode; large (1.2 ×) once the text
        # is already large (presentation mode: the top-5 table below needs the lines)
        text = "".join(("" if join or i == 0 else " ") + word for i, (word, join) in enumerate(zip(words, joins,
                                                                                                  strict=True)))
        size = "large" if _text_scale(self) > 1.2 else "x-large"
        self.output.setText(f"<span style='font-size:{size}'>{text}{tail}</span>")
        self.topk.setRowCount(len(step.topk_tokens))
        for row, (token, prob) in enumerate(zip(step.topk_tokens, step.topk_probs, strict=True)):
            taken = token == step.token
            for col, text in ((0, token), (1, f"{prob:.3f}")):
                item = self.topk.item(row, col)
                if item is None:
                    item = QtWidgets.QTableWidgetItem(text)
                    self.topk.setItem(row, col, item)
                elif item.text() != text:
                    item.setText(text)
                if item.font().bold() != taken:  # the token this step took
                    font = item.font()
                    font.setBold(taken)
                    item.setFont(font)

    def topk_token(self, row: int) -> str | None:
        """The candidate token in row ``row`` of the top-k table."""
        item = self.topk.item(row, 0)
        return item.text() if item is not None else None
