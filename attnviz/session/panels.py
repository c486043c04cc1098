"""What the side panels ask for: kernel-regression fits, one query's computation, a second model's
comparison, a batch decoding, the book's figures."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from attnviz.core.attention.computation import QueryComputation
from attnviz.core.attention.kind import AttentionKind
from attnviz.core.layout import Capability
from attnviz.core.results import BatchDecoding, Comparison, EncodedSource, KernelFit
from attnviz.figures.book import BookEntry, BookFigure
from attnviz.i18n import tr
from attnviz.session.base import SessionBase
from attnviz.session.latest import BATCH, BOOK, COMPARED_MODEL, KERNEL, LOAD, QUERY, SENTENCE, Ticket

if TYPE_CHECKING:  # torch-backed modules are imported by the jobs, on the worker thread
    from attnviz.core.models.loaded import LoadedModel


class PanelRequests(SessionBase):
    """The side panels' requests, each published as a field of the state (kernel, computation, comparison,
    batch, book)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._other: LoadedModel | None = None  # the model compared with (compare_with)
        self._compared_by: tuple[LoadedModel, Comparison] | None = None  # the last comparison and its model

    def fit_kernel(self, kernel: str, bandwidth: float, query: float) -> None:
        """Recompute the kernel-regression view for a kernel, a bandwidth and a query point.

        While one fit runs, newer requests replace each other: a dragged query point costs one fit
        at a time, and the last position always gets drawn.
        """
        if self.loaded is None or not self.loaded.offers(Capability.KERNEL):
            return
        self._latest.one_at_a_time(KERNEL, lambda _ticket: self._fit_kernel_now(kernel, bandwidth, query))

    def _fit_kernel_now(self, kernel: str, bandwidth: float, query: float) -> bool:
        """Start the fit, for the latest load: dropped if another model is asked for or loaded before it
        arrives. Returns whether it started (not for a model that is no kernel regression)."""
        loaded = self.loaded
        if loaded is None or not loaded.offers(Capability.KERNEL):
            return False
        ticket = self._latest.current(LOAD)

        def job() -> KernelFit:
            from attnviz.core.models.kernel_regression import KernelRegressionModel, explain

            return explain(cast(KernelRegressionModel, loaded.model), kernel, bandwidth, query)

        def done(fit: KernelFit) -> None:
            if self._latest.wins(ticket):
                self._publish(kernel=fit)

        def failed(error: BaseException) -> None:
            if self._latest.wins(ticket):  # (not for a model replaced since)
                self._report(error)

        self._submit(tr("Fitting…"), job, done, failed, one_of=KERNEL)
        return True

    def inspect_query(self, kind: AttentionKind, layer: int, head: int, query_index: int) -> None:
        """Recompute one query of one head stage by stage (q, k_j, v_j, scores, mask, weights, output) from
        the model's own numbers, for the step on show; published as ``state.computation``. Requests made
        while one runs replace each other: the last one is always computed."""
        self._latest.one_at_a_time(QUERY, lambda _ticket: self._inspect_query_now(kind, layer, head, query_index))

    def _inspect_query_now(self, kind: AttentionKind, layer: int, head: int, query_index: int) -> bool:
        """Start the computation for the step on show; returns whether it started."""
        state, loaded = self._state, self.loaded
        source = state.shown_source
        answered = self._family_query(loaded, source, layer, head, query_index) \
            if loaded is not None and source is not None else None
        if answered is not None:
            return answered
        if loaded is None or source is None or state.stale:
            return False
        step = state.step
        queries = step.query_tokens if step is not None else ()
        rows = source.tokens
        if kind is AttentionKind.ENCODER_SELF:  # (the layout says which sentence: an encoder-only model's step reads
            try:  # its own, the masks before it filled in)
                matrix = source.layout.stack(kind, source, step)
            except ValueError:
                return False
            stack: np.ndarray | None = matrix.values
            rows = matrix.rows
        else:
            stack = None if step is None else step.self_weights if kind is AttentionKind.DECODER_SELF \
                else step.cross_weights
        # A request made for an earlier state (the step scrubbed back, the model or view changed since)
        # that no longer fits what is on show is dropped: the panel asks again for what is on show.
        if stack is None or not (0 <= layer < stack.shape[0] and 0 <= head < stack.shape[1]
                                 and 0 <= query_index < stack.shape[2]):
            return False
        tokens, ids = source.tokens, source.ids
        if rows != source.tokens:
            tokens = rows
            ids = step.query_ids if step is not None and step.query_ids is not None else None
        segments = None if source.segments is None else [int(s) for s in source.segments]
        ticket = self._latest.current(SENTENCE)

        def job() -> QueryComputation:
            from attnviz.core.decoding.query_computation import compute_query

            return compute_query(loaded, tokens, queries, kind, layer, head, query_index,
                                 device=loaded.device, source_ids=ids, source_segments=segments)

        def done(computation: QueryComputation) -> None:
            if self._latest.wins(ticket) and self._state.step is step:  # not for a step no longer on show
                self._publish(computation=computation)

        def failed(error: BaseException) -> None:
            if self._latest.wins(ticket):
                self._report(error)

        self._submit(tr("Computing the query…"), job, done, failed, one_of=QUERY)
        return True

    def compare_with(self, path: str | Path | None) -> None:
        """Load a second translation checkpoint and decode the sentence on show with it (None: stop
        comparing); published as ``state.comparison``. :meth:`compare` decodes again after a change."""
        ticket = self._latest.ask(COMPARED_MODEL)
        self._compared_by = None
        if path is None:
            self._other = None
            self._publish(comparison=None, compared_image=None, compared_with="")
            return
        device = self.loaded.device if self.loaded is not None else "cpu"

        shown = self.loaded
        if shown is not None and self._family_compare_with(shown, Path(path), ticket):
            return

        def job() -> LoadedModel:
            from attnviz.core.checkpoints.checkpoint import load_checkpoint
            from attnviz.session.loading import refuse_other_tokenizer

            other = load_checkpoint(Path(path), device)
            if not other.offers(Capability.STEPS):
                raise ValueError(tr("{name} is a {kind} model: only translation models compare").format(
                    name=Path(path).name, kind=other.kind))
            if shown is not None and (shown.src_vocab is None or shown.tgt_vocab is None):  # (nothing it reads)
                raise ValueError(tr("Compare puts two translation models side by side: the model on show is a "
                                    "{kind} model; open a translation model first").format(kind=shown.kind))
            if shown is not None and other.layout.offers(Capability.DECODER) != shown.layout.offers(
                    Capability.DECODER):  # (a translation beside a filled sentence lines up nothing)
                raise ValueError(tr("{name} is a {kind} model and the model on show a {shown} model: Compare puts two "
                                    "models that translate, or two that fill masks, side by side").format(
                    name=Path(path).name, kind=other.kind, shown=shown.kind))
            if shown is not None:
                refuse_other_tokenizer(shown, other)
            return other

        def done(other: LoadedModel) -> None:
            if not self._latest.is_latest(ticket):
                return  # another model (or none) was chosen since
            self._other = other
            self._publish(compared_with=str(path), comparison=None)  # (not the previous model's maps under its name)
            self.compare()

        # A refused model leaves the comparison on show as it was (the panel's chooser goes back to it).
        self._submit(tr("Loading {name}…").format(name=Path(path).name), job, done, self._report)

    def compare(self) -> None:
        """Decode the sentence on show with the compared model: by itself, and forced to take this model's
        output so that both models' attention rows are the same queries (an image: read it with the compared
        model)."""
        other, state = self._other, self._state
        source = state.shown_source
        if other is None or source is None:
            return
        if self._family_compare(other, source):
            return
        if state.stale:
            return
        from attnviz.core.decoding.stepping import forced_comparison, output_with_end  # (torch: loaded with the models)

        target = output_with_end(state.steps[-1] if state.steps else None) if source.layout.offers(Capability.DECODER) \
            else tuple(step.token for step in state.steps)  # (an encoder-only model: the words it filled in)
        ticket = self._latest.current(SENTENCE)
        kept = self._state.comparison  # its own translation depends only on the model and the sentence
        made_by = self._compared_by
        own_before = kept.own_translation if kept is not None and made_by is not None and made_by[0] is other \
            and made_by[1] is kept and kept.source.text == source.text else None

        def job() -> Comparison:
            return forced_comparison(other, source.text, target, own_before)

        def done(comparison: Comparison) -> None:
            if self._latest.wins(ticket) and self._other is other:
                self._compared_by = (other, comparison)
                self._publish(comparison=comparison)

        def failed(error: BaseException) -> None:
            if self._other is other:  # this model cannot be compared: stop comparing (the chooser follows)
                self._other, self._compared_by = None, None
                self._publish(comparison=None, compared_with="")
            self._report(error)

        self._submit(tr("Comparing…"), job, done, failed)

    # -- what a family's own requests answer instead (session/images.py overrides them) --------------------
    def _family_query(self, loaded: LoadedModel, source: EncodedSource, layer: int, head: int,
                      query_index: int) -> bool | None:
        """One query of a source its family computes itself: whether it started, or None for the others."""
        return None

    def _family_compare_with(self, shown: LoadedModel, path: Path, ticket: Ticket) -> bool:
        """A second model for a model on show whose family compares its own way: True when it took the request."""
        return False

    def _family_compare(self, other: LoadedModel, source: EncodedSource) -> bool:
        """The comparison of ``source`` when its family (or ``other``'s) compares its own way: True when it did."""
        return False

    def decode_together(self, texts: list[str]) -> None:
        """Greedy-decode ``texts`` as one padded batch; the result is published as ``state.batch``."""
        loaded = self.loaded
        texts = [text for text in texts if text.strip()]
        if loaded is None or not loaded.offers(Capability.DECODER):
            self.listener.error(tr("Load a translation model to decode a batch."))
            return
        if len(texts) < 2:
            self.listener.error(tr("Give two or more sentences (one per line) to decode them as one batch."))
            return
        ticket = self._latest.ask(BATCH)

        def job() -> BatchDecoding:
            from attnviz.core.decoding.stepping import decode_together

            return decode_together(loaded, texts, loaded.device)

        def done(batch: BatchDecoding) -> None:
            if self._latest.wins(ticket):  # not for a model loaded since, nor a batch asked for before another
                self._publish(batch=batch)

        self._submit(tr("Decoding the batch…"), job, done, lambda error: self.listener.error(str(error)))

    def book_entries(self) -> list[BookEntry]:
        """The book's figures, in the book's order (names only: nothing is computed)."""
        from attnviz.gallery import GALLERY

        return [entry.book_entry for entry in GALLERY]

    def show_book_figure(self, key: str) -> None:
        """Compute the book figure ``key`` on the worker; it is published as ``state.book``."""

        def job() -> BookFigure:
            from attnviz.gallery import entries

            entry = next((e for e in entries() if e.key == key), None)
            if entry is None:
                raise ValueError(tr("there is no book figure {key!r}").format(key=key))
            return BookFigure(entry.book_entry, entry.build())

        ticket = self._latest.ask(BOOK)

        def done(book: BookFigure) -> None:
            if self._latest.is_latest(ticket):  # (another figure asked for since: that one is shown)
                self._publish(book=book)

        self._submit(tr("Drawing the book figure…"), job, done, lambda error: self.listener.error(str(error)))
