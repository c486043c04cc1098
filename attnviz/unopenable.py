"""Why a path given to ``attnviz PATH`` (or by the desktop entry, ``attnviz --open PATH``) cannot be opened.

attnviz opens a regular file — a checkpoint (.safetensors) or a saved session (.json) — or a Hugging Face model
folder (one with a config.json; its files are checked when it loads). The path is examined with stat, never
opened: opening a named pipe with no writer would block forever.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from attnviz.i18n import N_, tr

WHAT_OPENS = N_("attnviz opens a checkpoint (.safetensors), a saved session (.json) or a Hugging Face model folder")
OPENED_SUFFIXES = (".safetensors", ".json")

_SPECIAL = (  # (test, what it is, why reading it is refused)
    (stat.S_ISFIFO, N_("a named pipe (FIFO)"), N_("reading a pipe can wait forever for a writer")),
    (stat.S_ISCHR, N_("a character device"), N_("reading a device can block or never end")),
    (stat.S_ISBLK, N_("a block device"), N_("a whole disk is not an attnviz file")),
    (stat.S_ISSOCK, N_("a socket"), N_("a socket cannot be read as a file")),
)


def looks_like_a_path(argument: str) -> bool:
    """Whether a lone argument that is not a command names a path (then a problem with it is about the
    path), rather than being a mistyped command (then argparse lists the commands)."""
    return (os.sep in argument or argument.lower().endswith(OPENED_SUFFIXES)
            or argument in (".", "..") or os.path.lexists(argument))


def is_model_folder(path: str | Path) -> bool:
    """A folder holding a config.json: a Hugging Face model's (the loader checks the rest)."""
    try:
        return os.path.isdir(path) and os.path.lexists(os.path.join(path, "config.json"))
    except (OSError, ValueError):
        return False


def why_unopenable(path: str | Path) -> str | None:
    """None for a regular file or a Hugging Face model folder (open it); otherwise one sentence saying what
    ``path`` is and why attnviz cannot open it, e.g. "/tmp/p is a named pipe (FIFO), not a file: …"."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if os.path.islink(path):
            return tr("{path} is a symbolic link to {target}, which does not exist").format(
                path=path, target=os.readlink(path))
        return tr("{path}: no such file or folder; {what_opens}").format(path=path, what_opens=tr(WHAT_OPENS))
    except PermissionError:
        return tr("{path} cannot be examined: permission denied (a folder on the way is not readable by you)"
                  ).format(path=path)
    except (OSError, ValueError) as error:  # a symlink loop, a name too long, a NUL byte
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return tr("{path} cannot be opened: {reason}").format(path=path, reason=reason)
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        if is_model_folder(path):
            return None
        return tr("{path} is a folder, not a file, with no config.json (not a Hugging Face model): {what_opens}; "
                  "choose one of the files inside it").format(path=path, what_opens=tr(WHAT_OPENS))
    for test, what, why in _SPECIAL:
        if test(mode):
            return tr("{path} is {what}, not a file: {why}; {what_opens}").format(
                path=path, what=tr(what), why=tr(why), what_opens=tr(WHAT_OPENS))
    return tr("{path} is not a regular file: {what_opens}").format(path=path, what_opens=tr(WHAT_OPENS))
