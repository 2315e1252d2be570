"""Which process holds a loopback TCP connection, read from Linux's /proc; and a process's
descendants. A cluster's proxies use it to tell a member's own traffic (a replica's link to
its primary, a peer's raft stream) from a client's, so one member can be cut off from the
rest in both directions while all of them listen on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
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


def alive(pid: int) -> bool:
    """``pid`` exists and is not a zombie (an orphan's zombie waits for init to reap it:
    it runs nothing and holds no port)."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :].split()[0] != "Z"


def end_all(pids: Iterable[int], wait_s: float = 30.0) -> None:
    """SIGKILL every process of ``pids`` still alive and wait until none is. A server's
    children (a Redis fork that sends a replica its copy) outlive their parent's SIGKILL
    unless ended too. ``pids`` must be known children of ours, read before the parent
    ended, so a reused pid is at worst a process that exits on its own."""
    left = {pid for pid in pids if alive(pid)}
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + wait_s
    while left and time.monotonic() < deadline:
        left = {pid for pid in left if alive(pid)}
        time.sleep(0.01)
    if left:
        raise RuntimeError(f"processes {sorted(left)} outlived SIGKILL for {wait_s} s")


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
