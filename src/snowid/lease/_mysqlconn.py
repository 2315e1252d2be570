"""Connection chores for the MySQL / MariaDB lease: the driver's connection class, TLS
options, the server's version and durability settings, ending an abandoned session.

Kept apart from ``mysql.py`` (the lease protocol) so each stays small.
"""

from __future__ import annotations

import contextlib
import re
import threading
from typing import Any

from snowid.lease._storeops import first_line
from snowid.lease._url import LeaseUrl

__all__ = [
    "MIN_VERSION",
    "SSL_MODES",
    "connection_class",
    "kill_session",
    "parse_version",
    "reason",
    "tls_options",
    "weak_settings",
]

MIN_VERSION = {"MariaDB": (10, 6, 0), "MySQL": (8, 0, 1)}
"""The first releases with ``SELECT … FOR UPDATE SKIP LOCKED``."""
SSL_MODES = ("disabled", "preferred", "required", "verify_ca", "verify_identity")
"""As the mysql client's --ssl-mode: preferred (the default) uses TLS when the server
offers it, unverified; required insists on it; verify_ca and verify_identity also check
the certificate against ssl_ca (and the host name)."""
_KILL_TIMEOUT_S = 1.0


def parse_version(text: str) -> tuple[str, tuple[int, int, int]]:
    """("MariaDB" or "MySQL", (major, minor, patch)) from ``SELECT VERSION()``."""
    product = "MariaDB" if "mariadb" in text.lower() else "MySQL"
    # Some MariaDB front ends still prefix "5.5.5-" (the old replication hack): skip it.
    numbers = re.findall(r"(\d+)\.(\d+)\.(\d+)", text)
    if product == "MariaDB" and len(numbers) > 1 and numbers[0] == ("5", "5", "5"):
        numbers = numbers[1:]
    if not numbers:
        return product, (0, 0, 0)
    major, minor, patch = (int(n) for n in numbers[0])
    return product, (major, minor, patch)


_CONNECTION_CLASS: Any = None


def connection_class() -> Any:
    """PyMySQL's Connection, building the TLS context of ``ssl_mode=preferred`` once per
    process: PyMySQL builds one per connection, loading the system's CA certificates
    (tens of milliseconds of CPU) although that mode never verifies them, which slowed
    every reconnect after an outage."""
    global _CONNECTION_CLASS  # noqa: PLW0603 - built once, lazily (pymysql is optional)
    if _CONNECTION_CLASS is not None:
        return _CONNECTION_CLASS
    from pymysql.connections import Connection

    shared: list[Any] = []
    lock = threading.Lock()

    class LeaseConnection(Connection):  # type: ignore[misc]
        def _create_ssl_ctx(self, sslp: Any) -> Any:
            if sslp:  # explicit TLS options: PyMySQL's own context, as asked
                return super()._create_ssl_ctx(sslp)
            with lock:
                if not shared:
                    shared.append(super()._create_ssl_ctx(sslp))
                return shared[0]

    _CONNECTION_CLASS = LeaseConnection
    return LeaseConnection


def tls_options(parsed: LeaseUrl) -> dict[str, Any]:
    """PyMySQL's TLS arguments for ``ssl_mode`` (and ``ssl_ca``, ``ssl_cert``, ``ssl_key``)."""
    mode = parsed.choice("ssl_mode", SSL_MODES) or "preferred"
    files = {
        k: parsed.local_path(parsed.options[k])
        for k in ("ssl_ca", "ssl_cert", "ssl_key")
        if k in parsed.options
    }
    if mode == "disabled":
        return {"ssl_disabled": True}
    if mode == "preferred" and not files:
        return {}  # PyMySQL's default: TLS if the server offers it
    verify = mode in ("verify_ca", "verify_identity")
    ssl: dict[str, Any] = {"verify_mode": verify, "check_hostname": mode == "verify_identity"}
    for key, name in (("ca", "ssl_ca"), ("cert", "ssl_cert"), ("key", "ssl_key")):
        if name in files:
            ssl[key] = files[name]
    return {"ssl": ssl}


def weak_settings(found: dict[str, str]) -> list[tuple[str, str, str]]:
    """(setting, found, required) for each setting that lets a crash lose a commit."""
    weak = []
    flush = found.get("innodb_flush_log_at_trx_commit", "?")
    if flush != "1":
        weak.append(("innodb_flush_log_at_trx_commit", flush, "1"))
    if found.get("log_bin", "OFF").upper() in ("ON", "1"):
        sync = found.get("sync_binlog", "?")
        if sync != "1":
            weak.append(("sync_binlog", sync, "1 (the binary log is on)"))
    return weak


def reason(error: BaseException) -> str:
    """PyMySQL's ``(code, message)`` as one line."""
    args: tuple[Any, ...] = getattr(error, "args", ())
    if len(args) >= 2:
        lines = str(args[1]).strip().splitlines()
        return f"({args[0]}) {lines[0] if lines else ''}".rstrip()
    return first_line(error)


def kill_session(connection: dict[str, Any], thread_id: int) -> None:
    """End the server session ``thread_id`` (ours, abandoned after a timeout: the server
    may still be waiting on a lock for it), from a short-lived second connection."""
    import pymysql

    with contextlib.suppress(Exception):
        conn = pymysql.connect(
            **connection,
            connect_timeout=_KILL_TIMEOUT_S,
            read_timeout=_KILL_TIMEOUT_S,
            write_timeout=_KILL_TIMEOUT_S,
            autocommit=True,
        )
        try:
            with conn.cursor() as cur:
                # Only our own session: ids start again from 1 when the server restarts.
                cur.execute(
                    "SELECT id FROM information_schema.processlist WHERE id = %s"
                    " AND user = SUBSTRING_INDEX(USER(), '@', 1) AND db <=> DATABASE()",
                    (thread_id,),
                )
                if cur.fetchall():
                    cur.execute(f"KILL {int(thread_id)}")
        finally:
            conn.close()
