"""Explain panel: does attention explain the step on show? One row per method over the source tokens — raw
attention (the layer and head chosen, or the heads' mean), rollout, attention flow, norm-based attention,
gradient × input, integrated gradients (Captum) and occlusion — each scaled to its largest magnitude, and the
rank agreement (Kendall τ or Spearman ρ) of every pair of methods.

The numbers are computed on the session's worker (``Session.explain``) when the step on show changes and the
panel is on show; a result for a step no longer on show is dropped. An encoder-only model's step is the mask it
filled: its rows run over the whole sentence. An image model's image on show is explained by its predicted class
(or another of its top classes): [CLS]'s attention, rollout, gradient × input, integrated gradients and occlusion,
each drawn over the image on the patch grid (:func:`attnviz.figures.explain.image_rows_figure`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtWidgets

from attnviz.core.limits import MAX_IG_STEPS
from attnviz.figures.spec import AnyFigure, empty_figure
from attnviz.gui.heatmap import Heatmap
from attnviz.gui.numbered import set_numbered
from attnviz.gui.panels.family_views import views_of
from attnviz.gui.panels.image import FigureCanvas
from attnviz.gui.wrap_row import WrapRow
from attnviz.i18n import N_, tr
from attnviz.session import Session, SessionState, changed

if TYPE_CHECKING:
    from attnviz.core.explain import Explanation

# each method's name in the dock's narrow rows (the figures' legends and exports name them in full)
SHORT = {"attention": N_("raw"), "rollout": N_("rollout"), "flow": N_("flow"), "norm": N_("norm"),
         "grad_x_input": N_("grad × input"), "ig": N_("IG"), "occlusion": N_("occlusion"),
         "leave_one_out": N_("leave out")}
EXPLAIN_DELAY_MS = 150  # the explanation follows the step once stepping pauses (integrated gradients: ~0.1 s)
MEAN = -1  # the head box's "heads' mean"
TOKEN_BOX_CHARS = 14  # the word box shows this many characters at least ("“<eos>” (chosen)" whole)


class ExplainPanel(QtWidgets.QWidget):
    """Layer, head and integrated-gradients steps; the methods' rows; their agreement (see the module)."""

    def __init__(self, session: Session | None = None, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.state = SessionState()
        self.layer_box = QtWidgets.QSpinBox()
        set_numbered(self.layer_box, tr("layer {n}"))
        self.layer_box.setRange(1, 1)
        self.layer_box.setToolTip(tr("The layer of the raw and norm-based attention rows (rollout and flow run up "
                                     "to it)"))
        self.head_box = QtWidgets.QComboBox()
        self.head_box.setToolTip(tr("The head of the raw and norm-based attention rows, or the heads' mean"))
        self.ig_steps = QtWidgets.QSpinBox()
        self.ig_steps.setRange(4, MAX_IG_STEPS)
        self.ig_steps.setValue(32)
        set_numbered(self.ig_steps, tr("{n} IG steps"))
        self.ig_steps.setToolTip(tr("Integrated gradients: the steps of the path from the <pad> baseline to the "
                                    "sentence (more: closer to complete, slower)"))
        self.token_box = QtWidgets.QComboBox()
        self.token_box.setToolTip(tr("The word to explain: the one the step chose, or another of its candidates"))
        # a long word: the dock stays as narrow as the others, yet "“<eos>” (chosen)" and "heads' mean" show whole
        # (the controls wrap onto another line first)
        self.token_box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.token_box.setMinimumContentsLength(TOKEN_BOX_CHARS)
        self.head_box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.rank_box = QtWidgets.QComboBox()
        self.rank_box.addItem(tr("Kendall τ"), "kendall")
        self.rank_box.addItem(tr("Spearman ρ"), "spearman")
        self.rows = Heatmap()
        self.rows.title_lines = 4  # model · step, then "What explains …": whole in a dock a third of 1024 px wide
        self.rows.set_hint(tr("Step the decoder: each method says which source words the new word came from"))
        self.overlays = FigureCanvas(reflow=True)  # an image's rows, one overlay per method over the picture
        self.overlays.setCursor(QtCore.Qt.CursorShape.ArrowCursor)
        self.shown_rows = QtWidgets.QStackedWidget()
        self.shown_rows.addWidget(self.rows)
        self.shown_rows.addWidget(self.overlays)
        self.agreement = Heatmap()
        self.summary = QtWidgets.QLabel(" ")
        self.summary.setWordWrap(True)
        controls = WrapRow((self.token_box, self.layer_box, self.head_box, self.ig_steps, self.rank_box), max_lines=5,
                           stretch=1)
        maps = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        maps.addWidget(self.shown_rows)
        maps.addWidget(self.agreement)
        maps.setStretchFactor(0, 3)
        maps.setStretchFactor(1, 2)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(controls)
        layout.addWidget(maps, 1)
        layout.addWidget(self.summary)
        self.timer = QtCore.QTimer(self, singleShot=True, interval=EXPLAIN_DELAY_MS)
        self.timer.timeout.connect(self._request)
        for box in (self.layer_box, self.ig_steps):
            box.valueChanged.connect(self._on_choice_changed)
        self.head_box.currentIndexChanged.connect(self._on_choice_changed)
        self.token_box.currentIndexChanged.connect(self._on_choice_changed)
        self.rank_box.currentIndexChanged.connect(self._draw)

    def show_state(self, old: SessionState | None, new: SessionState) -> None:
        self.state = new
        image = self._image_on_show()
        self.shown_rows.setCurrentWidget(self.overlays if image else self.rows)
        if changed(old, new, "model") or (image and changed(old, new, "shown_source")):
            self._fit_choices()
        if changed(old, new, "model", "shown_source", "step"):
            if image:
                source = new.shown_source
                assert source is not None
                self.overlays.show_figure(None, tr("Explaining the image's class…"))
                self.agreement.show_figure(empty_figure(""))
                self.summary.setText(" ")
                if source.classes:  # (its top classes: the predicted one first)
                    self._fit_tokens(source.classes[0], source.classes[1:])
                self.timer.start()
            elif new.model is not None and not new.model.explains:
                self.rows.show_figure(empty_figure(tr("The explanations cover attnviz's own models, not this one")))
                self.agreement.show_figure(empty_figure(""))
                self.summary.setText(" ")
            elif new.step is None:
                self.rows.show_figure(empty_figure(tr("Step the decoder: each method says which source words the "
                                                      "new word came from")))
                self.agreement.show_figure(empty_figure(""))
                self.summary.setText(" ")
            else:
                self._fit_tokens(new.step.token, new.step.topk_tokens)
                self.timer.start()
        if changed(old, new, "explanation"):
            self._draw()

    def explain(self) -> None:
        """Explain the step on show now (the timer's request; tests)."""
        self._request()

    def figure(self) -> AnyFigure | None:
        """The methods' rows on show (what Export writes: PNG, SVG, PDF, CSV): over the source tokens, or for an
        image one overlay per method."""
        if self._image_on_show():
            return self.overlays.figure
        return self.rows.spec if self.rows.spec.values.size else None

    def _image_on_show(self) -> bool:
        model = self.state.model
        return model is not None and views_of(model.layout).input_on_show(self.state) is not None

    # -- drawing --------------------------------------------------------------------------------------
    def _fit_choices(self) -> None:
        model = self.state.model
        layers = max(1, model.decoder_layers if model is not None else 1)
        heads = model.heads if model is not None else 0
        source = self.state.shown_source
        if self._image_on_show() and source is not None and source.encoder_weights is not None:
            layers, heads = source.encoder_weights.shape[:2]  # (an image model: its maps say; the same every image)
            if (self.layer_box.maximum(), self.head_box.count()) == (layers, 1 + (heads if heads > 1 else 0)):
                return  # (the same model's next image: the layer and head chosen stay)
        for widget in (self.layer_box, self.head_box):
            widget.blockSignals(True)
        self.layer_box.setRange(1, layers)
        self.layer_box.setValue(layers)  # (the last layer: what the model's prediction reads)
        self.head_box.clear()
        self.head_box.addItem(tr("heads' mean"), MEAN)
        for head in range(heads if heads > 1 else 0):
            self.head_box.addItem(tr("head {n}").format(n=head + 1), head)
        for widget in (self.layer_box, self.head_box):
            widget.blockSignals(False)

    def _fit_tokens(self, chosen: str, candidates: tuple[str, ...]) -> None:
        """Offer the step's own word (an image's predicted class) first, then its other candidates."""
        self.token_box.blockSignals(True)
        self.token_box.clear()
        for token in dict.fromkeys((chosen, *candidates)):
            label = tr("“{token}” (chosen)").format(token=token) if token == chosen else f"“{token}”"
            self.token_box.addItem(label, token)
        self.token_box.blockSignals(False)

    def _draw(self) -> None:
        explanation = self.state.explanation
        if explanation is None:
            return
        from attnviz.figures.explain import agreement_figure

        short = tuple(tr(SHORT[m]) if m in SHORT else m for m in explanation.methods)
        source, model = self.state.shown_source, self.state.model
        grid = views_of(model.layout).explain_figure(explanation, self.state) if model is not None else None
        if grid is not None and source is not None:  # (the family's own input: an image's overlays)
            title = f"{model.name if model is not None else ''} · {source.text} · {grid.title}"
            panels = tuple(replace(panel, title=name) for panel, name in zip(grid.panels, short, strict=True))
            self.overlays.show_figure(replace(grid, title=title, panels=panels))
        else:
            self._draw_rows(explanation, short)
        agreement = agreement_figure(explanation, spearman=self.rank_box.currentData() == "spearman")
        self.agreement.show_figure(replace(agreement, row_labels=short, col_labels=short))
        self.summary.setText(_summary(explanation))

    def _draw_rows(self, explanation: Explanation, short: tuple[str, ...]) -> None:
        from attnviz.figures.explain import step_figure

        rows = step_figure(explanation)
        step = self.state.step
        if step is not None and self.state.model is not None:
            rows = replace(rows, title=f"{self.state.model.name} · {tr('step {n}').format(n=step.index + 1)} · "
                                       f"{rows.title}")
        self.rows.show_figure(replace(rows, row_labels=short))

    # -- handlers -------------------------------------------------------------------------------------
    def _request(self) -> None:
        model = self.state.model
        if self.session is None or model is None or not model.explains or (
                self.state.step is None and not self._image_on_show()):
            return
        head = self.head_box.currentData()
        self.session.explain(self.layer_box.value() - 1, None if head in (None, MEAN) else int(head),
                             self.ig_steps.value(), token=self.token_box.currentData())

    def _on_choice_changed(self, *_args: object) -> None:
        if self.state.step is not None or self._image_on_show():
            self.timer.start()


def _summary(explanation: Explanation) -> str:
    """The token and its log-probability; integrated gradients' completeness."""
    text = tr("“{token}”: log p = {log_prob:.3f}.").format(token=explanation.token, log_prob=explanation.log_prob)
    check = explanation.completeness
    if check is not None:
        text += " " + tr("Integrated gradients: the attributions sum to {total:.3f}, f(x) − f(baseline) = "
                         "{difference:.3f} ({ratio:.1%}).").format(total=check.attribution_sum,
                                                                   difference=check.difference, ratio=check.ratio)
    return text
