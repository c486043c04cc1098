"""What the app needs to know of the book's figures (attnviz.gallery computes them): their names, their
section (numbered in either edition: attnviz.figures.editions) and how the window shows each one live.
numpy/Qt/torch-free, so the GUI can hold them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from attnviz.figures.editions import EDITIONS, NOT_IN_BOOK, SECTIONS, SUPPLEMENT_PREFIX, Section
from attnviz.figures.spec import AnyFigure
from attnviz.i18n import tr

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
    Image models: ``image`` (a file name in resources/samples) opened, the ``dock`` raised, the Attention panel on
    ``layer`` · ``head`` (a head of None: the heads' mean where the dock offers it).
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
    image: str = ""


@dataclass(frozen=True)
class BookEntry:
    """One figure of the curriculum: its name ``key`` (``10.6-pe-table``: stable whatever the edition, what
    ``--only`` and the window ask for), its ``topic`` (a key of editions.SECTIONS), a caption, and
    ``editions``: those of EDITIONS whose book has this figure (a figure of a book section missing from the
    edition shown is a supplementary one there: marked "not in the book" and listed after the book's own)."""

    key: str
    topic: str
    caption: str
    live: Live | None = None
    editions: tuple[str, ...] = EDITIONS

    @property
    def section(self) -> Section:
        return SECTIONS[self.topic]

    def supplementary(self, edition: str) -> bool:
        return supplementary(self, edition)

    def label(self, edition: str) -> str:
        return label(self, edition)

    def heading(self, edition: str) -> str:
        return heading(self, edition)

    def file_stem(self, edition: str) -> str:
        return file_stem(self, edition)


class Entry(Protocol):
    """What numbering needs of an entry (BookEntry here, the gallery's GalleryEntry)."""

    @property
    def key(self) -> str: ...

    @property
    def editions(self) -> tuple[str, ...]: ...

    @property
    def section(self) -> Section: ...


E = TypeVar("E", bound=Entry)


def supplementary(entry: Entry, edition: str) -> bool:
    """Whether ``entry`` goes with a section of the book whose ``edition`` does not have this figure."""
    return entry.section.book and edition not in entry.editions


def label(entry: Entry, edition: str) -> str:
    """``10.6 (d2l 1.0: 11.6)``; a supplementary figure's ``not in the book · 10.2 (d2l 1.0: 11.2)`` (the section
    it goes with)."""
    numbered = entry.section.numbered(edition)
    return f"{tr(NOT_IN_BOOK)} · {numbered}" if supplementary(entry, edition) else numbered


def heading(entry: Entry, edition: str) -> str:
    """The entry's label and its section's title."""
    return f"{label(entry, edition)} {entry.section.title(edition)}"


def file_stem(entry: Entry, edition: str) -> str:
    """The entry's file name in ``edition`` (no suffix): its section's number there and the key's name,
    ``11.6-pe-table``; a supplementary figure's ``supplement-10.5-heads``; attnviz's and the paper's: the key."""
    if not entry.section.book:
        return entry.key
    stem = f"{entry.section.number(edition)}-{entry.key.split('-', 1)[1]}"
    return f"{SUPPLEMENT_PREFIX}-{stem}" if supplementary(entry, edition) else stem


def in_edition_order(entries: Iterable[E], edition: str) -> list[E]:
    """``entries`` as ``edition`` lists them: the book's own figures, attnviz's and the paper's, then the
    supplementary ones (each group in the order given)."""

    def rank(entry: E) -> int:
        return 2 if supplementary(entry, edition) else 0 if entry.section.book else 1

    return sorted(entries, key=rank)


@dataclass(frozen=True)
class BookFigure:
    """A computed entry: what Help ▸ Book figures shows and exports."""

    entry: BookEntry
    figure: AnyFigure
