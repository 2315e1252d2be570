"""Clean hand-over (issue 26 §4; docs/leases.md, "Clean hand-over").

``close()`` seals every generator on the lease for good, then releases with a mark (the
last millisecond issued under the grant) in the release's own compare-and-set; the next
claim of that worker starts at mark + 1 while the store's record is still that epoch's
release at that ceiling. Fast tests run the seal and the mark's rules on a store in
memory; slow ones run on every networked store (the ``store`` fixture): threads
issuing while ``close()`` runs, 0 duplicates across the stop and the next holder; a failed
or late release, a renewal, a quarantine and ``void_release_marks`` all leave today's
wait (start above the ceiling); an older table gets the new columns.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest

from snowid import TWITTER, Generator, Grant
from snowid.errors import CeilingAheadError, GeneratorSealedError, StoreUnreachableError
from snowid.lease._etcdkv import Record
from snowid.lease._handover import mark_of
from snowid.testing import FakeClock
from tests.support.memstore import MemoryStoreLease
from tests.support.stores import WITH_MARKS, MysqlStore, PgStore, Store, store

__all__ = ["store"]  # the fixture, imported for pytest

T = 1_800_000_000_000
QUERY = "range=0-0&ttl=2&renew=0.5&span=2&timeout=2"
SHORT = "range=0-0&ttl=1&renew=0.3&span=0.4&timeout=2"
"""For the tests that wait out a grant: a short one."""


class MarkingLease(MemoryStoreLease):
    """The store in memory, recording release marks as a real store does."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock=clock, store_clock=clock)
        self.marks: list[int] = []
        self.fail_release = False

    def _store_release_mark(self, worker: int, owner: str, epoch: int, mark_ms: int) -> bool:
        if self.fail_release:
            raise StoreUnreachableError(store=self.url, reason="down for the test")
        self.marks.append(mark_ms)
        return True


def ts(snowflake: int) -> int:
    return TWITTER.timestamp_of(snowflake)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


# --- the seal ---------------------------------------------------------------------------


def test_a_sealed_generator_refuses_every_way_of_issuing_for_good() -> None:
    clock = FakeClock(T)
    generator = Generator(3, 4, clock=clock)
    issued = [generator.next_id() for _ in range(5)]
    last = generator.seal()
    assert last == ts(issued[-1])
    for attempt in (
        generator.next_id,
        lambda: generator.next_ids(3),
        lambda: next(generator),
        lambda: asyncio.run(generator.anext_id()),
        lambda: asyncio.run(generator.anext_ids(2)),
    ):
        with pytest.raises(GeneratorSealedError) as caught:
            attempt()
        assert (caught.value.code, caught.value.worker, caught.value.mark_ms) == (
            "generator_sealed",
            str(TWITTER.worker(3, 4)),
            last,
        )
    clock.advance(5)  # a new millisecond changes nothing: sealed is for good
    with pytest.raises(GeneratorSealedError):
        generator.next_id()
    assert generator.seal() == last  # idempotent


def test_close_seals_every_generator_on_the_lease_and_hands_the_store_its_last_ms() -> None:
    clock = FakeClock(T, auto_advance_ms=1)
    lease = MarkingLease(clock)
    first, second = Generator(fence=lease, clock=clock), Generator(fence=lease, clock=clock)
    ids = [g.next_id() for _ in range(20) for g in (first, second)]
    grant = lease.grant
    assert grant is not None
    lease.close()
    assert lease.marks == [max(ts(i) for i in ids)]
    assert grant.start_ms - 1 <= lease.marks[0] <= grant.ceiling_ms
    for generator in (first, second):
        with pytest.raises(GeneratorSealedError):
            generator.next_id()
    late = Generator(fence=lease, clock=clock)  # made after the close: sealed at once
    with pytest.raises(GeneratorSealedError):
        late.next_id()


def test_no_mark_when_a_grant_went_out_through_the_public_acquire() -> None:
    """Code that issues under ``lease.acquire``'s grant itself cannot be sealed: the
    release then carries no mark, and the next holder waits out the grant as before."""
    clock = FakeClock(T, auto_advance_ms=1)
    lease = MarkingLease(clock)
    Generator(fence=lease, clock=clock).next_id()
    lease.acquire(clock.time_ms())
    lease.close()
    assert lease.marks == []


def test_no_mark_without_a_generator_or_after_a_failed_release() -> None:
    clock = FakeClock(T, auto_advance_ms=1)
    bare = MarkingLease(clock)
    bare.warm_up()
    bare.close()
    assert bare.marks == []
    failing = MarkingLease(clock)
    Generator(fence=failing, clock=clock).next_id()
    failing.fail_release = True
    failing.close()
    assert isinstance(failing.release_error, StoreUnreachableError)


def test_a_generator_whose_lock_is_held_past_the_wait_gives_no_mark() -> None:
    """At exit or a final signal the seal waits a bounded time for each generator's lock
    (the signal may have interrupted its holder): past it, no mark."""
    clock = FakeClock(T, auto_advance_ms=1)
    lease = MarkingLease(clock)
    generator = Generator(fence=lease, clock=clock)
    generator.next_id()
    lease._sealers._seals.append(lambda timeout: None)  # stands for a lock not had in time
    lease._close(0.01)
    assert lease.marks == []


def test_the_mark_stays_inside_the_grant() -> None:
    grant = Grant(0, 1, 1000, 2000, 3)
    assert mark_of(grant, 1500) == 1500
    assert mark_of(grant, 10) == 999  # nothing of this grant below its start
    assert mark_of(grant, 5000) == 2000  # nothing of this grant above its ceiling
    assert mark_of(grant, None) is None


def test_an_etcd_or_zookeeper_record_keeps_the_mark_only_as_the_rules_say() -> None:
    """The record both stores write (``_etcdkv.Record``): a release writes the mark, never
    below the grant's start - 1, beside the epoch and the ceiling, which it leaves alone; a
    claim starts at mark + 1 only while both are still the record's; a claim, a renewal or
    a void writes it away."""
    claimed = Record(5000).claimed(6000, 2000, owner="a", holder="h", now=6000)
    assert (claimed.start, claimed.ceiling, claimed.epoch, claimed.released) == (
        5001,
        8000,
        1,
        None,
    )
    assert claimed.released_at(8001) is None  # above the ceiling: no sealed holder has it
    assert Record(9000, 1, "a").released_at(100) is None  # no start: a claim before marks
    low = claimed.released_at(10)
    assert low is not None
    assert low.released == 5000  # never below start - 1
    marked = claimed.released_at(7000)
    assert marked is not None
    assert (marked.released, marked.released_epoch, marked.released_ceiling) == (7000, 1, 8000)
    assert (marked.ceiling, marked.epoch, marked.owner) == (8000, 1, "a")
    assert Record.parse(marked.text()) == marked
    assert marked.base == 7000
    by_holder = claimed.released_by("a", 1, 7000)
    assert by_holder is not None
    assert by_holder.released == 7000
    assert claimed.released_by("b", 1, 7000) is None  # another owner's claim: no mark
    assert claimed.released_by("a", 2, 7000) is None  # another epoch: no mark
    again = marked.claimed(6500, 2000, owner="b", holder="h", now=6500)
    assert (again.start, again.ceiling, again.epoch, again.released) == (7001, 9000, 2, None)
    assert again.base == 9000  # that claim's write voided the mark
    short = marked.claimed(100, 500, owner="c", holder="h", now=100)
    assert (short.start, short.ceiling) == (7001, 8000)  # the ceiling never drops
    assert marked.renewed(8500).base == 8500
    assert marked.unmarked().base == 8000
    from dataclasses import replace

    assert replace(marked, ceiling=9500).base == 9500  # a moved ceiling
    assert replace(marked, epoch=2).base == 8000  # another epoch


# --- on the stores ------------------------------------------------------------------------


def _issue(generator: Generator, out: list[int], batch: int, stop: threading.Event) -> None:
    try:
        while not stop.is_set():
            if batch:
                out.extend(generator.next_ids(batch))
            else:
                out.append(generator.next_id())
    except GeneratorSealedError:
        pass


@pytest.mark.slow
@pytest.mark.parametrize("store", WITH_MARKS, indirect=True)
def test_threads_issuing_while_close_runs_hand_over_with_no_duplicate(store: Store) -> None:
    """Four threads issue (single ids and batches) while ``close()`` runs; the next holder
    of the same worker starts right after the last id, at once, and above every id."""
    lease = store.open(QUERY)
    generator = Generator(fence=lease)
    generator.next_id()
    outs: list[list[int]] = [[] for _ in range(4)]
    stop = threading.Event()
    threads = [
        threading.Thread(target=_issue, args=(generator, out, batch, stop), daemon=True)
        for out, batch in zip(outs, (0, 0, 7, 300), strict=True)
    ]
    try:
        for thread in threads:
            thread.start()
        time.sleep(0.3)
        old_ceiling = lease.grant.ceiling_ms
        lease.close()
    finally:
        stop.set()
        for thread in threads:
            thread.join(10)
    assert lease.release_error is None
    before = [i for out in outs for i in out]
    assert all(out for out in outs)  # every thread issued before the seal stopped it
    with store.open(QUERY, claim_wait=5) as successor:
        claimed_at = now_ms()
        after = Generator(fence=successor).next_ids(2000)
        grant = successor.grant
    assert grant is not None
    assert grant.epoch == 2
    last = max(ts(i) for i in before)
    assert last < grant.start_ms <= old_ceiling  # handed over: below the old ceiling
    assert grant.start_ms <= claimed_at + 1  # no wait for the old grant
    everything = before + after
    assert len(set(everything)) == len(everything)
    assert min(after) > max(before)


def test_a_failed_release_leaves_the_wait_for_the_old_grant(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    lease = store.open(SHORT)
    Generator(fence=lease).next_ids(10)
    ceiling = lease.grant.ceiling_ms

    def down(*args: object) -> None:
        raise StoreUnreachableError(store="test", reason="down for the test")

    monkeypatch.setattr(lease, "_store_release_mark", down)
    monkeypatch.setattr(lease, "_store_release", down)
    lease.close()
    assert isinstance(lease.release_error, StoreUnreachableError)
    store.expire(0)  # the TTL ran out (sooner, for the test)
    with store.open(SHORT, claim_wait=5) as successor:
        assert successor.warm_up().start_ms == ceiling + 1


def test_a_release_after_a_takeover_writes_no_mark(store: Store) -> None:
    """A late release (its lease expired and was claimed meanwhile) fails its CAS: the
    takeover's own release, without a mark, leaves the next claim above the ceiling."""
    lease = store.open(SHORT)
    Generator(fence=lease).next_ids(10)
    lease._stop.set()  # its renewals stop (a pause): the expiry below holds
    store.expire(0)
    taker = store.open(SHORT, claim_wait=5)
    taken = taker.warm_up()
    lease.close()  # the CAS on the old epoch finds the new one: nothing written
    assert store.row(0)[1] == taken.epoch
    taker.close()  # no generator on it: released without a mark
    ceiling = store.row(0)[2]  # the taker's renewals may have raised it since its claim
    assert ceiling >= taken.ceiling_ms
    with store.open(SHORT, claim_wait=5) as successor:
        assert successor.warm_up().start_ms == ceiling + 1


@pytest.mark.slow
@pytest.mark.parametrize("store", WITH_MARKS, indirect=True)
def test_a_moved_ceiling_or_void_release_marks_voids_the_mark(store: Store) -> None:
    """A mark counts only beside the ceiling it was written with, and until voided."""
    for void in ("ceiling", "void"):
        lease = store.open(SHORT)
        Generator(fence=lease).next_ids(10)
        lease.close()
        if void == "ceiling":  # as a quarantine does
            ceiling = store.now_ms() + 800
            store.set_ceiling(0, ceiling)
        else:
            ceiling = store.row(0)[2]
            with store.open(SHORT) as other:
                assert other.void_release_marks() >= 1
        with store.open(SHORT, claim_wait=5) as successor:
            assert successor.warm_up().start_ms == ceiling + 1


@pytest.mark.slow
@pytest.mark.parametrize("store", ["etcd"], indirect=True)
def test_an_etcd_restore_quarantine_voids_a_mark_it_does_not_raise(store: Store) -> None:
    """A mark beside a ceiling already above the quarantine's end is voided too: the claim
    that quarantines starts above the ceiling, not at the mark."""
    lease = store.open(SHORT)
    Generator(fence=lease).next_ids(10)
    lease.close()
    kv, key = store.kv, f"{store.prefix}/ceiling/0000"  # type: ignore[attr-defined]
    record = json.loads(kv.get(key))
    far = store.now_ms() + 60_000  # above any quarantine of SHORT's
    mark = store.now_ms() - 1000
    kv.put(key, json.dumps({**record, "ceiling": far, "released": mark, "released_ceiling": far}))
    meta_key = f"{store.prefix}/meta"  # type: ignore[attr-defined]
    kv.put(meta_key, json.dumps({**json.loads(kv.get(meta_key)), "history": "another"}))
    with store.open(SHORT) as successor, pytest.raises(CeilingAheadError) as caught:
        successor.acquire(0)  # before the quarantine, the mark would have let it start now
    assert caught.value.ceiling == far
    assert successor.failovers == 1
    after = json.loads(kv.get(key))
    assert (after["epoch"], after["released"]) == (2, far)  # the refused claim's: its start - 1


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["postgres", "mysql"])
def test_a_table_made_before_the_hand_over_gets_its_columns(kind: str) -> None:
    """Older tables keep working: the first claim that misses the columns adds them."""
    from tests.support import mysql, pg

    shared = pg.fresh_table() if kind == "postgres" else mysql.fresh_table()
    with shared as table:
        sql_store = (
            PgStore(pg.SHARED, table) if kind == "postgres" else MysqlStore(mysql.SHARED_DB, table)
        )
        for column in ("start_ms", "released_ms", "released_epoch", "released_ceiling"):
            sql_store.sql(f"ALTER TABLE {table} DROP COLUMN {column}")
        lease = sql_store.open(QUERY)
        Generator(fence=lease).next_ids(10)
        lease.close()
        with sql_store.open(QUERY, claim_wait=5) as successor:
            claimed_at = now_ms()
            assert successor.warm_up().start_ms <= claimed_at + 1
