"""Tasks whose right alignment is known, generated on the fly (nothing to download, nothing stored).

Each example is a source and a target token sequence and, for every target token, the source positions it
comes from (its *gold alignment*): copy is the diagonal, reverse the anti-diagonal, sort a permutation (a
repeated digit may come from any of its copies), dates a crossing (``march 14 2021`` → ``2021 03 14``: the
year comes from the last word, the month from the first, the day from the second).

Held-out inputs never appear in training: a fixed tenth of all inputs (by a CRC of the source text) is
reserved for them, so "freshly generated held-out inputs" are inputs the model has not seen. numpy-free,
torch-free.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from attnviz.core.text import RESERVED, Vocab, tokenize
from attnviz.i18n import N_, tr

DIGITS = tuple(str(d) for d in range(10))
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)  # (29: leap years' February; checked below)
YEARS = range(1950, 2050)
HELD_OUT_SHARE = 10  # one input in this many is kept for evaluation (by its CRC)


@dataclass(frozen=True)
class Example:
    """src and tgt tokens; gold[t]: the source positions target token t comes from (one, or a digit's copies)."""

    src: tuple[str, ...]
    tgt: tuple[str, ...]
    gold: tuple[frozenset[int], ...]


def is_held_out(src: tuple[str, ...]) -> bool:
    """Whether ``src`` belongs to the evaluation tenth of all inputs (never trained on)."""
    return zlib.crc32(" ".join(src).encode()) % HELD_OUT_SHARE == 0


def _digits(rng: random.Random, lengths: tuple[int, int]) -> tuple[str, ...]:
    return tuple(rng.choice(DIGITS) for _ in range(rng.randint(*lengths)))


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _date(rng: random.Random, lengths: tuple[int, int]) -> tuple[str, ...]:
    year = rng.choice(YEARS)
    month = rng.randrange(12)
    return MONTHS[month], str(rng.randint(1, _days_in(month, year))), str(year)


def _days_in(month: int, year: int) -> int:
    return 28 if month == 1 and not _is_leap(year) else MONTH_DAYS[month]


def _all_dates() -> list[tuple[str, ...]]:
    """Every input of the dates task (36,525: each day of 1950 to 2049)."""
    return [(MONTHS[month], str(day), str(year)) for year in YEARS for month in range(12)
            for day in range(1, _days_in(month, year) + 1)]


def _all_digits(src: tuple[str, ...]) -> bool:
    return bool(src) and all(token in DIGITS for token in src)


def _copy(src: tuple[str, ...]) -> Example | None:
    return Example(src, src, tuple(frozenset({i}) for i in range(len(src)))) if _all_digits(src) else None


def _reverse(src: tuple[str, ...]) -> Example | None:
    n = len(src)
    return Example(src, src[::-1], tuple(frozenset({n - 1 - i}) for i in range(n))) if _all_digits(src) else None


def _sort(src: tuple[str, ...]) -> Example | None:
    if not _all_digits(src):
        return None
    tgt = tuple(sorted(src))
    return Example(src, tgt, tuple(frozenset(i for i, d in enumerate(src) if d == digit) for digit in tgt))


def _rewrite_date(src: tuple[str, ...]) -> Example | None:
    if len(src) != 3 or src[0] not in MONTHS or not (src[1].isdecimal() and src[2].isdecimal()):
        return None
    month, day, year = MONTHS.index(src[0]), int(src[1]), int(src[2])
    if year not in YEARS or not 1 <= day <= _days_in(month, year) or src[1] != str(day):
        return None
    return Example(src, (str(year), f"{month + 1:02d}", f"{day:02d}"), (frozenset({2}), frozenset({0}), frozenset({1})))


@dataclass(frozen=True)
class Task:
    """A generated task: its name, what the window says of it, the alignment a trained model should show,
    the symbols its two sides use, a probe input, and its generator. (``label`` and ``alignment`` are in
    English, marked for the catalogue: ``tr`` them where they are shown.)"""

    name: str
    label: str
    alignment: str
    src_symbols: tuple[str, ...]
    tgt_symbols: tuple[str, ...]
    probe: str
    make_input: Callable[[random.Random, tuple[int, int]], tuple[str, ...]]
    solve: Callable[[tuple[str, ...]], Example | None]  # the right output and alignment; None: not an input
    lengths: tuple[int, int] = (3, 8)  # digits per input (the dates task ignores it)
    choice: str = ""  # the Train dock's entry: its short name, " — ", the picture its alignment makes
    score_name: str = N_("exact match")  # the held-out score: the share of inputs answered exactly right

    def accepts_probe(self, text: str) -> bool:
        """Whether ``text`` is an input of this task (as training reads it: lower-cased, tokenized)."""
        return self.solve(tuple(tokenize(text.lower()))) is not None

    @property
    def max_src_len(self) -> int:
        return 3 if self.name == "dates" else self.lengths[1]

    def distinct_inputs(self) -> int:
        """How many different inputs the task can make (dates: every day of :data:`YEARS`, 36,525; the digit
        tasks: every digit string of ``lengths``, 111,111,000 for 3 to 8 digits)."""
        if self.name == "dates":
            return len(_all_dates())
        low, high = self.lengths
        return sum(10**n for n in range(low, high + 1))

    def held_out_inputs(self) -> int | None:
        """How many distinct held-out inputs there are (dates: counted, 3,635), or None where there are too many to
        count quickly (the digit tasks: about a tenth of :meth:`distinct_inputs`)."""
        if self.name == "dates":
            return sum(is_held_out(src) for src in _all_dates())
        return None

    def vocabularies(self) -> tuple[Vocab, Vocab]:
        """The source and target vocabularies: every symbol the task can produce, in a fixed order."""
        return Vocab((*RESERVED, *self.src_symbols)), Vocab((*RESERVED, *self.tgt_symbols))

    def examples(self, count: int, seed: int, held_out: bool = False) -> list[Example]:
        """``count`` examples from ``seed``: training inputs only, or (``held_out``) evaluation inputs only.

        Inputs may repeat among training examples (the dates task has about 33,000 of them in all)."""
        return list(self.stream(seed, held_out, count))

    def stream(self, seed: int, held_out: bool = False, count: int | None = None) -> Iterator[Example]:
        """Examples without end (or ``count`` of them), reproducible from ``seed``."""
        rng = random.Random(f"{self.name}:{seed}:{held_out}")
        made = 0
        while count is None or made < count:
            src = self.make_input(rng, self.lengths)
            if is_held_out(src) == held_out:
                made += 1
                example = self.solve(src)
                assert example is not None  # (a generated input is always one)
                yield example


TASKS: dict[str, Task] = {task.name: task for task in (
    Task("copy", N_("copy the digits"), N_("the diagonal"), DIGITS, DIGITS, "3 1 4 1 5 9 2", _digits, _copy,
         choice=N_("copy — the diagonal")),
    Task("reverse", N_("reverse the digits"), N_("the anti-diagonal"), DIGITS, DIGITS, "3 1 4 1 5 9 2", _digits,
         _reverse, choice=N_("reverse — the anti-diagonal")),
    Task("sort", N_("sort the digits"), N_("each output digit on where it came from"), DIGITS, DIGITS,
         "3 1 4 1 5 9 2", _digits, _sort, choice=N_("sort — a permutation")),
    Task("dates", N_("rewrite a date as year month day"),
         N_("crossing: year ← last word, month ← first, day ← second"),
         (*MONTHS, *(str(d) for d in range(1, 32)), *(str(y) for y in YEARS)),
         (*(str(y) for y in YEARS), *(f"{d:02d}" for d in range(1, 32))), "march 14 2021", _date,
         _rewrite_date, choice=N_("dates — crossing lines")),
)}


def task_named(name: str) -> Task:
    """The task called ``name``; KeyError names the known ones."""
    try:
        return TASKS[name]
    except KeyError:
        raise KeyError(tr("unknown task {name!r}; known: {known}").format(name=name, known=", ".join(TASKS))) from None
