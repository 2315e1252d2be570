"""Connection chores for the PostgreSQL lease: the connection string, client-side
timeouts and fork safety.

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
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import SplitResult, quote, urlencode

__all__ = ["StatementTimer", "abandon_inherited", "libpq_conninfo"]


def libpq_conninfo(parts: SplitResult, query: Iterable[tuple[str, str]]) -> str:
    """The lease URL as libpq's connection URI, with only libpq's ``query`` parameters.

    Rebuilt from the split URL as written, never through ``urlunsplit``: that drops the
    empty authority of libpq's Unix-socket forms (``postgresql:///db`` would become
    ``postgresql:/db``, which libpq cannot read). A ``#`` stays where it was: libpq
    reads it as part of the value before it, so it is its error to report.
    """
    # quote, not quote_plus: libpq reads "+" literally, so a space must stay %20
    encoded = urlencode(list(query), quote_via=quote)
    text = f"{parts.scheme}://{parts.netloc}{parts.path}"
    if encoded:
        text += f"?{encoded}"
    return f"{text}#{parts.fragment}" if parts.fragment else text


class StatementTimer:
    """One statement in flight: ``abort`` (from a timer) stops it on both ends.

    First it asks the server to cancel the statement (``cancel``, bounded by its own
    timeout), so a statement stuck on a lock or a slow disk does not keep a backend
    busy after the client gave up; then it shuts the socket, which wakes the client
    even when the server cannot be reached at all.
    """

    __slots__ = ("cancel", "fd", "fired", "lock", "running")

    def __init__(self, fd: int, cancel: Callable[[], None] | None = None) -> None:
        self.fd = fd
        self.cancel = cancel
        self.lock = threading.Lock()
        self.running = True
        self.fired = False

    def abort(self) -> None:
        with self.lock:
            if not self.running:
                return
            self.fired = True
        if self.cancel is not None:
            # Not under the lock: a cancel can take up to its timeout, and the statement
            # may finish meanwhile (then the server ignores the cancel, or it hits the
            # next statement, which fails and is retried like any store error).
            with contextlib.suppress(Exception):
                self.cancel()
        with self.lock:
            if self.running:
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
    or by the garbage collector later) sends its goodbye nowhere (the caller also keeps
    the object, so it is never collected mid-way).
    """
    with contextlib.suppress(Exception):
        fd = conn.pgconn.socket
        null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        os.dup2(null, fd)
        os.close(null)
        conn.pgconn.finish()
