"""PostgreSQL leases against the real local server: what only this backend has (libpq's URL
forms, the first wave's findings). The fault cases of docs/leases.md run on every backend
in test_store_faults.py and test_store_regressed.py (and the slow store, asyncio, chaos
and restart modules).

Timings are scaled down (TTL about a second); every process and loop is bounded.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from snowid import TWITTER, Generator
from snowid.lease import lease_status
from snowid.testing import FakeClock
from tests.support.need import unavailable
from tests.support.pg import PG, open_pg, sql

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

SOCKET_DIR = "/var/run/postgresql"


@pytest.mark.parametrize(
    "form",
    [
        "postgresql:///test?{options}",
        "postgresql:///test?host=/var/run/postgresql&{options}",
        "postgresql://postgres@/test?host=/var/run/postgresql&{options}",
    ],
)
def test_unix_socket_forms_connect_as_psql_does(
    table: str, form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 8 item 11: libpq's Unix-socket URLs reached libpq as ``postgresql:/test``."""
    if not Path(SOCKET_DIR, ".s.PGSQL.5432").exists():  # pg_ctlcluster makes it
        unavailable(f"no PostgreSQL socket in {SOCKET_DIR}")
    monkeypatch.setenv("PGUSER", "postgres")  # the forms without a user (tests run as root)
    url = form.format(options=f"table={table}&range=5-5&ttl=1&timeout=2")
    with open_pg(url) as lease:
        assert lease.acquire(0).machine == 5
        assert lease._conn.info.host == SOCKET_DIR  # a socket directory, not a TCP host
        rows = lease_status(url)
        assert [(r.worker, r.held) for r in rows] == [(5, True)]
        (holder,) = sql(f"SELECT holder FROM {table} WHERE worker = 5")[0]
        assert str(os.getpid()) in holder


# --- regression tests from the first wave's reviews (each failed before its fix) ---


# Correctness review, finding 1. asyncio: a grant of a NEW identity is never applied by _agrab (failed before its fix).
@pytest.mark.timeout(60)
def test_async_holder_that_lost_its_pg_worker_never_duplicates_the_successor(
    table: str,
) -> None:
    clock = FakeClock(time.time_ns() // 1_000_000)  # near the store's clock (skew check)
    url = f"{PG}?table={table}&ttl=5&span=1"
    holder = open_pg(f"{url}&range=0-1", clock=clock)
    successor = None
    try:
        generator = Generator(fence=holder, clock=clock)
        asyncio.run(generator.anext_id())
        worker = holder.worker
        assert worker is not None
        old_ceiling = holder.ceiling_ms
        # The holder pauses longer than its TTL (GC, SIGSTOP): its row expires ...
        sql(
            f"UPDATE {table} SET expires_at = clock_timestamp() - interval '1 second'"
            " WHERE worker = %s",
            (worker,),
        )
        clock.advance(1500)  # ... and time passes its ceiling.
        # A successor claims the worker; its grant starts above the holder's ceiling.
        successor = open_pg(f"{url}&range={worker}-{worker}", clock=clock)
        theirs = Generator(fence=successor, clock=clock).next_id()
        assert successor.grant is not None
        assert successor.grant.start_ms > old_ceiling
        # The holder resumes: its renewal fails, it claims the other worker, issues.
        ours = asyncio.run(generator.anext_ids(1))[0]
        assert holder.worker != worker
        assert TWITTER.worker_of(ours) == holder.worker
        assert ours != theirs
    finally:
        holder.close()
        if successor is not None:
            successor.close()


# Correctness review, finding 3. a claim that waited for its start makes the generator raise anyway (failed before its fix).
@pytest.mark.timeout(60)
def test_restart_on_a_released_pg_worker_issues_without_error(table: str) -> None:
    url = f"{PG}?table={table}&range=5-5&ttl=1.5&timeout=2&span=1.5"
    first = open_pg(url)
    try:
        before = Generator(fence=first).next_id()
    finally:
        first.close()  # released: expires now, its ceiling (about now + 1.5 s) stays
    second = open_pg(url)
    try:
        after = Generator(fence=second).next_id()  # the lease waits ~1.5 s for its start
        assert after > before
    finally:
        second.close()


def test_libpq_parameters_with_spaces_reach_libpq_intact() -> None:
    """``options=-c%20synchronous_commit%3Don`` (the libpq way to set a server setting per
    connection) arrived as ``-c+synchronous_commit=on``: the server refused the connection
    ("unrecognized configuration parameter +synchronous_commit")."""
    from psycopg.conninfo import conninfo_to_dict

    lease = open_pg("postgresql://postgres@127.0.0.1:1/db?options=-c%20synchronous_commit%3Don")
    try:
        assert conninfo_to_dict(lease.conninfo)["options"] == "-c synchronous_commit=on"
    finally:
        lease.close()


# Issue 25 §3: a process that exited holding a PostgreSQL lease printed "Exception ignored
# in PostgresLease.__del__ ... AttributeError: 'NoneType' object has no attribute 'getpid'".
_HOLD_AND_EXIT = """
import sys
import snowid
import snowid.process._default as default

snowid.configure(lease=sys.argv[1])
snowid.next_id()


def on_event(event):  # an application watching its lease; keeps this module's names alive
    print(default, event)


default._state.lease.listeners.append(on_event)
"""


def test_a_process_exiting_with_a_pg_lease_held_prints_nothing(table: str) -> None:
    """The process-wide generator holds a PostgreSQL lease when the script ends, and a
    listener of the script's own keeps it until the interpreter clears every module's
    names (``os`` is None by then): the exit is clean, nothing on stderr. (Before: the
    lease's ``__del__`` called ``os.getpid()`` and printed an AttributeError.)"""
    url = f"{PG}?table={table}&range=0-3&ttl=1"
    done = subprocess.run(
        [sys.executable, "-c", _HOLD_AND_EXIT, url],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_a_pg_lease_collected_after_module_names_are_cleared_raises_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the interpreter does to a module at exit, done by hand: every name the
    PostgreSQL backend imported is None when an unclosed lease is collected, and the
    interpreter does not yet say it is finalizing. Its ``__del__`` still raises nothing."""
    import snowid.lease.postgres as backend

    lease = open_pg("postgresql://postgres@127.0.0.1:1/db?table=t")
    for name in ("os", "sys", "close_quietly", "contextlib", "threading"):
        if hasattr(backend, name):
            monkeypatch.setattr(backend, name, None)
    lease.__del__()
    monkeypatch.undo()
    lease.close()
