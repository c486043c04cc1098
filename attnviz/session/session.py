"""The app's Qt-free controller: owns the loaded model, the device and the decoding in progress.

Work runs through a :class:`~attnviz.session.runners.Runner` (a worker thread in the app, inline in tests).
Each request takes a ticket from one "latest request wins" channel (:mod:`attnviz.session.latest`); a result
that arrives after a newer request for its purpose, or another model, has made its ticket stale is dropped.
The listener receives one frozen :class:`~attnviz.session.state.SessionState` after every change, on the
thread that the runner delivers to. torch is imported by the first job (loading a model), never at import
time: the window can appear before torch has loaded.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from attnviz.core.layout import Capability
from attnviz.core.limits import MAX_BEAM
from attnviz.core.results import KernelFit
from attnviz.figures.attention import AttentionView
from attnviz.i18n import tr
from attnviz.session.analysis import AnalysisRequests
from attnviz.session.decoding import DecodingRequests
from attnviz.session.images import ImageRequests
from attnviz.session.latest import LOAD
from attnviz.session.loading import load_model
from attnviz.session.panels import PanelRequests
from attnviz.session.patching import PatchingRequests
from attnviz.session.runners import ThreadRunner
from attnviz.session.state import ModelInfo
from attnviz.session.training import TrainingRun, TrainRequest
from attnviz.session_file import SavedKernel, SavedSession

if TYPE_CHECKING:
    from attnviz.core.learning.history import TrainingHistory
    from attnviz.core.models.loaded import LoadedModel


class Session(PatchingRequests, DecodingRequests, ImageRequests, PanelRequests, AnalysisRequests):
    """Load a checkpoint, encode text, step the decoder, walk back through recorded steps; the side panels'
    requests (:class:`PanelRequests`); save and restore what is on show.

    Requests come from the GUI thread; the work runs as jobs on the runner (one at a time, in order).
    After every change the session publishes a new state to its listener. A result arrives only if no
    newer request has made it stale (its ticket still wins: :class:`~attnviz.session.latest.Latest`).
    """

    def load(self, path: str | Path, device: str | None = None, fall_back: bool = False) -> None:
        """Load a checkpoint on ``device`` (default: the current choice); keeps the old model on error.

        fall_back: if that device is unavailable, use the best available one and say so in
        ``ModelInfo.notice`` (at start-up) instead of refusing (a user's explicit choice).
        """
        try:
            path = Path(path).expanduser()
        except RuntimeError:  # "~someone" who does not exist: the loader will say there is no such file
            path = Path(path)
        path = Path(os.path.abspath(path))  # absolute (Recent files); a symlink loop is
        # left to the loader, which says so, instead of raising here on the GUI thread
        device_name = device or self._state.device
        ticket = self._latest.ask(LOAD)
        self._loading = path

        def job() -> tuple[LoadedModel, ModelInfo, KernelFit | None, str]:
            return load_model(path, device_name, fall_back)

        def done(result: tuple[LoadedModel, ModelInfo, KernelFit | None, str]) -> None:
            if not self._latest.wins(ticket):
                return
            self._loading = None
            self.loaded, info, kernel, device_used = result
            self._latest.model_loaded()  # results for the old model still in flight are dropped
            self._decoding, self._encoding, self._encoded_text = None, False, None
            self.forget_gates()
            self.forget_patching()
            self._publish(model=info, loading="", kernel=kernel, device=device_used, source=None, steps=(),
                          position=-1, batch=None, computation=None, atlas=None, pruning=None,
                          atlas_progress=None,
                          image_atlas=None, compared_image=None,
                          explanation=None, patching=None, patching_progress=None, pair_maps=None)
            restoring = self._restoring
            if restoring is not None and restoring.kernel is not None and self.loaded.offers(Capability.KERNEL):
                self._restoring = None
                self.fit_kernel(restoring.kernel.kernel, restoring.kernel.bandwidth, restoring.kernel.query)
            if restoring is not None and restoring.heads_off:
                self.switch_heads_off(restoring.heads_off, decode_again=False)  # (on the worker, before the encoding)
            if self.loaded.offers(Capability.STEPS) and self._state.text.strip():
                self.encode(run=self._pending_to_end)
            if self.first_image(restoring):  # (an image model: its first image, the saved view)
                self._restoring = None

        def failed(error: BaseException) -> None:
            if self._latest.wins(ticket):
                self._loading = None
                self._restoring = None
                self._publish(loading="")
                fallback = self.fallback
                if self.loaded is None and fallback is not None and path != fallback:  # never a window with no model
                    self.load(fallback, fall_back=True)  # (it loads while the message is read)
                    self._report(error, tr("Opening the shipped model {name} instead.").format(name=fallback.name))
                    return
            self._report(error)

        from attnviz.core.hf.folder import model_name  # (a cache snapshot's folder is a hash: its model's name)

        shown = model_name(path)
        self._publish(loading=shown)
        self._submit(tr("Loading {name}…").format(name=shown), job, done, failed)

    def prepare_hugging_face(self) -> None:
        """Import transformers on the worker (2–3 s, once per run) while the user picks a model folder, so that
        the folder then opens in about a second. Nothing is said if it cannot: opening the folder says why."""
        def job() -> None:
            import importlib

            importlib.import_module("transformers")

        self._submit(tr("Getting ready to open Hugging Face models…"), job, lambda _: None, lambda _error: None)

    def train(self, request: TrainRequest, on_snapshot: Callable[[TrainingHistory], None],
              on_done: Callable[[Path, TrainingHistory], None], on_failed: Callable[[str], None]) -> TrainingRun:
        """A training run (:mod:`attnviz.session.training`), not started yet: its ``start`` trains on a thread of
        its own, its snapshots and end delivered as this session's results are (with an InlineRunner: to its end
        within ``start``)."""
        runner = self.runner
        if isinstance(runner, ThreadRunner):
            return TrainingRun(request, runner.post, on_snapshot, on_done, on_failed, lambda: runner.closed)
        return TrainingRun(request, lambda callback: callback(), on_snapshot, on_done, on_failed, inline=True)

    def set_device(self, device: str) -> None:
        """Move the current model to another device (reloads it from its file)."""
        path = self._loading or (self.loaded.path if self.loaded is not None else None)
        if path is not None:
            self.load(path, device)
        else:
            self._publish(device=device)

    def set_beam_size(self, beam_size: int) -> None:
        self._publish(beam_size=min(max(1, int(beam_size)), MAX_BEAM))
        if self._state.text.strip():
            self.encode()

    def set_text(self, text: str) -> None:
        """The sentence as typed so far; it is encoded by :meth:`encode` (or by the next Step)."""
        self._publish(text=text)

    def set_view(self, view: AttentionView) -> None:
        """The Attention panel's options (kind, layer, head, scores, masked cells, all heads): published as
        ``state.view``, fitted to the source on show (a layer the model has, …)."""
        self._publish(view=view)

    def saved(self) -> SavedSession | None:
        """The state on show, its view options included, as a saved session, or None without a model."""
        state, model = self._state, self._state.model
        if model is None:
            return None
        kernel = None
        if state.kernel is not None:
            kernel = SavedKernel(state.kernel.kernel, state.kernel.bandwidth, state.kernel.query)
        plan = tuple(step.token if step.forced else None for step in state.steps) if not state.stale else ()
        image = self.image_file_of(state.shown_source)  # (an image model's image on show)
        return SavedSession(model.path, model.sha256, state.text if state.reads_sentence else "", state.beam_size,
                            plan, state.position if plan else -1, state.view, kernel, heads_off=model.heads_off,
                            image=str(image.resolve()) if image is not None else "")

    def restore(self, saved: SavedSession, checkpoint: Path) -> None:
        """Bring back a saved session: load ``checkpoint`` (unless it is the model on show), then decode the
        sentence step by step as saved, with the same forced tokens, and show the saved step."""
        self._publish(text=saved.sentence, beam_size=min(max(1, saved.beam_size), MAX_BEAM))
        self._restoring = saved
        self.image_to_restore(saved)
        model = self._state.model
        if model is None or model.path.resolve() != checkpoint.resolve() or (
                saved.checkpoint_sha256 and model.sha256 != saved.checkpoint_sha256):
            self.load(checkpoint)  # (its encoding follows the load; the saved steps follow the encoding)
        elif self.first_image(saved):
            self._restoring = None
        elif saved.kernel is not None and not self._state.reads_sentence:
            self._restoring = None
            self.fit_kernel(saved.kernel.kernel, saved.kernel.bandwidth, saved.kernel.query)
        elif saved.sentence.strip():
            if model.heads_off != saved.heads_off:
                self.switch_heads_off(saved.heads_off, decode_again=False)  # (on the worker, before the encoding)
            self.encode()
        else:
            self._restoring = None
            self.encode()
