"""Worker-identity leases: who may issue ids under which (datacenter, machine), and until when.

``open_lease(url)`` picks a backend by URL; the result is a :class:`Lease`, which is the
generator's Fence: ``Generator(fence=open_lease(url))``. The identity is claimed lazily
on first use, and a forked child drops what it inherited and claims its own.

URL forms (query options may also be passed as keyword arguments, which win)::

    static://1/2                          datacenter 1, machine 2 (the operator's promise)
    static:?datacenter=1&machine=2        the same; or static:?worker=34
    static://1/2?state_dir=/var/lib/snowid
                                          also lock that slot on this host and keep its
                                          high-water mark (a second process refuses)
    file:                                 host slots in the default state dir
                                          ($XDG_STATE_HOME/snowid or ~/.local/state/snowid)
    file:///var/lib/snowid?range=0-63     host slots in that dir, workers 0..63
    file:///var/lib/snowid?datacenter=3   workers of datacenter 3 (its 32 machines)
        options: delta (s, write-ahead of the high-water mark, at most and by default
        0.25: the horizon every claim waits out), max_wait (s, a claim waits this long
        beyond the horizon for the clock to pass the mark, 3), max_regression (s, host
        clock behind the highest mark, 10), forward_guard (s, a wall clock ahead of the boot clock by
        more than this is a jump: the mark is not extended, 5; 0 turns the guard off),
        forward_confirm (s, a jump is accepted after the new time has held this long,
        30), allow_volatile (tmpfs allowed, 0)
    postgresql://user@host:5432/db?range=0-1023&ttl=10
        options: range / datacenter, schema (public), table (snowid_leases), ttl (s, 10),
        renew (s, ttl/3), span (s, ttl), max_skew (s, 2), timeout (s per statement,
        renew), claim_wait (s, ttl+span+max_skew+1); other query parameters go to libpq.
    redis://:password@host:6379/0?range=0-1023&ttl=10     (rediss:// for TLS)
        options: range / datacenter, key (snowid: keys {snowid}:meta, ...), ttl, renew,
        span, max_skew, timeout, claim_wait as for PostgreSQL, connect_timeout (s, 2),
        durability (strict, or best_effort to accept a server that can lose writes);
        with rediss: ssl_cert_reqs, ssl_ca_certs, ssl_certfile, ssl_keyfile.

Without a URL: the ``SNOWID_LEASE`` environment variable, else ``file:`` (host slots over
the whole 0..1023 range). File slots coordinate the processes of ONE host: across
hosts give each host its own range (or ``datacenter=``), or use PostgreSQL.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from snowid._clock import Clock
from snowid._layout import TWITTER
from snowid._redact import redact
from snowid.lease._base import BaseLease, IdentityStatus, LeaseEvent
from snowid.lease._hwm import HORIZON_MS
from snowid.lease._protocol import Lease, LeaseState
from snowid.lease._url import LeaseUrl, parse_lease_url
from snowid.lease.file import FileLease, default_state_dir, file_status
from snowid.lease.static import StaticLease

__all__ = [
    "ENV_VAR",
    "BaseLease",
    "FileLease",
    "IdentityStatus",
    "Lease",
    "LeaseEvent",
    "LeaseState",
    "StaticLease",
    "default_state_dir",
    "init_lease",
    "lease_status",
    "open_lease",
    "release_on_sigterm",
    "resolve_lease_url",
]

ENV_VAR = "SNOWID_LEASE"
_FILE_OPTIONS = (
    "range", "datacenter", "delta", "max_wait", "max_regression", "forward_guard",
    "forward_confirm", "allow_volatile",
)  # fmt: skip
_PG_OPTIONS = (
    "range", "datacenter", "schema", "table", "ttl", "renew", "span", "max_skew", "timeout",
    "claim_wait", "connect_timeout",
)  # fmt: skip
_OBJECT_OPTIONS = ("before_sync", "mountinfo")


def resolve_lease_url(url: str | None = None) -> str:
    """The URL argument, else $SNOWID_LEASE, else ``file:`` (default host slots)."""
    if url:
        return url
    return os.environ.get(ENV_VAR, "").strip() or "file:"


def open_lease(url: str | None = None, *, clock: Clock | None = None, **options: Any) -> BaseLease:
    """A lease for ``url`` (see the module docstring); nothing is claimed until first use."""
    objects = {key: options.pop(key) for key in _OBJECT_OPTIONS if key in options}
    parsed = parse_lease_url(resolve_lease_url(url), options)
    if parsed.backend == "static":
        return _open_static(parsed, clock, objects)
    if parsed.backend == "file":
        return _open_file(parsed, clock, objects, parsed.path, parsed.get_range())
    if parsed.backend == "redis":
        from snowid.lease.redis import RedisLease

        return RedisLease.from_url(parsed, clock)
    return _open_postgres(parsed, clock)


def _open_static(parsed: LeaseUrl, clock: Clock | None, objects: dict[str, Any]) -> BaseLease:
    parsed.check_known(("datacenter", "machine", "worker", "state_dir", *_FILE_OPTIONS[2:]))
    if "worker" in parsed.options:
        datacenter, machine = TWITTER.split_worker(
            parsed.get_int("worker", 0, 0, TWITTER.max_worker)
        )
    elif parsed.netloc:
        datacenter = parsed.to_int("datacenter", parsed.netloc, 0, TWITTER.max_datacenter)
        machine = parsed.to_int("machine", parsed.path.strip("/"), 0, TWITTER.max_machine)
    elif "datacenter" in parsed.options and "machine" in parsed.options:
        datacenter = parsed.get_int("datacenter", 0, 0, TWITTER.max_datacenter)
        machine = parsed.get_int("machine", 0, 0, TWITTER.max_machine)
    else:
        raise parsed.fail("static_identity_missing")
    state_dir = parsed.options.get("state_dir")
    if state_dir:
        worker = TWITTER.worker(datacenter, machine)
        return _open_file(parsed, clock, objects, state_dir, (worker, worker))
    return StaticLease(datacenter, machine, url=redact(parsed.raw), clock=clock)


def _open_file(
    parsed: LeaseUrl,
    clock: Clock | None,
    objects: dict[str, Any],
    path: str,
    workers: tuple[int, int] | None,
) -> FileLease:
    if parsed.backend == "file":
        parsed.check_known(_FILE_OPTIONS)
        if parsed.netloc not in ("", "localhost"):
            raise parsed.fail("file_host", host=parsed.netloc.rpartition("@")[2])
    first, last = workers if workers is not None else (0, TWITTER.max_worker)
    before_sync: Callable[..., None] | None = objects.get("before_sync")
    return FileLease(
        path or None,
        first=first,
        last=last,
        delta_ms=round(
            parsed.get_seconds("delta", HORIZON_MS / 1000, 0.001, HORIZON_MS / 1000) * 1000
        ),
        max_wait_ms=round(parsed.get_seconds("max_wait", 3.0) * 1000),
        max_regression_ms=round(parsed.get_seconds("max_regression", 10.0) * 1000),
        forward_guard_ms=round(parsed.get_seconds("forward_guard", 5.0) * 1000),
        forward_confirm_ms=round(parsed.get_seconds("forward_confirm", 30.0) * 1000),
        allow_volatile=parsed.get_bool("allow_volatile", False),
        url=redact(parsed.raw),
        clock=clock,
        before_sync=before_sync,
        mountinfo=objects.get("mountinfo"),
    )


def _open_postgres(parsed: LeaseUrl, clock: Clock | None) -> BaseLease:
    from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

    from snowid.lease.postgres import PostgresLease

    ours = set(_PG_OPTIONS)
    split = urlsplit(parsed.raw)
    libpq = [(k, v) for k, v in parse_qsl(split.query, keep_blank_values=True) if k not in ours]
    # quote, not quote_plus: libpq reads "+" literally, so a space must stay %20
    conninfo = urlunsplit(split._replace(query=urlencode(libpq, quote_via=quote)))
    first, last = parsed.get_range() or (0, TWITTER.max_worker)
    ttl = parsed.get_seconds("ttl", 10.0, 0.05)
    renew = parsed.options.get("renew")
    span = parsed.options.get("span")
    timeout = parsed.options.get("timeout")
    claim_wait = parsed.options.get("claim_wait")
    return PostgresLease(
        conninfo,
        first=first,
        last=last,
        schema=parsed.get_identifier("schema", "public"),
        table=parsed.get_identifier("table", "snowid_leases"),
        ttl=ttl,
        renew=None if renew is None else parsed.get_seconds("renew", 0, 0.01),
        span=None if span is None else parsed.get_seconds("span", 0, 0.01),
        max_skew=parsed.get_seconds("max_skew", 2.0),
        timeout=None if timeout is None else parsed.get_seconds("timeout", 0, 0.01),
        claim_wait=None if claim_wait is None else parsed.get_seconds("claim_wait", 0),
        connect_timeout=parsed.get_int("connect_timeout", 2, 1),
        url=redact(parsed.raw),
        clock=clock,
    )


def release_on_sigterm() -> bool:
    """Make SIGTERM exit through ``sys.exit`` so leases are released at exit (atexit).

    Only when SIGTERM still has its default action and this is the main thread (for
    CLIs; servers such as gunicorn install their own handlers). True if installed.
    """
    import signal
    import sys
    import threading

    if threading.current_thread() is not threading.main_thread():
        return False
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return False

    def exit_on_term(signum: int, frame: object) -> None:
        del frame
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, exit_on_term)
    return True


def init_lease(url: str | None = None, *, first_deployment: bool = False) -> dict[str, object]:
    """Create the store's schema or state dir if missing (idempotent); what was found."""
    lease = open_lease(url)
    try:
        if isinstance(lease, FileLease):
            fstype = lease.prepare()
            return {"url": lease.url, "state_dir": str(lease.state_dir), "fstype": fstype}
        if isinstance(lease, StaticLease):
            return {"url": lease.url}
        if lease.kind == "redis":
            from snowid.lease.redis import RedisLease

            assert isinstance(lease, RedisLease)
            incarnation, created = lease.init_store(first_deployment=first_deployment)
            return {
                "url": lease.url,
                "keys": lease.keys.all,
                "incarnation": incarnation,
                "created": created,
                "quarantined": created and not first_deployment,
            }
        from snowid.lease.postgres import PostgresLease

        assert isinstance(lease, PostgresLease)
        incarnation, created = lease.init_schema(first_deployment=first_deployment)
        return {
            "url": lease.url,
            "table": lease.sql.table,
            "incarnation": incarnation,
            "created": created,
            "quarantined": created and not first_deployment,
        }
    finally:
        lease.close()


def lease_status(url: str | None = None) -> list[IdentityStatus]:
    """Who holds (or last held) each identity of the store behind ``url``."""
    lease = open_lease(url)
    try:
        if isinstance(lease, FileLease):
            first, last = lease.first, lease.last
            return [
                s for s in file_status(lease.state_dir, url=lease.url) if first <= s.worker <= last
            ]
        if isinstance(lease, StaticLease):
            return []
        if lease.kind == "redis":
            from snowid.lease.redis import RedisLease

            assert isinstance(lease, RedisLease)
            return lease.status()
        from snowid.lease.postgres import PostgresLease

        assert isinstance(lease, PostgresLease)
        return [s for s in lease.status() if lease.first <= s.worker <= lease.last]
    finally:
        lease.close()
