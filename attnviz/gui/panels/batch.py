"""Batch panel: several sentences decoded together, padded to the longest as training pads them.

Shows the batch's padding mask (one row per sentence) and, for the sentence chosen, its attention
over all the batch's key positions: the <pad> keys beyond its valid length get weight exactly 0 (grey
when masked cells are marked), which is d2l's masked softmax at work. Each sentence's numbers equal
those of decoding it alone.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.layout import ENCODER_DECODER, SequenceLayout
from attnviz.core.results import BatchDecoding
from attnviz.figures.attention import matrix_figure, select, shown_index
from attnviz.figures.panels import batch_padding_figure
from attnviz.figures.spec import empty_figure
from attnviz.gui.heatmap import Heatmap
from attnviz.i18n import N_, tr
from attnviz.session import Session, SessionState, changed

SHOWN_KINDS = (AttentionKind.CROSS, AttentionKind.ENCODER_SELF)  # what a row of a batch can show
FIRST_LINES = "i think we should go home before it rains .\ni'm home ."
NO_BATCH = N_("Decode two or more sentences together to see padding at work.")


class BatchPanel(QtWidgets.QWidget):
    def __init__(self, session: Session | None = None, parent=None):
        super().__init__(parent)
        self.session = session
        self.batch: BatchDecoding | None = None
        self.model_name = ""
        self.sentences = QtWidgets.QPlainTextEdit(FIRST_LINES)
        self.sentences.setToolTip(tr("Two or more sentences, one per line, of different lengths"))
        self.sentences.setMaximumHeight(70)
        self.decode_button = QtWidgets.QPushButton(tr("Decode as one batch"))
        self.decode_button.setToolTip(tr("Pad the sentences to the longest and decode them together (greedy)"))
        self.row_box = QtWidgets.QSpinBox()
        self.row_box.setPrefix(tr("sentence "))
        self.row_box.setRange(1, 1)
        self.kind_box = QtWidgets.QComboBox()
        self._fill_kinds(ENCODER_DECODER)
        self.kind_box.setToolTip(tr("Which attention of the chosen sentence to show"))
        self.padding = Heatmap(colour_bar=False)
        self.attention = Heatmap()
        self.caption = QtWidgets.QLabel(tr(NO_BATCH))
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        choose = QtWidgets.QVBoxLayout()  # one above the other: the dock stays narrow enough for 1024 px
        choose.addWidget(self.row_box)
        choose.addWidget(self.kind_box)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(QtWidgets.QLabel(tr("Sentences (one per line)")))
        layout.addWidget(self.sentences)
        layout.addWidget(self.decode_button)
        layout.addWidget(self.padding, 1)
        layout.addLayout(choose)
        layout.addWidget(self.attention, 2)
        layout.addWidget(self.caption)
        self.decode_button.clicked.connect(self._on_decode_clicked)
        self.row_box.valueChanged.connect(self._draw_row)
        self.kind_box.currentIndexChanged.connect(self._draw_row)

    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        if changed(old, new, "model"):
            self.model_name = new.model.name if new.model is not None else ""
            has_encoder = new.model is not None and AttentionKind.ENCODER_SELF in new.model.attention
            self.kind_box.setVisible(has_encoder)
            self._fill_kinds(new.model.layout if new.model is not None else ENCODER_DECODER)
        if changed(old, new, "batch", "model"):
            self.batch = new.batch
            if new.batch is None:  # (another model was loaded): nothing of the old batch stays on show
                self.padding.show_figure(empty_figure(tr("Padding mask of a batch")))
                self.attention.show_figure(empty_figure(tr("Decode a batch to see its attention")))
                self.caption.setText(tr(NO_BATCH))
                self.row_box.setRange(1, 1)
                return
            self.padding.show_figure(batch_padding_figure(new.batch))
            self.row_box.blockSignals(True)
            self.row_box.setRange(1, len(new.batch.sources))
            lengths = new.batch.valid_lens
            self.row_box.setValue(lengths.index(min(lengths)) + 1)  # the shortest: the most padding
            self.row_box.blockSignals(False)
            self._draw_row()

    def _draw_row(self, *_args) -> None:
        batch = self.batch
        if batch is None:
            return
        row = self.row_box.value() - 1
        source, step = batch.sources[row], batch.steps[row]
        kind = AttentionKind(self.kind_box.currentData()) if self.kind_box.isVisible() else AttentionKind.CROSS
        layers = step.cross_weights.shape[0]
        view = select(kind, layers - 1, 0, source, step)
        title = tr("{model} · sentence {number}").format(model=self.model_name, number=row + 1)
        self.attention.show_figure(matrix_figure(view, title, shown_index(step), show_masked=True))
        valid, width = batch.valid_lens[row], len(source.tokens)
        if valid < width:
            padded = [i + 1 for i, real in enumerate(source.padding_mask) if not real]
            if source.layout.pads_left:
                note = tr("Valid length {valid} of {width}: keys {first}–{last} are <pad> (a decoder-only model pads "
                          "on the left: every answer starts in the same column), masked before the softmax (weight "
                          "exactly 0, grey). Same numbers as decoding it alone.")
            else:
                note = tr("Valid length {valid} of {width}: keys {first}–{last} are <pad>, masked before the softmax "
                          "(weight exactly 0, grey). Same numbers as decoding it alone.")
            note = note.format(valid=valid, width=width, first=padded[0], last=padded[-1])
        else:
            note = tr("The longest ({width} tokens): no padding. Choose a shorter sentence to see masked keys.").format(
                width=width)
        self.caption.setText(f"→ {' '.join(step.output_tokens)}\n{note}")

    def _fill_kinds(self, layout: SequenceLayout) -> None:
        """Offer the kinds a row can show, named as the model's layout calls them."""
        current = self.kind_box.currentData()
        self.kind_box.blockSignals(True)
        self.kind_box.clear()
        for kind in SHOWN_KINDS:
            self.kind_box.addItem(layout.kind_label(kind), kind.value)
        self.kind_box.setCurrentIndex(max(0, self.kind_box.findData(current)))
        self.kind_box.blockSignals(False)

    def _on_decode_clicked(self) -> None:
        if self.session is not None:
            self.session.decode_together(self.sentences.toPlainText().splitlines())
