"""What a session publishes: one frozen :class:`SessionState` (numpy arrays in plain dataclasses) after every
change, the loaded model described by :class:`ModelInfo`, and :func:`changed`, which views use to redraw only
what changed. Nothing here imports torch."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from attnviz.core.attention.computation import QueryComputation
from attnviz.core.attention.kind import AttentionKind
from attnviz.core.layout import Capability, SequenceLayout
from attnviz.core.models.kinds import KINDS
from attnviz.core.results import (
    BatchDecoding,
    Comparison,
    DecodeStep,
    EncodedSource,
    ImageComparison,
    KernelFit,
    PositionalDescription,
)
from attnviz.figures.attention import AttentionView
from attnviz.figures.book import BookFigure
from attnviz.i18n import tr

if TYPE_CHECKING:  # (torch-backed modules: their dataclasses arrive from the jobs)
    from attnviz.core.explain import Explanation
    from attnviz.core.heads import HeadAtlas, PruningCurve
    from attnviz.core.heads.image_atlas import ImageAtlas
    from attnviz.core.patching.maps import PairMaps
    from attnviz.core.patching.statistics import PatchingResult


@dataclass(frozen=True)
class ModelInfo:
    """What the views need to know about the loaded model."""

    kind: str
    family: str  # "translation" or "regression" (attnviz.core.models.kinds; views ask ``layout`` instead)
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
    positional: PositionalDescription | None = None  # what it does with positions (Hugging Face models)
    subword: bool = False  # its tokens are a subword tokenizer's pieces ("·s" continues the word before it)
    history: Any = None  # the TrainingHistory the checkpoint keeps (read on the worker), or None
    history_problem: str = ""  # why a kept history cannot be read ("" when none is kept, or it reads)
    heads_off: str = ""  # the heads switched off, as ``cross:2.1,enc-self:1.3`` ("" when every head is on)
    heads_switch: bool = False  # its heads can be switched off and mapped over a corpus (any translator)
    explains: bool = False  # the Explain dock's methods cover it (attnviz's own models, every image model)
    documents: bool = False  # its heads can be mapped over a file of documents (a Hugging Face language model)
    labels: tuple[str, ...] = ()  # a classifier's class names, by index (an image model's; else none)
    patching_tasks: tuple[str, ...] = ()  # the generated pairs that apply to it (core/patching/tasks.py)
    patchable: bool = False  # its heads can be patched over minimal pairs (a model that reads sentences)
    heads_patched: str = ""  # heads patched into the decoding on show, as ``cross:3.1,cross:3.4`` ("": none)

    @property
    def name(self) -> str:
        """What titles and file names call it: the checkpoint file's stem, or a Hugging Face model's name (its
        cache entry's, ``opus-mt-en-fr``, not the snapshot folder's hash); with heads off, which ones."""
        return self._with_heads(self.base_name)

    def _with_heads(self, name: str) -> str:
        """``name`` followed by the heads switched off and the heads patched, as the titles name them."""
        if self.heads_off:
            name = tr("{model}, heads off {heads}").format(model=name, heads=self.heads_off)
        if self.heads_patched:
            name = tr("{model}, heads patched {heads}").format(model=name, heads=self.heads_patched)
        return name

    @property
    def base_name(self) -> str:
        """Its name whatever heads are off."""
        if self.training.get("source") == "Hugging Face" and self.training.get("name"):
            return str(self.training["name"]).rsplit("/", 1)[-1]
        return self.path.stem

    @property
    def layout(self) -> SequenceLayout:
        """How its attention is laid out: what views ask (its capabilities, its kinds' names)."""
        return KINDS[self.kind].sequence_layout

    def offers(self, capability: Capability) -> bool:
        return self.layout.offers(capability)

    @property
    def label(self) -> str:
        """What the window's title and status bar call it: the checkpoint's file name, or a Hugging Face
        model's name; with heads off, which ones (as :attr:`name` says, whether they were switched off by hand
        or by a saved session)."""
        if self.training.get("source") == "Hugging Face":
            return self.name
        return self._with_heads(self.path.name)


@dataclass(frozen=True)
class SessionState:
    """Everything the views draw, published whole after every change (replaced, never mutated).

    text: the sentence asked for; source: its encoding once it has arrived (until then the previous
    sentence's, so the views do not flicker while one types); steps: the decoding steps recorded for
    ``source``; position: index of the step on show (-1: before the first); busy: what runs now
    ("" when idle); device, beam_size: the decoding options; kernel: the kernel-regression fit on show;
    view: the Attention panel's options (kind, layer, head, …), always within what the source on show has.
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
    compared_image: ImageComparison | None = None  # a second image model on the image on show (compare_with)
    compared_with: str = ""  # the checkpoint compared with ("" when none)
    view: AttentionView = field(default_factory=AttentionView)  # the Attention panel's options
    atlas: HeadAtlas | None = None  # every head's statistics over a corpus, its sinks in each kind's (compute_atlas)
    pruning: PruningCurve | None = None  # BLEU with heads pruned, over the atlas's corpus (compute_pruning)
    image_atlas: ImageAtlas | None = None  # an image model's heads over a folder of images (compute_atlas)
    atlas_progress: tuple[str, int, int] | None = None  # (what, done, total) while an atlas job runs
    explanation: Explanation | None = None  # the step on show explained by every method (explain)
    patching: PatchingResult | None = None  # every head patched over minimal pairs (compute_patching)
    patching_progress: tuple[str, int, int] | None = None  # (what, done, total) while a patching job runs
    pair_maps: PairMaps | None = None  # one pair's maps on both sides, every head (show_pair_maps)

    @property
    def step(self) -> DecodeStep | None:
        return self.steps[self.position] if 0 <= self.position < len(self.steps) else None

    @property
    def reads_sentence(self) -> bool:
        """The model on show reads a typed sentence (not kernel regression's points)."""
        return self.model is not None and self.model.offers(Capability.SENTENCE)

    @property
    def decodes(self) -> bool:
        """The model on show steps through its sentence (Step, Run, Back, the top-5)."""
        return self.model is not None and self.model.offers(Capability.STEPS)

    @property
    def shown_source(self) -> EncodedSource | None:
        """The encoding to draw: none once the sentence has been emptied; a model that reads no typed sentence (an
        image model) draws the input it was given, whatever the hidden sentence field keeps for the next text
        model."""
        if self.model is not None and not self.reads_sentence:
            return self.source
        return self.source if self.reads_sentence and self.text.strip() else None

    @property
    def finished(self) -> bool:
        return bool(self.steps) and self.steps[-1].finished and not self.stale

    @property
    def stale(self) -> bool:
        """The sentence changed since ``source`` was encoded (its new encoding is pending)."""
        return self.source is None or self.source.text != self.text

    @property
    def not_stepped(self) -> bool:
        """The sentence on show is a prompt whose maps are computed one at a time: its answer is not stepped (and
        not forced)."""
        return not self.stale and self.source is not None and self.source.on_demand is not None

    @property
    def can_step(self) -> bool:
        """Step makes sense: a translation model, a sentence, and a step to decode or to re-show (not for a prompt
        whose maps are computed one at a time: its answer is not stepped)."""
        if self.not_stepped:
            return False
        return self.decodes and bool(self.text.strip()) and (
            self.stale or not self.finished or self.position + 1 < len(self.steps))

    @property
    def can_run(self) -> bool:
        return self.can_step

    @property
    def can_reset(self) -> bool:
        return self.decodes and bool(self.text.strip())

    @property
    def can_force(self) -> bool:
        """Forcing target words makes sense: a sentence to decode, and one whose answer is stepped."""
        return self.can_reset and not self.not_stepped

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
