"""The ``slow`` mark, enforced: a test that reaches a server or starts a browser carries it.

scripts/test runs ``-m "not slow"`` first and stops there on a failure, so that stage must
need no server; a test without the mark that connects to PostgreSQL, MariaDB or Redis on
their loopback ports, or starts a database, pgbouncer, gunicorn, uvicorn or a browser of
its own, fails with what it reached. Seen from the test's own thread in this process, in
its setup and call (a session fixture's teardown runs in whichever test comes last): a
Python audit hook watches sockets and child processes, and psycopg's connect is wrapped
(libpq opens its socket in C, where the hook cannot see it). Not seen: what a child
process does, so a test running ``snowid serve`` in a subprocess is marked by hand.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest

PORTS = {5432: "PostgreSQL", 3306: "MariaDB", 6379: "Redis"}
PROGRAMS = {
    "initdb",
    "pg_ctl",
    "postgres",
    "pgbouncer",
    "mariadbd",
    "mariadb-install-db",
    "mysqld",
    "redis-server",
    "gunicorn",
    "uvicorn",
    "chromium",
}
_LOOPBACK = {"127.0.0.1", "::1", "localhost", ""}
_MAIN = threading.main_thread().ident

_current: list[pytest.Item] = []  # the test running now, when it is not marked slow
_reached: dict[str, list[str]] = {}  # nodeid -> what it reached


def _note(what: str) -> None:
    if _current and threading.get_ident() == _MAIN:
        _reached.setdefault(_current[0].nodeid, []).append(what)


def _started(args: Any) -> str | None:
    """What a child process is, when it is a server or a browser."""
    argv = [os.fsdecode(arg) for arg in args] if isinstance(args, list | tuple) else [str(args)]
    names = [os.path.basename(arg) for arg in argv]
    if names and (names[0] in PROGRAMS or "playwright" in argv[0]):
        return names[0]
    if "-m" in names and names[names.index("-m") + 1 :][:1] in (["uvicorn"], ["gunicorn"]):
        return " ".join(names[:3])
    return None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _current:
        return
    if event == "socket.connect":
        address = args[1]
        if isinstance(address, tuple) and len(address) >= 2:
            host, port = address[0], address[1]
            if port in PORTS and host in _LOOPBACK:
                _note(f"{PORTS[port]} on {host}:{port}")
    elif event == "subprocess.Popen":
        program = _started(args[1] if args[1] is not None else args[0])
        if program is not None:
            _note(f"a process of its own: {program}")


def _wrap_psycopg() -> None:
    try:
        import psycopg
    except ImportError:
        return
    for cls in (psycopg.Connection, psycopg.AsyncConnection):
        connect: Callable[..., Any] = cls.connect.__func__  # type: ignore[attr-defined]

        def watched(
            kind: type,
            conninfo: str = "",
            *args: Any,
            _connect: Callable[..., Any] = connect,
            **kwargs: Any,
        ) -> Any:
            if _local_server(conninfo, kwargs):
                _note("PostgreSQL on port 5432 (psycopg)")
            return _connect(kind, conninfo, *args, **kwargs)

        cls.connect = classmethod(watched)  # type: ignore[assignment, method-assign]
    psycopg.connect = psycopg.Connection.connect  # the module's alias was bound at import


def _local_server(conninfo: str, kwargs: dict[str, Any]) -> bool:
    """Whether psycopg is asked for the server on this machine's port 5432 (a made-up host
    or port, as the tests of refusals use, reaches no server)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        info = conninfo_to_dict(conninfo, **kwargs)
    except Exception:  # psycopg itself will refuse it
        return False
    hosts = str(info.get("hostaddr") or info.get("host") or "").split(",")
    ports = str(info.get("port") or "5432").split(",")
    local = any(host in _LOOPBACK or host.startswith("/") for host in hosts)
    return local and "5432" in ports


def install() -> None:
    """Start watching (once per process; an audit hook cannot be removed)."""
    sys.addaudithook(_audit)
    _wrap_psycopg()


def watch(item: pytest.Item) -> None:
    """Attribute what happens from now on to ``item``, unless it is marked slow."""
    _current.clear()
    if item.get_closest_marker("slow") is None:
        _current.append(item)


def pause() -> None:
    """Stop attributing (before the teardown)."""
    _current.clear()


def unwatch(item: pytest.Item) -> list[str]:
    """Stop; what ``item`` reached without the mark."""
    _current.clear()
    return _reached.pop(item.nodeid, [])
