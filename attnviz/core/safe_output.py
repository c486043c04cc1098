"""Safe file output: a file appears complete under its final name, or not at all, and only where a
regular file belongs.

:func:`check_target` refuses, before anything is written, a name that is not a regular file (a FIFO, a
device, a socket, a folder, a symbolic link) and a folder that is a kernel interface (``/proc``, ``/sys``,
``/dev``…) rather than a place on disk. It only ``lstat``/``stat``s: it never opens the target, so a FIFO
cannot make it wait. Writing can still wait on a hung network mount: callers in the window run it on a
worker thread.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from attnviz.i18n import N_, tr

# Kernel interfaces mounted as folders: reading or writing there talks to the kernel (and can block, as
# /proc/kmsg does), never to a disk.
KERNEL_FILESYSTEMS = frozenset({
    "proc", "sysfs", "devtmpfs", "devpts", "debugfs", "tracefs", "securityfs", "cgroup", "cgroup2", "configfs",
    "fusectl", "pstore", "bpf", "mqueue", "binfmt_misc", "efivarfs", "autofs", "rpc_pipefs", "nsfs", "hugetlbfs",
})
MOUNT_TABLE = Path("/proc/self/mountinfo")

_KINDS = ((stat.S_ISDIR, N_("a folder")), (stat.S_ISFIFO, N_("a named pipe (FIFO)")),
          (stat.S_ISCHR, N_("a character device")), (stat.S_ISBLK, N_("a block device")),
          (stat.S_ISSOCK, N_("a socket")), (stat.S_ISLNK, N_("a symbolic link")))


class UnsafeTarget(OSError):
    """A name attnviz will not write to; ``strerror`` says why, in words (``errno`` is EINVAL, or EISDIR
    for a folder)."""

    def __init__(self, path: Path, reason: str, code: int = errno.EINVAL):
        super().__init__(code, reason, str(path))


def kind_of(mode: int) -> str:
    """'a folder', 'a named pipe (FIFO)', … for an ``st_mode`` that is not a regular file ("" for one), in the
    interface's language."""
    if stat.S_ISREG(mode):
        return ""
    return tr(next((name for test, name in _KINDS if test(mode)), N_("not a regular file")))


def filesystem_type(path: str | Path) -> str:
    """The type of the filesystem ``path`` (which exists) lies on, e.g. 'ext4' or 'proc'; "" when unknown
    (no /proc/self/mountinfo, or a device number it does not list)."""
    device = os.stat(path).st_dev
    wanted = f"{os.major(device)}:{os.minor(device)}"
    try:
        lines = MOUNT_TABLE.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    found = ""
    for line in lines:  # "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw": fields, '-', type
        fields, _, tail = line.partition(" - ")
        parts = fields.split()
        if len(parts) > 2 and parts[2] == wanted and tail:
            found = tail.split()[0]  # (the last mount of that device wins, as the kernel's view does)
    return found


def _refuse_kernel_folder(folder: Path, path: Path) -> None:
    kind = filesystem_type(folder)
    if kind in KERNEL_FILESYSTEMS:
        raise UnsafeTarget(path, tr("{folder} is a kernel interface ({kind}), not a folder on disk; "
                                    "choose a folder of your own").format(folder=folder, kind=kind))


def check_target(path: str | Path) -> None:
    """Refuse ``path`` as a file to write unless it is a regular file, or a new name in an existing folder
    on disk. Raises :class:`UnsafeTarget` with one readable reason (FileNotFoundError for a missing folder)."""
    path = Path(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise UnsafeTarget(path, tr("it is {kind}, not a regular file; attnviz writes only regular files").format(
            kind=kind_of(mode)), errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL)
    folder = path.parent
    try:
        folder_mode = os.stat(folder).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, tr("the folder {folder} does not exist").format(folder=folder),
                                str(path)) from None
    if not stat.S_ISDIR(folder_mode):
        raise UnsafeTarget(path, tr("{folder} is {kind}, not a folder").format(folder=folder,
                                                                                kind=kind_of(folder_mode)))
    _refuse_kernel_folder(folder, path)


def check_folder(folder: str | Path) -> None:
    """Refuse ``folder`` as a place to write files into unless it is a folder on disk, or a new one whose
    nearest existing parent is. Raises :class:`UnsafeTarget`."""
    folder = Path(folder)
    if refusal := _dangling_link(folder):
        raise refusal
    existing = folder
    while True:
        try:
            mode = os.stat(existing).st_mode
            break
        except (FileNotFoundError, NotADirectoryError):  # (a/b where a is a file: NotADirectoryError, said below)
            if existing.parent == existing:
                raise
            existing = existing.parent
    if not stat.S_ISDIR(mode):
        raise UnsafeTarget(folder, tr("{folder} is {kind}, not a folder").format(folder=existing,
                                                                                 kind=_kind_or_file(mode)))
    _refuse_kernel_folder(existing, folder)


def _kind_or_file(mode: int) -> str:
    return kind_of(mode) or tr("a file")


def _dangling_link(path: Path) -> UnsafeTarget | None:
    """The refusal of ``path`` or one of its parents when it is a symbolic link to nothing (mkdir would say only
    "File exists"), else None."""
    for name in (path, *path.parents):
        if os.path.islink(name) and not os.path.exists(name):
            return UnsafeTarget(path, tr("{link} is a symbolic link to {target}, which does not exist").format(
                link=name, target=os.readlink(name)))
    return None


def probe_folder(folder: str | Path) -> None:
    """Check, before any work, that files can be written into ``folder`` (made later if missing): it is a folder on
    disk or a new name whose nearest existing parent is (:func:`check_folder`; a file, a FIFO, a dangling link
    refused by name), and a small file can be written and synced there (a read-only or full disk, a folder without
    permission: the OSError of that write). Leaves nothing behind."""
    folder = Path(folder)
    if refusal := _dangling_link(folder):
        raise refusal
    check_folder(folder)
    existing = folder
    while not existing.exists():
        existing = existing.parent
    fd, name = tempfile.mkstemp(prefix=".attnviz-probe-", dir=existing)
    try:
        os.write(fd, b"\0" * 4096)
        os.fsync(fd)
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(name)


@contextmanager
def atomic_output(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success rename it to ``path``, on error delete it.

    ``path`` is checked first (:func:`check_target`). The temporary file lives in the same folder (so the
    rename is atomic) and is hidden (dot name). Raises OSError when the target is refused or the folder
    cannot be written, before anything is created.
    """
    path = Path(path)
    check_target(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; our outputs are ordinary shareable files
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
