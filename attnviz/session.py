"""The app's Qt-free controller: owns the loaded model, the device and the decoding in progress.

Work runs through a :class:`Runner` (a worker thread in the app, inline in tests). Each request is
tagged with a generation number; a result that arrives after a newer request was made is dropped.
The listener receives one frozen :class:`SessionState` (numpy arrays in plain dataclasses) after every
change, on the thread that ``Runner`` delivers to.
torch is imported by the first job (loading a model), never at import time: the window can appear
before torch has loaded.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

import numpy as np

from attnviz.core.computation import QueryComputation
from attnviz.core.kinds import AttentionKind
from attnviz.core.limits import MAX_BEAM
from attnviz.core.results import BatchDecoding, Comparison, DecodeStep, EncodedSource, KernelFit
from attnviz.figures.attention import AttentionView
from attnviz.figures.book import BookEntry, BookFigure
from attnviz.session_file import SavedKernel, SavedSession, replay

if TYPE_CHECKING:  # torch-backed modules are imported by the jobs, on the worker thread
    from attnviz.core.checkpoint import LoadedModel
    from attnviz.core.decoder import TranslationModel
    from attnviz.core.stepping import DecodeSession

log = logging.getLogger(__name__)
Result = TypeVar("Result")


class Runner(Protocol):
    background: bool  # jobs run beside the caller (a worker thread), not in the submit call

    def submit(self, job: Callable[[], Any], done: Callable[[Any], None],
               failed: Callable[[BaseException], None]) -> None: ...


class InlineRunner:
    """Runs every job at once on the calling thread (tests, CLI)."""

    background = False

    def submit(self, job: Callable[[], Any], done: Callable[[Any], None],
               failed: Callable[[BaseException], None]) -> None:
        try:
            result = job()
        except Exception as error:  # delivered to the listener as a message
            failed(error)
            return
        done(result)


def _delivering(job: Callable[[], Any], done: Callable[[Any], None], failed: Callable[[BaseException], None],
                post: Callable[[Callable[[], None]], None], closed: Callable[[], bool]) -> Callable[[], None]:
    """``job`` as a task for another thread: its result goes to ``done`` (its error to ``failed``) through
    ``post``, on the GUI thread, unless the runner has ``closed`` by the time it arrives."""

    def deliver(callback: Callable[[], None]) -> None:
        post(lambda: None if closed() else callback())

    def task() -> None:
        try:
            result = job()
        except Exception as error:
            caught = error
            deliver(lambda: failed(caught))
            return
        deliver(lambda: done(result))

    return task


class ThreadRunner:
    """Runs jobs one at a time on a worker thread; ``post`` hands callbacks back to the GUI thread.

    After :meth:`shutdown` new jobs are ignored, queued ones dropped and results still in flight are
    not delivered: the window they would update is gone. The worker is a daemon thread, so a job the
    user abandoned (closing the window mid-way) never holds the process open.
    """

    background = True

    def __init__(self, post: Callable[[Callable[[], None]], None]):
        self._post = post
        self._queue: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._closed = False
        self._files: FileRunner | None = None
        self._thread = threading.Thread(target=self._work, name="attnviz-worker", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while (task := self._queue.get()) is not None:
            if not self._closed:
                try:
                    task()
                except BaseException:  # (a job's own errors are delivered; this is anything beyond them)
                    log.exception("a background job ended abnormally")

    def submit(self, job: Callable[[], Any], done: Callable[[Any], None],
               failed: Callable[[BaseException], None]) -> None:
        if not self._closed:
            self._queue.put(_delivering(job, done, failed, self._post, lambda: self._closed))

    def shutdown(self, timeout: float = 2.0) -> bool:
        """Drop queued jobs and deliver nothing more; wait up to ``timeout`` s for the running job.
        Returns whether the worker has stopped (False: a job is still running; the process may exit)."""
        self._closed = True
        self._queue.put(None)
        self._thread.join(timeout)
        if self._files is not None:
            self._files.shutdown()
        return not self._thread.is_alive()

    def for_files(self) -> FileRunner:
        """A runner for file jobs that delivers as this one does (and stops with it)."""
        if self._files is None:
            self._files = FileRunner(self._post)
        return self._files


class FileRunner:
    """Runs each file job on a thread of its own, results handed back through ``post``.

    A write can wait for good (a hung network mount, a FIFO no one reads): on its own daemon thread it
    holds up neither the window nor the model's worker nor the next file job, and never the process's exit.
    """

    background = True

    def __init__(self, post: Callable[[Callable[[], None]], None]):
        self._post = post
        self._closed = False

    def submit(self, job: Callable[[], Any], done: Callable[[Any], None],
               failed: Callable[[BaseException], None]) -> None:
        if not self._closed:
            task = _delivering(job, done, failed, self._post, lambda: self._closed)
            threading.Thread(target=task, name="attnviz-file", daemon=True).start()

    def shutdown(self) -> None:
        """Deliver nothing more (a write still running finishes, or not, by itself)."""
        self._closed = True


@dataclass(frozen=True)
class ModelInfo:
    """What the views need to know about the loaded model."""

    kind: str
    family: str  # "translation" or "regression" (attnviz.core.kinds)
    path: Path
    device: str
    parameters: int
    training: dict[str, Any]
    attention: tuple[AttentionKind, ...] = ()  # what its decoding exposes
    scoring_formula: str = ""
    decoder_layers: int = 0
    heads: int = 0
    positional_table: np.ndarray | None = None  # (positions, width), Transformer only
    devices: tuple[str, ...] = ("cpu",)  # usable here, best first
    notice: str = ""  # e.g. the requested device was unavailable and another was used
    sha256: str = ""  # of the checkpoint file as it was loaded (saved sessions notice a changed file)


def _model_info(loaded: LoadedModel, device: str, notice: str) -> ModelInfo:
    from attnviz.core.device import available_devices
    from attnviz.core.positional import positional_encoding_table
    from attnviz.session_file import sha256_of

    c, kind = loaded.config, loaded.model_kind
    positions = kind.positions(c)  # its positional encoding's table, every position (none: 0)
    table = positional_encoding_table(positions, c.num_hiddens) if positions else None
    layers = heads = 0  # of the cross-attention (the Scoring panel's pickers), as the model says
    if kind.is_translation:
        cross = cast("TranslationModel", loaded.model).attention_modules(AttentionKind.CROSS)
        layers, heads = len(cross), int(getattr(cross[0], "num_heads", 1)) if cross else 0
    return ModelInfo(kind.name, kind.family, Path(loaded.path or ""), device,
                     sum(p.numel() for p in loaded.model.parameters()), dict(loaded.training), kind.attention,
                     kind.scoring_formula, layers, heads, table, tuple(available_devices()), notice,
                     sha256_of(loaded.path) if loaded.path else "")


@dataclass(frozen=True)
class SessionState:
    """Everything the views draw, published whole after every change (replaced, never mutated).

    text: the sentence asked for; source: its encoding once it has arrived (until then the previous
    sentence's, so the views do not flicker while one types); steps: the decoding steps recorded for
    ``source``; position: index of the step on show (-1: before the first); busy: what runs now
    ("" when idle); device, beam_size: the decoding options; kernel: the kernel-regression fit on show.
    """

    model: ModelInfo | None = None
    loading: str = ""  # file name of the checkpoint being loaded
    text: str = ""
    source: EncodedSource | None = None
    steps: tuple[DecodeStep, ...] = ()
    position: int = -1
    busy: str = ""
    device: str = "auto"
    beam_size: int = 1
    kernel: KernelFit | None = None
    batch: BatchDecoding | None = None  # sentences decoded together as one padded batch (the Batch panel)
    book: BookFigure | None = None  # the book figure asked for last (Help ▸ Book figures)
    computation: QueryComputation | None = None  # one query's chain, asked for with inspect_query
    comparison: Comparison | None = None  # a second model on the same sentence (compare_with)
    compared_with: str = ""  # the checkpoint compared with ("" when none)

    @property
    def step(self) -> DecodeStep | None:
        return self.steps[self.position] if 0 <= self.position < len(self.steps) else None

    @property
    def is_translation(self) -> bool:
        return self.model is not None and self.model.family == "translation"

    @property
    def shown_source(self) -> EncodedSource | None:
        """The encoding to draw: none once the sentence has been emptied."""
        return self.source if self.is_translation and self.text.strip() else None

    @property
    def finished(self) -> bool:
        return bool(self.steps) and self.steps[-1].finished and not self.stale

    @property
    def stale(self) -> bool:
        """The sentence changed since ``source`` was encoded (its new encoding is pending)."""
        return self.source is None or self.source.text != self.text

    @property
    def can_step(self) -> bool:
        """Step makes sense: a translation model, a sentence, and a step to decode or to re-show."""
        return self.is_translation and bool(self.text.strip()) and (
            self.stale or not self.finished or self.position + 1 < len(self.steps))

    @property
    def can_run(self) -> bool:
        return self.can_step

    @property
    def can_reset(self) -> bool:
        return self.is_translation and bool(self.text.strip())

    @property
    def can_back(self) -> bool:
        return self.position >= 0 and not self.stale

    @property
    def forced_steps(self) -> tuple[int, ...]:
        """Indices (into ``steps``) of the steps whose token the user forced."""
        return tuple(i for i, step in enumerate(self.steps) if step.forced)

    def translation(self) -> str:
        """The output of the step on show, as preprocessed text ("" before the first step)."""
        step = self.step
        return " ".join(step.output_tokens) if step is not None else ""


def _same(a: Any, b: Any) -> bool:
    """Identity for results (numpy inside: ``==`` would compare arrays), equality for plain values."""
    if a is b:
        return True
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))
    return isinstance(a, str | int | float | bool) and type(a) is type(b) and a == b


def changed(old: SessionState | None, new: SessionState, *names: str) -> bool:
    """Whether any of the fields or properties ``names`` differ between two states (always, from None)."""
    return old is None or any(not _same(getattr(old, name), getattr(new, name)) for name in names)


class SessionListener(Protocol):
    def state_changed(self, old: SessionState, new: SessionState) -> None: ...
    def error(self, message: str) -> None: ...


class Session:
    """Load a checkpoint, encode text, step the decoder, walk back through recorded steps.

    Requests come from the GUI thread; the work runs as jobs on the runner (one at a time, in
    order). Only jobs touch the DecodeSession. After every change the session publishes a new
    :class:`SessionState` to its listener. A result arrives only if no newer request has made it
    stale (generation numbers). Requests made while busy are queued, never dropped: a Step asked for
    while its sentence is being encoded (or before it is) runs as soon as the encoding arrives.
    """

    def __init__(self, listener: SessionListener, runner: Runner | None = None, *, device: str = "auto",
                 beam_size: int = 1):
        self.listener = listener
        self.runner: Runner = runner or InlineRunner()
        # File jobs (exports, saved sessions): off the GUI thread and off the model's worker, where they can wait
        self.files: Runner = self.runner.for_files() if isinstance(self.runner, ThreadRunner) else InlineRunner()
        self.loaded: LoadedModel | None = None
        self._state = SessionState(device=device or "auto", beam_size=max(1, int(beam_size)))
        self._decoding: DecodeSession | None = None  # of the current generation, once encoded
        self._generation = 0  # of encode/step requests; a load starts a new one too
        self._encoding = False  # the current generation's encode job is still running
        self._encoded_text: str | None = None  # the text of the latest encode request
        self._pending_steps = 0  # Steps asked for while encoding
        self._pending_to_end = False  # Run to end asked for while encoding (or with the sentence)
        self._pending_force: tuple[list[str | None], int, bool] | None = None  # _force's, once encoded
        self._load_generation = 0
        self._loading: Path | None = None  # the checkpoint being loaded now
        self._kernel_request: tuple[str, float, float] | None = None
        self._restoring: SavedSession | None = None  # a saved session waiting for its model or encoding
        self._query_request: tuple[AttentionKind, int, int, int] | None = None  # inspect_query's, not yet run
        self._query_busy = False
        self._other: LoadedModel | None = None  # the model compared with (compare_with)
        self._compare_requests = 0  # compare_with calls so far: a load that is no longer wanted is dropped
        self._compared_by: tuple[LoadedModel, Comparison] | None = None  # the last comparison and its model
        self._kernel_busy = False
        self.fallback: Path | None = None  # loaded instead of a refused checkpoint while no model is (start-up)
        self._view_requests: dict[str, tuple[str, Callable[[], Any], Callable[[Any], None]]] = {}  # compute_view's
        self._view_busy: set[str] = set()  # keys whose view job runs now
        self._jobs: dict[int, str] = {}  # jobs in flight: id -> what it does
        self._job_ids = 0

    @property
    def state(self) -> SessionState:
        return self._state

    def _publish(self, **changes: Any) -> None:
        old = self._state
        new = replace(old, **changes, busy=next(reversed(self._jobs.values()), ""))
        if changed(old, new, *(f.name for f in fields(SessionState))):
            self._state = new
            self.listener.state_changed(old, new)

    def file_job(self, what: str, job: Callable[[], Any], done: Callable[[Any], None],
                   failed: Callable[[BaseException], None]) -> None:
        """Run a file job (writing an export, a session) off the GUI thread: ``busy`` names it (the window's
        busy indicator) until its result comes back, on the thread results come to; then ``done`` or ``failed``
        handles it (after the indicator is gone, so that a message they show stays)."""

        def idle_then(callback: Callable[[Any], None]) -> Callable[[Any], None]:
            def handle(value: Any) -> None:
                self._publish()
                callback(value)

            return handle

        self._submit(what, job, idle_then(done), idle_then(failed), self.files)

    def _submit(self, what: str, job: Callable[[], Any], done: Callable[[Any], None],
                failed: Callable[[BaseException], None], runner: Runner | None = None) -> None:
        """Run ``job`` on the runner; ``busy`` names it until its result (or error) has been handled."""
        self._job_ids += 1
        job_id = self._job_ids
        self._jobs[job_id] = what
        self._publish()

        def finish(callback: Callable[[Any], None]) -> Callable[[Any], None]:
            def deliver(value: Any) -> None:
                self._jobs.pop(job_id, None)
                callback(value)
                self._publish()  # busy may have changed even if the result was dropped

            return deliver

        (runner or self.runner).submit(job, finish(done), finish(failed))

    # -- requests ---------------------------------------------------------------------------
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
        self._load_generation += 1
        gen = self._load_generation
        self._loading = path

        def job() -> tuple[LoadedModel, ModelInfo, KernelFit | None, str]:
            from attnviz.core.checkpoint import load_checkpoint
            from attnviz.core.device import DeviceUnavailableError, pick_device, set_threads
            from attnviz.core.kernel_regression import KernelRegressionModel, explain

            set_threads()  # one thread: a step of these small models gains little from more, and shares well
            name, notice = device_name, ""
            try:
                chosen = pick_device(name)
            except DeviceUnavailableError as error:
                if not fall_back:
                    raise
                name, chosen = "auto", pick_device("auto")
                notice = f"{error}. Using {chosen} instead."
            loaded = load_checkpoint(path, chosen)
            kernel = None if loaded.is_translation else explain(cast(KernelRegressionModel, loaded.model))
            return loaded, _model_info(loaded, str(chosen), notice), kernel, name

        def done(result: tuple[LoadedModel, ModelInfo, KernelFit | None, str]) -> None:
            if gen != self._load_generation:
                return
            self._loading = None
            self.loaded, info, kernel, device_used = result
            self._next_generation()  # results of the old model still in flight are dropped
            self._decoding, self._encoding, self._encoded_text = None, False, None
            self._kernel_request = None  # a fit asked for the old model is not run on this one
            self._publish(model=info, loading="", kernel=kernel, device=device_used, source=None, steps=(),
                          position=-1, batch=None, computation=None)
            restoring = self._restoring
            if restoring is not None and restoring.kernel is not None and not self.loaded.is_translation:
                self._restoring = None
                self.fit_kernel(restoring.kernel.kernel, restoring.kernel.bandwidth, restoring.kernel.query)
            if self.loaded.is_translation and self._state.text.strip():
                self.encode(run=self._pending_to_end)

        def failed(error: BaseException) -> None:
            if gen == self._load_generation:
                self._loading = None
                self._restoring = None
                self._publish(loading="")
                fallback = self.fallback
                if self.loaded is None and fallback is not None and path != fallback:  # never a window with no model
                    self.load(fallback, fall_back=True)  # (it loads while the message is read)
                    self._report(error, f" Opening the shipped model {fallback.name} instead.")
                    return
            self._report(error)

        self._publish(loading=path.name)
        self._submit(f"Loading {path.name}…", job, done, failed)

    def fit_kernel(self, kernel: str, bandwidth: float, query: float) -> None:
        """Recompute the kernel-regression view for a kernel, a bandwidth and a query point.

        While one fit runs, newer requests replace each other: a dragged query point costs one fit
        at a time, and the last position always gets drawn.
        """
        if self.loaded is None or self.loaded.model_kind.family != "regression":
            return
        self._kernel_request = (kernel, bandwidth, query)
        if not self._kernel_busy:
            self._fit_next_kernel()

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
                raise ValueError(f"there is no book figure {key!r}")
            return BookFigure(entry.book_entry, entry.build())

        def done(book: BookFigure) -> None:
            self._publish(book=book)

        self._submit("Drawing the book figure…", job, done, lambda error: self.listener.error(str(error)))

    def decode_together(self, texts: list[str]) -> None:
        """Greedy-decode ``texts`` as one padded batch; the result is published as ``state.batch``."""
        loaded = self.loaded
        texts = [text for text in texts if text.strip()]
        if loaded is None or not loaded.is_translation:
            self.listener.error("Load a translation model to decode a batch.")
            return
        if len(texts) < 2:
            self.listener.error("Give two or more sentences (one per line) to decode them as one batch.")
            return
        model = self._state.model

        def job() -> BatchDecoding:
            from attnviz.core.stepping import decode_together

            return decode_together(loaded, texts, loaded.device)

        def done(batch: BatchDecoding) -> None:
            if self._state.model is model:  # not for a model loaded since
                self._publish(batch=batch)

        self._submit("Decoding the batch…", job, done, lambda error: self.listener.error(str(error)))

    def encode(self, text: str | None = None, run: bool = False) -> None:
        """Encode ``text`` (default: the current text), dropping any decoding in progress; empty text
        clears the views. run: decode to the end once encoded (kept until a model is loaded, if none is yet)."""
        text = self._state.text if text is None else text
        if self._restoring is not None and text != self._restoring.sentence:
            self._restoring = None  # the user went on to another sentence: the saved steps are not for it
        gen = self._next_generation()
        self._decoding, self._pending_steps, self._pending_to_end = None, 0, run
        self._pending_force = None
        self._encoded_text = text
        loaded = self.loaded
        if loaded is None or not loaded.is_translation or not text.strip():
            self._encoding = False
            self._pending_to_end = run and loaded is None and bool(text.strip())
            self._publish(text=text, source=None, steps=(), position=-1)
            return
        self._encoding = True
        beam = self._state.beam_size

        def job() -> tuple[DecodeSession, EncodedSource]:
            from attnviz.core.stepping import DecodeSession

            decoding = DecodeSession(loaded, loaded.device, beam_size=beam)
            return decoding, decoding.encode(text)

        def done(result: tuple[DecodeSession, EncodedSource]) -> None:
            if gen != self._generation:
                return
            self._encoding = False
            self._decoding, source = result
            self._publish(source=source, steps=(), position=-1, computation=None, comparison=None)
            to_end, steps, force = self._pending_to_end, self._pending_steps, self._pending_force
            self._pending_to_end, self._pending_steps, self._pending_force = False, 0, None
            restoring, self._restoring = self._restoring, None
            if restoring is not None and restoring.sentence == source.text:
                self._replay(restoring)
            elif force is not None:
                self._force(*force)
            elif to_end or steps:
                self._decode(None if to_end else steps)

        def failed(error: BaseException) -> None:
            if gen == self._generation:
                self._encoding = False
            self._report(error)

        self._publish(text=text)
        self._submit("Encoding…", job, done, failed)

    def step(self) -> None:
        """Show the next recorded step, or decode a new one (encoding a changed sentence first)."""
        state = self._state
        if not state.stale and state.position + 1 < len(state.steps):
            self.show(state.position + 1)
            return
        self._decode(1)

    def run_to_end(self) -> None:
        """Decode to the end; when it is already decoded, show the last step."""
        if self._state.finished:
            self.show(len(self._state.steps) - 1)
        else:
            self._decode(None)

    def back(self) -> None:
        if self._state.can_back:
            self.show(self._state.position - 1)

    def reset(self) -> None:
        self.encode()

    def saved(self, view: AttentionView) -> SavedSession | None:
        """The state on show as a saved session (``view``: the Attention panel's), or None without a model."""
        state, model = self._state, self._state.model
        if model is None:
            return None
        kernel = None
        if state.kernel is not None:
            kernel = SavedKernel(state.kernel.kernel, state.kernel.bandwidth, state.kernel.query)
        plan = tuple(step.token if step.forced else None for step in state.steps) if not state.stale else ()
        return SavedSession(model.path, model.sha256, state.text if state.is_translation else "", state.beam_size,
                            plan, state.position if plan else -1, view, kernel)

    def restore(self, saved: SavedSession, checkpoint: Path) -> None:
        """Bring back a saved session: load ``checkpoint`` (unless it is the model on show), then decode the
        sentence step by step as saved, with the same forced tokens, and show the saved step."""
        self._publish(text=saved.sentence, beam_size=min(max(1, saved.beam_size), MAX_BEAM))
        self._restoring = saved
        model = self._state.model
        if model is None or model.path.resolve() != checkpoint.resolve() or (
                saved.checkpoint_sha256 and model.sha256 != saved.checkpoint_sha256):
            self.load(checkpoint)  # (its encoding follows the load; the saved steps follow the encoding)
        elif saved.kernel is not None and not self._state.is_translation:
            self._restoring = None
            self.fit_kernel(saved.kernel.kernel, saved.kernel.bandwidth, saved.kernel.query)
        elif saved.sentence.strip():
            self.encode()
        else:
            self._restoring = None
            self.encode()

    def inspect_query(self, kind: AttentionKind, layer: int, head: int, query_index: int) -> None:
        """Recompute one query of one head stage by stage (q, k_j, v_j, scores, mask, weights, output) from
        the model's own numbers, for the step on show; published as ``state.computation``. Requests made
        while one runs replace each other: the last one is always computed."""
        self._query_request = (kind, layer, head, query_index)
        if not self._query_busy:
            self._inspect_next_query()

    def _inspect_next_query(self) -> None:
        state, loaded, request = self._state, self.loaded, self._query_request
        self._query_request = None
        source = state.shown_source
        if request is None or loaded is None or source is None or state.stale:
            return
        step = state.step
        kind, layer, head, query_index = request
        queries = step.query_tokens if step is not None else ()
        if kind is AttentionKind.ENCODER_SELF:
            stack = source.encoder_weights
        else:
            stack = None if step is None else step.self_weights if kind is AttentionKind.DECODER_SELF \
                else step.cross_weights
        # A request made for an earlier state (the step scrubbed back, the model or view changed since)
        # that no longer fits what is on show is dropped: the panel asks again for what is on show.
        if stack is None or not (0 <= layer < stack.shape[0] and 0 <= head < stack.shape[1]
                                 and 0 <= query_index < stack.shape[2]):
            return
        self._query_busy = True
        gen = self._generation

        def job() -> QueryComputation:
            from attnviz.core.query_computation import compute_query

            return compute_query(loaded, source.tokens, queries, kind, layer, head, query_index,
                                 device=loaded.device)

        def finish() -> None:
            self._query_busy = False
            if self._query_request is not None:
                self._inspect_next_query()

        def done(computation: QueryComputation) -> None:
            if gen == self._generation and self._state.step is step:  # not for a step no longer on show
                self._publish(computation=computation)
            finish()

        def failed(error: BaseException) -> None:
            if gen == self._generation:
                self._report(error)
            finish()

        self._submit("Computing the query…", job, done, failed)

    def compute_view(self, key: str, what: str, job: Callable[[], Result], done: Callable[[Result], None]) -> None:
        """Run a view's numpy work (``job``: the rollout of a long sentence, the colours of every head) on the
        worker and hand its result to ``done`` on the listener's thread, so the window never waits for it.
        Requests for the same ``key`` made while one runs replace each other: only the latest is computed next,
        and a result is delivered only if no newer request for ``key`` was made since (latest request wins)."""
        self._view_requests[key] = (what, job, done)
        if key not in self._view_busy:
            self._compute_next_view(key)

    def _compute_next_view(self, key: str) -> None:
        request = self._view_requests.pop(key, None)
        if request is None:
            return
        what, job, done = request
        self._view_busy.add(key)

        def finish(result: Any) -> None:
            self._view_busy.discard(key)
            if key in self._view_requests:  # asked again meanwhile: that request's result is the one to show
                self._compute_next_view(key)
            else:
                done(result)

        def failed(error: BaseException) -> None:
            self._view_busy.discard(key)
            self._report(error)
            self._compute_next_view(key)

        self._submit(what, job, finish, failed)

    def compare_with(self, path: str | Path | None) -> None:
        """Load a second translation checkpoint and decode the sentence on show with it (None: stop
        comparing); published as ``state.comparison``. :meth:`compare` decodes again after a change."""
        self._compare_requests += 1
        request = self._compare_requests
        self._compared_by = None
        if path is None:
            self._other = None
            self._publish(comparison=None, compared_with="")
            return
        device = self.loaded.device if self.loaded is not None else "cpu"

        def job() -> LoadedModel:
            from attnviz.core.checkpoint import load_checkpoint

            other = load_checkpoint(Path(path), device)
            if not other.is_translation:
                raise ValueError(f"{Path(path).name} is a {other.kind} model: only translation models compare")
            return other

        def done(other: LoadedModel) -> None:
            if request != self._compare_requests:
                return  # another model (or none) was chosen since
            self._other = other
            self._publish(compared_with=str(path), comparison=None)  # (not the previous model's maps under its name)
            self.compare()

        # A refused model leaves the comparison on show as it was (the panel's chooser goes back to it).
        self._submit(f"Loading {Path(path).name}…", job, done, self._report)

    def compare(self) -> None:
        """Decode the sentence on show with the compared model: by itself, and forced to take this model's
        output so that both models' attention rows are the same queries."""
        other, state = self._other, self._state
        source = state.shown_source
        if other is None or source is None or state.stale:
            return
        last = state.steps[-1] if state.steps else None
        target = () if last is None else (*last.output_tokens, *(("<eos>",) if last.token == "<eos>" else ()))
        gen = self._generation
        kept = self._state.comparison  # its own translation depends only on the model and the sentence
        made_by = self._compared_by
        own_before = kept.own_translation if kept is not None and made_by is not None and made_by[0] is other \
            and made_by[1] is kept and kept.source.text == source.text else None

        def job() -> Comparison:
            from attnviz.core.stepping import DecodeSession

            decoding = DecodeSession(other, other.device)
            own = own_before
            if own is None:
                decoding.encode(source.text)
                own = decoding.run()[-1].output_tokens
            compared = decoding.encode(source.text)
            for token in target:
                if decoding.finished:  # its own length limit (max_tgt_len) is shorter than this output
                    break
                decoding.step(token if token in other.tgt_vocab else "<unk>")  # type: ignore[operator]
            return Comparison(other.path.stem if other.path else "", other.kind, compared, own, target,
                              tuple(decoding.steps))

        def done(comparison: Comparison) -> None:
            if gen == self._generation and self._other is other:
                self._compared_by = (other, comparison)
                self._publish(comparison=comparison)

        def failed(error: BaseException) -> None:
            if self._other is other:  # this model cannot be compared: stop comparing (the chooser follows)
                self._other, self._compared_by = None, None
                self._publish(comparison=None, compared_with="")
            self._report(error)

        self._submit("Comparing…", job, done, failed)

    def force(self, token: str) -> None:
        """Make the decoder take ``token`` at the step on show instead of its own choice (the first step
        before any is shown); the steps after it are dropped and decoding goes on from there (to the end
        when the translation on show was finished, so the user sees where the new branch leads).

        The step on show's top-k table is the distribution its hypothesis chose from; with beam search
        that hypothesis (the best after the step, maybe one that ended earlier) is replayed from the
        start, its tokens forced, so the forced token follows exactly the prefix on screen."""
        state = self._state
        if state.stale:
            return  # the table belongs to a sentence that is being replaced: a click there means nothing now
        step = state.step
        if step is None or state.beam_size == 1:
            self._force([token], max(state.position, 0), state.finished)
            return
        parent = list(step.beams[0].tokens[:-1]) if step.beams else list(step.output_tokens)
        self._force([*parent, token], 0, state.finished)

    def force_prefix(self, prefix: str) -> None:
        """Decode the sentence from the start taking the words of ``prefix`` (teacher forcing), then on to
        the end by the model's own choices: a whole reference translation shows the attention the model
        gives to it. Words the model cannot output (not in its target vocabulary) are refused with a message
        naming them and the nearest words it knows, and nothing changes: forcing <unk> silently would show
        attention to a word the user did not mean."""
        from attnviz.core.text import preprocess, refused_words_message, tokenize, untakeable_words

        tokens = tokenize(preprocess(prefix))
        if not tokens:
            self.listener.error("Type the target words to force (a translation or its beginning).")
            return
        vocabulary = self.loaded.tgt_vocab if self.loaded is not None else None
        if vocabulary is not None and (refused := untakeable_words(tokens, vocabulary)):
            self.listener.error(refused_words_message(refused, vocabulary))
            return
        self._force(list(tokens), 0, True)

    def _replay(self, saved: SavedSession) -> None:
        """Decode the saved steps on the sentence just encoded and show the saved step (:func:`replay`)."""
        decoding, gen = self._decoding, self._generation
        if decoding is None:
            return

        def job() -> tuple[list[DecodeStep], int]:
            shown = replay(saved, decoding)
            return list(decoding.steps), shown

        def done(result: tuple[list[DecodeStep], int]) -> None:
            if gen == self._generation:
                steps, shown = result
                self._publish(steps=tuple(steps), position=shown)

        self._submit("Decoding…", job, done, self._report)

    def _force(self, plan: list[str | None], keep: int, to_end: bool) -> None:
        """Keep the first ``keep`` steps, then decode one step per entry of ``plan`` (a token to force, or
        None: the model's own choice), then on to the end if ``to_end``; show the last step."""
        if not self._state.is_translation or not self._state.text.strip():
            return
        if self._encoded_text != self._state.text:
            self.encode()
            keep = 0
        decoding = self._decoding
        if decoding is None:  # the sentence is being encoded: decode once it has arrived
            self._pending_force = (plan, keep, to_end)
            return
        gen = self._generation

        def job() -> tuple[list[DecodeStep], int]:
            for token in plan:  # a token the model cannot take is refused before anything changes
                if token is not None:
                    decoding.target_id(token)
            decoding.rewind(keep)
            replayed = len(decoding.steps)
            for token in plan:
                if decoding.finished:
                    break
                decoding.step(token)
            while to_end and not decoding.finished:
                decoding.step()
            return list(decoding.steps), replayed

        def done(result: tuple[list[DecodeStep], int]) -> None:
            if gen != self._generation:
                return
            steps, replayed = result
            kept = self._state.steps[:replayed]  # the same numbers as the replayed steps: keep the objects
            self._publish(steps=(*kept, *steps[replayed:]), position=len(steps) - 1)

        self._submit("Decoding…", job, done, self._report)

    def prefetch(self) -> None:
        """Decode the next step in the background while nothing else runs, so that the next Step shows it
        without waiting for the model (the window asks once a step is on screen). Nothing is published:
        the steps on show do not change, and a Step, a forced token or a new sentence still act as always."""
        decoding, state = self._decoding, self._state
        if not self.runner.background:
            return  # (inline, it would only make this call slower)
        if decoding is None or self._jobs or state.stale or state.finished or state.position + 1 < len(state.steps):
            return

        def job() -> None:
            decoding.prefetch()

        self.runner.submit(job, lambda _: None, lambda error: log.warning("decoding ahead failed: %s", error))

    def show(self, index: int) -> None:
        """Show recorded step ``index`` (-1: before the first step)."""
        self._publish(position=max(-1, min(index, len(self._state.steps) - 1)))

    # -- internals --------------------------------------------------------------------------
    def _decode(self, count: int | None) -> None:
        """Decode ``count`` more steps (None: to the end) of the current sentence."""
        if self._encoded_text != self._state.text and self._state.is_translation:
            self.encode()  # typed since the last encoding: decode what the field says now
        decoding = self._decoding
        if decoding is None:
            if self._encoding or self.loaded is None:  # the sentence (or the model) is on its way
                if count is None:
                    self._pending_to_end = True
                else:
                    self._pending_steps += count
            return
        if self._state.finished:
            return
        gen = self._generation

        def job() -> list[DecodeStep]:
            new: list[DecodeStep] = []
            while not decoding.finished and (count is None or len(new) < count):
                new.append(decoding.step())
            return new

        def done(new: list[DecodeStep]) -> None:
            if gen != self._generation or not new:
                return
            steps = (*self._state.steps, *new)
            self._publish(steps=steps, position=len(steps) - 1)

        self._submit("Decoding…", job, done, self._report)

    def _fit_next_kernel(self) -> None:
        loaded, request = self.loaded, self._kernel_request
        if loaded is None or request is None or loaded.model_kind.family != "regression":
            return
        self._kernel_request, self._kernel_busy = None, True
        gen = self._load_generation
        kernel, bandwidth, query = request

        def job() -> KernelFit:
            from attnviz.core.kernel_regression import KernelRegressionModel, explain

            return explain(cast(KernelRegressionModel, loaded.model), kernel, bandwidth, query)

        def finish() -> None:
            self._kernel_busy = False
            if self._kernel_request is not None:
                self._fit_next_kernel()

        def done(fit: KernelFit) -> None:
            if gen == self._load_generation and self.loaded is loaded:
                self._publish(kernel=fit)
            finish()

        def failed(error: BaseException) -> None:
            if gen == self._load_generation and self.loaded is loaded:  # (not for a model replaced since)
                self._report(error)
            finish()

        self._submit("Fitting…", job, done, failed)

    def _next_generation(self) -> int:
        self._generation += 1
        return self._generation

    def _report(self, error: BaseException, then: str = "") -> None:
        """Tell the listener about ``error`` in one message (``then``: what happens next, appended)."""
        from attnviz.core.checkpoint import CheckpointError
        from attnviz.core.device import DeviceUnavailableError

        if isinstance(error, CheckpointError | DeviceUnavailableError | ValueError):
            message = str(error)
        else:
            log.exception("unexpected error", exc_info=error)
            message = f"Unexpected error: {type(error).__name__}: {error}"
        self.listener.error(f"{message.rstrip('.')}.{then}" if then else message)
