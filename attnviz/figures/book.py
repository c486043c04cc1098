"""What the app needs to know of the book's figures (attnviz.gallery computes them): their names and
how the window shows each one live. numpy/Qt/torch-free, so the GUI can hold them."""

from __future__ import annotations

from dataclasses import dataclass

from attnviz.figures.spec import AnyFigure


@dataclass(frozen=True)
class Live:
    """What the window shows an entry with, live: the shipped ``checkpoint`` (a file name in models/)
    loaded and ``dock`` raised; for a translation model, ``sentence`` decoded to the end with the
    Attention panel on ``kind`` (an AttentionKind value), all heads or layer 1 · head 1."""

    checkpoint: str
    dock: str = "attention"
    sentence: str = ""
    kind: str = ""
    all_heads: bool = False


@dataclass(frozen=True)
class BookEntry:
    """One figure of the curriculum: ``key`` (its file stem), the book's section and a caption."""

    key: str
    section: str
    caption: str
    live: Live | None = None


@dataclass(frozen=True)
class BookFigure:
    """A computed entry: what Help ▸ Book figures shows and exports."""

    entry: BookEntry
    figure: AnyFigure
