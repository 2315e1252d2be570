"""PostgreSQL leases across a store restart with its data kept (docs/leases.md case 21).

The module makes its own throwaway cluster (initdb, trust auth, fsync on, a free
loopback port) so it can crash it with ``pg_ctl stop -m immediate`` - the shared server
on 5432 is never touched. Immediate shutdown is a crash: no checkpoint, the next start
replays the WAL. Timings are scaled down: TTL 2 s, renewals every 0.5 s, 1 s per
statement, so a holder's local deadline is 1.78 s after its last acknowledged send.

Expected [continue or fail closed]: while the store is down a holder never issues past
the ceiling it had acknowledged; after the restart it renews the same lease (nothing was
lost, so no StoreRegressedError) and issues again; if the outage outlived the TTL and
another claimant took the worker, that successor starts above everything the first
holder issued.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snowid import TWITTER, Generator
from snowid.errors import NoFreeIdentityError, StoreUnreachableError
from snowid.lease import LeaseEvent, init_lease
from tests.lease_support.holders import Issuer, wait_until, worker_ms
from tests.lease_support.pg import open_pg
from tests.lease_support.proxy import TcpProxy
from tests.support.web import free_port

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(60)]

TTL, RENEW, TIMEOUT = 2.0, 0.5, 1.0
TIMINGS = f"ttl={TTL:g}&renew={RENEW:g}&timeout={TIMEOUT:g}"
FAIL_CLOSED_CODES = {"store_unreachable", "ceiling_reached"}


# --- the throwaway cluster ---------------------------------------------------------------


def _find_initdb() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve()
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    return Path(candidates[-1]) if candidates else None


class Cluster:
    """A PostgreSQL cluster in ``root`` on ``127.0.0.1:port``, run as the ``postgres`` user
    when we are root (initdb and postgres refuse to run as root)."""

    def __init__(self, bindir: Path, root: Path, port: int, run_as: str | None) -> None:
        self.bindir, self.root, self.port = bindir, root, port
        self.data = root / "data"
        self.log = root / "server.log"
        self._prefix = ["runuser", "-u", run_as, "--"] if run_as else []
        self._env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        self._env["LC_ALL"] = "C"
        self.running = False

    def url(self, query: str = "") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres" + (
            f"?{query}" if query else ""
        )

    def run(self, tool: str, *args: str) -> None:
        proc = subprocess.run(
            [*self._prefix, str(self.bindir / tool), *args],
            cwd=self.root,  # the postgres user may not be able to enter ours
            env=self._env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if proc.returncode != 0:
            log = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
            pytest.fail(f"{tool} {' '.join(args)} failed:\n{proc.stdout}{proc.stderr}\n{log}")

    def init(self) -> None:
        self.run(
            "initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
            "--locale=C", "--no-sync",
        )  # fmt: skip
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"listen_addresses = '127.0.0.1'\nport = {self.port}\n"
                f"unix_socket_directories = '{self.root}'\n"
                "fsync = on\nsynchronous_commit = on\nshared_buffers = 16MB\n"
                "max_connections = 30\n"
                # No background commits that would flush other sessions' WAL at random
                # (the asynchronous-commit finding below must lose its write every time).
                "autovacuum = off\n"
            )

    def start(self) -> None:
        self.run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "30", "start")
        self.running = True

    def crash(self) -> None:
        """Immediate shutdown: backends are killed, nothing is checkpointed."""
        self.running = False
        self.run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "-t", "30", "stop")

    def sql(self, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True, connect_timeout=3) as conn:
            cur = conn.execute(statement, params)
            return list(cur.fetchall()) if cur.description else []


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    initdb = _find_initdb()
    if initdb is None:
        if os.environ.get("CI"):
            pytest.fail("initdb is missing: CI must have the PostgreSQL server binaries")
        pytest.skip("initdb not found (on PATH or in /usr/lib/postgresql/*/bin)")
    run_as = None
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.fail("running as root, and there is no postgres user to run initdb as")
        run_as = owner.pw_name
    # Under /tmp, not pytest's tmp_path: its parents are 0700 root, closed to postgres.
    root = Path(tempfile.mkdtemp(prefix="snowid-pgrestart-"))
    if run_as is not None:
        os.chown(root, owner.pw_uid, owner.pw_gid)
    cluster = Cluster(initdb.parent, root, free_port(), run_as)
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        if (cluster.data / "postmaster.pid").exists():
            with contextlib.suppress(BaseException):
                cluster.crash()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def table(cluster: Cluster) -> str:
    """A fresh lease table in the throwaway cluster (first deployment: no quarantine)."""
    if not cluster.running:  # a previous test failed while the cluster was down
        cluster.start()
    name = f"t_{uuid.uuid4().hex[:12]}"
    init_lease(cluster.url(f"table={name}"), first_deployment=True)
    return name


# --- the tests ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "outage",
    [
        pytest.param(0.8, id="rides-through"),  # usually shorter than the local deadline
        pytest.param(1.9, id="fails-closed"),  # always longer: it must stop, then resume
    ],
)
def test_short_restart_holder_continues_or_fails_closed_then_issues_again(
    cluster: Cluster, table: str, outage: float
) -> None:
    """(a) Crash and restart within about a TTL under a holder that keeps issuing: it rides
    the outage on its acknowledged ceiling (or raises StoreUnreachable/CeilingReached once
    that runs out) and never issues past it; after the restart its renewals succeed on the
    same worker and epoch and it issues again; the ids are unique and increasing. The
    second outage (1.9 s + the start) outlasts the local deadline (1.78 s after the last
    acknowledged send, which came before the crash): that holder must have failed closed."""
    holder = Issuer(open_pg(cluster.url(f"table={table}&range=0-0&{TIMINGS}")))
    holder.start()
    wait_until(lambda: holder.last_ok > 0, 10, "the holder to issue")
    grant = holder.lease.grant
    assert grant is not None
    time.sleep(0.6)  # at least one renewal before the crash
    failures_before = holder.lease.renew_failures

    crashed = time.monotonic()
    cluster.crash()
    time.sleep(outage)
    restarting = time.monotonic()
    cluster.start()
    restarted = time.monotonic()
    renewals_at_restart = holder.lease.renewals
    wait_until(
        lambda: holder.lease.renewals > renewals_at_restart, 5, "a renewal after the restart"
    )
    wait_until(lambda: holder.last_ok > restarted + 0.3, 5, "the holder to issue again")
    holder.finish()

    assert restarted - crashed < TTL * 2  # "within about a TTL" (the start replays WAL)
    assert holder.lease.renew_failures > failures_before  # the holder did see the outage
    codes = {code for _, code in holder.errors}
    assert codes <= FAIL_CLOSED_CODES  # continued, or failed closed; never anything else
    if outage > TTL * 0.89:  # failed closed: the deadline fired, nothing was issued from
        assert "store_unreachable" in codes  # the first error until the store was back
        assert "expired" in [e.kind for e in holder.events]
        first_error = holder.errors[0][0]
        assert not [t for _, _, t in holder.batches if first_error < t < restarting]
    # Continued on the same lease: the row (owner, epoch, ceiling) survived the crash.
    assert holder.lease.state == "held"
    after = holder.lease.grant
    assert after is not None
    assert (after.datacenter, after.machine, after.epoch) == (
        grant.datacenter,
        grant.machine,
        grant.epoch,
    )
    assert [e.kind for e in holder.events if e.kind in ("lost", "claim")] == ["claim"]
    holder.assert_within_acked_ceilings()
    ids = holder.ids
    assert ids == sorted(set(ids))  # unique and increasing
    holder.lease.close()


def test_restart_longer_than_the_ttl_successor_starts_above_the_first_holder(
    cluster: Cluster, table: str
) -> None:
    """(b) The store is down for TTL + 0.7 s while a second claimant keeps trying for the
    (only) worker: the holder fails closed at its local deadline; after the restart the
    lease row has expired, the successor claims it (epoch + 1) with a start above the
    holder's acknowledged ceiling, hence above every id it issued; the holder's next CAS
    fails and it gets nothing (the range has one worker). No (worker, ms) is shared.

    The holder reaches the store through a proxy that keeps refusing it until the
    successor has claimed: otherwise the two race, and if the holder reconnects first it
    just renews its expired-but-unclaimed lease (the continue outcome of test (a))."""
    proxy = TcpProxy("127.0.0.1", cluster.port)
    successor = open_pg(cluster.url(f"table={table}&range=0-0&{TIMINGS}"), claim_wait=5)
    try:
        holder_url = (
            f"postgresql://postgres@127.0.0.1:{proxy.port}/postgres"
            f"?table={table}&range=0-0&{TIMINGS}"
        )
        holder = Issuer(open_pg(holder_url))
        holder.start()
        wait_until(lambda: holder.last_ok > 0, 10, "the holder to issue")
        first = holder.lease.grant
        assert first is not None

        waiting: list[str] = []
        granted: list[tuple[float, Any]] = []

        def claim() -> None:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                try:
                    grant = successor.acquire(0)
                except (NoFreeIdentityError, StoreUnreachableError) as error:
                    waiting.append(error.code)
                    time.sleep(0.01)
                    continue
                granted.append((time.monotonic(), grant))
                return

        claimant = threading.Thread(target=claim, name="claimant", daemon=True)
        claimant.start()
        wait_until(lambda: "no_free_identity" in waiting, 5, "the claimant to be refused")
        time.sleep(0.3)

        crashed = time.monotonic()
        cluster.crash()
        proxy.set_mode("reset")  # the holder's reconnects are refused, as by the dead store
        time.sleep(TTL + 0.7)
        restarting = time.monotonic()  # pg_ctl start -w returns a little after it is ready
        cluster.start()
        claimant.join(10)
        assert granted, f"the successor never claimed (saw {sorted(set(waiting))})"
        assert "store_unreachable" in waiting  # it kept trying through the outage
        proxy.set_mode("pass")
        wait_until(
            lambda: any(e.kind == "lost" for e in holder.events), 5, "the holder's CAS to fail"
        )
        time.sleep(0.2)
        holder.finish()
        took = Generator(fence=successor).next_ids(5000)
    finally:
        successor.close()
        proxy.close()

    claimed_at, grant = granted[0]
    assert claimed_at > restarting
    acked = holder.acked_ceiling(0)
    held = holder.ids
    assert held
    assert holder.last_ok < crashed + TTL + 0.1  # it stopped within its TTL (its ceiling)
    assert grant.epoch == first.epoch + 1  # the epoch counter survived the crash
    assert grant.start_ms > acked >= max(TWITTER.timestamp_of(v) for v in held)
    assert min(took) > max(held)
    assert not (worker_ms(held) & worker_ms(took))
    assert len(set(held) | set(took)) == len(held) + len(took)
    holder.assert_within_acked_ceilings()
    assert held == sorted(set(held))
    codes = {code for _, code in holder.errors}
    assert "store_unreachable" in codes
    assert codes <= FAIL_CLOSED_CODES | {"no_free_identity"}
    assert ("lost", 0) in [(e.kind, e.worker) for e in holder.events]
    holder.lease.close()


def test_data_survives_the_crash_no_regression_no_new_incarnation(
    cluster: Cluster, table: str
) -> None:
    """(c) A renewal acknowledged just before the immediate shutdown is still there after
    the restart (WAL replay): same incarnation, same owner and epoch, ceiling >= every one
    acknowledged. The holder renews without StoreRegressedError, and a re-run of the
    idempotent init (without first_deployment) sees the store as existing: no quarantine."""
    url = cluster.url(f"table={table}&range=0-3&{TIMINGS}")
    holder = open_pg(url)
    events: list[LeaseEvent] = []
    holder.listeners.append(events.append)
    generator = Generator(fence=holder, max_wait_ms=100)
    before = generator.next_ids(2000)
    for _ in range(3):
        holder.acquire(holder.ceiling_ms + 1)  # a synchronous, acknowledged renewal
    grant = holder.grant
    assert grant is not None
    worker, incarnation, owner = holder.worker, holder.incarnation, holder.owner
    assert incarnation is not None

    cluster.crash()  # right after the last acknowledgement
    acked = max(e.ceiling_ms for e in holder.events if e.kind in ("claim", "extend"))
    cluster.start()

    ((stored_incarnation,),) = cluster.sql(f"SELECT incarnation::text FROM {table}_meta")
    assert stored_incarnation == incarnation
    ((stored_owner, stored_epoch, stored_ceiling),) = cluster.sql(
        f"SELECT owner::text, epoch, ceiling_ms FROM {table} WHERE worker = %s", (worker,)
    )
    assert (stored_owner, stored_epoch) == (owner, grant.epoch)
    assert stored_ceiling >= acked
    again = init_lease(url)
    assert (again["created"], again["incarnation"], again["quarantined"]) == (
        False,
        incarnation,
        False,
    )

    renewals = holder.renewals
    deadline = time.monotonic() + 5
    while holder.renewals == renewals:  # the holder's first statement hits the dead socket
        assert time.monotonic() < deadline, "no renewal after the restart"
        with contextlib.suppress(StoreUnreachableError):  # StoreRegressedError would fail
            holder.acquire(holder.ceiling_ms + 1)
        time.sleep(0.05)
    after = generator.next_ids(2000)
    assert holder.state == "held"
    assert holder.grant is not None
    assert holder.grant.epoch == grant.epoch
    assert holder.ceiling_ms >= acked
    assert [e.kind for e in events if e.kind != "extend"] == ["claim"]  # no lost, no expired
    assert min(after) > max(before)
    holder.close()


# --- findings (each test failed before its fix) ------------------------------------------


def test_async_commit_setting_loses_acknowledged_ceilings_on_a_crash(
    cluster: Cluster, table: str
) -> None:
    """A DBA sets ``synchronous_commit = off`` for the role the fleet connects as (a common
    tuning; the lease cannot see it). Commits are then acknowledged before their WAL is
    flushed, and an immediate shutdown drops the WAL still in shared memory: the renewal
    the holder acknowledged is gone, and a successor starts at or below the holder's
    acknowledged ceiling, so it can issue (worker, ms) pairs the holder still may.
    wal_writer_delay is raised so the WAL writer does not flush it first by chance."""
    role = "snowid_async"
    cluster.sql(
        f"DO $$BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{role}')"
        f" THEN CREATE ROLE {role} LOGIN SUPERUSER; END IF; END$$"
    )
    cluster.sql(f"ALTER ROLE {role} SET synchronous_commit = off")
    cluster.sql("ALTER SYSTEM SET wal_writer_delay = '10s'")
    cluster.sql("SELECT pg_reload_conf()")
    time.sleep(0.2)
    url = (
        f"postgresql://{role}@127.0.0.1:{cluster.port}/postgres"
        f"?table={table}&range=0-0&ttl=2&renew=30&timeout=1"
    )
    holder = open_pg(url)
    try:
        held = Generator(fence=holder).next_ids(1000)
        holder.acquire(holder.ceiling_ms + 1)  # an acknowledged renewal
        acked = holder.ceiling_ms
        cluster.crash()
        cluster.start()
        with open_pg(url, claim_wait=5) as successor:
            deadline = time.monotonic() + 6
            while True:
                try:
                    grant = successor.acquire(0)
                    break
                except NoFreeIdentityError:  # the holder's row, if it survived, expires
                    assert time.monotonic() < deadline
                    time.sleep(0.05)
        assert grant.start_ms > acked >= max(TWITTER.timestamp_of(v) for v in held)
    finally:
        holder.close()
        cluster.sql("ALTER SYSTEM RESET wal_writer_delay")
        cluster.sql("SELECT pg_reload_conf()")


def test_libpq_parameters_with_spaces_reach_libpq_intact() -> None:
    """``options=-c%20synchronous_commit%3Don`` (the libpq way to set a server setting per
    connection) arrives as ``-c+synchronous_commit=on``: the server refuses the connection
    ("unrecognized configuration parameter +synchronous_commit")."""
    from psycopg.conninfo import conninfo_to_dict

    lease = open_pg("postgresql://postgres@127.0.0.1:1/db?options=-c%20synchronous_commit%3Don")
    try:
        assert conninfo_to_dict(lease.conninfo)["options"] == "-c synchronous_commit=on"
    finally:
        lease.close()
