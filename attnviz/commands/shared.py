"""What several commands share: the one-line error (:class:`CliError`, the exit codes, :func:`shown`, :func:`warn`),
SIGTERM's :class:`Terminated`, loading a checkpoint for a device and setting torch's threads, reading --text and
stdin's lines, the options and checks more than one command has, writing a batch of figure files, and starting Qt
only where a picture is asked for (:func:`pictures_ready`: numbers need no display)."""

from __future__ import annotations

import argparse
import os
import select
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from attnviz.core.layout import Capability
from attnviz.core.limits import MAX_BEAM
from attnviz.core.text import MAX_TEXT_BYTES, check_text_size, valid_text
from attnviz.i18n import N_, tr
from attnviz.paths import DEFAULT_CHECKPOINT

EXIT_USAGE = 2
EXIT_INTERNAL = 1
DEFAULT_BEAM = 4  # translate and eval: beam search scores about 1.5 BLEU above greedy (models/MODELS.md)
THREADS_HELP = N_("CPU threads for torch (default 1: steady speed on a busy machine)")
MASK_HEADS_HELP = N_("switch heads off: kind:layer.head, comma-separated, counted from 1, e.g. cross:2.1,enc:1.3 "
                     "(kinds: enc, dec, cross)")


class CliError(Exception):
    """A problem the user can fix; printed as one line on stderr, exit code 2."""


class Terminated(BaseException):
    """SIGTERM or SIGHUP (a closed terminal), raised where the program is so that it unwinds as Ctrl+C does:
    outputs in progress are taken back (staging folders, temporary files, a folder made for them) before the exit.
    ``signum``: which."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def shown(text: object) -> str:
    """``text`` safe for a terminal: control characters (ESC, BEL, OSC sequences …) written as escapes,
    so input echoed in a message can never move the cursor, retitle the window or ring a bell."""
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in str(text))


def warn(message: str) -> None:
    print(tr("attnviz: warning: {message}").format(message=shown(message)), file=sys.stderr)


def warn_about_source(source, max_len: int, line: int | None = None) -> None:
    """Say on stderr which words became <unk> and whether the input was cut to the model's limit."""
    where = tr("line {line}: ").format(line=line) if line is not None else ""
    if source.unknown:
        warn(tr("{where}unknown words mapped to <unk>: {words}").format(where=where, words=" ".join(source.unknown)))
    if source.truncated_from:
        warn(tr("{where}input of {count} tokens truncated to the model's limit of {most}").format(
            where=where, count=source.truncated_from, most=max_len))


def chosen_device(name: str):
    """--device as a torch device; CliError when it is not there."""
    from attnviz.core.device import DeviceUnavailableError, pick_device

    try:
        return pick_device(name)
    except DeviceUnavailableError as error:
        raise CliError(str(error)) from None


def set_threads(threads: int | None) -> None:
    """--threads for torch; CliError for a count it refuses."""
    from attnviz.core.device import set_threads as set_torch_threads

    try:
        set_torch_threads(threads)
    except ValueError as error:
        raise CliError(f"--threads: {error}") from None


def load_model(path: str, device_name: str):
    """The checkpoint (or model folder) at ``path`` loaded on --device: (loaded model, device); CliError if not."""
    from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint

    device = chosen_device(device_name)
    try:
        return load_checkpoint(path, device), device
    except CheckpointError as error:
        raise CliError(str(error)) from None


def check_beam(beam: int) -> None:
    """--beam within 1 to :data:`MAX_BEAM`, else CliError."""
    if not 1 <= beam <= MAX_BEAM:
        raise CliError(tr("--beam must be from 1 to {most}, got {beam}").format(most=MAX_BEAM, beam=beam))


def add_translation_model_options(cmd: argparse.ArgumentParser) -> None:
    """The options of a command that decodes with a translation model: --checkpoint, --device, --threads, --beam."""
    cmd.add_argument("--checkpoint", default=str(DEFAULT_CHECKPOINT),
                     help=tr("a .safetensors checkpoint (default: the shipped Transformer)"))
    cmd.add_argument("--device", default="auto", help=tr("auto, cpu, cuda, cuda:N or mps"))
    cmd.add_argument("--threads", type=int, help=tr(THREADS_HELP))
    cmd.add_argument("--beam", type=int, default=DEFAULT_BEAM,
                     help=tr("beam size (default {beam}; 1 = greedy, as the app steps by default)").format(
                         beam=DEFAULT_BEAM))
    cmd.add_argument("--batch-size", type=int, metavar="TOKENS",
                     help=tr("source tokens decoded at once, beams counted (default: 256 sentences a batch); "
                             "halved where the device runs out of memory"))


def batch_size_option(value: int | None) -> int | None:
    """--batch-size checked: None, or a number of tokens from 1 to 10,000,000."""
    if value is not None and not 1 <= value <= 10_000_000:
        raise CliError(tr("--batch-size must be from 1 to 10,000,000 tokens, got {value}").format(value=value))
    return value


def translation_model(args: argparse.Namespace):
    """The --checkpoint as a loaded translation model and its device; torch threads per --threads."""
    set_threads(args.threads)
    loaded, device = load_model(args.checkpoint, args.device)
    if not loaded.offers(Capability.DECODER):
        raise CliError(tr("{checkpoint}: a {kind} checkpoint does not translate").format(
            checkpoint=args.checkpoint, kind=loaded.kind))
    check_beam(args.beam)
    return loaded, device


def head_mask_of(loaded: Any, text: str | None):
    """--mask-heads for ``loaded``: the parsed mask (empty without the option); CliError for a bad one."""
    from attnviz.core.heads import GatesUnavailable, HeadMask, HeadMaskError, head_layout

    if text is None:
        return HeadMask()
    try:
        mask = HeadMask.parse(text, head_layout(loaded.model))
    except (HeadMaskError, GatesUnavailable) as error:
        raise CliError(f"--mask-heads {error}") from None
    if not mask:
        raise CliError(tr("--mask-heads names no head: give kind:layer.head, e.g. cross:2.1,enc:1.3"))
    return mask


def text_option(text: str) -> str:
    """--text as a sentence: over 64 KiB refused (CliError) before any tokenizer sees it; bytes that were not UTF-8
    (Python carries them as lone surrogates) become U+FFFD with a warning, as stdin's lines do."""
    try:
        check_text_size(text)
    except ValueError as error:
        raise CliError(f"--text: {error}") from None
    cleaned = valid_text(text)
    if cleaned != text:
        warn(tr("--text: bytes that are not UTF-8 were replaced by U+FFFD"))
    return cleaned


def input_batches(stream, most: int) -> Iterator[list[str]]:
    """Lines of ``stream`` in batches of up to ``most``: each batch holds the lines already available, so
    a batch job is decoded many sentences at a time while a person typing gets each answer at once."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (tests): plain iteration
        lines = [line.rstrip("\n") for line in stream]
        for begin in range(0, len(lines), most):
            yield lines[begin: begin + most]
        return
    pending, eof, number = b"", False, 0
    while pending or not eof:
        while b"\n" not in pending and not eof:  # block for at least one whole line
            if len(pending) > MAX_TEXT_BYTES:  # (never held whole: /dev/zero has no line end)
                raise CliError(_line_too_long(number + 1))
            chunk = os.read(fd, 1 << 16)
            eof = not chunk
            pending += chunk
        while not eof and pending.count(b"\n") < most and select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 1 << 16)
            eof = not chunk
            pending += chunk
        *lines, pending = pending.split(b"\n")
        if eof and pending:
            lines, pending = [*lines, pending], b""
        for begin in range(0, len(lines), most):
            batch = []
            for line in lines[begin: begin + most]:
                number += 1
                if len(line) > MAX_TEXT_BYTES:
                    raise CliError(_line_too_long(number))
                batch.append(_decoded_line(line, number))
            yield batch


def stdin_lines() -> Iterator[str]:
    """stdin's lines as text, one at a time, none held past 64 KiB (CliError naming the line: ``< /dev/zero`` is
    refused after 64 KiB, not read into memory); bytes that are not UTF-8 become U+FFFD, with a warning."""
    for number, line in _stdin_bytes():
        yield line.rstrip("\r\n") if isinstance(line, str) else _decoded_line(line, number)


def stdin_paths() -> Iterator[str]:
    """stdin's non-empty lines as file names, decoded as the file system decodes names (``os.fsdecode``): a name whose
    bytes are not UTF-8 still names its file. Lines over 64 KiB are refused as :func:`stdin_lines` refuses them."""
    for _number, line in _stdin_bytes():
        name = line.rstrip("\r\n") if isinstance(line, str) else os.fsdecode(line.rstrip(b"\r"))
        if name.strip():
            yield name


def _stdin_bytes() -> Iterator[tuple[int, bytes | str]]:
    """(number from 1, line without its end) of stdin, as bytes, none held past MAX_TEXT_BYTES (CliError); as text
    where stdin has no bytes beneath it (tests)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        yield from enumerate(sys.stdin, start=1)
        return
    number = 0
    while raw := stream.readline(MAX_TEXT_BYTES + 2):
        number += 1
        line = raw[:-1] if raw.endswith(b"\n") else raw
        if len(line) > MAX_TEXT_BYTES:
            raise CliError(_line_too_long(number))
        yield number, line


def _line_too_long(number: int) -> str:
    return tr("stdin: line {line} is over {kib} KiB: one sentence a line").format(line=number,
                                                                                  kib=MAX_TEXT_BYTES // 1024)


def _decoded_line(line: bytes, number: int) -> str:
    """One input line as text; bytes that are not UTF-8 become U+FFFD, with a warning (the rest of the
    input is still translated)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        text = line.decode("utf-8", errors="replace")
        warn(tr("line {number}: bytes that are not UTF-8 were replaced by U+FFFD").format(number=number))
    return text.rstrip("\r")


IMAGE_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM", b"II*\x00", b"MM\x00*")


def refuse_one_image(data: Path | str | None) -> None:
    """CliError when --data is one image file (its first bytes an image format's): the commands read a text file of
    sentences, or for an image model a folder of images — never a single image."""
    if data is None or not Path(data).is_file():
        return
    try:
        with open(data, "rb") as handle:
            start = handle.read(12)
    except OSError:
        return  # (the reader says what is wrong with it)
    if start.startswith(IMAGE_SIGNATURES) or (start[:4] == b"RIFF" and start[8:12] == b"WEBP"):
        raise CliError(tr("--data {data} is one image: give a text file of sentences, or for an image model a folder "
                          "of images").format(data=shown(data)))


def formats_option(text: str) -> list[str]:
    """--format as the list of file formats; CliError for an unknown one, or for a picture format where Qt cannot
    start (:func:`pictures_ready`: said before the work, not after)."""
    from attnviz.render.figure_files import ExportError, parse_formats

    try:
        formats = parse_formats(text)
    except ExportError as error:
        raise CliError(str(error)) from None
    pictures_ready(formats)
    return formats


def pictures_ready(formats: list[str], alternative: str | None = None) -> None:
    """Where ``formats`` hold a picture (png, svg, pdf): Qt imported and its offscreen application started, the one
    way every command reaches Qt (:func:`attnviz.render.offscreen.start_qt`); a command that writes numbers alone
    never imports it. CliError where Qt cannot start: one sentence naming the missing library and ``alternative``, a
    clause saying what to do instead (default: write the numbers alone with --format csv)."""
    from attnviz.render.offscreen import QtUnavailable, start_qt, wants_pictures

    if not wants_pictures(formats):
        return
    try:
        start_qt(alternative)
    except QtUnavailable as error:
        raise CliError(str(error)) from None


def check_scale_option(scale: float) -> None:
    """--scale within what the renderers draw; CliError naming --scale if not."""
    from attnviz.render.figure_files import ExportError, check_scale

    try:
        check_scale(scale)
    except ExportError as error:
        raise CliError(f"--scale: {error}") from None


def check_out_option(out: Path) -> None:
    """--out a folder that can be written into (or made); CliError naming --out if not."""
    from attnviz.render.figure_files import ExportError, check_output_folder

    try:
        check_output_folder(out)
    except ExportError as error:
        raise CliError(f"--out: {error}") from None


def refuse_replacing(args: argparse.Namespace, names: list[str]) -> None:
    """CliError when files of these names are in --out and --force is not given."""
    from attnviz.render.figure_files import batch_targets_in_the_way

    if not args.force and args.out.is_dir() and (in_the_way := batch_targets_in_the_way(args.out, names)):
        raise CliError(tr("{count} file(s) in {folder} would be replaced, e.g. {name}; add --force to replace "
                          "them").format(count=len(in_the_way), folder=args.out, name=in_the_way[0].name))


def write_batch(figures: list, args: argparse.Namespace, formats: list[str], sidecar: dict,
                extra_files: dict[str, bytes] | None = None,
                progress: Callable[[int, int], bool] | None = None) -> list[Path]:
    """export_batch into --out at --scale, replacing files only with --force; problems as CliError. ``progress``
    (done, total) after each file drawn."""
    from attnviz.render.figure_files import ExportError, WouldReplace, export_batch

    try:
        return export_batch(figures, args.out, formats, args.scale, sidecar, overwrite=args.force,
                            extra_files=extra_files, progress=progress)
    except WouldReplace as error:
        raise CliError(tr("{error}; add --force to replace them").format(error=error)) from None
    except ExportError as error:
        raise CliError(str(error)) from None


def write_with_figures(files: dict[str, bytes], figures: list, args: argparse.Namespace, formats: list[str],
                       sidecar: dict, progress: Callable[[int, int], bool] | None = None) -> list[Path]:
    """``files`` (name -> bytes) and ``figures`` drawn in memory at --scale, written into --out together (all or
    none: nothing half-written), replacing files only with --force; problems as CliError."""
    from attnviz.render.figure_files import ExportError, WouldReplace, render_batch, write_files_into

    try:
        drawn = render_batch(figures, formats, args.scale, sidecar, progress)
        return write_files_into(args.out, {**files, **drawn}, overwrite=args.force)
    except WouldReplace as error:
        raise CliError(tr("{error}; add --force to replace them").format(error=error)) from None
    except ExportError as error:
        raise CliError(str(error)) from None


def csv_bytes(rows: list[dict[str, Any]]) -> bytes:
    """``rows`` as CSV (UTF-8): every row's columns, those a row lacks written as not applicable."""
    import csv
    import io

    from attnviz.core.columns import NOT_APPLICABLE

    out = io.StringIO()
    names = list(dict.fromkeys(name for row in rows for name in row))  # (cross-attention's rows have more)
    writer = csv.DictWriter(out, fieldnames=names, restval=NOT_APPLICABLE, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})  # (round-trips)
    return out.getvalue().encode("utf-8", "backslashreplace")  # (a file name that is not UTF-8: \udcff, not a crash)
