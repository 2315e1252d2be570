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
from urllib.parse import quote, urlencode

from snowid.lease._urltext import UrlText

__all__ = [
    "LIBPQ_PARAMETERS",
    "StatementTimer",
    "abandon_inherited",
    "libpq_conninfo",
    "libpq_takes",
]

LIBPQ_PARAMETERS = frozenset(
    {
        "application_name", "channel_binding", "client_encoding", "connect_timeout", "dbname",
        "fallback_application_name", "gssdelegation", "gssencmode", "gsslib", "host",
        "hostaddr", "keepalives", "keepalives_count", "keepalives_idle", "keepalives_interval",
        "krbsrvname", "load_balance_hosts", "max_protocol_version", "min_protocol_version",
        "oauth_client_id", "oauth_client_secret", "oauth_issuer", "oauth_scope", "options",
        "passfile", "password", "port", "replication", "require_auth", "requirepeer",
        "scram_client_key", "scram_server_key", "service", "ssl", "ssl_max_protocol_version",
        "ssl_min_protocol_version", "sslcert", "sslcertmode", "sslcompression", "sslcrl",
        "sslcrldir", "sslkey", "sslkeylogfile", "sslmode", "sslnegotiation", "sslpassword",
        "sslrootcert", "sslsni", "target_session_attrs", "tcp_user_timeout", "user",
    }
)  # fmt: skip
"""The query parameters libpq reads from a connection URI: its connection keywords in
PostgreSQL 15 to 18, and ``ssl`` (``ssl=true``, read as ``sslmode=require``)."""


def libpq_takes(names: Iterable[str]) -> set[str]:
    """Those of ``names`` that libpq reads as parameters: the ones in LIBPQ_PARAMETERS,
    and any other the libpq psycopg is linked with lists (a parameter newer than that
    list). psycopg is imported only for a name outside the list; without it, the list
    decides."""
    names = set(names)
    if names <= LIBPQ_PARAMETERS:
        return names
    try:
        from psycopg import pq

        linked = {option.keyword.decode() for option in pq.Conninfo.get_defaults()}
    except Exception:
        linked = set()
    return names & (LIBPQ_PARAMETERS | linked)


def libpq_conninfo(parts: UrlText, query: Iterable[tuple[str, str]]) -> str:
    """The lease URL as libpq's connection URI, with only libpq's ``query`` parameters.

    Rebuilt from the URL's pieces as written: libpq's Unix-socket forms keep their empty
    authority (``postgresql:///db``), and the scheme is written in lower case, the only
    case libpq reads. A ``#`` stays where it was: libpq reads it as part of the value
    before it, so it is its error to report.
    """
    # quote, not quote_plus: libpq reads "+" literally, so a space must stay %20
    encoded = urlencode(list(query), quote_via=quote)
    text = f"{parts.scheme.lower()}://{parts.netloc}{parts.path}"
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
