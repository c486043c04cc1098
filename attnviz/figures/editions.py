"""The attention chapter's section numbers and titles in the two editions students read: d2l 0.17 and
《动手学深度学习》第二版 number it chapter 10, d2l 1.0 (d2l.ai today) chapter 11. The one place that knows
them: the book figures, ``attnviz figures`` and its index page all ask here. Qt- and torch-free."""

from __future__ import annotations

from dataclasses import dataclass

from attnviz import i18n
from attnviz.i18n import N_, tr

EDITIONS = ("0.17", "1.0")  # the first is the default: the project's notes follow it
DEFAULT_EDITION = EDITIONS[0]
# (marked, not translated: shown through tr(); in Chinese the first is 《动手学深度学习》第二版, whose section
# titles are Section.chinese)
EDITION_NAMES = {"0.17": N_("d2l 0.17 / the Chinese 2nd edition (chapter 10)"),
                 "1.0": N_("d2l 1.0, d2l.ai today (chapter 11)")}
SHORT_NAMES = {"0.17": "d2l 0.17", "1.0": "d2l 1.0"}
# A figure the edition shown does not have is marked so, in the book's words (in Chinese 补充图), and comes after
# the book's own figures: in Help ▸ Book figures under NOT_IN_BOOK_HEADING, in ``attnviz figures``' index last,
# its file named SUPPLEMENT_PREFIX-<number>-… (after the book's, attnviz's and the paper's files)
NOT_IN_BOOK = N_("not in the book")
NOT_IN_BOOK_HEADING = N_("Not in the book")
SUPPLEMENT_PREFIX = "supplement"


@dataclass(frozen=True)
class Section:
    """One section of the chapter: its number and title in each edition (``numbers["0.17"]`` = "10.6");
    a section outside the book (the Transformer paper, attnviz's own) has the same number and title in both
    and ``book`` False. A section only one edition has (d2l 1.0's 11.8 Transformers for Vision) has that
    edition's number and title only: the other edition shows it by them ("d2l 1.0: 11.8"), never by a number
    of its own that belongs to another section."""

    numbers: dict[str, str]
    titles: dict[str, str]
    chinese: str = ""  # the section's title in 《动手学深度学习》第二版 (zh.d2l.ai)
    book: bool = False  # a section of the book's attention chapter (numbered 10.x / 11.x)

    def has(self, edition: str) -> bool:
        """Whether ``edition`` has this section."""
        return edition in self.numbers

    def _edition_with(self, edition: str) -> str:
        """``edition`` where it has the section, else the edition that has it."""
        return edition if self.has(edition) else next(e for e in EDITIONS if self.has(e))

    def number(self, edition: str) -> str:
        """The number in ``edition``; where it lacks the section, the other edition's (what its files are named by)."""
        return self.numbers[self._edition_with(edition)]

    def title(self, edition: str) -> str:
        """The title in the interface's language: in Chinese, the Chinese 2nd edition's own title for the
        chapter-10 numbering (which is that edition's), a translation of d2l 1.0's for the other."""
        own = self._edition_with(edition)
        if i18n.language() == i18n.CHINESE:
            return self.chinese if own == "0.17" and self.chinese else tr(self.titles[own])
        return self.titles[own]

    def shown_number(self, edition: str) -> str:
        """The number as a reader sees it ("paper §3.2.1" says "paper" in the interface's language)."""
        return _shown(self.number(edition))

    def other_number(self, edition: str) -> str | None:
        """The other edition's number, or None where it numbers it alike or lacks the section."""
        other = next(e for e in EDITIONS if e != edition)
        number = self.numbers.get(other)
        return number if number is not None and number != self.numbers.get(edition) else None

    def heading(self, edition: str) -> str:
        """``10.6 (d2l 1.0: 11.6) Self-Attention and Positional Encoding``: the other
        edition's number right after this one's, where a narrow list still shows it."""
        return f"{self.numbered(edition)} {self.title(edition)}"

    def numbered(self, edition: str) -> str:
        """``10.6 (d2l 1.0: 11.6)``, or just the number where both editions share it or only ``edition`` has the
        section (``11.8``); where ``edition`` lacks it, the other edition's, named (``d2l 1.0: 11.8``)."""
        other_edition = next(e for e in EDITIONS if e != edition)
        if not self.has(edition):
            return f"{SHORT_NAMES[other_edition]}: {_shown(self.numbers[other_edition])}"
        other = self.other_number(edition)
        if other is None:
            return _shown(self.numbers[edition])
        return f"{_shown(self.numbers[edition])} ({SHORT_NAMES[other_edition]}: {_shown(other)})"

    def matches(self, prefix: str) -> bool:
        """Whether either edition's number starts with ``prefix`` (``--only 10.6`` and ``--only 11.6`` alike)."""
        return any(number.startswith(prefix) for number in self.numbers.values())


def _shown(number: str) -> str:
    return tr("paper {where}").format(where=tr(number[6:])) if number.startswith("paper ") else number


def _book(old: str, old_title: str, chinese: str, new: str, new_title: str) -> Section:
    return Section({"0.17": old, "1.0": new}, {"0.17": old_title, "1.0": new_title}, chinese, book=True)


def _new_only(new: str, new_title: str) -> Section:
    """A section only d2l 1.0 has."""
    return Section({"1.0": new}, {"1.0": new_title}, book=True)


def _own(title: str, chinese: str, number: str = "attnviz") -> Section:
    """A section of attnviz's own (numbered ``number`` in both editions): figures the book does not have."""
    return Section({edition: number for edition in EDITIONS}, {edition: title for edition in EDITIONS}, chinese)


def _paper(where: str) -> Section:
    number, title = f"paper {where}", "“Attention Is All You Need”"
    return Section({edition: number for edition in EDITIONS}, {edition: title for edition in EDITIONS})


SECTIONS: dict[str, Section] = {
    "cues": _book("10.1", N_("Attention Cues"), "注意力提示", "11.1", N_("Queries, Keys, and Values")),
    "pooling": _book("10.2", N_("Attention Pooling: Nadaraya-Watson Kernel Regression"),
                     "注意力汇聚：Nadaraya-Watson 核回归", "11.2", N_("Attention Pooling by Similarity")),
    "scoring": _book("10.3", N_("Attention Scoring Functions"), "注意力评分函数", "11.3",
                     N_("Attention Scoring Functions")),
    "bahdanau": _book("10.4", N_("Bahdanau Attention"), "Bahdanau 注意力", "11.4",
                      N_("The Bahdanau Attention Mechanism")),
    "multi-head": _book("10.5", N_("Multi-Head Attention"), "多头注意力", "11.5", N_("Multi-Head Attention")),
    "self-attention": _book("10.6", N_("Self-Attention and Positional Encoding"), "自注意力和位置编码", "11.6",
                            N_("Self-Attention and Positional Encoding")),
    "transformer": _book("10.7", N_("Transformer"), "Transformer", "11.7", N_("The Transformer Architecture")),
    # d2l 1.0 meets decoder-only models (GPT) in 11.9 and vision transformers in 11.8; d2l 0.17 / 第二版 has neither
    # section (its 10.7 is the Transformer's own): their figures are numbered by d2l 1.0 in both editions
    "decoder-only": _new_only("11.9", N_("Large-Scale Pretraining with Transformers")),
    "vision": _new_only("11.8", N_("Transformers for Vision")),
    "watch": _own(N_("Watching attention learn (tasks whose right alignment is known)"),
                  "观察注意力的学习过程（对齐已知的任务）"),
    "modern": _own(N_("Attention in today's models"), "当今模型中的注意力", "modern"),
    "paper-scaling": _paper("§3.2.1"),
    "paper-training": _paper("§5.3"),
    "paper-table-1": _paper(N_("Table 1")),
}


def edition_of(text: str) -> str:
    """``text`` as an edition ("0.17" or "1.0"); ValueError naming the choices otherwise."""
    if text in EDITIONS:
        return text
    raise ValueError(tr("unknown book edition {text}; choose {choices} ({names})").format(
        text=repr(text), choices=tr(" or ").join(EDITIONS),
        names="; ".join(f"{e}: {tr(name)}" for e, name in EDITION_NAMES.items())))
