"""Which process holds a loopback TCP connection, read from Linux's /proc; and a process's
descendants. A cluster's proxies use it to tell a member's own traffic (a replica's link to
its primary, a peer's raft stream) from a client's, so one member can be cut off from the
rest in both directions while all of them listen on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path

PROC = Path("/proc")


def descendants(pid: int) -> set[int]:
    """``pid`` and every process below it (a PostgreSQL postmaster's backends, say)."""
    parents: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            # The command name in parentheses may hold spaces: the ppid follows the last ")".
            stat = (entry / "stat").read_text()
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        current = todo.pop()
        if current not in found:
            found.add(current)
            todo.extend(parents.get(current, ()))
    return found


def socket_inodes(pids: Iterable[int]) -> set[int]:
    """The inodes of the sockets the processes ``pids`` have open."""
    inodes: set[int] = set()
    for pid in pids:
        fd_dir = PROC / str(pid) / "fd"
        with contextlib.suppress(OSError):
            for fd in os.listdir(fd_dir):
                with contextlib.suppress(OSError):
                    target = os.readlink(fd_dir / fd)
                    if target.startswith("socket:["):
                        inodes.add(int(target[8:-1]))
    return inodes


def connection_inode(local_port: int, remote_port: int) -> int | None:
    """The inode of the TCP socket on this host from ``local_port`` to ``remote_port`` (both
    on loopback, IPv4 or IPv6), or None when there is none."""
    for table in ("tcp", "tcp6"):
        with contextlib.suppress(OSError):
            for line in (PROC / "net" / table).read_text().splitlines()[1:]:
                fields = line.split()
                local, remote, inode = fields[1], fields[2], fields[9]
                if (
                    int(local.rpartition(":")[2], 16) == local_port
                    and int(remote.rpartition(":")[2], 16) == remote_port
                ):
                    return int(inode)
    return None


def owner(local_port: int, remote_port: int, candidates: dict[int, set[int]]) -> int | None:
    """Which key of ``candidates`` (each a set of pids) holds the connection from
    ``local_port`` to ``remote_port``; None when none does (a client of the test's own)."""
    inode = connection_inode(local_port, remote_port)
    if inode is None:
        return None
    for key, pids in candidates.items():
        if inode in socket_inodes(pids):
            return key
    return None
