"""The file-system side of slots: which file system a path lives on (from
/proc/self/mountinfo, Linux), and opening a slot file safely.

Slot locks and high-water marks need a local, persistent file system: network and
cluster file systems emulate or lease their locks (a partitioned client can lose one
without noticing), and RAM file systems forget the high-water mark at reboot.

A slot path is opened only when it names a regular file (or nothing, to create one):
never through a symbolic link (``O_NOFOLLOW``; a link could make the lock and the mark
land on any file this process may write), never a directory, FIFO, socket or device
(opening a FIFO for reading would block, opening a device can have side effects).
Anything else there raises SlotEntryError naming the path and what sits there.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from snowid._exceptions import (
    SlotEntryError,
    SlotEntryKind,
    UnsupportedFileSystemError,
    detached,
)

__all__ = [
    "NETWORK_FS",
    "VOLATILE_FS",
    "check_state_dir",
    "entry_kind",
    "fs_type",
    "open_slot",
    "same_file",
]

NETWORK_FS = frozenset(
    {
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "glusterfs", "9p", "afs",
        "lustre", "gpfs", "ocfs2", "gfs2", "beegfs", "virtiofs", "davfs", "sshfs",
        "fuse", "fuseblk", "ncpfs", "coda", "orangefs", "pvfs2",
    }
)  # fmt: skip
VOLATILE_FS = frozenset({"tmpfs", "ramfs", "devtmpfs"})
MOUNTINFO = "/proc/self/mountinfo"


def _unescape(field: str) -> str:
    # mountinfo escapes space, tab, newline and backslash as \ooo.
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and i + 4 <= len(field) and field[i + 1 : i + 4].isdigit():
            out.append(chr(int(field[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def fs_type(path: str | os.PathLike[str], mountinfo: str | None = None) -> str | None:
    """The file-system type of the mount holding ``path``; None if it cannot be told."""
    if mountinfo is None:
        try:
            mountinfo = Path(MOUNTINFO).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    target = os.path.realpath(path)
    best, best_len = None, -1
    for line in mountinfo.splitlines():
        head, sep, tail = line.partition(" - ")
        fields = head.split()
        if not sep or len(fields) < 5 or not tail.split():
            continue
        mount_point = _unescape(fields[4])
        prefix = mount_point.rstrip("/") + "/"
        if (target == mount_point or target.startswith(prefix) or mount_point == "/") and len(
            mount_point
        ) >= best_len:
            best, best_len = tail.split()[0], len(mount_point)
    return best


def check_state_dir(
    path: str | os.PathLike[str], *, allow_volatile: bool = False, mountinfo: str | None = None
) -> str | None:
    """Refuse network/cluster file systems (and RAM ones unless allowed); return the type."""
    kind = fs_type(path, mountinfo)
    if kind is None:
        return None
    base = kind.split(".", 1)[0]  # "fuse.sshfs" -> "fuse"
    if kind in NETWORK_FS or base in NETWORK_FS:
        raise UnsupportedFileSystemError(path=str(path), fstype=kind)
    if kind in VOLATILE_FS and not allow_volatile:
        raise UnsupportedFileSystemError(path=str(path), fstype=kind)
    return kind


def entry_kind(mode: int) -> SlotEntryKind | None:
    """What a non-regular ``st_mode`` is as a slot entry; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "directory"
    return "special"


def _refuse_non_regular(path: str) -> None:
    """SlotEntryError if ``path`` names something other than a regular file (by lstat)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    kind = entry_kind(mode)
    if kind is not None:
        raise SlotEntryError(path=path, kind=kind)


@detached()  # the SlotEntryError raised while the OSError is handled keeps no chain to it
def open_slot(path: str, *, create: bool = True) -> int:
    """A descriptor on the slot file ``path``, created (0600) if missing and ``create``.

    SlotEntryError when a symbolic link, directory, FIFO, socket or device sits there;
    any other OSError (no permission, disk full, missing without ``create``) as raised.
    """
    _refuse_non_regular(path)  # before opening: opening a device or FIFO is not harmless
    access = os.O_RDWR | os.O_CREAT if create else os.O_RDONLY
    # O_NONBLOCK: an entry swapped for a FIFO after the lstat cannot hang the open.
    flags = access | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.ENODEV):
            _refuse_non_regular(path)  # swapped after the lstat: say what is there now
        raise
    kind = entry_kind(os.fstat(fd).st_mode)
    if kind is not None:
        os.close(fd)
        raise SlotEntryError(path=path, kind=kind)
    return fd


def same_file(path: str, identity: tuple[int, int]) -> bool:
    """Whether ``path`` itself (not a link's target) is the file (st_dev, st_ino) ``identity``."""
    try:
        named = os.lstat(path)
    except OSError:  # gone, its directory replaced by a file, no longer reachable
        return False
    return (named.st_dev, named.st_ino) == identity
