"""The sentences a head atlas is computed over, and how they are split into batches and processes.

A corpus file holds one source sentence a line, or ``source<TAB>reference`` lines; sentences are read and grouped
as ``attnviz eval`` groups them (every reference of a source kept, sources in first-seen order). The batches are
those of :func:`attnviz.core.decoding.beam_search.translate` (sorted by length, 256 rows at a time), so one process
decodes exactly what ``eval`` decodes; the batches are dealt to the N processes in turn (the same batches whatever N
is, so N processes add up to one process's numbers).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from attnviz.core.safe_output import kind_of
from attnviz.core.text import SourceWords, Vocab, preprocess, source_words, tokenize
from attnviz.i18n import tr

MAX_LINE_BYTES = 64 * 1024  # a sentence takes a few hundred bytes; a longer line is refused, never held whole
MAX_DOCUMENT_LINE_BYTES = 1024 * 1024  # a document of 4,096 tokens takes tens of KiB; it is cut to the positions
ROWS_PER_BATCH = 256  # as core.decoding.translate
PROGRESS_LINES = 1000  # a reader's progress is said after every this many lines (a 200,000-line file: 200 times)

ReadProgress = Callable[[int, int], object]  # (bytes read, the file's bytes): how far a file has been read


class CorpusError(ValueError):
    """A corpus file attnviz cannot use (one readable line naming the file and the line)."""


@dataclass(frozen=True)
class Corpus:
    """Distinct source sentences (preprocessed words) and, per source, every reference (preprocessed text), or
    None when the file has no references."""

    sources: tuple[tuple[str, ...], ...]
    references: tuple[tuple[str, ...], ...] | None

    def __len__(self) -> int:
        return len(self.sources)


def check_data_file(path: str | Path) -> Path:
    """``path`` if it names something to read text from: a file, or a pipe (``--data <(zcat corpus.gz)``); else
    CorpusError saying what it is (missing, a folder, a device …), without opening it (a device never blocks)."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if os.path.islink(path):
            raise CorpusError(tr("{link} is a symbolic link to {target}, which does not exist").format(
                link=path, target=os.readlink(path))) from None
        raise CorpusError(tr("{path}: no such file").format(path=path)) from None
    except OSError as error:
        raise CorpusError(tr("{path} cannot be read: {reason}").format(path=path, reason=error.strerror)) from None
    if stat.S_ISDIR(mode):
        raise CorpusError(tr("{path} is a folder: give a text file, one sentence a line").format(path=path))
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        raise CorpusError(tr("{path} is {kind}, not a text file: give a text file, one sentence a line").format(
            path=path, kind=kind_of(mode)))
    return path


def data_lines(path: str | Path, documents: bool = False,
               progress: ReadProgress | None = None) -> Iterator[tuple[int, str]]:
    """(line number from 1, its text without the line end) of the text file at ``path``, read a line at a time and
    none held past MAX_LINE_BYTES (MAX_DOCUMENT_LINE_BYTES for ``documents``, one document a line): CorpusError for a
    name that is no text file (:func:`check_data_file`), a longer line, a NUL byte or a line that is not UTF-8 —
    whatever the file's size, at most one such line is held at once. ``progress(bytes read, the file's bytes)`` every
    :data:`PROGRESS_LINES` lines and at the end, for a regular file (a pipe's size is not known: not called)."""
    path = check_data_file(path)
    try:
        with open(path, "rb") as handle:
            status = os.fstat(handle.fileno())
            size = status.st_size if stat.S_ISREG(status.st_mode) else 0
            yield from _checked_lines(handle, path, documents, progress if size else None, size)
    except OSError as error:
        raise CorpusError(tr("{path} cannot be read: {reason}").format(path=path, reason=error.strerror)) from None


def _checked_lines(handle: BinaryIO, path: Path, documents: bool, progress: ReadProgress | None,
                   size: int) -> Iterator[tuple[int, str]]:
    number = read = 0
    most = MAX_DOCUMENT_LINE_BYTES if documents else MAX_LINE_BYTES
    while raw := handle.readline(most + 1):
        number += 1
        read += len(raw)
        if progress is not None and number % PROGRESS_LINES == 0:
            progress(min(read, size), size)  # (a file that grows while it is read: never past 100 %)
        if len(raw) > most and not raw.endswith(b"\n"):
            if documents:
                raise CorpusError(tr("{path}: line {line} is over {kib:,} KiB: one document a line (each is cut to "
                                     "the model's positions)").format(path=path, line=number, kib=most // 1024))
            raise CorpusError(tr("{path}: line {line} is over {kib} KiB: one sentence a line").format(
                path=path, line=number, kib=most // 1024))
        if b"\0" in raw:
            raise CorpusError(tr("{path} is not a text file (line {line} holds a NUL byte)").format(
                path=path, line=number))
        try:
            yield number, raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            raise CorpusError(tr("{path}: line {line} is not UTF-8 text").format(path=path, line=number)) from None
    if progress is not None and number >= PROGRESS_LINES:  # (a short file is read at once: no line about it)
        progress(size, size)


def read_corpus(path: str | Path, limit: int | None = None, progress: ReadProgress | None = None) -> Corpus:
    """The corpus in ``path`` (its first ``limit`` distinct sources); CorpusError for an empty or binary file,
    a line that is not UTF-8 or over 64 KiB, and a file where some lines have a reference and others not.
    ``progress(bytes read, the file's bytes)`` as it is read (:func:`data_lines`)."""
    grouped: dict[tuple[str, ...], list[str]] = {}
    with_reference: int | None = None  # the first line's choice, and its number
    first_line = 0
    for number, line in data_lines(path, progress=progress):
        if not line.strip():
            continue
        fields = line.split("\t")
        source = tuple(tokenize(preprocess(fields[0])))
        has_reference = len(fields) > 1
        if with_reference is None:
            with_reference, first_line = int(has_reference), number
        elif has_reference != bool(with_reference):
            template = tr("{path}: line {line} has a reference but line {first} has none: give every line a "
                          "reference (source<TAB>reference) or none") if has_reference else tr(
                "{path}: line {line} has no reference but line {first} has one: give every line a reference "
                "(source<TAB>reference) or none")
            raise CorpusError(template.format(path=path, line=number, first=first_line))
        reference = " ".join(tokenize(preprocess(fields[1]))) if has_reference else ""
        if not source or (has_reference and not reference):
            raise CorpusError((tr("{path}: line {line} has an empty source") if not source else
                               tr("{path}: line {line} has an empty reference")).format(path=path, line=number))
        if source not in grouped:
            if limit is not None and len(grouped) >= limit:
                continue
            grouped[source] = []
        if has_reference and reference not in grouped[source]:
            grouped[source].append(reference)
    if not grouped:
        raise CorpusError(tr("{path} is empty: give one source sentence a line, or source<TAB>reference lines"
                             ).format(path=path))
    references = tuple(tuple(refs) for refs in grouped.values()) if with_reference else None
    return Corpus(tuple(grouped), references)


def split_sources(corpus: Corpus, vocab: Vocab, max_len: int) -> tuple[list[SourceWords], int]:
    """Each source as the model reads it (cut to ``max_len``, as ``eval`` cuts it), and how many were cut."""
    splits = [source_words(" ".join(words), vocab, max_len) for words in corpus.sources]
    return splits, sum(split.truncated_from is not None for split in splits)


def plan_batches(lengths: list[int], beam_size: int, rows: int = ROWS_PER_BATCH,
                 row_bytes: Callable[[int], int] | None = None, budget: int = 0) -> list[list[int]]:
    """Sentence indices in batches: sorted by length (ties in order), ``rows // beam_size`` a batch (the default:
    translate's batches). Given ``row_bytes`` (a sentence's length in tokens -> bytes one decoded row of it takes),
    a batch also stops before its rows (sentences × ``beam_size``) × row_bytes(its longest) would pass ``budget``
    bytes (a sentence that passes it alone is a batch alone): the peak is one batch's, whatever the corpus's size."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    size = max(1, rows // beam_size)
    batches: list[list[int]] = []
    for i in order:  # (ascending: sentence i is the longest of the batch it joins)
        fits = row_bytes is None or (len(batches[-1]) + 1) * beam_size * row_bytes(lengths[i]) <= budget \
            if batches else False
        if batches and len(batches[-1]) < size and fits:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


def shard(batches: list[list[int]], rank: int, world: int) -> list[list[int]]:
    """The batches process ``rank`` of ``world`` takes, dealt back and forth (0 1 1 0 0 1 …: the batches grow
    longer, so every process gets short and long ones alike)."""
    def dealt_to(k: int) -> int:
        turn, seat = divmod(k, world)
        return seat if turn % 2 == 0 else world - 1 - seat
    return [batch for k, batch in enumerate(batches) if dealt_to(k) == rank]
