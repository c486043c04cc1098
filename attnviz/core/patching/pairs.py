"""Minimal pairs read from a file: one per line, ``clean<TAB>corrupt<TAB>answer<TAB>alternative``.

The metric of a pair is logit(answer) − logit(alternative) (:mod:`attnviz.core.patching.inputs` says where it is
read). Blank lines and lines starting with ``#`` are skipped; any other line without exactly four non-empty fields is
refused with its line number (:class:`PairsError`), as is a file that is not UTF-8 or has no pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from attnviz.core.text import MAX_TEXT_BYTES
from attnviz.i18n import tr

MAX_PAIRS = 100_000  # more lines than this are refused before any is patched


class PairsError(ValueError):
    """A pairs file or a pair that cannot be patched (one readable sentence, with the line number where it has one)."""


@dataclass(frozen=True)
class MinimalPair:
    """One minimal pair: the clean and corrupt texts, the answer and the alternative (each one token of the model's
    output vocabulary), and the line of the file it came from (0 where it was generated)."""

    clean: str
    corrupt: str
    answer: str
    alternative: str
    line: int = 0

    def where(self) -> str:
        """"line N: " for a pair read from a file, "" for a generated one (a message's start)."""
        return tr("line {line}: ").format(line=self.line) if self.line else ""


def parse_pairs(text: str) -> list[MinimalPair]:
    """The pairs of a file's text, in order (PairsError naming the first bad line)."""
    pairs = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if len(line.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
            raise PairsError(tr("line {line}: longer than {most:,} bytes").format(line=number, most=MAX_TEXT_BYTES))
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) != 4 or not all(fields):
            raise PairsError(tr("line {line}: a pair is four fields separated by tabs, clean, corrupt, answer and "
                                "alternative; this line has {count}").format(
                line=number, count=sum(1 for f in fields if f)))
        if fields[2] == fields[3]:
            raise PairsError(tr("line {line}: the answer and the alternative are the same token").format(line=number))
        pairs.append(MinimalPair(fields[0], fields[1], fields[2], fields[3], line=number))
        if len(pairs) > MAX_PAIRS:
            raise PairsError(tr("more than {most:,} pairs: split the file").format(most=MAX_PAIRS))
    if not pairs:
        raise PairsError(tr("the file has no pair (clean<TAB>corrupt<TAB>answer<TAB>alternative per line)"))
    return pairs


def read_pairs(path: str | Path) -> list[MinimalPair]:
    """The pairs of the file at ``path`` (PairsError if it cannot be read, is not UTF-8, or has a bad line)."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise PairsError(tr("cannot read {path}: {reason}").format(path=path, reason=error.strerror or error)) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise PairsError(tr("line {line}: not UTF-8 text").format(line=line)) from None
    return parse_pairs(text)
