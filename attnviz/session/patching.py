"""The Head atlas dock's Patching tab: every head patched over minimal pairs, one pair's maps on both sides, and heads
patched into the decoding on show (:mod:`attnviz.core.patching`).

Patching a corpus of pairs takes a while: it runs on a thread of its own (a file runner's), on a copy of the model
without the heads switched off or patched on the model on show, so that stepping goes on meanwhile. Progress comes
back as ``state.patching_progress``; :meth:`PatchingRequests.cancel_patching` stops the job between two pairs and
nothing it computed is shown. The copy is kept for the maps of the pairs it patched (``state.pair_maps``).

Patching heads *live* (:meth:`PatchingRequests.patch_heads`) wraps the model on show's decoder interface
(:class:`~attnviz.core.patching.live.PatchedTranslator`, on the model's worker): the sentence decoded is the chosen
pair's corrupt side, and the patched heads' outputs come from a run on its clean side fed the same target tokens. The
model's name in every title says which heads are patched (``ModelInfo.heads_patched``). Encoding any other sentence
ends the patching (its heads come from a run on a sentence of their own).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from attnviz.core.layout import Capability
from attnviz.i18n import tr
from attnviz.session.base import SessionBase, copy_without
from attnviz.session.runners import ThreadRunner

if TYPE_CHECKING:  # torch-backed: imported by the jobs, on their threads
    from attnviz.core.models.loaded import LoadedModel
    from attnviz.core.patching.live import PatchedTranslator
    from attnviz.core.patching.pairs import MinimalPair

PATCHING_PROGRESS = "patching"
PAIR_MAPS = "pair maps"
DEFAULT_PAIRS = 40  # the Patching tab's pair count at first: a few seconds on the shipped Transformer


class PatchingRequests(SessionBase):
    """The Patching tab's requests (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._patching_cancel: threading.Event | None = None  # set: the running patching job stops at its next pair
        self._patched_copy: LoadedModel | None = None  # the copy the patching on show ran on (its pairs' maps)
        self._live: PatchedTranslator | None = None  # the model on show's wrapper while heads are patched (worker's)
        self._live_pair: MinimalPair | None = None  # the pair the patched heads come from (GUI thread's)

    # -- a run over pairs -----------------------------------------------------------------------------
    def compute_patching(self, task: str | None = None, count: int = DEFAULT_PAIRS,
                         pairs_path: str | Path | None = None) -> None:
        """Patch every head of the model on show over the first ``count`` pairs of the generated ``task`` (gender,
        agreement, number, ioi), or over the pairs of the file ``pairs_path``; published as ``state.patching``, and
        the maps of the pair whose corrupt side is the sentence on show (else the first pair's) as ``state.pair_maps``.
        A running patching job is cancelled first; a bad file is one message naming its line."""
        loaded, model = self.loaded, self._state.model
        if loaded is None or model is None or not model.patchable:
            self.listener.error(tr("Load a model that reads sentences (attnviz's Transformer or decoder-only model, a "
                                   "Hugging Face folder) to patch its heads."))
            return
        if pairs_path is None and task not in model.patching_tasks:
            self.listener.error(tr("Choose a file of pairs: no generated task applies to this model."))
            return
        hidden = self._hooks_on_show()
        source = Path(pairs_path).name if pairs_path is not None else str(task)

        def work(progress: Callable[[int, int], bool]) -> tuple[Any, LoadedModel]:
            from attnviz.core.patching.corpus import patch_corpus
            from attnviz.core.patching.pairs import read_pairs
            from attnviz.core.patching.statistics import PatchingResult, summarise
            from attnviz.core.patching.tasks import task_pairs

            twin = replace(loaded, model=copy_without(loaded.model, hidden))
            pairs = read_pairs(pairs_path) if pairs_path is not None else task_pairs(str(task), twin)[: max(1, count)]
            run = patch_corpus(twin, pairs, twin.device, progress)
            if not run.results:
                from attnviz.core.patching.pairs import PairsError

                raise PairsError(run.skipped[0][1] if run.skipped else tr("no pair could be patched"))
            summary = summarise(list(run.results), run.layout)
            return PatchingResult(summary, run.layout, run.pairs, len(run.skipped), source, model.base_name), twin

        def done(result: tuple[Any, LoadedModel]) -> None:
            if self.loaded is loaded:
                patched, self._patched_copy = result
                self._publish(patching=patched, pair_maps=None)
                self.show_pair_maps(next((i for i, pair in enumerate(patched.pairs)
                                          if pair.corrupt == self._state.text), 0))

        self._run_patching_job(tr("Patching heads…"), work, done)

    def cancel_patching(self) -> None:
        """Stop the running patching job at its next pair (nothing it computed is shown)."""
        if self._patching_cancel is not None:
            self._patching_cancel.set()

    def _run_patching_job(self, what: str, work: Callable[[Callable[[int, int], bool]], Any],
                          done: Callable[[Any], None]) -> None:
        self.cancel_patching()
        cancel = self._patching_cancel = threading.Event()
        ticket = self._latest.ask(PATCHING_PROGRESS)
        post = self.runner.post if isinstance(self.runner, ThreadRunner) else (lambda callback: callback())

        def show(count: int, total: int) -> None:
            if self._latest.wins(ticket) and self._patching_cancel is cancel:
                self._publish(patching_progress=(what, count, total))

        def progress(count: int, total: int) -> bool:
            post(lambda: show(count, total))
            return not cancel.is_set()

        def finished(result: Any) -> None:
            if self._latest.wins(ticket):
                self._patching_cancel = None
                self._publish(patching_progress=None)
                done(result)

        def failed(error: BaseException) -> None:
            from attnviz.core.patching.corpus import PatchingCancelled

            if self._latest.wins(ticket):
                self._patching_cancel = None
                self._publish(patching_progress=None)
                if not isinstance(error, PatchingCancelled):
                    self._report(error)

        self._publish(patching_progress=(what, 0, 0))
        self.files.submit(lambda: work(progress), finished, failed)

    def _hooks_on_show(self) -> tuple[Any, ...]:
        live = self._live
        return (*super()._hooks_on_show(), *(live.handles if live is not None else ()))

    # -- one pair's maps ------------------------------------------------------------------------------
    def show_pair_maps(self, index: int) -> None:
        """Every head's map on both sides of pair ``index`` of the patching on show; published as
        ``state.pair_maps``."""
        result, twin = self._state.patching, self._patched_copy
        if result is None or twin is None or not 0 <= index < len(result.pairs):
            return
        pair = result.pairs[index]
        ticket = self._latest.ask(PAIR_MAPS)

        def job() -> Any:
            from attnviz.core.patching.maps import pair_maps

            return pair_maps(twin, pair, twin.device)

        def done(maps: Any) -> None:
            if self._latest.wins(ticket) and self._state.patching is result:
                self._publish(pair_maps=maps)

        self._submit(tr("Reading the pair's maps…"), job, done, self._report)

    # -- heads patched into the decoding on show ------------------------------------------------------
    def patch_heads(self, heads: str, pair: MinimalPair | None = None, decode_again: bool = True) -> None:
        """Decode ``pair``'s corrupt side with ``heads`` (``"cross:3.1,cross:3.4"``) patched from its clean side
        (the module docstring); "" patches none again. The caller puts the corrupt side in the sentence field when it
        is not there yet (decode_again False: its encoding follows), else it is decoded again here, to the step on
        show."""
        loaded, info = self.loaded, self._state.model
        if loaded is None or info is None:
            return
        if heads.strip() and (pair is None or not loaded.offers(Capability.STEPS)
                              or not loaded.offers(Capability.DECODER)):
            self.listener.error(tr("Heads are patched into a decoding: load a model that decodes a sentence."))
            return
        self._live_pair = pair if heads.strip() else None
        state = self._state
        steps, finished = len(state.steps), state.finished

        def job() -> str:
            from attnviz.core.heads.gates import head_layout
            from attnviz.core.heads.mask import HeadMask
            from attnviz.core.patching.live import PatchedTranslator

            if self._live is not None:
                self._live.remove()
                self._live = None
            if not heads.strip() or pair is None:
                return ""
            mask = HeadMask.parse(heads, head_layout(loaded.model))
            self._live = PatchedTranslator(loaded, mask.heads, pair.clean, pair.corrupt)
            return str(mask)

        def done(shown: str) -> None:
            if self.loaded is not loaded or self._state.model is None:
                return
            self._publish(model=replace(self._state.model, heads_patched=shown))
            if decode_again and self._state.text.strip():
                session: Any = self  # (a Session: its decoding requests)
                session.encode(run=finished)
                for _ in range(0 if finished else steps):
                    session.step()

        def failed(error: BaseException) -> None:
            self._live_pair = None
            if self._state.model is not None and self._state.model.heads_patched:
                self._publish(model=replace(self._state.model, heads_patched=""))
            self._report(error)

        self._submit(tr("Patching heads into the decoding…") if heads.strip() else tr("Patching no head…"), job,
                     done, failed)

    @property
    def live_pair(self) -> MinimalPair | None:
        """The pair whose clean side the patched heads come from (None: none patched)."""
        return self._live_pair

    def encode(self, text: str | None = None, run: bool = False) -> None:
        """As :meth:`DecodingRequests.encode`; a sentence other than the patched pair's corrupt side ends the
        patching first (its heads would come from a run on another sentence)."""
        sentence = self._state.text if text is None else text
        if self._live_pair is not None and sentence != self._live_pair.corrupt:
            self.patch_heads("", decode_again=False)
        super().encode(text, run)  # type: ignore[misc]

    def _decoded_model(self, loaded: LoadedModel) -> LoadedModel:
        """(On the worker.) The model a new decoding steps: the model on show, wrapped while heads are patched."""
        return loaded if self._live is None else replace(loaded, model=cast(Any, self._live))

    def forget_patching(self) -> None:
        """A new model is on show: the old one's patching, its copy and its patched heads go with it."""
        self.cancel_patching()
        self._patched_copy, self._live, self._live_pair = None, None, None
