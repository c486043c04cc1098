"""Help ▸ Book figures ▸ Show live: put the window into exactly the state a book figure shows — its
model, its dock, its sentence greedy-decoded to the last step, the attention kind, layer and head (or
all heads), the computed query, the model compared with, the kernel, bandwidth and query point — whatever the
window showed before."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6 import QtCore, QtWidgets

from attnviz.core.attention.kind import AttentionKind
from attnviz.figures.attention import AttentionView, stack_for
from attnviz.figures.book import Live
from attnviz.gui.panels.kernel import HEATMAP_MODELS
from attnviz.paths import MODELS_DIR, SAMPLE_IMAGES
from attnviz.session import Session, SessionState

if TYPE_CHECKING:
    from attnviz.gui.docks import Docks


class LiveWindow(Protocol):
    """What a live view asks of the window: its session, docks (None before they are built) and beam box, to load
    a checkpoint and decode a sentence, and to come to the front."""

    @property
    def session(self) -> Session: ...

    @property
    def panels(self) -> Docks | None: ...

    @property
    def beam_box(self) -> QtWidgets.QSpinBox: ...

    def load(self, path: str | Path, fall_back: bool = False) -> None: ...

    def set_sentence(self, text: str, run: bool = False) -> None: ...

    def raise_(self) -> None: ...

    def activateWindow(self) -> None: ...


class LiveView:
    """Carries one :class:`Live` request through the window: load its model (if another is loaded), then
    raise its dock and set the kernel fit, or decode its sentence, then choose its attention view."""

    def __init__(self, window: LiveWindow):
        self.window = window
        self.pending: Live | None = None  # a request not yet fully applied
        self._decoding = False  # its sentence is being decoded: the view follows once it has been
        self._source_before: object | None = None  # the encoding on show when the sentence was asked for

    def show(self, live: Live) -> None:
        self.pending, self._decoding = live, False
        state = self.window.session.state
        path = MODELS_DIR / live.checkpoint
        if state.model is None or state.loading or state.model.path.resolve() != path.resolve():
            self.window.load(path)  # continued in state_changed once it has loaded
        else:
            QtCore.QTimer.singleShot(0, self._start)

    def state_changed(self, old: SessionState, new: SessionState) -> None:
        """The window's state hook: continue (or abandon) the request on show."""
        live = self.pending
        if live is None:
            return
        if new.model is not old.model and new.model is not None:
            if new.model.path.name == live.checkpoint and not self._decoding:
                QtCore.QTimer.singleShot(0, self._start)
            else:  # the user loaded another model meanwhile
                self.pending = None
            return
        if self._decoding and new.text != live.sentence:  # the user typed another sentence meanwhile
            self.pending, self._decoding = None, False
        elif self._decoding and self._decoded(new, live):
            self._finish(new, live)

    def _start(self) -> None:
        live, window = self.pending, self.window
        state = window.session.state
        if live is None or window.panels is None or state.model is None or state.model.path.name != live.checkpoint:
            return
        dock = window.panels.docks.get(live.dock)
        if dock is not None:
            dock.show()
            dock.raise_()
        if live.kernel:
            kernel_panel = window.panels.panels["kernel"]
            model = HEATMAP_MODELS[1] if live.parametric else HEATMAP_MODELS[0]
            # by index: the combo box shows its items in the interface's language
            kernel_panel.heatmap_model.setCurrentIndex(HEATMAP_MODELS.index(model))  # type: ignore[attr-defined]
            window.session.fit_kernel(live.kernel, live.bandwidth, live.query_x)
            self.pending = None
        elif live.image:  # an image model: the figure's sample opened, its dock on show
            window.session.open_image(SAMPLE_IMAGES / live.image)
            self.pending = None
        elif live.sentence:
            if window.beam_box.value() != 1:
                window.beam_box.setValue(1)  # the book's figures are greedy decodings
            self._source_before, self._decoding = state.shown_source, True
            window.set_sentence(live.sentence, run=True)
        else:
            self.pending = None
        window.raise_()
        window.activateWindow()

    def _decoded(self, state: SessionState, live: Live) -> bool:
        """``state`` shows the request's sentence, newly encoded, decoded to its last step."""
        source = state.shown_source
        return (not state.busy and source is not None and source is not self._source_before
                and source.text == live.sentence and state.finished and state.position == len(state.steps) - 1)

    def _finish(self, state: SessionState, live: Live) -> None:
        self.pending, self._decoding = None, False
        window, source = self.window, state.shown_source
        if live.compare_with:
            window.session.compare_with(MODELS_DIR / live.compare_with)
        if not live.kind or window.panels is None or source is None:
            return
        kind = AttentionKind(live.kind)
        stack = stack_for(kind, source, state.step)[0]  # (L, H, Q, K)
        layer = live.layer % stack.shape[0]
        window.panels.ensure_current("attention")
        window.panels.attention.set_view(AttentionView(kind, layer, live.head, scores=False, show_masked=True,
                                                all_heads=live.all_heads))
        if live.dock == "computation":
            window.panels.ensure_current("computation")
            computation = window.panels.panels["computation"]
            computation.inspect(kind, layer, live.head, live.query % stack.shape[2])  # type: ignore[attr-defined]
