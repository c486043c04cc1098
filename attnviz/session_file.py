"""Saved sessions: a small JSON file that brings a view back (File ▸ Save session / Open session, and
``attnviz export --session``). Qt-free and torch-free.

The file names the checkpoint (its absolute path, its path relative to the session file, and its
SHA-256, so a changed checkpoint is noticed), the sentence, the decoding options, how many steps were
decoded with the tokens the user forced, the step on show and the Attention panel's view; for a
kernel-regression model, the kernel, bandwidth and query instead of a sentence.
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import json
import math
import os
import re
import stat
from collections.abc import Sized
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.checkpoints.header import checkpoint_file_problem
from attnviz.core.limits import BANDWIDTH_CHOICES, MAX_BEAM, bandwidth_choosable
from attnviz.core.results import KERNELS
from attnviz.core.safe_output import atomic_output
from attnviz.figures.attention import AttentionView
from attnviz.i18n import tr

FORMAT = "attnviz-session"
VERSION = 1
SUFFIX = ".attnviz.json"
MAX_FILE_BYTES = 1_000_000  # a session is a few hundred bytes; anything this big is not one
MAX_SENTENCE_CHARS = 10_000
MAX_STEPS = 1_000
MAX_INDEX = 1_000  # layers, heads
MAX_HEADS_OFF_CHARS = 20_000  # ("cross:12.16," is 12 characters: every head of a large model)
HEADS_OFF = re.compile(r"([a-z-]+:\d{1,4}\.\d{1,4}(,[a-z-]+:\d{1,4}\.\d{1,4})*)?")  # (checked against the model later)
MAX_QUERY = 100.0  # the query x (the book's data lie in [0, 5])
MAX_PATH_CHARS, MAX_NAME_BYTES = 4096, 255  # Linux's PATH_MAX and NAME_MAX: a longer path names no file
SHOWN_PATH_CHARS = 240  # a path longer than this is shortened in messages (its start … its end)


class SessionFileError(ValueError):
    """A session file that cannot be read or written; the message says which and why."""


class CheckpointOutside(SessionFileError):
    """The session's checkpoint is missing where it was saved, and its path relative to the session leads
    out of the session's folder, to ``path``: not followed unless the user confirms (the window asks)."""

    def __init__(self, message: str, path: Path):
        super().__init__(message)
        self.path = path


def shown_path(path: str | Path) -> str:
    """``path`` for a message: a very long one (10,000 characters) is shortened to its start and end."""
    text = str(path)
    half = SHOWN_PATH_CHARS // 2
    if len(text) <= SHOWN_PATH_CHARS:
        return text
    return tr("{start}…{end} ({count:,} characters)").format(start=text[:half], end=text[-half:], count=len(text))


@dataclass(frozen=True)
class SavedKernel:
    """The kernel-regression view: kernel name, bandwidth h and query x."""

    kernel: str = "gaussian"
    bandwidth: float = 1.0
    query: float = 2.5


@dataclass(frozen=True)
class SavedSession:
    """What a session file holds. plan: one entry per decoded step, the token the user forced there or
    None (the model's own choice); position: the step on show (-1: before the first)."""

    checkpoint: Path
    checkpoint_sha256: str
    sentence: str = ""
    beam_size: int = 1
    plan: tuple[str | None, ...] = ()
    position: int = -1
    view: AttentionView = field(default_factory=AttentionView)
    kernel: SavedKernel | None = None
    checkpoint_relative: str | None = None  # to the session file's folder, when it was saved
    heads_off: str = ""  # the heads switched off (``cross:2.1,enc-self:1.3``), "" when every head is on
    image: str = ""  # the image on show (an image model's; a relative path is read against the session file's folder),
    # "" for a sentence; read as a user's own file, never followed before the window asks to open it (it is opened
    # like File ▸ Open image, with its checks)


def sha256_of(path: str | Path) -> str:
    """The SHA-256 of a file, read in chunks (hex); of a model folder (a Hugging Face model), the SHA-256 of
    its config.json and of its other files' names and sizes — a retrained or replaced model changes it, a
    copy does not, and hundreds of MB of weights are not read. An entry that cannot be looked at (a
    dangling link) counts by its name alone."""
    digest = hashlib.sha256()
    if Path(path).is_dir():
        for member in sorted(Path(path).iterdir()):
            try:
                info = member.stat()
                size = info.st_size
                content = member.read_bytes() if member.name == "config.json" and stat.S_ISREG(info.st_mode) and \
                    size < 1 << 20 else b""  # (only a regular file is read: a FIFO or /dev/zero never ends)
            except OSError:
                size, content = -1, b""
            digest.update(f"{member.name}\0{size}\n".encode("utf-8", "surrogateescape") + content)
        return digest.hexdigest()
    with open(path, "rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def to_json(saved: SavedSession) -> str:
    view = saved.view
    data: dict[str, Any] = {
        "format": FORMAT, "version": VERSION,
        "checkpoint": str(saved.checkpoint), "checkpoint_relative": saved.checkpoint_relative,
        "checkpoint_sha256": saved.checkpoint_sha256,
        "sentence": saved.sentence, "beam_size": saved.beam_size,
        "steps": [{"forced": token} for token in saved.plan], "position": saved.position,
        "view": {"kind": view.kind.value, "layer": view.layer + 1, "head": view.head + 1, "scores": view.scores,
                 "show_masked": view.show_masked, "all_heads": view.all_heads},
    }
    if saved.heads_off:
        data["heads_off"] = saved.heads_off
    if saved.image:
        data["image"] = saved.image
    if saved.kernel is not None:
        data["kernel"] = {"kernel": saved.kernel.kernel, "bandwidth": saved.kernel.bandwidth,
                          "query": saved.kernel.query}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_session(saved: SavedSession, path: str | Path) -> Path:
    """Write ``saved`` to ``path`` atomically (complete or not at all); never replaces a folder.
    The checkpoint's path relative to the file's folder is recorded too (sessions move with their models)."""
    path = Path(path).expanduser()
    if path.is_dir():
        raise SessionFileError(tr("{path} is a folder: choose a file name for the session").format(path=path))
    try:
        relative = os.path.relpath(saved.checkpoint, path.resolve().parent)
    except ValueError:  # another drive (Windows)
        relative = None
    text = to_json(SavedSession(**{**saved.__dict__, "checkpoint_relative": relative}))
    try:
        with atomic_output(path) as tmp:
            tmp.write_text(text, encoding="utf-8")
    except OSError as error:
        raise SessionFileError(tr("could not save the session to {path}: {reason}").format(
            path=path, reason=error.strerror or error)) from None
    return path


def read_session(path: str | Path) -> SavedSession:
    """Read and check a session file; SessionFileError says what is wrong with it."""
    path = Path(path).expanduser()
    name = shown_path(path)
    try:
        if path.is_dir():
            raise SessionFileError(tr("{name} is a folder, not a session file").format(name=name))
        if not stat.S_ISREG(path.stat().st_mode):  # a device or a pipe could be endless
            raise SessionFileError(tr("{name} is not a regular file").format(name=name))
        with open(path, "rb") as stream:
            raw = stream.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise SessionFileError(tr("{name} is too large to be an attnviz session (over {most:,} bytes)").format(
                name=name, most=MAX_FILE_BYTES))
        text = raw.decode("utf-8")
    except SessionFileError:
        raise
    except FileNotFoundError:
        raise SessionFileError(tr("there is no session file {name}").format(name=name)) from None
    except UnicodeDecodeError:
        raise SessionFileError(tr("{name} is not an attnviz session (not UTF-8 text)").format(name=name)) from None
    except OSError as error:
        raise SessionFileError(tr("could not read the session {name}: {reason}").format(
            name=name, reason=_why(error))) from None
    except ValueError:  # a NUL character in the name
        raise SessionFileError(tr("{name} is not a usable file name").format(name=name)) from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:  # (a 5,000-digit number is a ValueError, not a JSONDecodeError)
        raise SessionFileError(tr("{name} is not an attnviz session (not JSON: {error})").format(
            name=name, error=error)) from None
    try:
        saved = _parse(data)
    except SessionFileError as error:
        raise SessionFileError(f"{name}: {error}") from None
    if saved.image and not Path(saved.image).expanduser().is_absolute():  # (relative to the session, as its checkpoint)
        saved = dataclasses.replace(saved, image=str(path.resolve().parent / saved.image))
    return saved


def _why(error: OSError) -> str:
    """An OSError in words, without the path it names (which may be 10,000 characters)."""
    if error.errno == errno.ENAMETOOLONG:
        return tr("the path is too long to name a file")
    return error.strerror or type(error).__name__


def _get(data: dict, key: str, kind: type | tuple[type, ...], default: Any = None, required: bool = False) -> Any:
    if key not in data or data[key] is None:
        if required:
            raise SessionFileError(tr("the session has no {key!r}").format(key=key))
        return default
    value = data[key]
    if isinstance(value, bool) and kind is not bool and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise SessionFileError(tr("{key!r} must be a {type}, not true/false").format(
            key=key, type=getattr(kind, "__name__", "number")))
    if not isinstance(value, kind):
        raise SessionFileError(tr("{key!r} has the wrong type ({type})").format(key=key, type=type(value).__name__))
    return value


def _whole(data: dict, key: str, low: int, high: int, default: int) -> int:
    value = _get(data, key, int, default)
    if not low <= value <= high:
        raise SessionFileError(tr("{key!r} must be from {low} to {high}, got {value}").format(
            key=key, low=low, high=high, value=value))
    return value


def _parse(data: Any) -> SavedSession:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SessionFileError(tr("not an attnviz session (no \"format\": \"attnviz-session\")"))
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version > VERSION:
        raise SessionFileError(tr("session version {version!r} is newer than this attnviz understands ({newest})"
                                  ).format(version=version, newest=VERSION))
    if version < 1:
        raise SessionFileError(tr("session version {version} does not exist (versions start at 1; this attnviz "
                                  "writes {newest})").format(version=version, newest=VERSION))
    checkpoint = _path(_get(data, "checkpoint", str, required=True), "checkpoint")
    relative = _get(data, "checkpoint_relative", str)
    if relative is not None:
        _path(relative, "checkpoint_relative")
    sha = _get(data, "checkpoint_sha256", str, "")
    if sha and (len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha)):
        raise SessionFileError(tr("'checkpoint_sha256' is not a SHA-256 (64 hex digits)"))
    sentence = _get(data, "sentence", str, "")
    if len(sentence) > MAX_SENTENCE_CHARS:
        raise SessionFileError(tr("the sentence is longer than {most:,} characters").format(most=MAX_SENTENCE_CHARS))
    steps = _get(data, "steps", list, [])
    if len(steps) > MAX_STEPS:
        raise SessionFileError(tr("more than {most} steps").format(most=MAX_STEPS))
    plan: list[str | None] = []
    for number, step in enumerate(steps, 1):
        token = step.get("forced") if isinstance(step, dict) else step
        if token is not None and (not isinstance(token, str) or not token or len(token) > 200
                                  or any(c.isspace() for c in token)):
            raise SessionFileError(tr("step {number}: 'forced' must be one token (no spaces) or null").format(
                number=number))
        plan.append(token)
    raw_view = _get(data, "view", dict, {})
    try:
        kind = AttentionKind(_get(raw_view, "kind", str, AttentionKind.CROSS.value))
    except ValueError:
        names = ", ".join(k.value for k in AttentionKind)
        raise SessionFileError(tr("the view's kind must be one of: {names}").format(names=names)) from None
    layer, head = _whole(raw_view, "layer", 1, MAX_INDEX, 1) - 1, _whole(raw_view, "head", 1, MAX_INDEX, 1) - 1
    view = AttentionView(kind, layer, head, _get(raw_view, "scores", bool, False),
                         _get(raw_view, "show_masked", bool, True), _get(raw_view, "all_heads", bool, False))
    kernel = None
    if (raw_kernel := _get(data, "kernel", dict)) is not None:
        name = _get(raw_kernel, "kernel", str, "gaussian")
        if name not in KERNELS:
            raise SessionFileError(tr("the kernel must be one of: {names}").format(names=", ".join(KERNELS)))
        bandwidth = float(_get(raw_kernel, "bandwidth", (int, float), 1.0))
        query = float(_get(raw_kernel, "query", (int, float), 2.5))
        if not (bandwidth_choosable(bandwidth) and math.isfinite(query) and abs(query) <= MAX_QUERY):
            low, high = BANDWIDTH_CHOICES
            raise SessionFileError(tr("the kernel's bandwidth must be from {low} to {high} and its "
                                      "query from {query_low:g} to {query_high:g}").format(
                low=low, high=high, query_low=-MAX_QUERY, query_high=MAX_QUERY))
        kernel = SavedKernel(name, bandwidth, query)
    heads_off = _get(data, "heads_off", str, "")
    if len(heads_off) > MAX_HEADS_OFF_CHARS or not HEADS_OFF.fullmatch(heads_off):
        raise SessionFileError(tr("'heads_off' must name heads as kind:layer.head, comma-separated (e.g. "
                                  "cross:2.1,enc-self:1.3)"))
    image = _get(data, "image", str, "")
    if image:
        _path(image, "image")
    return SavedSession(Path(checkpoint), sha, sentence, _whole(data, "beam_size", 1, MAX_BEAM, 1), tuple(plan),
                        _whole(data, "position", -1, len(plan) - 1 if plan else -1, -1), view, kernel, relative,
                        heads_off, image)


def _path(text: str, key: str) -> str:
    """A path from the file, checked to be one the system could open (a longer one names no file)."""
    if not text or "\0" in text:
        raise SessionFileError(tr("{key!r} is not a file path").format(key=key))
    if len(text) > MAX_PATH_CHARS or any(len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES
                                         for part in text.split("/")):
        raise SessionFileError(tr("{key!r} is too long to be a file path ({count:,} characters)").format(
            key=key, count=len(text)))
    return text


def _is_file(path: Path) -> bool:
    """A checkpoint file, or a model folder (a Hugging Face model)."""
    try:
        return path.is_file() or path.is_dir()
    except OSError as error:  # a symlink loop, no permission to look …
        raise SessionFileError(tr("the session's checkpoint {path} cannot be used: {reason}").format(
            path=shown_path(path), reason=_why(error))) from None


def find_checkpoint(saved: SavedSession, session_path: str | Path) -> Path:
    """The checkpoint a session names: its absolute path, else its path relative to the session file
    (the two moved together); SessionFileError when neither exists. A relative path that leads out of the
    session's folder is not followed: CheckpointOutside names where it leads (the window asks first)."""
    if _is_file(saved.checkpoint):
        return saved.checkpoint
    if saved.checkpoint_relative:
        folder = Path(session_path).expanduser().resolve().parent  # (as write_session measured it)
        beside = Path(os.path.normpath(folder / saved.checkpoint_relative))
        if _is_file(beside):
            if beside.is_relative_to(folder):
                return beside
            raise CheckpointOutside(
                tr("the session's checkpoint {path} is missing; its path relative to the session, {relative}, "
                   "leads out of the session's folder to {outside}").format(
                    path=shown_path(saved.checkpoint), relative=shown_path(saved.checkpoint_relative),
                    outside=shown_path(beside)), beside)
    raise SessionFileError(tr("the session's checkpoint {path} is missing").format(path=shown_path(saved.checkpoint)))


class Decoding(Protocol):
    """What :func:`replay` drives: a :class:`attnviz.core.decoding.stepping.DecodeSession` whose sentence is encoded."""

    @property
    def steps(self) -> Sized: ...

    @property
    def finished(self) -> bool: ...

    def target_id(self, token: str) -> int: ...

    def step(self, force: str | None = None) -> object: ...


def replay(saved: SavedSession, decoding: Decoding) -> int:
    """Decode the saved steps on ``decoding`` (``saved.sentence``, just encoded): one step per entry of the
    plan, forcing the saved token or taking the model's own choice (None), until the plan ends or the
    decoding does (a changed checkpoint may end sooner). A forced token the model cannot say raises
    ValueError before any step. Returns the step to show, 0-based: the saved one, or the last one decoded
    where fewer were (-1: before the first). The window (Session) and ``attnviz export --session`` both
    replay through it, so they show the same steps."""
    for token in saved.plan:
        if token is not None:
            decoding.target_id(token)
    for token in saved.plan:
        if decoding.finished:
            break
        decoding.step(token)
    return min(saved.position, len(decoding.steps) - 1)


def changed_checkpoint_note(name: str, folder: bool = False) -> str:
    """What the window and the CLI say when the checkpoint ``name`` is not the file (or the model folder) a
    session was saved with."""
    if folder:
        return tr("The model folder {name} has changed since this session was saved (its config or its files' "
                  "sizes differ): the attention shown may differ from what was saved.").format(name=name)
    return tr("The checkpoint {name} has changed since this session was saved (its SHA-256 differs): "
              "the attention shown may differ from what was saved.").format(name=name)


def _folder_problem(folder: Path) -> str:
    """Why the model folder cannot be opened (the loader's check of its files, none of them read whole), or ""."""
    from attnviz.core.hf.folder import HFFolderError, inspect_folder

    try:
        inspect_folder(folder)
    except HFFolderError as error:
        return str(error)
    return ""


def checkpoint_changed(saved: SavedSession, checkpoint: Path) -> str:
    """A sentence saying the checkpoint differs from the one the session was saved with, or "".
    SessionFileError, before the file is read, when it is not plausibly a checkpoint (a 20 GB file)."""
    folder = checkpoint.is_dir()  # (a Hugging Face model: checked as its loader checks it, before it is read)
    try:
        problem = _folder_problem(checkpoint) if folder else checkpoint_file_problem(checkpoint)
    except OSError as error:
        raise SessionFileError(tr("the session's checkpoint {path} cannot be read: {reason}").format(
            path=shown_path(checkpoint), reason=_why(error))) from None
    if problem:
        raise SessionFileError(tr("the session's checkpoint {path} is refused: {problem}").format(
            path=shown_path(checkpoint), problem=problem))
    if saved.checkpoint_sha256 and sha256_of(checkpoint) != saved.checkpoint_sha256:
        return changed_checkpoint_note(checkpoint.name, folder)
    return ""
