"""Which file system a path lives on, from /proc/self/mountinfo (Linux).

Slot locks and high-water marks need a local, persistent file system: network and
cluster file systems emulate or lease their locks (a partitioned client can lose one
without noticing), and RAM file systems forget the high-water mark at reboot.
"""

from __future__ import annotations

import os
from pathlib import Path

from snowid.errors import UnsupportedFileSystemError

__all__ = ["NETWORK_FS", "VOLATILE_FS", "check_state_dir", "fs_type"]

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
