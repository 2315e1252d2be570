"""Worker-identity leases: who may issue ids under which (datacenter, machine), and until when.

``open_lease(url)`` picks a backend by the URL's scheme; the result is a :class:`Lease`,
which is the generator's Fence: ``Generator(fence=open_lease(url))``. The identity is
claimed lazily on first use, and a forked child drops what it inherited and claims its
own. Every backend also answers ``prepare()`` (what ``snowid lease init`` does: create
the store or state directory if missing), ``status()`` (who holds which identity) and
``check()`` (the early check ``snowid serve`` makes before starting workers).

URL forms (query options may also be passed as keyword arguments, which win)::

    static://1/2                          datacenter 1, machine 2 (the operator's promise)
    static:?datacenter=1&machine=2        the same; or static:?worker=34
    static://1/2?state_dir=/var/lib/snowid
                                          also lock that slot on this host and keep its
                                          high-water mark (a second process refuses);
                                          takes the file: options below except range
    file:                                 host slots in the default state dir
                                          ($XDG_STATE_HOME/snowid or ~/.local/state/snowid)
    file:///var/lib/snowid?range=0-63     host slots in that dir, workers 0..63
    file:///var/lib/snowid?datacenter=3   workers of datacenter 3 (its 32 machines)
        options: delta (s, write-ahead of the high-water mark, at most and by default
        0.25: the horizon every claim waits out), max_wait (s, a claim waits this long
        beyond the horizon for the clock to pass the mark, 3), max_regression (s, host
        clock behind the highest mark, 10), forward_guard (s, a wall clock ahead of the
        boot clock by more than this is a jump: the mark is not extended, 5; 0 turns it off),
        forward_confirm (s, a jump is accepted after the new time has held this long,
        30), allow_volatile (tmpfs allowed, 0)
    postgresql://user@host:5432/db?range=0-1023&ttl=10   (or postgres://)
    postgresql:///db                      libpq's Unix-socket forms work as with psql;
    postgresql://user@/db?host=/var/run/postgresql       so do host lists (h1:5432,h2)
        options: range / datacenter, schema (public), table (snowid_leases), ttl (s, 10),
        renew (s, ttl/3), span (s, ttl), max_skew (s, 2), timeout (s per statement,
        renew), claim_wait (s, ttl+span+max_skew+1), connect_timeout (whole s, 2);
        libpq's own parameters go to libpq (sslmode, passfile, options, ...).
    redis://:password@host:6379/0?range=0-1023&ttl=10     (rediss:// for TLS)
        options: range / datacenter, key (snowid: keys {snowid}:meta, ...), ttl, renew,
        span, max_skew, timeout, claim_wait as for PostgreSQL, connect_timeout (s, 2),
        durability (strict, or best_effort to accept a server that can lose writes);
        with rediss: ssl_cert_reqs, ssl_ca_certs, ssl_certfile, ssl_keyfile.
    mysql://user:password@host:3306/db?range=0-1023&ttl=10      (or mariadb://)
        MariaDB 10.6+ or MySQL 8.0.1+ (SKIP LOCKED); options: range / datacenter, table
        (snowid_leases), ttl, renew, span, max_skew, timeout, claim_wait as for PostgreSQL,
        connect_timeout (s, 2), durability (strict, or best_effort to accept a server
        whose commits are not flushed: innodb_flush_log_at_trx_commit, sync_binlog),
        unix_socket, ssl_mode (disabled, preferred, required, verify_ca,
        verify_identity), ssl_ca, ssl_cert, ssl_key.
    k8s:?state_dir=/var/lib/snowid                (or ordinal:)
        a StatefulSet pod's ordinal (the variable ordinal_env names, POD_INDEX by default,
        when it is set, else the trailing -N of $HOSTNAME or the host name) plus offset
        picks the datacenter, a file slot in state_dir the machine; pod_bits (5) moves
        the split (6: 64 pods of 16 processes); the file: tuning options apply.

The defaults above live in each backend's constructor (those shared by the networked
stores in their common base's); an option left out of the URL is not passed. White space around the URL is ignored; a control character inside it (or
percent-encoded in a file: path or state_dir) is refused, never dropped; so is an unknown
option, by name (``rnage``: "did you mean range?"). Without a URL: the ``SNOWID_LEASE`` environment variable, else ``file:``
(host slots over every worker number). File slots coordinate the processes of ONE host:
across hosts give each host its own range (or ``datacenter=``), or a networked store.

``redact(url)`` is a lease URL (or libpq string) as snowid shows it, never with its user,
password or query; ``url_kind(url)`` only its kind (``postgresql``, ``redis`` …).

A new backend is one module with a :class:`Lease` subclass (its ``from_url`` reads its
options; its constructor holds its defaults) and one line in ``_registry.BACKENDS``.
"""

from __future__ import annotations

import os
from typing import Any

from snowid.ids import Clock
from snowid.lease._base import IdentityStatus, Lease, LeaseEvent, LeaseState
from snowid.lease._failover import Quarantine
from snowid.lease._redact import driver_detail, redact, scrub
from snowid.lease._registry import backend_for, url_kind
from snowid.lease._staticguard import StaticGuard
from snowid.lease._storeops import worker_ranges
from snowid.lease._url import parse_lease_url
from snowid.lease.file import FileLease, default_state_dir
from snowid.lease.static import StaticLease

__all__ = [
    "ENV_VAR",
    "FileLease",
    "IdentityStatus",
    "Lease",
    "LeaseEvent",
    "LeaseState",
    "Quarantine",
    "StaticGuard",
    "StaticLease",
    "backend_for",
    "default_state_dir",
    "driver_detail",
    "init_lease",
    "lease_status",
    "open_lease",
    "parse_lease_url",
    "redact",
    "release_on_sigterm",
    "resolve_lease_url",
    "scrub",
    "url_kind",
    "worker_ranges",
]

ENV_VAR = "SNOWID_LEASE"


def resolve_lease_url(url: str | None = None) -> str:
    """The URL argument, else $SNOWID_LEASE, else ``file:`` (default host slots)."""
    if url:
        return url
    return os.environ.get(ENV_VAR, "").strip() or "file:"


def open_lease(url: str | None = None, *, clock: Clock | None = None, **options: Any) -> Lease:
    """A lease for ``url`` (see the module docstring); nothing is claimed until first use.

    The URL is split once; the backend registered for its scheme reads its options.
    """
    parsed = parse_lease_url(resolve_lease_url(url))
    backend = backend_for(parsed)
    return backend.from_url(parsed.with_options(options, backend.object_options), clock=clock)


def release_on_sigterm() -> bool:
    """Make SIGTERM exit through ``sys.exit`` so leases are released at exit (atexit).

    Only when SIGTERM still has its default action (snowid's stop handler in front of it
    stays, see ``snowid.generate.install_stop_handlers``) and this is the main thread
    (for CLIs; servers such as gunicorn install their own handlers). True if installed.
    """
    import signal
    import sys
    import threading

    from snowid.generate import default_action, install_stop_handlers

    if threading.current_thread() is not threading.main_thread():
        return False
    if not default_action(signal.SIGTERM):
        return False

    def exit_on_term(signum: int, frame: object) -> None:
        del frame
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, exit_on_term)
    install_stop_handlers()
    return True


def init_lease(url: str | None = None, *, first_deployment: bool = False) -> dict[str, object]:
    """Create the store's schema or state dir if missing (idempotent); what was found."""
    with open_lease(url) as lease:
        return lease.prepare(first_deployment=first_deployment)


def lease_status(url: str | None = None) -> list[IdentityStatus]:
    """Who holds (or last held) each identity of the store behind ``url``, in its range."""
    with open_lease(url) as lease:
        return lease.status()
