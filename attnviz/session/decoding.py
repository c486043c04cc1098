"""The sentence and its decoding: encode, step, run to the end, walk back, force tokens, decode ahead."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from attnviz.core.layout import Capability
from attnviz.core.results import DecodeStep, EncodedSource
from attnviz.figures.attention import AttentionView
from attnviz.i18n import tr
from attnviz.session.base import SessionBase
from attnviz.session.latest import SENTENCE
from attnviz.session_file import SavedSession, replay

if TYPE_CHECKING:  # torch-backed modules are imported by the jobs, on the worker thread
    from attnviz.core.attention.on_demand import QueryKeyStore
    from attnviz.core.decoding.stepping import DecodeSession

log = logging.getLogger(__name__)


class DecodingRequests(SessionBase):
    """Requests on the sentence on show. Only jobs touch the DecodeSession. Requests made while busy are
    queued, never dropped: a Step asked for while its sentence is being encoded (or before it is) runs as
    soon as the encoding arrives."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._decoding: DecodeSession | None = None  # of the latest encode request, once encoded
        self._encoding = False  # the latest encode request's job is still running
        self._encoded_text: str | None = None  # the text of the latest encode request
        self._pending_steps = 0  # Steps asked for while encoding
        self._pending_to_end = False  # Run to end asked for while encoding (or with the sentence)
        self._pending_force: tuple[list[str | None], int, bool] | None = None  # _force's, once encoded
        self._restoring: SavedSession | None = None  # a saved session waiting for its model or encoding
        # A prompt beyond the decoding cap (core/decoding/long_prompt.py): its queries and keys, kept here for the
        # worker's jobs (never published), and the map last asked of them ((layer, head, scores), or None)
        self._prompt_store: QueryKeyStore | None = None
        self._map_asked: tuple[int, int, bool] | None = None

    def encode(self, text: str | None = None, run: bool = False) -> None:
        """Encode ``text`` (default: the current text), dropping any decoding in progress; empty text
        clears the views. run: decode to the end once encoded (kept until a model is loaded, if none is yet or a
        model that cannot step is open while another loads)."""
        text = self._state.text if text is None else text
        if self._restoring is not None and text != self._restoring.sentence:
            self._restoring = None  # the user went on to another sentence: the saved steps are not for it
        ticket = self._latest.ask(SENTENCE)  # the steps, results and queries of the previous one are dropped
        self._decoding, self._pending_steps, self._pending_to_end = None, 0, run
        self._pending_force = None
        self._prompt_store, self._map_asked = None, None
        self._encoded_text = text
        loaded = self.loaded
        if loaded is None or not loaded.offers(Capability.STEPS) or not text.strip():
            self._encoding = False
            # (kept for the model on its way: none is open yet, or the open one cannot step, a kernel regression)
            self._pending_to_end = run and (loaded is None or self._loading is not None) and bool(text.strip())
            self._publish(text=text, source=None, steps=(), position=-1)
            return
        self._encoding = True
        beam = self._state.beam_size

        def job() -> tuple[DecodeSession | QueryKeyStore, EncodedSource]:
            from attnviz.core.decoding.long_prompt import encode_long_prompt

            if (long := encode_long_prompt(loaded, text, loaded.device)) is not None:
                return long  # (beyond the decoding cap: its maps on demand, no stepping)
            decoding = loaded.model_kind.stepping_cls(self._decoded_model(loaded), loaded.device, beam_size=beam)
            return decoding, decoding.encode(text)

        def done(result: tuple[DecodeSession | QueryKeyStore, EncodedSource]) -> None:
            if not self._latest.wins(ticket):
                return
            self._encoding = False
            made, source = result
            if source.on_demand is not None:
                self._prompt_store = cast("QueryKeyStore", made)
                self._pending_to_end, self._pending_steps, self._pending_force = False, 0, None
            else:
                self._decoding = cast("DecodeSession", made)
            self._publish(source=source, steps=(), position=-1, computation=None, comparison=None, explanation=None)
            self._saw(source.text)  # (the Heads dock's own corpus)
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
            if self._latest.wins(ticket):
                self._encoding = False
            self._report(error)

        self._publish(text=text)
        self._submit(tr("Encoding…"), job, done, failed)

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

    def show(self, index: int) -> None:
        """Show recorded step ``index`` (-1: before the first step)."""
        self._publish(position=max(-1, min(index, len(self._state.steps) - 1)))

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
            self.listener.error(tr("Type the target words to force (a translation or its beginning)."))
            return
        vocabulary = self.loaded.tgt_vocab if self.loaded is not None else None
        if vocabulary is not None and (refused := untakeable_words(tokens, vocabulary)):
            self.listener.error(refused_words_message(refused, vocabulary))
            return
        self._force(list(tokens), 0, True)

    def _replay(self, saved: SavedSession) -> None:
        """Decode the saved steps on the sentence just encoded and show the saved step (:func:`replay`) with
        the saved view options (unless the user has typed over the sentence meanwhile)."""
        decoding, ticket = self._decoding, self._latest.current(SENTENCE)
        if decoding is None:
            return

        def job() -> tuple[list[DecodeStep], int]:
            shown = replay(saved, decoding)
            return list(decoding.steps), shown

        def view() -> AttentionView:
            return saved.view if self._state.text == saved.sentence else self._state.view

        def done(result: tuple[list[DecodeStep], int]) -> None:
            if self._latest.wins(ticket):
                steps, shown = result
                self._publish(steps=tuple(steps), position=shown, view=view())

        def failed(error: BaseException) -> None:
            if self._latest.wins(ticket):  # (the sentence is on show all the same: so are its view options)
                self._publish(view=view())
            self._report(error)

        self._submit(tr("Decoding…"), job, done, failed)

    def _force(self, plan: list[str | None], keep: int, to_end: bool) -> None:
        """Keep the first ``keep`` steps, then decode one step per entry of ``plan`` (a token to force, or
        None: the model's own choice), then on to the end if ``to_end``; show the last step."""
        if not self._state.decodes or not self._state.text.strip() or self._state.not_stepped:
            return
        if self._encoded_text != self._state.text:
            self.encode()
            keep = 0
        decoding = self._decoding
        if decoding is None:  # the sentence is being encoded: decode once it has arrived
            self._pending_force = (plan, keep, to_end)
            return
        ticket = self._latest.current(SENTENCE)

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
            if not self._latest.wins(ticket):
                return
            steps, replayed = result
            kept = self._state.steps[:replayed]  # the same numbers as the replayed steps: keep the objects
            self._publish(steps=(*kept, *steps[replayed:]), position=len(steps) - 1)

        self._submit(tr("Decoding…"), job, done, self._report)

    def _decode(self, count: int | None) -> None:
        """Decode ``count`` more steps (None: to the end) of the current sentence."""
        if self._encoded_text != self._state.text and self._state.decodes:
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
        ticket = self._latest.current(SENTENCE)
        first = not self._state.steps

        def job() -> list[DecodeStep]:
            new: list[DecodeStep] = []
            if first and decoding.finished:  # nothing to take at all (a sentence with no [MASK]): its own words say
                decoding.step()  # what to do (a ValueError, reported in the window)
            while not decoding.finished and (count is None or len(new) < count):
                new.append(decoding.step())
            return new

        def done(new: list[DecodeStep]) -> None:
            if not self._latest.wins(ticket) or not new:
                return
            steps = (*self._state.steps, *new)
            self._publish(steps=steps, position=len(steps) - 1)

        self._submit(tr("Decoding…"), job, done, self._report)

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

    def _publish(self, **changes: Any) -> None:
        super()._publish(**changes)
        if self._prompt_store is not None:
            self._ask_prompt_map()

    def _ask_prompt_map(self) -> None:
        """A long prompt on show (its maps on demand): compute the map the Attention view asks for, on the worker
        (latest request wins: a layer spun past is never computed), and publish it in the source."""
        store, source, view = self._prompt_store, self._state.source, self._state.view
        maps = None if source is None else source.on_demand
        if store is None or source is None or maps is None or view.all_heads:
            return
        wanted = (view.layer, view.head, view.scores)
        if wanted == self._map_asked or maps.shows(*wanted):
            return
        self._map_asked = wanted

        def job() -> tuple[np.ndarray, np.ndarray]:
            from attnviz.core.decoding.long_prompt import prompt_map

            return prompt_map(store, *wanted)

        def done(result: tuple[np.ndarray, np.ndarray]) -> None:
            shown = self._state.source
            if self._prompt_store is not store or shown is None or shown.on_demand is None:
                return  # (another sentence since)
            values, hidden = result
            layer, head, scores = wanted
            self._publish(source=replace(shown, on_demand=replace(shown.on_demand, layer=layer, head=head,
                                                                   scores=scores, values=values, hidden=hidden)))

        self.compute_view("prompt-map", tr("Computing the map…"), job, done)
