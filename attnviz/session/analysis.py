"""Requests beyond one sentence: the head atlas over a corpus (the Heads dock), switching heads off, and one step
explained by every method (the Explain dock).

The atlas and the pruning curve take minutes over a large corpus: they run on a thread of their own (a file
runner's), on a copy of the model, so that stepping goes on meanwhile and the copy's gates never touch the
decoding on show. Progress comes back as ``state.atlas_progress``; :meth:`AnalysisRequests.cancel_atlas` stops
the job between two batches. Switching heads off gates the model on show itself, on the model's worker, and
decodes the sentence again. An explanation is computed on the model's worker for the step on show; one asked
for an older step is dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attnviz.core.layout import Capability
from attnviz.core.results import EncodedSource
from attnviz.i18n import tr
from attnviz.session.base import SessionBase, copy_without
from attnviz.session.latest import SENTENCE
from attnviz.session.runners import ThreadRunner

if TYPE_CHECKING:  # torch-backed: imported by the jobs, on their threads
    from attnviz.core.explain import Explanation
    from attnviz.core.heads import HeadAtlas, PruningCurve
    from attnviz.core.models.loaded import LoadedModel

EXPLAIN = "explain"  # explain_step, one at a time
ATLAS_BATCH_PROGRESS = "atlas"


class AnalysisRequests(SessionBase):
    """The Heads and Explain docks' requests (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._atlas_cancel: threading.Event | None = None  # set: the running atlas job stops at its next batch
        self._atlas_corpus: Any = None  # the Corpus the atlas on show was computed over (the pruning curve reuses it)
        self._gates: Any = None  # the HeadGates on the model on show while heads are off (made on the worker)

    # -- the head atlas -------------------------------------------------------------------------------
    def compute_atlas(self, corpus_path: str | Path | None = None, sentences: Sequence[str] = (),
                      beam_size: int = 1, documents: bool = False) -> None:
        """The atlas of the model on show over the file ``corpus_path`` (source lines, or source<TAB>reference) or
        over ``sentences``; published as ``state.atlas``. A running atlas job is cancelled first. ``documents``:
        ``corpus_path`` holds one document a line, read by a Hugging Face language model in one forward pass each
        (no decoding). Either atlas has its sinks by the query's position (``KindAtlas.sinks``)."""
        loaded = self.loaded
        if documents:
            self._compute_document_atlas(loaded, corpus_path)
            return
        if loaded is not None and self._family_atlas(loaded, corpus_path):
            return
        if loaded is None or not loaded.offers(Capability.DECODER):
            self.listener.error(tr("Load a translation model to map its heads over a corpus."))
            return
        if corpus_path is None and not [s for s in sentences if s.strip()]:
            self.listener.error(tr("There are no sentences yet: decode a few, or choose a file of sentences."))
            return
        texts = [s for s in sentences if s.strip()]
        hidden = self._hooks_on_show()

        def work(progress: Callable[[int, int], bool]) -> tuple[HeadAtlas, Any]:
            from attnviz.core.heads import compute_atlas, corpus_of, read_corpus

            corpus = read_corpus(corpus_path) if corpus_path is not None else corpus_of(texts, None)
            twin = _twin(loaded, hidden)
            return compute_atlas(twin, corpus, None, twin.device, progress, beam_size=beam_size), corpus

        def done(result: tuple[HeadAtlas, Any]) -> None:
            atlas, self._atlas_corpus = result
            self._publish(atlas=atlas, pruning=None)

        self._run_atlas_job(tr("Mapping the heads…"), work, done)

    def _compute_document_atlas(self, loaded: LoadedModel | None, path: str | Path | None) -> None:
        """The atlas and the sinks of a Hugging Face language model over the documents of ``path``, on a copy of the
        model (:func:`attnviz.core.hf.documents.document_atlas`); published as ``state.atlas`` (its kind's sinks
        in ``KindAtlas.sinks``)."""
        model = self._state.model
        if loaded is None or model is None or not model.documents:
            self.listener.error(tr("Load a Hugging Face language model (decoder-only or encoder-only) to map its "
                                   "heads over documents."))
            return
        if path is None:
            self.listener.error(tr("Choose a file of documents, one a line."))
            return
        hidden = self._hooks_on_show()

        def work(progress: Callable[[int, int], bool]) -> Any:
            from attnviz.core.hf.documents import document_atlas, read_documents

            twin = _twin(loaded, hidden)
            return document_atlas(twin, read_documents(path, twin), twin.device, progress)

        def done(result: Any) -> None:
            if self.loaded is loaded:
                self._atlas_corpus = None  # (no references: no pruning curve)
                self._publish(atlas=result.atlas, pruning=None)

        self._run_atlas_job(tr("Mapping the heads over documents…"), work, done)

    def compute_pruning(self, seeds: int = 3) -> None:
        """The pruning curve over the atlas's corpus (it needs references); published as ``state.pruning``."""
        loaded, atlas, corpus = self.loaded, self._state.atlas, self._atlas_corpus
        if atlas is not None and atlas.over_documents:
            self.listener.error(tr("Documents are read, not translated: their heads have no importance to prune by. "
                                   "Map the heads over a file of source<TAB>reference lines for a pruning curve."))
            return
        if loaded is None or atlas is None or corpus is None:
            self.listener.error(tr("Map the heads over a corpus first: the pruning curve follows their importance."))
            return
        if getattr(corpus, "references", None) is None:
            self.listener.error(tr("The pruning curve needs reference translations: choose a file of "
                                   "source<TAB>reference lines."))
            return

        hidden = self._hooks_on_show()

        def work(progress: Callable[[int, int], bool]) -> PruningCurve:
            from attnviz.core.heads import pruning_curve

            twin = _twin(loaded, hidden)
            return pruning_curve(twin, corpus, atlas, twin.device, progress, seeds=seeds)

        self._run_atlas_job(tr("Pruning heads…"), work, self._pruned)

    def _pruned(self, curve: PruningCurve) -> None:
        self._publish(pruning=curve)

    def cancel_atlas(self) -> None:
        """Stop the running atlas or pruning job at its next batch (nothing it computed is shown)."""
        if self._atlas_cancel is not None:
            self._atlas_cancel.set()

    def _run_atlas_job(self, what: str, work: Callable[[Callable[[int, int], bool]], Any],
                       done: Callable[[Any], None]) -> None:
        self.cancel_atlas()
        cancel = self._atlas_cancel = threading.Event()
        ticket = self._latest.ask(ATLAS_BATCH_PROGRESS)
        post = self.runner.post if isinstance(self.runner, ThreadRunner) else (lambda callback: callback())

        def show(count: int, total: int) -> None:
            if self._latest.wins(ticket) and self._atlas_cancel is cancel:
                self._publish(atlas_progress=(what, count, total))

        def progress(count: int, total: int) -> bool:
            post(lambda: show(count, total))
            return not cancel.is_set()

        def finished(result: Any) -> None:
            if self._latest.wins(ticket):
                self._atlas_cancel = None
                self._publish(atlas_progress=None)
                done(result)

        def failed(error: BaseException) -> None:
            from attnviz.core.heads import HeadsCancelled

            if self._latest.wins(ticket):
                self._atlas_cancel = None
                self._publish(atlas_progress=None)
                if not isinstance(error, HeadsCancelled):
                    self._report(error)

        self._publish(atlas_progress=(what, 0, 0))
        self.files.submit(lambda: work(progress), finished, failed)

    # -- heads off ------------------------------------------------------------------------------------
    def switch_heads_off(self, heads: str, decode_again: bool = True) -> None:
        """Decode the sentence on show again with ``heads`` switched off (``"cross:2.1,enc-self:1.3"``; "" switches
        every head back on): their outputs are zeroed before the output projection. The model's name in every
        title says which heads are off (``ModelInfo.heads_off``). decode_again False: a saved session's own encoding
        follows (it replays its steps)."""
        loaded, info = self.loaded, self._state.model
        if loaded is None or info is None:
            return
        state = self._state
        steps, finished = len(state.steps), state.finished
        device = loaded.device

        def job() -> str:
            from attnviz.core.heads import HeadGates, HeadMask

            gates = self._gates
            if not heads.strip():
                if gates is not None:
                    gates.remove()
                self._gates = None
                return ""
            if gates is None:
                gates = HeadGates(loaded.model)
            try:
                mask = HeadMask.parse(heads, gates.layout)
                gates.set_mask(mask, device)
            except BaseException:
                if self._gates is None:
                    gates.remove()
                raise
            self._gates = gates
            return str(mask)

        def done(shown: str) -> None:
            if self.loaded is not loaded or self._state.model is None:
                return
            self._publish(model=replace(self._state.model, heads_off=shown))
            if decode_again and self._state.text.strip() and loaded.offers(Capability.STEPS):
                session: Any = self  # (a Session: its decoding requests)
                session.encode(run=finished)
                for _ in range(0 if finished else steps):
                    session.step()

        self._submit(tr("Switching heads off…") if heads.strip() else tr("Switching every head on…"), job, done,
                     self._report)

    def _hooks_on_show(self) -> tuple[Any, ...]:
        gates = self._gates
        return (*super()._hooks_on_show(), *(gates.handles if gates is not None else ()))

    def forget_gates(self) -> None:
        """A new model is on show: the old one's gates go with it."""
        self._gates = None
        self._atlas_corpus = None
        self.cancel_atlas()

    # -- explanations ---------------------------------------------------------------------------------
    def explain(self, layer: int | None, head: int | None, ig_steps: int, methods: Sequence[str] | None = None,
                token: str | None = None) -> None:
        """Explain the step on show (its token, or ``token``, from the source and the target before it) by every
        method — or, for an image model, the image on show's predicted class (or the class ``token``) over its
        patches; published as ``state.explanation``. Requests made while one runs replace each other."""
        self._latest.one_at_a_time(EXPLAIN, lambda _ticket: self._explain_now(layer, head, ig_steps, methods, token))

    def _explain_now(self, layer: int | None, head: int | None, ig_steps: int,
                     methods: Sequence[str] | None, token: str | None) -> bool:
        state, loaded = self._state, self.loaded
        source, step = state.shown_source, state.step
        answered = self._family_explain(loaded, source, layer, head, ig_steps, methods, token) \
            if loaded is not None and source is not None else None
        if answered is not None:
            return answered
        if loaded is None or source is None or step is None or state.stale:
            return False
        ticket = self._latest.current(SENTENCE)
        prefix = tuple(step.query_tokens[1:])
        word = token or step.token

        translates = loaded.offers(Capability.DECODER)

        def job() -> Explanation:
            from attnviz.core.explain import METHODS, explain_mask, explain_step

            if not translates:  # (an encoder-only model: the mask this step filled, in the sentence it read)
                return explain_mask(loaded, step.query_tokens, step.focus or 0, loaded.device, methods or METHODS,
                                    layer, head, ig_steps, token=word)
            return explain_step(loaded, source.tokens, prefix, loaded.device, methods or METHODS, layer, head,
                                ig_steps, token=word)

        def done(explanation: Explanation) -> None:
            if self._latest.wins(ticket) and self._state.step is step:  # not for a step no longer on show
                self._publish(explanation=explanation)

        def failed(error: BaseException) -> None:
            if self._latest.wins(ticket):
                self._report(error)

        self._submit(tr("Explaining the step…"), job, done, failed, one_of=EXPLAIN)
        return True

    # -- what a family's own requests answer instead (session/images.py overrides them) --------------------
    def _family_atlas(self, loaded: LoadedModel, corpus_path: str | Path | None) -> bool:
        """The atlas of a model whose family maps its heads over its own kind of corpus: True when it started it."""
        return False

    def _family_explain(self, loaded: LoadedModel, source: EncodedSource, layer: int | None, head: int | None,
                        ig_steps: int, methods: Sequence[str] | None, token: str | None) -> bool | None:
        """An explanation of a source its family explains itself: whether it started, or None for the others."""
        return None


def _twin(loaded: LoadedModel, hidden: tuple[Any, ...]) -> LoadedModel:
    """A copy of ``loaded`` with weights of its own and without the hooks of ``hidden`` (the model on show's head
    gates and patched heads, :meth:`SessionBase._hooks_on_show`): the atlas gates the copy, while the model on show
    goes on decoding, maybe with heads off or patched."""
    return replace(loaded, model=copy_without(loaded.model, hidden))
