"""A lease store of an older format, and lease records edited under their holders
(issue 25; docs/leases.md cases 31 and 32), on each networked store: PostgreSQL and
MariaDB (a fresh table on the shared servers), Redis (a durable redis-server of the
test's own).

An older format is what a snowid from before store formats leaves: on Redis no ``format``
field in the meta hash (and entries only for workers ever claimed), on SQL no ``format``
column in the meta table (or, edited, a NULL in it). Expected:

- a claim that meets one upgrades the store first, and the upgrade raises every ceiling
  to at least store-now + ttl + span + max_skew (holders of an older snowid may be alive,
  and they repair nothing), so no id repeats even when records were deleted under a live
  holder as well: a missing ceiling is never read as "never used";
- a renewal that meets one writes nothing and drops the lease, saying why; the claim that
  follows upgrades the store;
- a record whose owner or epoch was edited under its holder is reported as modified (not
  removed, not "another process claimed it"); a real takeover still reads as one.

Timings are scaled down: TTL 0.3 s, renewals every 0.1 s, span 0.1 s, max_skew 0.02 s,
so the quarantine is 0.42 s.
"""

from __future__ import annotations

import pytest

from snowid.errors import LeaseLostError, LeaseModifiedError, LeaseRemovedError
from snowid.lease._store import StoreLease
from tests.support.holders import Issuer, wait_until, worker_ms
from tests.support.stores import EtcdStore, RedisStore, SqlStore, Store, store

__all__ = ["store"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

FAST = "ttl=0.6&span=0.1&max_skew=0.02&renew=0.2"  # the repro: quarantine 0.72 s
QUIET = "ttl=0.3&span=0.1&max_skew=0.02&renew=5&timeout=10"  # the test drives renewals;
# timeout=10: a harness margin for a busy shared server (ALTER TABLE on a loaded disk)
QUARANTINE_MS = 300 + 100 + 20
OLDER = "older than store format"


def _make_older(store: Store, *, dropped: bool = True) -> None:
    """Make ``store`` look set up by a snowid from before store formats: Redis without the
    ``format`` field; SQL without the ``format`` column (``dropped``) or with a NULL in it."""
    if isinstance(store, RedisStore):
        store.server.client().hdel(store.keys.all[0], "format")
    elif isinstance(store, EtcdStore):
        store.drop_format()
    elif dropped:
        store.forget_format()
    else:
        assert isinstance(store, SqlStore)
        store.sql(f"UPDATE {store.table}_meta SET format = NULL")


def _format(store: Store) -> int | None:
    """The store format recorded in the meta record (None: none)."""
    if isinstance(store, RedisStore):
        value = store.server.client().hget(store.keys.all[0], "format")
        return None if value is None else int(value)
    if isinstance(store, EtcdStore):
        return store.format()
    assert isinstance(store, SqlStore)
    ((value,),) = store.sql(f"SELECT format FROM {store.table}_meta")
    return None if value is None else int(value)


def _remove_under_holder(store: Store, worker: int) -> None:
    """The issue's removal: Redis ``DEL`` of the lease and ceiling hashes; SQL: the
    holder's row deleted."""
    if isinstance(store, RedisStore):
        _meta, lease, ceiling, _epoch, _info = store.keys.all
        store.server.client().delete(lease, ceiling)
    elif isinstance(store, EtcdStore):
        store.remove(worker, "delete_record")
    else:
        store.remove(worker, "delete_row")


def test_an_older_store_losing_records_under_a_live_holder_never_duplicates(
    store: Store,
) -> None:
    """Issue 25's repro, scaled down: a holder issues ids on worker 7; under it the store
    is made older (the format removed) and its lease records deleted (Redis: the lease
    and ceiling hashes; SQL: its row); a fresh claimant on the same range claims and
    issues. Over both id streams: 0 duplicate ids and no millisecond shared by two
    writers; the claimant starts above the quarantine; the store records the format
    again. (Before, on Redis: duplicates, 13,568 in the issue's own timings; SQL stores
    gave none but were left at the older format.)"""
    query = f"range=7-7&{FAST}"
    holder = store.open(query)
    assert isinstance(holder, StoreLease)
    first = Issuer(holder)
    first.start()
    wait_until(lambda: len(first.batches) > 0, 10, "the holder's first ids")
    claimant = store.open(query)
    assert isinstance(claimant, StoreLease)
    with claimant._lock:
        claimant._check_skew()  # connected (and checked) before the go: it claims at once
    renewals = holder.renewals
    wait_until(lambda: holder.renewals > renewals, 10, "a renewal of the holder")
    # The store's clock before the damage: the quarantine is written after it, by whoever
    # claims first (the holder's issuer claims again once it loses worker 7, and it may do
    # so before the claimant starts, even between the removal and a read of the clock).
    before = store.now_ms()
    _make_older(store)  # just after a renewal: the widest window before the next one
    _remove_under_holder(store, 7)
    second = Issuer(claimant)
    second.start()
    try:
        wait_until(lambda: "lost" in [e.kind for e in first.events], 10, "the holder to stop")
        first.finish()
        holder.close()  # if it won worker 7 back, the claimant gets it now
        wait_until(lambda: len(second.batches) >= 3, 10, "the claimant's ids")
    finally:
        first.halt.set()
        second.finish()
        first.finish()
        holder.close()
        claimant.close()
    a, b = first.ids, second.ids
    duplicates = len(a) + len(b) - len(set(a) | set(b))
    assert duplicates == 0, f"{duplicates} duplicate ids"
    assert not worker_ms(a) & worker_ms(b), "two writers shared a millisecond"
    claims = [e for e in second.events if e.kind == "claim"]
    assert claims[0].start_ms > before + 600 + 100 + 20
    assert _format(store) == 2


def test_a_claim_on_an_older_store_upgrades_it_and_quarantines_every_identity(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """An older store with a worker claimed and released before (its record whole, its
    ceiling low): the next claim, on that very worker, upgrades the store, and the
    upgrade raises every ceiling, that one too, above store-now + the quarantine: a
    holder of an older snowid may still issue under any of them. It says so once."""
    with store.open(f"range=3-3&{QUIET}") as lease:
        lease.acquire(0)
    _make_older(store)
    before = store.now_ms()
    with store.open(f"range=3-3&{QUIET}") as lease:
        grant = lease.acquire(0)
    assert grant.start_ms > before + QUARANTINE_MS
    assert _format(store) == 2
    told = [r.getMessage() for r in caplog.records if "upgraded the lease store" in r.getMessage()]
    assert len(told) == 1, told
    assert f"now + {QUARANTINE_MS} ms" in told[0]
    with store.open(f"range=3-3&{QUIET}") as lease:  # upgraded once: nothing to wait out now
        assert lease.acquire(0).start_ms == grant.ceiling_ms + 1


def test_a_renewal_that_meets_an_older_store_writes_nothing_and_drops_the_lease(
    store: Store,
) -> None:
    """A holder whose store is made older under it (Redis: the format field and its
    ceiling removed; SQL: a NULL format): its renewal writes nothing (on Redis the missing
    ceiling is not rewritten from 0) and fails with a LeaseLostError saying the format is
    older; its next claim upgrades the store and waits out the quarantine. (Before, Redis
    rewrote the ceiling from 0 and SQL renewed as if nothing had changed.)"""
    holder = store.open(f"range=0-0&{QUIET}")
    assert isinstance(holder, StoreLease)
    grant = holder.acquire(0)
    _make_older(store, dropped=False)
    if isinstance(store, RedisStore):
        store.server.client().hdel(store.keys.all[2], 0)
    with holder._lock, pytest.raises(LeaseLostError) as caught:
        holder._renew_now()
    assert OLDER in str(caught.value)
    assert holder.state == "lost"
    assert holder.ceiling_ms == -1
    if isinstance(store, RedisStore):
        assert store.server.client().hget(store.keys.all[2], 0) is None
    before = store.now_ms()
    again = holder.acquire(grant.ceiling_ms + 1)
    assert again.start_ms > before + QUARANTINE_MS
    assert _format(store) == 2
    holder.close()


def test_a_record_edited_under_its_holder_is_reported_as_modified(store: Store) -> None:
    """Worker 0's owner is changed by hand under its holder (its epoch kept): the holder's
    renewal fails with LeaseModifiedError ("modified"), not LeaseRemovedError; worker 1's
    lease expires early and a successor claims it: its holder is told another process
    claimed it, as before. (Before, SQL stores called the edited row removed.)"""
    edited, taken = store.open(f"range=0-0&{QUIET}"), store.open(f"range=1-1&{QUIET}")
    assert isinstance(edited, StoreLease)
    assert isinstance(taken, StoreLease)
    edited.acquire(0)
    taken.acquire(0)
    store.give_away(0)
    with edited._lock, pytest.raises(LeaseModifiedError) as modified:
        edited._renew_now()
    assert "was modified in the lease store" in str(modified.value)
    assert "bị sửa" in modified.value.message("vi")
    store.expire(1)
    with store.open(f"range=1-1&{QUIET}", claim_wait=5) as successor:
        successor.acquire(0)
        with taken._lock, pytest.raises(LeaseLostError) as lost:
            taken._renew_now()
    assert not isinstance(lost.value, LeaseModifiedError | LeaseRemovedError)
    assert "another process claimed it" in str(lost.value)
    edited.close()
    taken.close()
