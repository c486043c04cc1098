"""Where ``attnviz train`` may write its checkpoint: checked before training starts and before each save.

Only a new file or an existing attnviz checkpoint (with permission to replace it) is written; a data
file, notes, a folder, a device or a link never is.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from attnviz.core.checkpoints.checkpoint import is_attnviz_checkpoint
from attnviz.i18n import tr


class TargetError(ValueError):
    """The checkpoint cannot be written there; the message starts with the path."""


def check_target(path: str | Path, replace: bool) -> None:
    """Raise TargetError unless a checkpoint may be written to ``path``: it does not exist yet (and its
    folder can be written), or it is an attnviz checkpoint and ``replace`` is true."""
    path = Path(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        _check_folder(path)
        return
    except OSError as error:  # a name too long, a parent that is a file …
        raise TargetError(tr("{path}: cannot be written ({error})").format(path=path,
                                                                          error=error.strerror or error)) from None
    if stat.S_ISLNK(info.st_mode):
        raise TargetError(tr("{path}: is a symbolic link; name the checkpoint file itself").format(path=path))
    if stat.S_ISDIR(info.st_mode):
        raise TargetError(tr("{path}: is a folder; name the checkpoint file to write (e.g. {path}/model.safetensors)")
                          .format(path=path))
    if not stat.S_ISREG(info.st_mode):
        raise TargetError(tr("{path}: is not a regular file (a device or a pipe?); training writes only "
                             "checkpoints").format(path=path))
    if not is_attnviz_checkpoint(path):
        raise TargetError(tr("{path}: exists and is not an attnviz checkpoint; training replaces only checkpoints "
                             "(choose another name)").format(path=path))
    if not replace:
        raise TargetError(tr("{path}: a checkpoint already exists there; add --force to replace it").format(path=path))
    _check_folder(path)


def _check_folder(path: Path) -> None:
    """The folder ``path`` goes into can be written (or created): a trial file is made and removed there."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:  # save_checkpoint creates the missing folders
        folder = folder.parent
    if not folder.is_dir():
        raise TargetError(tr("{path}: {folder} is not a folder").format(path=path, folder=folder))
    try:
        # an unnamed file where the system makes one (Linux's O_TMPFILE): a signal at any moment leaves no
        # trial file behind (a named one, made and removed, was left when SIGTERM fell between the two)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise TargetError(tr("{path}: cannot write into {folder} ({error})").format(
            path=path, folder=folder, error=error.strerror or error)) from None
