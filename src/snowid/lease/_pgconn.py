"""Connection chores for the PostgreSQL lease: client-side timeouts and fork safety.

psycopg's sync connections have no per-statement client timeout, and a partitioned
store can leave a query waiting forever on a socket the kernel still calls healthy.
A timer shuts that socket down, which wakes the query with an error - but only while
the statement is still running, so a reused descriptor number is never touched.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from typing import Any

__all__ = ["StatementTimer", "abandon_inherited"]

_ABANDONED: list[object] = []  # connections inherited over fork: never finished by GC


class StatementTimer:
    """One statement in flight: ``abort`` (from a timer) shuts its socket while it runs."""

    __slots__ = ("fd", "fired", "lock", "running")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lock = threading.Lock()
        self.running = True
        self.fired = False

    def abort(self) -> None:
        with self.lock:
            if self.running:
                self.fired = True
                _shutdown_socket(self.fd)

    def finish(self) -> bool:
        """Mark the statement done; whether the timeout fired."""
        with self.lock:
            self.running = False
            return self.fired


def _shutdown_socket(fd: int) -> None:
    try:
        sock = socket.socket(fileno=os.dup(fd))
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    finally:
        sock.close()


def abandon_inherited(conn: Any) -> None:
    """In a forked child: make the parent's connection harmless without touching its session.

    The inherited socket is pointed at /dev/null, so finishing the connection here (now,
    or by the garbage collector later) sends its goodbye nowhere; the object is kept so
    it is never collected mid-way.
    """
    _ABANDONED.append(conn)
    with contextlib.suppress(Exception):
        fd = conn.pgconn.socket
        null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        os.dup2(null, fd)
        os.close(null)
        conn.pgconn.finish()
