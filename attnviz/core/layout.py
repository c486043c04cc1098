"""Sequence layouts: how one family of models lays out its attention, owned once (numpy only, no torch, no Qt).

A model's decoding records the same arrays whatever its family (:class:`~attnviz.core.results.EncodedSource`'s
``encoder_*``, each :class:`~attnviz.core.results.DecodeStep`'s ``self_*`` and ``cross_*``), but what they
mean differs: an encoder–decoder's encoder reads the source in both directions; a decoder-only model's
"encoder" arrays are the causal self-attention of its prompt and its steps' self-attention spans the prompt
and the answer, one sequence. The layout chosen when a model loads (from its registry record,
``ModelKind.layout``) answers every question a view would otherwise ask a family flag: which attention kinds
there are and their names, the tokens of each axis, the masks, the dividers, how to pick one matrix or a whole
stack, and which windows (capabilities) apply.
Shapes: L layers, H heads, S source (prompt) tokens, T decoder queries, N positions of one sequence.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import ClassVar, Protocol

import numpy as np

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.rollout import rollout, source_attribution
from attnviz.i18n import N_, tr


class RecordedSource(Protocol):
    """What a layout reads of an encoded source (:class:`attnviz.core.results.EncodedSource` is one; the
    results module holds a layout, so the layout names only the fields it reads): its S tokens, the (L, H, S, S)
    self-attention recorded while the source was read (or None), the (S,) keys that may be attended to and the
    (S,) segment of each token (or None)."""

    @property
    def tokens(self) -> tuple[str, ...]: ...
    @property
    def encoder_weights(self) -> np.ndarray | None: ...
    @property
    def encoder_scores(self) -> np.ndarray | None: ...
    @property
    def padding_mask(self) -> np.ndarray: ...
    @property
    def segments(self) -> np.ndarray | None: ...


class RecordedStep(Protocol):
    """What a layout reads of one decoder step (:class:`attnviz.core.results.DecodeStep` is one): its index, the
    T query tokens, the (L, H, T, S) cross- and (L, H, T, ·) self-attention (or None), the (T, T) causal mask and
    the query row it predicted from (None: the last)."""

    @property
    def index(self) -> int: ...
    @property
    def query_tokens(self) -> tuple[str, ...]: ...
    @property
    def cross_weights(self) -> np.ndarray: ...
    @property
    def cross_scores(self) -> np.ndarray: ...
    @property
    def self_weights(self) -> np.ndarray | None: ...
    @property
    def self_scores(self) -> np.ndarray | None: ...
    @property
    def causal_mask(self) -> np.ndarray: ...
    @property
    def focus(self) -> int | None: ...


@dataclass(frozen=True, eq=False)
class Picture:
    """Where an image's positions lie on it, for the views that draw attention over the image.

    pixels: (Hp, Wp, 3) float32 in [0, 1], the image as the model read it (resized by its processor, before any
        normalisation); boxes: (N, 4) int, each position's (top, left, bottom, right) in those pixels (bottom and
        right exclusive), −1 throughout for a position with no place on the image (``[CLS]``, a distillation or a
        register token); grid: (rows, columns) of patches, read row by row after the ``specials`` positions.
    """

    pixels: np.ndarray
    boxes: np.ndarray
    grid: tuple[int, int]
    specials: int = 1

    @property
    def patch(self) -> tuple[int, int]:
        """(height, width) of one patch in pixels."""
        top, left, bottom, right = (int(v) for v in self.boxes[self.specials])
        return bottom - top, right - left

    def position_at(self, row: float, col: float) -> int | None:
        """The position whose patch holds pixel (row, col) of :attr:`pixels`, or None outside the patches."""
        height, width = self.patch
        r, c = int(row // max(height, 1)), int(col // max(width, 1))
        if row < 0 or col < 0 or not (0 <= r < self.grid[0] and 0 <= c < self.grid[1]):
            return None
        return self.specials + r * self.grid[1] + c

    def on_grid(self, row: np.ndarray) -> np.ndarray:
        """A row of N values over the positions -> (rows, columns): the patches' values laid out on the image."""
        return np.asarray(row)[self.specials: self.specials + self.grid[0] * self.grid[1]].reshape(self.grid)


@dataclass(frozen=True, eq=False)
class OnDemandMaps:
    """A long input's self-attention (a prompt's, a sentence's, a source's), computed a map at a time
    (core/attention/on_demand.py: the session keeps the queries and keys on its worker, never here): its ``layers`` ×
    ``heads`` and the one map computed last, layer ``layer``'s head ``head`` (0-based; -1: none yet), weights or, with
    ``scores``, pre-softmax scores, ``values`` (S, S) float32 with the cells its mask hid, ``hidden`` (S, S) bool."""

    layers: int
    heads: int
    layer: int = -1
    head: int = -1
    scores: bool = False
    values: np.ndarray | None = None
    hidden: np.ndarray | None = None

    def shows(self, layer: int, head: int, scores: bool) -> bool:
        """Whether the map computed is that one."""
        return self.values is not None and (self.layer, self.head, self.scores) == (layer, head, scores)


def patch_labels(specials: tuple[str, ...], grid: tuple[int, int]) -> tuple[str, ...]:
    """The labels of an image's positions: its special tokens', then ``r1c1`` … row by row (1-based)."""
    return (*specials, *(f"r{row + 1}c{col + 1}" for row in range(grid[0]) for col in range(grid[1])))


class Capability(Enum):
    """What a model offers the window; each panel names the capabilities it needs (``gui/docks.py``)."""

    SENTENCE = "sentence"  # it reads a typed sentence and shows its attention
    STEPS = "steps"  # Step / Run / Back walk through its steps, each with a top-5; flip-books; saved sessions
    DECODER = "decoder"  # it translates: cross-attention, beams, batches, Compare, the Scoring and Computation views
    KERNEL = "kernel"  # Nadaraya–Watson kernel regression: points, a kernel and a bandwidth
    MASKS = "masks"  # it guesses masked words: each step fills one (``attnviz fill-mask``)
    IMAGE = "image"  # it reads an image cut into patches and names its class (``attnviz classify``)
    MAPS = "maps"  # it records attention over its input's positions: the Attention and Rollout views draw them


@dataclass(frozen=True)
class Matrix:
    """One matrix of attention: values (Q, K); masked (Q, K) True where attention was not allowed; divider:
    rows before it are the prompt's (0: no divider); overlap: 1 where the answer's first query is the prompt's
    last row (:func:`overlap`)."""

    values: np.ndarray
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    masked: np.ndarray
    divider: int = 0
    overlap: int = 0


@dataclass(frozen=True)
class Traced:
    """Rollout traced to the source words: values (Q, S) with its axes, title and masked keys (``tr()``-ed)."""

    values: np.ndarray
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    masked: np.ndarray
    title: str
    row_axis: str
    col_axis: str


@dataclass(frozen=True)
class Words:
    """What a layout calls its parts, marked with ``N_`` (``tr()`` them where shown)."""

    source_rollout: str = N_("Attention rollout, encoder {layers} (heads averaged, + I for the residual)")
    source_queries: str = N_("queries (encoder output)")
    source_keys: str = N_("keys (input tokens)")
    source_layers: str = N_("encoder layers 1–{n}")
    traced_layers: str = N_("decoder layer {n}")
    mask_title: str = N_("Causal mask at step {step}")
    mask_before: str = N_("Causal mask (decoder self-attention)")  # the mask figure's title before the first step
    mask_rows: str = N_("queries")
    source_where: str = N_("the encoder of this {kind}")
    scoring_caption: str = N_("Query “{query}” at step {step}. {note}")
    # the decoding area: what its output, its top-k and its forcing field are, and what Step does
    output_title: str = N_("Translation so far")
    candidates_title: str = N_("Next-token probabilities at this step")
    candidates_tip: str = N_("Click a token to make the decoder take it at this step instead of its own choice")
    force_placeholder: str = N_("Force target words (a reference translation or its start)…")
    step_tip: str = N_("Decode one token ({keys})")
    first_step: str = N_("Press Step (F10) to decode the first word")


class SequenceLayout:
    """The encoder–decoder layout (Transformer, RNNs, Marian, BART, T5): the base every other layout refines.

    The encoder's self-attention (S, S) reads the whole source; the decoder's self-attention (T, T) is causal
    over its own queries; cross-attention (T, S) reads the encoder's output.
    """

    name: ClassVar[str] = "encoder-decoder"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.SENTENCE, Capability.STEPS,
                                                              Capability.DECODER, Capability.MAPS})
    dock_group: ClassVar[str] = "translation"  # the docks a user closed are remembered per group
    pads_left: ClassVar[bool] = False  # a batch pads its sentences on the left (as generate does)
    words: ClassVar[Words] = Words()
    kind_slugs: ClassVar[dict[AttentionKind, str]] = {}  # a kind's short name where it is not kind.slug (kind_slug)
    kind_names: ClassVar[dict[AttentionKind, str]] = {}  # kinds this layout names its own way
    source_causal: ClassVar[bool] = False  # the source's own self-attention is causal (a prompt)
    # module:object of the family's answers to the generic docks (attnviz.gui.panels.family_views.FamilyViews), or
    # None: the docks' own drawing of sentences
    panel_views: ClassVar[str | None] = None

    def __repr__(self) -> str:
        return f"<{self.name} layout>"

    def offers(self, capability: Capability) -> bool:
        return capability in self.capabilities

    def kind_label(self, kind: AttentionKind) -> str:
        """What the window and the figures call ``kind`` for this layout (translated)."""
        return tr(self.kind_names.get(kind, kind.value))

    def kind_slug(self, kind: AttentionKind) -> str:
        """``kind``'s short name in file names for this layout: the name heads.csv and ``--mask-heads`` give its
        heads (``enc-self``, ``dec-self``, ``cross``)."""
        return self.kind_slugs.get(kind, kind.slug)

    def kind_note(self, kind: AttentionKind) -> str:
        """A sentence the Attention panel shows beside ``kind`` ("": nothing to say)."""
        return ""

    def kinds(self, source: RecordedSource) -> list[AttentionKind]:
        """The kinds a model recorded: an RNN has no self-attention, only cross; a prompt whose maps are computed on
        demand, its own self-attention only."""
        if on_demand(source) is not None:
            return [AttentionKind.ENCODER_SELF]
        if source.encoder_weights is None:
            return [AttentionKind.CROSS]
        return [AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS]

    def computed_kind(self, kind: AttentionKind) -> AttentionKind:
        """The kind whose modules compute ``kind``'s rows (a decoder-only model's source view is its
        self-attention's)."""
        return kind

    def causal(self, kind: AttentionKind) -> bool:
        """Whether a query of ``kind`` sees only the keys up to its own position (a causal mask) rather than every
        real key (a padding mask)."""
        return kind is AttentionKind.DECODER_SELF or (self.source_causal and kind is AttentionKind.ENCODER_SELF)

    def recomputable(self, valid_len: int, width: int) -> bool:
        """Whether one sentence of ``valid_len`` real tokens, padded to ``width`` in its batch, can be recomputed
        alone as the batch computed it (not where the batch padded it on the left: its positions would shift)."""
        return not (self.pads_left and valid_len < width)

    def answer_keys(self, source_tokens: tuple[str, ...], query_tokens: tuple[str, ...],
                    shared: int = 0) -> tuple[str, ...]:
        """The keys of the decoder's self-attention: its own queries so far. shared: 1 where the answer's
        first query is the source's last position (a model without a separator), else 0."""
        return query_tokens

    def answer_first_row(self, source_length: int, shared: int = 0) -> int:
        """Where the answer's first query is among the queries a self-attention module received (0: first)."""
        return 0

    def source_masked(self, source: RecordedSource) -> np.ndarray:
        """(S, S) bool: True where the source's own self-attention was not allowed (padding keys)."""
        size = len(source.tokens)
        return np.broadcast_to(~source.padding_mask[None, :], (size, size))

    def divider(self, kind: AttentionKind, source: RecordedSource) -> int:
        """Rows of ``kind``'s maps before a divider line (0: none)."""
        return 0

    def names_step(self, kind: AttentionKind) -> bool:
        """Whether ``kind``'s maps change from step to step, so that titles and file names say the step (the
        encoder reads the source once)."""
        return kind is not AttentionKind.ENCODER_SELF

    def current_row(self, kind: AttentionKind, rows: int, step: RecordedStep | None) -> int | None:
        """The row of a ``rows``-row map of ``kind`` that the step on show predicted from (None: none): a decoder's
        newest query; the encoder's rows are all read at once."""
        if kind is AttentionKind.ENCODER_SELF or not rows:
            return None
        return rows - 1 if step is None or step.focus is None else step.focus

    def stack(self, kind: AttentionKind, source: RecordedSource, step: RecordedStep | None,
              scores: bool = False) -> Matrix:
        """All layers and heads of one kind: values (L, H, Q, K), with its row and column tokens and masked (Q, K).
        ValueError for a prompt whose maps are computed on demand (:func:`not_at_length`: none is put together)."""
        if on_demand(source) is not None:
            raise ValueError(not_at_length(source))
        src = source.tokens
        if kind is AttentionKind.ENCODER_SELF:
            if source.encoder_weights is None or source.encoder_scores is None:
                raise ValueError(tr("this model has no encoder self-attention"))
            values = source.encoder_scores if scores else source.encoder_weights
            return Matrix(values, src, src, self.source_masked(source), self.divider(kind, source))
        if step is None:
            width = len(src) if kind is AttentionKind.CROSS else 0
            layers = source.encoder_weights.shape[0] if source.encoder_weights is not None else 1
            heads = source.encoder_weights.shape[1] if source.encoder_weights is not None else 1
            return Matrix(np.zeros((layers, heads, 0, width), np.float32), (), src if width else (),
                          np.zeros((0, width), bool))
        queries = step.query_tokens
        if kind is AttentionKind.CROSS:
            values = step.cross_scores if scores else step.cross_weights
            masked = np.broadcast_to(~source.padding_mask[None, :], (len(queries), len(src)))
            return Matrix(values, queries, src, masked)
        if step.self_weights is None or step.self_scores is None:
            raise ValueError(tr("this model has no decoder self-attention"))
        return self._self_stack(source, step, scores)

    def _self_stack(self, source: RecordedSource, step: RecordedStep, scores: bool) -> Matrix:
        assert step.self_weights is not None and step.self_scores is not None
        values = step.self_scores if scores else step.self_weights
        return Matrix(values, step.query_tokens, step.query_tokens, ~step.causal_mask)

    def whole_row_sums(self, kind: AttentionKind, source: RecordedSource, step: RecordedStep | None
                       ) -> np.ndarray | None:
        """(L, H, Q) float64: each row of :meth:`stack`'s weights for ``kind`` summed over every key its query read,
        where the map shows only some of those keys; None where its rows are whole (every kind here). With a learned
        sink the rest of a whole row, 1 − the sum, is the sink's weight."""
        return None

    def extent(self, kind: AttentionKind, source: RecordedSource, step: RecordedStep | None) -> tuple[int, int]:
        """(L, H) of :meth:`stack`'s stack for ``kind``, read off the recorded arrays (nothing is built)."""
        if (maps := on_demand(source)) is not None:
            return maps.layers, maps.heads
        if kind is AttentionKind.ENCODER_SELF or step is None:
            weights = source.encoder_weights
            if weights is None:
                if kind is AttentionKind.ENCODER_SELF:
                    raise ValueError(tr("this model has no {kind}").format(kind=self.kind_label(kind)))
                return 1, 1
            return int(weights.shape[0]), int(weights.shape[1])
        weights = step.cross_weights if kind is AttentionKind.CROSS else step.self_weights
        if weights is None:
            raise ValueError(tr("this model has no decoder self-attention"))
        return int(weights.shape[0]), int(weights.shape[1])

    def matrix(self, kind: AttentionKind, layer: int, head: int, source: RecordedSource, step: RecordedStep | None,
               scores: bool = False) -> Matrix:
        """One layer and head (0-based, clamped to what exists) of ``kind``: values (Q, K). A prompt whose maps are
        computed on demand gives the one computed (ValueError for another: :func:`on_demand_matrix`)."""
        layers, heads = self.extent(kind, source, step)
        layer, head = min(max(layer, 0), layers - 1), min(max(head, 0), heads - 1)
        if on_demand(source) is not None:
            return on_demand_matrix(source, layer, head, scores, self.divider(kind, source))
        whole = self.stack(kind, source, step, scores)
        return Matrix(whole.values[layer, head], whole.rows, whole.cols, np.asarray(whole.masked), whole.divider,
                      whole.overlap)

    def step_mask(self, source: RecordedSource, step: RecordedStep) -> Matrix:
        """The causal mask the decoder's self-attention applied at ``step``: (Q, K) float, 1 where allowed."""
        return Matrix(step.causal_mask.astype(np.float32), step.query_tokens, step.query_tokens,
                      np.zeros(step.causal_mask.shape, bool))

    def scoring_keys(self, source: RecordedSource, step: RecordedStep | None) -> tuple[str, ...]:
        """The keys the newest query scores in the Scoring panel."""
        return source.tokens

    def scoring_rows(self, step: RecordedStep) -> np.ndarray:
        """(L, H, T, K): the score rows whose newest row the Scoring panel draws."""
        return step.cross_scores

    def positions(self, source: RecordedSource, step: RecordedStep | None) -> int:
        """How many positions of the positional encoding the model has used for the source (the Positional
        panel marks them)."""
        return len(source.tokens)

    compared_what: ClassVar[str] = N_("cross-attention")  # what Compare draws, in its titles

    def compared(self, source: RecordedSource, step: RecordedStep) -> Matrix:
        """What Compare draws at ``step``: the last layer's cross-attention averaged over its heads, (T, S) — what
        two models of different depths and head counts both have (the RNN models have one layer and one head)."""
        values = step.cross_weights[-1].mean(axis=0) if step.cross_weights.size else np.zeros((0, 0))
        masked = np.broadcast_to(~source.padding_mask[None, :], values.shape) if values.size else np.zeros((0, 0), bool)
        return Matrix(values.astype(np.float32), step.query_tokens, source.tokens, masked)

    def compared_step(self, step: RecordedStep) -> int:
        """Which step of a forced comparison has ``step``'s query rows: the one that read the same prefix."""
        return len(step.query_tokens) - 1

    def traced(self, source: RecordedSource, step: RecordedStep, source_flows: np.ndarray, layer: int | None) -> Traced:
        """The decoder's head-averaged cross-attention of ``layer`` (None: the last) carried through the encoder's
        full rollout ``source_flows`` (L, S, S): (T, S), each output step traced back to source words."""
        attribution = source_attribution(step.cross_weights, source_flows[-1])  # (L_dec, T, S)
        layer = clamp(attribution.shape[0], layer)
        values = attribution[layer].astype(np.float32)
        return Traced(values, step.query_tokens, source.tokens,
                      np.broadcast_to(~source.padding_mask[None, :], values.shape),
                      tr("Source attribution at step {step}: decoder layer {layer} cross-attention "
                         "(heads averaged) × encoder rollout, {layers}").format(
                          step=len(step.query_tokens), layer=layer + 1, layers=span(source_flows.shape[0] - 1)),
                      tr("decoder queries"), tr("source tokens"))


class DecoderOnlyLayout(SequenceLayout):
    """One causal sequence, prompt then answer (attnviz's decoder-only model, GPT-2, Llama, Qwen2).

    The source's arrays hold the prompt's causal self-attention (S, S); each step's self-attention rows span the
    prompt and the answer so far, (T, S + T) (S + T − 1 without a separator, see :func:`overlap`). Put together
    they are the whole sequence's self-attention (N, N). Its cross-attention is the *source view*: the English
    columns of those rows, not renormalised. A batch pads on the left.
    """

    name = "decoder-only"
    pads_left = True
    words = Words(source_rollout=N_("Attention rollout, prompt {layers} (heads averaged, + I for the residual)"),
                  source_queries=N_("queries (prompt positions)"), source_layers=N_("prompt layers 1–{n}"),
                  traced_layers=N_("source view after layers 1–{n}"),
                  mask_title=N_("Prompt | answer causal mask, step {step}"), mask_rows=N_("positions"),
                  mask_before=N_("Prompt | answer causal mask"),
                  source_where=N_("the prompt of this {kind}"),
                  scoring_caption=N_("Query “{query}” at step {step}. {note} Its keys are the English and the "
                                     "answer so far: a decoder-only model has one self-attention."))
    kind_names: ClassVar[dict[AttentionKind, str]] = {
        AttentionKind.ENCODER_SELF: N_("self-attention (prompt)"),
        AttentionKind.DECODER_SELF: N_("self-attention (prompt + answer)"), AttentionKind.CROSS: N_("source view")}
    # the prompt's map is the prompt's rows of the one self-attention: its heads are dec-self in heads.csv and
    # --mask-heads, and so in its file names
    kind_slugs: ClassVar[dict[AttentionKind, str]] = {AttentionKind.ENCODER_SELF: "dec-self"}
    source_causal = True

    def computed_kind(self, kind: AttentionKind) -> AttentionKind:
        return AttentionKind.DECODER_SELF if kind is AttentionKind.CROSS else kind

    def answer_keys(self, source_tokens: tuple[str, ...], query_tokens: tuple[str, ...],
                    shared: int = 0) -> tuple[str, ...]:
        return source_tokens + query_tokens[shared:]  # (the prompt's positions, then the answer's)

    def answer_first_row(self, source_length: int, shared: int = 0) -> int:
        return source_length - shared  # (the prompt's S positions come first: the answer's rows after them)

    def kind_note(self, kind: AttentionKind) -> str:
        if kind is not AttentionKind.CROSS:
            return ""
        return tr("Source view: the answer's self-attention weights on the prompt, not renormalised: "
                  "a row sums to the prompt's share (the rest is on the answer).")

    def source_masked(self, source: RecordedSource) -> np.ndarray:
        return super().source_masked(source) | ~np.tri(len(source.tokens), dtype=bool)  # the prompt reads causally

    def divider(self, kind: AttentionKind, source: RecordedSource) -> int:
        return len(source.tokens) if kind is AttentionKind.DECODER_SELF else 0

    def _self_stack(self, source: RecordedSource, step: RecordedStep, scores: bool) -> Matrix:
        tokens = sequence_tokens(source, step)
        return Matrix(sequence_maps(source, step, scores), tokens, tokens, ~sequence_mask(source, step),
                      len(source.tokens), overlap(source, step))

    def whole_row_sums(self, kind: AttentionKind, source: RecordedSource, step: RecordedStep | None
                       ) -> np.ndarray | None:
        """The source view's rows are the prompt's columns of the answer's rows: each whole row is the step's
        self-attention row over the prompt and the answer, (L, H, T)."""
        if kind is not AttentionKind.CROSS or step is None or step.self_weights is None \
                or on_demand(source) is not None:
            return None
        return step.self_weights.sum(-1, dtype=np.float64)

    def extent(self, kind: AttentionKind, source: RecordedSource, step: RecordedStep | None) -> tuple[int, int]:
        if kind is AttentionKind.DECODER_SELF and step is not None and on_demand(source) is None:  # (the prompt's)
            if source.encoder_weights is None:
                raise ValueError(tr("this model has no {kind}").format(kind=self.kind_label(kind)))
            return int(source.encoder_weights.shape[0]), int(source.encoder_weights.shape[1])
        return super().extent(kind, source, step)

    def matrix(self, kind: AttentionKind, layer: int, head: int, source: RecordedSource, step: RecordedStep | None,
               scores: bool = False) -> Matrix:
        if kind is not AttentionKind.DECODER_SELF or step is None or on_demand(source) is not None:
            return super().matrix(kind, layer, head, source, step, scores)
        layers, heads = self.extent(kind, source, step)  # only this matrix of the whole sequence is put together
        layer, head = min(max(layer, 0), layers - 1), min(max(head, 0), heads - 1)
        tokens = sequence_tokens(source, step)
        return Matrix(sequence_maps(source, step, scores, layer, head), tokens, tokens, ~sequence_mask(source, step),
                      len(source.tokens), overlap(source, step))

    def step_mask(self, source: RecordedSource, step: RecordedStep) -> Matrix:
        tokens = sequence_tokens(source, step)
        mask = sequence_mask(source, step)
        return Matrix(mask.astype(np.float32), tokens, tokens, np.zeros(mask.shape, bool), len(source.tokens))

    def scoring_keys(self, source: RecordedSource, step: RecordedStep | None) -> tuple[str, ...]:
        return source.tokens + step.query_tokens if step is not None else source.tokens

    def scoring_rows(self, step: RecordedStep) -> np.ndarray:
        return step.self_scores if step.self_scores is not None else step.cross_scores

    def positions(self, source: RecordedSource, step: RecordedStep | None) -> int:
        return len(sequence_tokens(source, step)) if step is not None else len(source.tokens)

    compared_what: ClassVar[str] = N_("source view (renormalised over the English)")

    def compared(self, source: RecordedSource, step: RecordedStep) -> Matrix:
        """The source view's rows made a whole (the English share of each row, renormalised), so that they sum to 1
        like a cross-attention row."""
        matrix = super().compared(source, step)
        values = matrix.values
        if values.size:
            sums = values.sum(axis=-1, keepdims=True)
            values = np.where(sums > 0, values / np.where(sums > 0, sums, 1), 0).astype(np.float32)
        return replace(matrix, values=values)

    def traced(self, source: RecordedSource, step: RecordedStep, source_flows: np.ndarray, layer: int | None) -> Traced:
        """Rollout over the whole sequence after ``layer``, the answer's rows cut to the English columns: (T, S),
        the share of each answer position that flows from each English word (the rest flows from the answer)."""
        flows = rollout(sequence_maps(source, step))  # (L, S + T, S + T)
        layer = clamp(flows.shape[0], layer)
        width = len(source.tokens)
        values = flows[layer, width - overlap(source, step):, :width].astype(np.float32)  # the answer's T rows
        return Traced(values, step.query_tokens, source.tokens,
                      np.broadcast_to(~source.padding_mask[None, :], values.shape),
                      tr("Source view of the rollout at step {step}, {layers}: the share from each prompt token"
                         ).format(step=len(step.query_tokens), layers=span(layer)),
                      tr("answer positions"), tr("prompt tokens"))


class EncoderOnlyLayout(SequenceLayout):
    """One sentence, or a pair, read in both directions by every layer (BERT, DistilBERT, RoBERTa, attnviz's own).

    It has self-attention only, (S, S) per layer and head. A *step* fills one mask: the step holds the attention
    of the sentence it predicted from (``RecordedStep.self_*``, (L, H, S, S) over ``query_tokens``, the sentence
    with the masks before it filled in) and ``focus``, the row of the mask it filled; before the first step the
    views show the source's encoding. A pair's second sentence starts after the first separator (``segments``).
    """

    name = "encoder-only"
    capabilities = frozenset({Capability.SENTENCE, Capability.STEPS, Capability.MASKS, Capability.MAPS})
    dock_group = "encoder-only"
    kind_names: ClassVar[dict[AttentionKind, str]] = {AttentionKind.ENCODER_SELF: N_("self-attention")}
    words = Words(source_rollout=N_("Attention rollout, {layers} (heads averaged, + I for the residual)"),
                  source_queries=N_("queries (positions)"), source_layers=N_("layers 1–{n}"),
                  traced_layers=N_("the mask's rollout after layers 1–{n}"),
                  mask_title=N_("Attention mask at step {step} (no causal mask)"),
                  mask_before=N_("Attention mask (no causal mask: every position reads every other)"),
                  mask_rows=N_("positions"), source_where=N_("the layers of this {kind}"),
                  output_title=N_("The sentence, its masks filled so far"),
                  candidates_title=N_("Words for the mask at this step"),
                  candidates_tip=N_("Click a word to fill the mask with it instead of the model's choice"),
                  force_placeholder=N_("Words for the masks, first mask first…"),
                  step_tip=N_("Fill the next mask ({keys})"), first_step=N_("Press Step (F10) to fill the first mask"))

    def kinds(self, source: RecordedSource) -> list[AttentionKind]:
        return [AttentionKind.ENCODER_SELF]

    @staticmethod
    def _encoded(source: RecordedSource, step: RecordedStep | None
                 ) -> tuple[np.ndarray | None, np.ndarray | None, tuple[str, ...]]:
        """(weights, scores, tokens) of the sentence on show: the step's (as it was when it predicted), else the
        source's."""
        if step is not None and step.self_weights is not None:
            return step.self_weights, step.self_scores, step.query_tokens
        return source.encoder_weights, source.encoder_scores, source.tokens

    def divider(self, kind: AttentionKind, source: RecordedSource) -> int:
        """Where the pair's second sentence starts (0: one sentence)."""
        if source.segments is None or not source.segments.any():
            return 0
        return int(np.argmax(source.segments > 0))

    def current_row(self, kind: AttentionKind, rows: int, step: RecordedStep | None) -> int | None:
        return None if step is None else step.focus

    compared_what: ClassVar[str] = N_("self-attention")

    def compared(self, source: RecordedSource, step: RecordedStep) -> Matrix:
        """The last layer's self-attention averaged over its heads, (S, S), of the sentence the step read."""
        matrix = self.stack(AttentionKind.ENCODER_SELF, source, step)
        return replace(matrix, values=matrix.values[-1].mean(axis=0).astype(np.float32))

    def compared_step(self, step: RecordedStep) -> int:
        return step.index  # (the other model filled the same masks with the same words before it)

    def names_step(self, kind: AttentionKind) -> bool:
        return True  # (each step reads the sentence again, with the masks before it filled in)

    def stack(self, kind: AttentionKind, source: RecordedSource, step: RecordedStep | None,
              scores: bool = False) -> Matrix:
        if on_demand(source) is not None:  # (a sentence whose maps are computed one at a time)
            raise ValueError(not_at_length(source))
        weights, score_values, tokens = self._encoded(source, step)
        values = score_values if scores else weights
        if kind is not AttentionKind.ENCODER_SELF or values is None:
            raise ValueError(tr("this model has no {kind}").format(kind=self.kind_label(kind)))
        return Matrix(values, tokens, tokens, self.source_masked(source), self.divider(kind, source))

    def extent(self, kind: AttentionKind, source: RecordedSource, step: RecordedStep | None) -> tuple[int, int]:
        if (maps := on_demand(source)) is not None:
            return maps.layers, maps.heads
        weights = self._encoded(source, step)[0]
        if kind is not AttentionKind.ENCODER_SELF or weights is None:
            raise ValueError(tr("this model has no {kind}").format(kind=self.kind_label(kind)))
        return int(weights.shape[0]), int(weights.shape[1])

    def step_mask(self, source: RecordedSource, step: RecordedStep) -> Matrix:
        """The attention mask: every real token sees every real token; padding keys are masked."""
        allowed = ~np.asarray(self.source_masked(source))
        tokens = self._encoded(source, step)[2]
        return Matrix(allowed.astype(np.float32), tokens, tokens, np.zeros(allowed.shape, bool),
                      self.divider(AttentionKind.ENCODER_SELF, source))

    def scoring_keys(self, source: RecordedSource, step: RecordedStep | None) -> tuple[str, ...]:
        return self._encoded(source, step)[2]

    def scoring_rows(self, step: RecordedStep) -> np.ndarray:
        return step.self_scores if step.self_scores is not None else step.cross_scores

    def traced(self, source: RecordedSource, step: RecordedStep, source_flows: np.ndarray, layer: int | None) -> Traced:
        """The rollout of the sentence the step predicted from, after ``layer``, at the mask's row: (1, S), how
        much of what the model read at the mask flows from each token."""
        weights, _, tokens = self._encoded(source, step)
        assert weights is not None
        flows = rollout(weights)  # (L, S, S)
        layer = clamp(flows.shape[0], layer)
        row = step.focus if step.focus is not None else 0
        values = flows[layer, row: row + 1].astype(np.float32)
        return Traced(values, (tokens[row],), tokens, np.broadcast_to(~source.padding_mask[None, :], values.shape),
                      tr("Rollout at the mask (position {row}), {layers}: what the prediction reads from each token"
                         ).format(row=row + 1, layers=span(layer)), tr("mask"), tr("tokens"))


class RegressionLayout(SequenceLayout):
    """Kernel regression: no sentence, no tokens; the window draws its points and kernel."""

    name = "regression"
    capabilities = frozenset({Capability.KERNEL})
    dock_group = "regression"


class ImageLayout(SequenceLayout):
    """An image cut into patches, read with ``[CLS]`` in front by every layer in both directions (a vision
    transformer): self-attention only, (N, N) per layer and head over N = 1 + P positions."""

    name = "image"
    capabilities = frozenset({Capability.IMAGE, Capability.MAPS})
    dock_group = "vision"
    panel_views = "attnviz.gui.panels.image_views:IMAGE_VIEWS"
    kind_names: ClassVar[dict[AttentionKind, str]] = {AttentionKind.ENCODER_SELF: N_("self-attention")}
    words = Words(source_rollout=N_("Attention rollout, {layers} (heads averaged, + I for the residual)"),
                  source_queries=N_("queries ([CLS] and the patches)"), source_keys=N_("keys ([CLS] and the patches)"),
                  source_layers=N_("layers 1–{n}"))

    def kinds(self, source: RecordedSource) -> list[AttentionKind]:
        return [AttentionKind.ENCODER_SELF]


ENCODER_DECODER = SequenceLayout()
LAYOUTS: dict[str, SequenceLayout] = {layout.name: layout for layout in (
    ENCODER_DECODER, DecoderOnlyLayout(), EncoderOnlyLayout(), RegressionLayout(), ImageLayout())}


def layout_named(name: str) -> SequenceLayout:
    """The layout called ``name`` (a registry record's ``layout``); KeyError names the known ones."""
    try:
        return LAYOUTS[name]
    except KeyError:
        raise KeyError(f"unknown sequence layout {name!r} (known: {', '.join(LAYOUTS)})") from None


NOT_AT_LENGTH = N_("Not at this length: {tokens} tokens. An input this long has its maps computed one at a time, "
                   "for the Attention view (pick a layer and head there).")
NOT_COMPUTED = N_("Computing layer {layer}, head {head} of {tokens} tokens…")


def on_demand(source: RecordedSource | None) -> OnDemandMaps | None:
    """The maps-on-demand record of a long prompt (``source.on_demand``), or None: every map was recorded."""
    return getattr(source, "on_demand", None) if source is not None else None


def not_at_length(source: RecordedSource) -> str:
    """What a view that needs every map (all heads, rollout, masks, …) says of a prompt whose maps are computed on
    demand, in one sentence."""
    return tr(NOT_AT_LENGTH).format(tokens=f"{len(source.tokens):,}")


def on_demand_matrix(source: RecordedSource, layer: int, head: int, scores: bool, divider: int = 0) -> Matrix:
    """The map computed on demand for ``layer`` and ``head`` (0-based), weights or ``scores``, its rows before
    ``divider`` set apart (an encoder-only pair's first sentence); ValueError (what is being computed) when the one
    held is another."""
    maps = on_demand(source)
    assert maps is not None
    if not maps.shows(layer, head, scores) or maps.values is None or maps.hidden is None:
        raise ValueError(tr(NOT_COMPUTED).format(layer=layer + 1, head=head + 1, tokens=f"{len(source.tokens):,}"))
    return Matrix(maps.values, source.tokens, source.tokens, maps.hidden, divider)


def clamp(count: int, layer: int | None) -> int:
    """The 0-based layer to show of ``count``: the last one when None, else clamped to what exists."""
    return count - 1 if layer is None else min(max(layer, 0), count - 1)


def span(layer: int) -> str:
    """'layer 1' or 'layers 1–3' (1-based, layer is 0-based)."""
    return tr("layer {layer}").format(layer=1) if layer == 0 else tr("layers 1–{last}").format(last=layer + 1)


# -- one sequence, prompt then answer --------------------------------------------------------------------------
# A decoder-only decoding records the prompt's self-attention once (``RecordedSource.encoder_*``, (L, H, S, S)) and,
# per step, the answer's rows over the prompt and the answer so far (``RecordedStep.self_*``, (L, H, T, S + T)).
# A model without a separator (a Hugging Face decoder-only model) has no ``<bos>`` row: its first query is the
# prompt's last position, so the two overlap by one row and the sequence is S + T − 1 long.

def overlap(source: RecordedSource, step: RecordedStep | None) -> int:
    """1 where the answer's first query is the prompt's last position (no separator), else 0 (read from the
    width of the step's keys: S + T with a ``<bos>`` row, S + T − 1 without)."""
    if step is None or step.self_weights is None:
        return 0
    return len(source.tokens) + len(step.query_tokens) - step.self_weights.shape[-1]


def sequence_tokens(source: RecordedSource, step: RecordedStep | None) -> tuple[str, ...]:
    """The positions: the English, then ``<bos>`` (where the model has one) and the answer so far."""
    return (*source.tokens, *(step.query_tokens[overlap(source, step):] if step is not None else ()))


def sequence_mask(source: RecordedSource, step: RecordedStep | None) -> np.ndarray:
    """(N, N) bool over the N sequence positions, True where a position may attend: causal, never to the
    prompt's padding."""
    size = len(sequence_tokens(source, step))
    keys = np.concatenate([source.padding_mask, np.ones(size - len(source.tokens), bool)])
    return np.tri(size, dtype=bool) & keys[None, :]


def sequence_maps(source: RecordedSource, step: RecordedStep | None, scores: bool = False,
                  layer: int | None = None, head: int | None = None) -> np.ndarray:
    """The whole sequence's self-attention weights (or pre-softmax scores), (L, H, N, N) over its N positions
    (:func:`sequence_tokens`); with ``layer`` and ``head`` only that matrix, (N, N) (what one view shows: the
    others are not put together). Cells above the diagonal are 0 (never computed)."""
    prompt = source.encoder_scores if scores else source.encoder_weights
    if prompt is None:
        raise ValueError(tr("this model records no prompt self-attention"))
    answer = None if step is None else (step.self_scores if scores else step.self_weights)
    if layer is not None and head is not None:
        prompt = prompt[layer: layer + 1, head: head + 1]
        answer = None if answer is None else answer[layer: layer + 1, head: head + 1]
    width = prompt.shape[-1]
    rows = 0 if answer is None else answer.shape[2]
    first = width - overlap(source, step)  # the sequence row of the answer's first query
    out = np.zeros((*prompt.shape[:2], first + rows, first + rows), np.float32)
    out[:, :, :width, :width] = prompt
    if answer is not None:
        out[:, :, first:, :] = answer
    return out[0, 0] if layer is not None and head is not None else out
