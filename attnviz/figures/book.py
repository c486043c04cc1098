"""What the app needs to know of the book's figures (attnviz.gallery computes them): their names, their
section (numbered in either edition: attnviz.figures.editions) and how the window shows each one live.
numpy/Qt/torch-free, so the GUI can hold them."""

from __future__ import annotations

from dataclasses import dataclass

from attnviz.figures.editions import SECTIONS, Section
from attnviz.figures.spec import AnyFigure

KERNEL_QUERY = 2.5  # the kernel-regression figures' query point x (the model's default)


@dataclass(frozen=True)
class Live:
    """The window state that shows an entry live: the shipped ``checkpoint`` (a file name in models/)
    loaded and its ``dock`` raised.

    Translation models: ``sentence`` greedy-decoded (beam 1) to its last step, the Attention panel on
    ``kind`` (an AttentionKind value) with all heads, or ``layer`` · ``head`` (0-based; a negative layer
    counts from the last), weights rather than scores, masked cells shown; in the Computation dock the
    query row ``query`` (-1: the newest) of that layer and head.
    Kernel regression: the non-parametric ``kernel`` with ``bandwidth``, the query line at ``query_x``,
    the heatmap on the ``parametric`` model's weights or the non-parametric ones.
    Compare dock: the sentence decoded by ``checkpoint`` and compared with ``compare_with`` (a file name in models/).
    ``note``: what the window shows of a figure it cannot show whole (one panel of several)."""

    checkpoint: str
    dock: str = "attention"
    sentence: str = ""
    kind: str = ""
    all_heads: bool = False
    layer: int = 0
    head: int = 0
    query: int = -1
    kernel: str = ""
    bandwidth: float = 1.0
    query_x: float = KERNEL_QUERY
    parametric: bool = False
    compare_with: str = ""
    note: str = ""


@dataclass(frozen=True)
class BookEntry:
    """One figure of the curriculum: ``key`` (its file stem, stable whatever the edition), its
    ``topic`` (a key of editions.SECTIONS) and a caption."""

    key: str
    topic: str
    caption: str
    live: Live | None = None

    @property
    def section(self) -> Section:
        return SECTIONS[self.topic]


@dataclass(frozen=True)
class BookFigure:
    """A computed entry: what Help ▸ Book figures shows and exports."""

    entry: BookEntry
    figure: AnyFigure
