"""The offset between this host's clock and the lease store's (issue 20 §3): measured at every
claim and renewal of a store whose answers carry its time (PostgreSQL, MySQL/MariaDB, Redis),
kept on the lease as ``clock_offset_ms`` (this host minus the store, in ms) beside the lease's
tolerance ``clock_tolerance_ms`` (max_skew) and its renewal counts.

The fast tests use a store in memory with a FakeClock of its own (exact figures); the slow
one runs each real store with this host's clock shifted by a known amount."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from snowid.errors import ClockSkewError, StoreUnreachableError
from snowid.lease import open_lease
from snowid.testing import FakeClock, OffsetClock
from tests.support.memstore import MemoryStoreLease
from tests.support.stores import Store, store

__all__ = ["store"]  # the fixture, imported for pytest

T = 1_700_000_000_000


def memory_lease(host_ahead_ms: int, max_skew: float = 2.0) -> MemoryStoreLease:
    return MemoryStoreLease(
        clock=FakeClock(T + host_ahead_ms), store_clock=FakeClock(T), max_skew=max_skew
    )


def test_nothing_is_measured_before_the_first_claim() -> None:
    lease = memory_lease(300)
    assert lease.clock_offset_ms is None
    assert lease.clock_tolerance_ms == 2000
    assert lease.renewal_counts == (0, 0)


def test_the_claim_measures_the_offset_either_way() -> None:
    for ahead in (300, -450, 0):
        with memory_lease(ahead) as lease:
            lease.acquire(0)
            assert lease.clock_offset_ms == ahead


def test_every_renewal_measures_it_again() -> None:
    with memory_lease(300) as lease:
        lease.acquire(0)
        lease.store_clock.step(+1000)  # the store's clock steps: the host is now 700 ms behind
        lease.acquire(lease.ceiling_ms + 1)  # a renewal
        assert lease.clock_offset_ms == -700
        assert lease.renewal_counts == (2, 0)  # the claim and the renewal, acknowledged


def test_a_renewal_without_the_store_time_keeps_the_last_measure() -> None:
    with memory_lease(300) as lease:
        lease.acquire(0)
        lease.store_has_clock = False
        lease.store_clock.step(+1000)
        lease.acquire(lease.ceiling_ms + 1)
        assert lease.clock_offset_ms == 300


def test_a_claim_refused_for_skew_still_shows_the_offset() -> None:
    with memory_lease(2500) as lease:
        with pytest.raises(ClockSkewError):
            lease.acquire(0)
        assert lease.clock_offset_ms == 2500
        assert lease.clock_tolerance_ms == 2000


def test_a_renewal_that_gets_no_answer_is_counted_as_failed() -> None:
    with memory_lease(0) as lease:
        lease.acquire(0)
        lease.down = True
        with pytest.raises(StoreUnreachableError):
            lease.acquire(lease.ceiling_ms + 1)
        lease.down = False
        assert lease.renewal_counts == (1, 1)


def test_leases_without_a_store_clock_have_no_offset(tmp_path: Path) -> None:
    with open_lease(f"file://{tmp_path}/slots") as lease:
        lease.acquire(time.time_ns() // 1_000_000)
        assert lease.clock_offset_ms is None
        assert lease.clock_tolerance_ms is None
        assert lease.renewal_counts is None


@pytest.mark.timeout(120)
def test_each_store_answers_a_renewal_with_its_time(store: Store) -> None:
    """The host's clock 600 ms ahead of the store's at the claim, 400 ms behind at a renewal:
    each measure is that shift, give or take the time the operation took (the store reads
    its clock somewhere in it) and a millisecond for each of the two ms readings; etcd's
    clock (the HTTP Date, whole seconds) is read to half a second more (``clock_step_ms``)."""
    clock = OffsetClock(600)
    with store.open("range=0-0&ttl=5", clock=clock) as lease:
        step = lease.clock_step_ms // 2
        started = time.monotonic_ns()
        lease.acquire(0)
        took_ms = (time.monotonic_ns() - started) / 1e6
        offset = lease.clock_offset_ms
        assert offset is not None
        assert abs(offset - 600) <= took_ms + 2 + step, (offset, took_ms)
        clock.offset_ms = -400
        renewals = lease.renewals
        started = time.monotonic_ns()
        lease.acquire(lease.ceiling_ms + 1)  # a renewal, now
        took_ms = (time.monotonic_ns() - started) / 1e6
        assert lease.renewals == renewals + 1
        offset = lease.clock_offset_ms
        assert offset is not None
        assert abs(offset + 400) <= took_ms + 2 + step, (offset, took_ms)
