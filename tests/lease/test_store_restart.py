"""Leases across crashes, restarts, freezes and wipes of the store's server (docs/leases.md
cases 18, 21 and 22), each on a server of the module's own so it can be crashed: a
PostgreSQL cluster (``pg_ctl stop -m immediate``: no checkpoint, the next start replays the
WAL), a mariadbd (SIGKILL: InnoDB replays its redo log) and a redis-server (SIGKILL; AOF
with fsync always). The shared servers are never touched. A scenario that more than one
backend has is one test, parametrised over the servers it runs on (``on``).

Timings are scaled down: TTL 1-2 s, renewals every 0.2-0.5 s, 0.3-1 s per round trip, so
a holder's local deadline (TTL * 0.89 after its last acknowledged send) comes within the
outages. Expected [continue or fail closed]: while the store is down a holder never issues
past the ceiling it had acknowledged. After a restart with the data kept, PostgreSQL and
MySQL holders renew the same lease (no StoreRegressedError) and issue again; a Redis holder
sees the new run_id, gives its lease up and claims anew above its old ceiling. If the
outage outlived the TTL and another claimant took the worker, that successor starts above
everything the first holder issued. A server back empty has no lease records: holders fail
closed for good and the store is set up again, quarantined. A frozen server (SIGSTOP)
makes the holder drop its ceiling at the local deadline and resume the same lease once it
answers again.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from snowid import TWITTER, Generator, SystemClock
from snowid.errors import NoFreeIdentityError, StoreRegressedError, StoreUnreachableError
from snowid.lease import LeaseEvent, init_lease
from tests.support.holders import FAIL_CLOSED_CODES, Issuer, wait_until, worker_ms
from tests.support.mysql import maria_server
from tests.support.pg import open_pg, pg_cluster
from tests.support.proxy import TcpProxy
from tests.support.redis import redis_server
from tests.support.servers import OwnServer, PgCluster
from tests.support.stores import Store, store_on, wait_for_claim

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]

TTL, RENEW, TIMEOUT = 2.0, 0.5, 1.0
TIMINGS = f"ttl={TTL:g}&renew={RENEW:g}&timeout={TIMEOUT:g}"


# --- the module's own servers: each started at its first test, ended after the last ------


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[OwnServer]:
    # No background commits that would flush other sessions' WAL at random (the
    # asynchronous-commit finding below must lose its write every time).
    with pg_cluster({"autovacuum": "off"}) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def mysql_server() -> Iterator[OwnServer]:
    with maria_server() as server:
        yield server


@pytest.fixture(scope="module")
def redis_server_() -> Iterator[OwnServer]:
    with redis_server() as server:
        yield server


@pytest.fixture
def server(request: pytest.FixtureRequest) -> OwnServer:
    """The module's server of the backend the test is parametrised with (``on``)."""
    name = "redis_server_" if request.param == "redis" else f"{request.param}_server"
    started: OwnServer = request.getfixturevalue(name)
    if not started.running:  # a previous test failed while it was down
        started.start()
    return started


@pytest.fixture
def store(server: OwnServer) -> Store:
    """A fresh lease store on the test's server (first deployment: no quarantine)."""
    return store_on(server)


def on(*backends: str) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("server", backends, indirect=True)


# --- restarts with the data kept (case 21) ------------------------------------------------


@pytest.mark.parametrize(
    ("server", "outage"),
    [
        # Rides through: usually shorter than the local deadline (MariaDB starts slower).
        pytest.param("postgres", 0.8, id="postgres-rides-through"),
        pytest.param("mysql", 0.3, id="mysql-rides-through"),
        # Fails closed: always longer, the holder must stop, then resume.
        pytest.param("postgres", 1.9, id="postgres-fails-closed"),
        pytest.param("mysql", 1.9, id="mysql-fails-closed"),
    ],
    indirect=["server"],
)
def test_crash_and_restart_holder_continues_or_fails_closed_then_issues_again(
    server: OwnServer, store: Store, outage: float
) -> None:
    """Crash and restart within about a TTL under a holder that keeps issuing: it rides
    the outage on its acknowledged ceiling (or raises StoreUnreachable/CeilingReached once
    that runs out) and never issues past it; after the restart its renewals succeed on the
    same worker and epoch and it issues again; the ids are unique and increasing. The
    1.9 s outage (+ the start) outlasts the local deadline (1.78 s after the last
    acknowledged send, which came before the crash): that holder must have failed closed,
    issuing nothing meanwhile."""
    holder = Issuer(store.open(f"range=0-0&{TIMINGS}"))
    holder.start()
    wait_until(lambda: holder.last_ok > 0, 10, "the holder to issue")
    grant = holder.lease.grant
    assert grant is not None
    renewed = holder.lease.renewals
    wait_until(lambda: holder.lease.renewals > renewed, 10, "a renewal before the crash")
    failures_before = holder.lease.renew_failures

    crashed = time.monotonic()
    server.crash()
    time.sleep(outage)
    restarting = time.monotonic()
    server.start()
    restarted = time.monotonic()
    renewals_at_restart = holder.lease.renewals
    wait_until(
        lambda: holder.lease.renewals > renewals_at_restart, 30, "a renewal after the restart"
    )
    wait_until(lambda: holder.last_ok > restarted + 0.3, 15, "the holder to issue again")
    holder.finish()

    # "Within about a TTL" (the start replays its log): 2 TTLs unloaded; a busy machine
    # starts the server slower (a harness bound: the checks below hold for an outage of
    # any length).
    assert restarted - crashed < 30
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


@on("postgres", "mysql")
def test_data_survives_the_crash_no_regression_no_new_incarnation(
    server: OwnServer, store: Store
) -> None:
    """A renewal acknowledged just before the crash is still there after the restart (log
    replay): same incarnation, owner and epoch, ceiling >= every one acknowledged. The
    holder renews without StoreRegressedError, and a re-run of the idempotent init
    (without first_deployment) sees the store as existing: no quarantine."""
    # A TTL of 30 s, not 2: the crash and restart must end within the holder's local
    # deadline (TTL * 0.89), which a loaded machine's restart did not at 2 s, nor at 6 s
    # with both cores busy (an "expired" event). The TTL is a harness margin here: the
    # test is about what the restart kept, and nothing waits for the TTL to run out.
    query = f"range=0-3&ttl=30&renew={RENEW:g}&timeout={TIMEOUT:g}"
    url = store.url(query)
    holder = store.open(query)
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

    server.crash()  # right after the last acknowledgement
    acked = max(e.ceiling_ms for e in holder.events if e.kind in ("claim", "extend"))
    server.start()

    assert store.incarnation() == incarnation
    stored_owner, stored_epoch, stored_ceiling = store.row(worker)
    assert (stored_owner, stored_epoch) == (owner, grant.epoch)
    assert stored_ceiling >= acked
    again = init_lease(url)
    assert (again["created"], again["incarnation"], again["quarantined"]) == (
        False,
        incarnation,
        False,
    )

    renewals = holder.renewals
    deadline = time.monotonic() + 20  # 5 s unloaded
    while holder.renewals == renewals:  # the holder's first round trip meets the dead socket
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


@on("redis")
def test_restart_with_data_kept_fails_closed_then_claims_above_the_old_ceiling(
    server: OwnServer, store: Store
) -> None:
    """Redis: SIGKILL and restart under a holder that keeps issuing. The AOF (fsync always)
    kept every acknowledged write: the incarnation, epoch and ceiling are there after the
    restart. The holder sees the new run_id, stops (never past its acknowledged ceiling),
    gives the old lease up and claims again: epoch + 1, starting above the old ceiling.
    Ids stay unique and increasing."""
    # TIMINGS' 1 s store timeout, a harness margin. With 0.5 s a gate under load once saw
    # the new claim at epoch first + 2: most likely a renewal during the claim's 8 s wait
    # for its start timed out, so that claim was given up and made again.
    holder = Issuer(store.open(f"range=0-0&{TIMINGS}"))
    holder.start()
    wait_until(lambda: holder.last_ok > 0, 10, "the holder to issue")
    first = holder.lease.grant
    assert first is not None
    incarnation, run_id = holder.lease.incarnation, holder.lease.run_id
    renewed = holder.lease.renewals
    wait_until(lambda: holder.lease.renewals > renewed, 10, "a renewal before the crash")
    with holder.lease._lock:
        acked = holder.lease.ceiling_ms
    server.crash()
    server.start()
    assert store.incarnation() == incarnation  # the data survived
    _owner, epoch, ceiling = store.row(0)
    assert epoch == first.epoch
    assert ceiling >= acked
    wait_until(lambda: len([e for e in holder.events if e.kind == "claim"]) == 2, 30, "a new claim")
    reclaimed = time.monotonic()
    wait_until(lambda: holder.last_ok > reclaimed, 30, "the holder to issue again")
    holder.finish()

    assert holder.lease.run_id != run_id
    lost = [e for e in holder.events if e.kind == "lost"]
    assert lost
    assert "restarted" in lost[0].detail
    claims = [e for e in holder.events if e.kind == "claim"]
    assert [c.epoch for c in claims] == [first.epoch, first.epoch + 1]
    assert claims[1].start_ms > holder.acked_ceiling(0, holder.events.index(lost[0]))
    assert {code for _, code in holder.errors} <= FAIL_CLOSED_CODES
    assert holder.lease.incarnation == incarnation  # not a new store: no regression
    holder.assert_within_acked_ceilings()
    ids = holder.ids
    assert ids == sorted(set(ids))
    again = init_lease(store.url())
    assert (again["created"], again["incarnation"]) == (False, incarnation)
    holder.lease.close()


@on("postgres")
def test_restart_longer_than_the_ttl_successor_starts_above_the_first_holder(
    server: OwnServer, store: Store
) -> None:
    """The store is down for TTL + 0.7 s while a second claimant keeps trying for the
    (only) worker: the holder fails closed at its local deadline; after the restart the
    lease row has expired, the successor claims it (epoch + 1) with a start above the
    holder's acknowledged ceiling, hence above every id it issued; the holder's next CAS
    fails and it gets nothing (the range has one worker). No (worker, ms) is shared.

    The holder reaches the store through a proxy that keeps refusing it until the
    successor has claimed: otherwise the two race, and if the holder reconnects first it
    just renews its expired-but-unclaimed lease (the continue outcome above)."""
    query = f"range=0-0&{TIMINGS}"
    proxy = TcpProxy("127.0.0.1", server.port)
    successor = store.open(query, claim_wait=5)
    try:
        holder = Issuer(store.open(query, port=proxy.port))
        holder.start()
        wait_until(lambda: holder.last_ok > 0, 10, "the holder to issue")
        first = holder.lease.grant
        assert first is not None

        waiting: list[str] = []
        granted: list[tuple[float, Any]] = []

        def claim() -> None:
            deadline = time.monotonic() + 40
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
        wait_until(lambda: "no_free_identity" in waiting, 15, "the claimant to be refused")
        time.sleep(0.3)

        crashed_ms = time.time_ns() // 1_000_000
        server.crash()
        proxy.set_mode("reset")  # the holder's reconnects are refused, as by the dead store
        time.sleep(TTL + 0.7)
        restarting = time.monotonic()  # pg_ctl start -w returns a little after it is ready
        server.start()
        claimant.join(30)
        assert granted, f"the successor never claimed (saw {sorted(set(waiting))})"
        assert "store_unreachable" in waiting  # it kept trying through the outage
        proxy.set_mode("pass")
        wait_until(
            lambda: any(e.kind == "lost" for e in holder.events), 15, "the holder's CAS to fail"
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
    # It stopped within its TTL (its ceiling), read off the ids themselves: when the
    # issuing thread noted a batch (last_ok) can lag behind on a busy machine.
    assert max(TWITTER.timestamp_of(v) for v in held) < crashed_ms + TTL * 1000 + 100
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


# --- a frozen server (case 18) ------------------------------------------------------------


FROZEN_TTL = 2.0
"""The frozen-server test's TTL: room for a store timeout of 1 s (below that, a busy
machine's round trips time out before the freeze)."""


@on("redis", "mysql")
def test_a_frozen_server_fails_closed_at_the_deadline_then_resumes_the_same_lease(
    server: OwnServer, store: Store
) -> None:
    """The server is frozen (SIGSTOP) for 4 s, twice the TTL: round trips time out (after
    1 s), the holder drops its ceiling at the local deadline and issues nothing; once the
    server answers again (nothing lost, nobody else claimed; for Redis the same run_id) the
    next renewal resumes the same epoch."""
    holder = Issuer(store.open(f"range=0-0&ttl={FROZEN_TTL:g}&renew=0.4&timeout=1&span=4"))
    holder.start()
    wait_until(lambda: holder.last_ok > 0, 10, "the holder to issue")
    grant = holder.lease.grant
    assert grant is not None
    time.sleep(0.3)
    server.pause()
    try:
        stalled = time.monotonic()
        stalled_boot_ns = SystemClock().monotonic_ns()  # the lease's own clock
        wait_until(lambda: holder.lease.ceiling_ms == -1, 10, "the local deadline")
        # The deadline it failed closed at, read from the lease (no renewal succeeds while
        # the server is frozen): when this thread saw the drop comes late on a busy machine.
        deadline_after = (holder.lease._deadline_ns - stalled_boot_ns) / 1e9
        assert time.time_ns() // 1_000_000 < holder.acked_ceiling(0)  # before the span ran out
        wait_until(lambda: bool(holder.errors), 10, "an error")
        stalled_ok = holder.last_ok
        time.sleep(max(0.0, 2 * FROZEN_TTL - (time.monotonic() - stalled)))
        assert holder.last_ok == stalled_ok  # nothing issued while the server was frozen
    finally:
        server.resume()
    resumed = time.monotonic()
    wait_until(lambda: holder.last_ok > resumed, 30, "the holder to resume")
    holder.finish()

    assert deadline_after < FROZEN_TTL * 0.89  # TTL * 0.89 after the last acknowledged send
    assert {code for _, code in holder.errors} <= FAIL_CLOSED_CODES
    assert holder.lease.state == "held"
    assert holder.lease.grant is not None
    assert holder.lease.grant.epoch == grant.epoch  # the same lease
    assert "lost" not in [e.kind for e in holder.events]
    holder.assert_within_acked_ceilings()
    assert holder.ids == sorted(set(holder.ids))
    holder.lease.close()


# --- a server back empty (case 22) --------------------------------------------------------


@pytest.mark.parametrize(
    ("server", "missing"),
    [("redis", "incarnation"), ("mysql", "the store's meta record is gone")],
    indirect=["server"],
)
def test_a_server_back_empty_fails_holders_closed_and_quarantines(
    server: OwnServer, store: Store, missing: str
) -> None:
    """The server comes back with nothing on disk (its volume lost): the holder's renewal
    finds no incarnation (its reason names what is ``missing``) and it fails closed for
    good; a new process sets the store up again with every ceiling quarantined, so it
    starts above anything the old holder could issue."""
    query = "range=0-0&ttl=1&renew=0.2&timeout=1&max_skew=0.5"
    holder = Issuer(store.open(query))
    holder.start()
    wait_until(lambda: holder.last_ok > 0, 10, "the holder to issue")
    server.crash()
    server.wipe()
    server.start()
    wait_until(lambda: holder.lease.state == "lost", 30, "the holder to fail closed")
    holder.finish()
    assert any(e.kind == "lost" and missing in e.detail for e in holder.events)
    assert {code for _, code in holder.errors} <= FAIL_CLOSED_CODES | {"store_regressed"}
    with pytest.raises(StoreRegressedError):
        holder.lease.acquire(int(time.time() * 1000))
    before = int(time.time() * 1000)
    # the fresh process waits longer for a server that has just started (a harness margin;
    # the quarantine below depends on ttl, span and max_skew only)
    with store.open(query.replace("timeout=1", "timeout=5"), claim_wait=5) as fresh:
        grant = fresh.acquire(0)
        assert grant.start_ms > before + 1000 + 1000 + 500 - 50  # the quarantine
        assert grant.start_ms > max(TWITTER.timestamp_of(v) for v in holder.ids)
        took = Generator(fence=fresh).next_ids(1000)
    assert min(took) > max(holder.ids)
    holder.lease.close()


# --- findings (each test failed before its fix) ------------------------------------------


@on("postgres")
def test_async_commit_setting_loses_acknowledged_ceilings_on_a_crash(
    server: OwnServer, store: Store
) -> None:
    """A DBA sets ``synchronous_commit = off`` for the role the fleet connects as (a common
    tuning; the lease cannot see it). Commits are then acknowledged before their WAL is
    flushed, and an immediate shutdown drops the WAL still in shared memory: the renewal
    the holder acknowledged is gone, and a successor starts at or below the holder's
    acknowledged ceiling, so it can issue (worker, ms) pairs the holder still may.
    wal_writer_delay is raised so the WAL writer does not flush it first by chance."""
    assert isinstance(server, PgCluster)
    sql = server.sql
    role = "snowid_async"
    sql(
        f"DO $$BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{role}')"
        f" THEN CREATE ROLE {role} LOGIN SUPERUSER; END IF; END$$"
    )
    sql(f"ALTER ROLE {role} SET synchronous_commit = off")
    sql("ALTER SYSTEM SET wal_writer_delay = '10s'")
    sql("SELECT pg_reload_conf()")
    time.sleep(0.2)
    url = store.url("range=0-0&ttl=2&renew=30&timeout=1").replace("//postgres@", f"//{role}@")
    holder = open_pg(url)
    try:
        held = Generator(fence=holder).next_ids(1000)
        holder.acquire(holder.ceiling_ms + 1)  # an acknowledged renewal
        acked = holder.ceiling_ms
        server.crash()
        server.start()
        with open_pg(url, claim_wait=5) as successor:
            grant = wait_for_claim(successor, 6)  # the holder's row, if it survived, expires
        assert grant.start_ms > acked >= max(TWITTER.timestamp_of(v) for v in held)
    finally:
        holder.close()
        sql("ALTER SYSTEM RESET wal_writer_delay")
        sql("SELECT pg_reload_conf()")
