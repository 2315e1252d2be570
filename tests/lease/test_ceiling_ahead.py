"""A previous ceiling far ahead of this host's clock is its own error, not a clock skew.

Issue 8, item 6: a store (or slot file) holding a ceiling such as 8999998203945426302
was reported as "this host's clock is … ms from the store's". The claim now fails with
CeilingAheadError naming the worker and the ceiling, at once rather than after the
whole claim wait, and releases what it took.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from snowid.errors import CeilingAheadError, ClockSkewError
from snowid.lease import lease_status, open_lease
from tests.support.holders import wait_until
from tests.support.marks import write_mark
from tests.support.pg import PG, open_pg, sql
from tests.support.stores import WITH_MARKS, Store, store

__all__ = ["store"]  # the fixture, imported for pytest

FAR = 8_999_998_203_945_426_302


def test_file_slot_with_a_far_ahead_mark_is_refused_as_ceiling_ahead(tmp_path: Path) -> None:
    write_mark(tmp_path, 0, FAR)
    with open_lease(f"file://{tmp_path}?range=0-0") as lease:
        with pytest.raises(CeilingAheadError) as caught:
            lease.acquire(0)
        assert lease.state == "unclaimed"
    error = caught.value
    assert not isinstance(error, ClockSkewError)
    assert (error.worker, error.ceiling) == (0, FAR)
    text = error.message("en")
    assert f"previous ceiling {FAR} of worker 0" in text
    assert "from the lease store's" not in text
    assert f"mức trần trước đó {FAR} của worker 0" in error.message("vi")


def test_file_slot_ahead_by_more_than_the_wait_names_the_slot(tmp_path: Path) -> None:
    """Within the regression tolerance but beyond max_wait: the same error, the slot's worker."""
    mark = int(time.time() * 1000) + 8000
    write_mark(tmp_path, 3, mark)
    url = f"file://{tmp_path}?range=3-3&max_wait=0.1"
    with open_lease(url) as lease, pytest.raises(CeilingAheadError) as caught:
        lease.acquire(0)
    assert (caught.value.worker, caught.value.ceiling) == (3, mark)


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_postgres_far_ahead_ceiling_is_refused_at_once(table: str) -> None:
    """Before: ClockSkewError after waiting the whole claim_wait (here ttl+span+max_skew+1)."""
    sql(f"UPDATE {table} SET ceiling_ms = %s WHERE worker = 0", (FAR,))
    url = f"{PG}?table={table}&range=0-0&ttl=5"
    started = time.monotonic()
    with open_pg(url) as lease, pytest.raises(CeilingAheadError) as caught:
        lease.acquire(0)
    assert time.monotonic() - started < 5
    assert (caught.value.worker, caught.value.ceiling) == (0, FAR)
    assert "from the lease store's" not in str(caught.value)
    assert [row.held for row in lease_status(url)] == [False]


NEAR_TOP = 2**63 - 1000
"""A stored ceiling a span below 2^63: adding the span passes PostgreSQL's bigint, and
Lua's numbers (doubles) in Redis are no longer exact there."""


def test_a_ceiling_near_the_top_of_64_bits_is_ceiling_ahead_on_every_store(store: Store) -> None:
    """Before: PostgreSQL's claim overflowed (``bigint out of range``, reported as
    StoreUnreachableError, as if the store were down) and Redis wrote back a wrapped,
    negative ceiling and waited the whole claim_wait. Now the claim is refused at once as
    CeilingAheadError naming the worker and the stored ceiling, and that ceiling never
    drops."""
    store.push_ceiling(0, NEAR_TOP - store.now_ms())
    query = "range=0-0&ttl=1&timeout=2"
    started = time.monotonic()
    with store.open(query) as lease, pytest.raises(CeilingAheadError) as caught:
        lease.acquire(0)
    assert time.monotonic() - started < 2  # claim_wait is 5 s: refused without waiting
    error = caught.value
    assert error.worker == 0
    assert abs(error.ceiling - NEAR_TOP) < 10_000  # the stored value, exactly as written
    (row,) = lease_status(store.url(query))
    assert not row.held  # what the claim took was given back
    assert row.ceiling_ms >= error.ceiling  # never lowered, never wrapped


def test_a_ceiling_raised_near_the_top_of_64_bits_under_a_holder_renews_as_written(
    store: Store,
) -> None:
    """Before: Redis computed with the stored ceiling as a Lua double and answered it
    rounded (within 512 of 2^63, wrapped negative: the holder then failed closed as if the
    store had rolled back). Renewals now pass the stored ceiling on exactly, as
    PostgreSQL's do."""
    target = 2**63 - 1 - 5000  # room for the ms between push_ceiling's two clock reads
    url = store.url("range=0-0")
    with store.open("range=0-0&ttl=1&timeout=2&renew=0.1") as lease:
        lease.acquire(0)
        store.push_ceiling(0, target - store.now_ms())
        (row,) = lease_status(url)
        assert target <= row.ceiling_ms < 2**63
        wait_until(lambda: lease.ceiling_ms == row.ceiling_ms, 30, "the ceiling acknowledged")
        assert lease.state == "held"


@pytest.mark.slow
@pytest.mark.parametrize("store", WITH_MARKS, indirect=True)  # the stores that keep marks
def test_claims_refused_for_a_start_too_far_ahead_never_push_that_start_further(
    store: Store,
) -> None:
    """bench/faults.py found it: each refused claim had raised the ceiling by a span before
    it was refused, so the next one's start was a span further on (2 s per try here). A
    process retrying after a quarantine pushed the start ahead faster than the clock, and
    the identity was never claimable again. Now every refusal names the same start, and
    a claim that may wait long enough gets it, exactly there."""
    store.push_ceiling(0, 20_000)
    url = store.url("range=0-0&ttl=1&span=2&claim_wait=0.5&timeout=5")
    refused = []
    for _ in range(4):
        with open_lease(url) as lease, pytest.raises(CeilingAheadError) as caught:
            lease.acquire(0)
        refused.append(caught.value.ceiling)
    assert len(set(refused)) == 1, refused  # before: each 2,000 ms above the one before
    rows = lease_status(url)
    assert [r.held for r in rows] == [False]


@pytest.mark.slow
@pytest.mark.parametrize("store", WITH_MARKS, indirect=True)
def test_claims_refused_for_a_start_too_far_ahead_raise_the_ceiling_once_not_at_every_try(
    store: Store,
) -> None:
    """bench/faults.py found it after Redis rollbacks (a 158 s stall, then 187 s in a
    3-minute run of rollbacks alone): each refused claim still raised the stored ceiling
    by a span above the last one; the release mark only hid it, so the next claim started
    at the mark. A quarantine voids every mark, and the next claim then started at the
    ceiling those refusals had pushed ahead: 20 refusals a second, 40 s of ceiling per
    second, 47 minutes ahead after 3 minutes. Now a claim's ceiling is a span above where
    it starts (its mark) or the stored ceiling, whichever is higher: four refusals raise
    the ceiling by one span, and with the marks voided the next claim starts there."""
    store.push_ceiling(0, 20_000)
    query = "range=0-0&ttl=1&span=2&claim_wait=0.5&timeout=5"
    url = store.url(query)
    refused = []
    for _ in range(4):
        with open_lease(url) as lease, pytest.raises(CeilingAheadError) as caught:
            lease.acquire(0)
        refused.append(caught.value.ceiling)
    assert len(set(refused)) == 1, refused
    with store.open(query) as lease:
        assert lease.void_release_marks() >= 1  # as every failover or rollback quarantine
    (row,) = lease_status(url)
    assert refused[0] < row.ceiling_ms <= refused[0] + 2000, row  # before: + 8,000
    with open_lease(url) as lease, pytest.raises(CeilingAheadError) as caught:
        lease.acquire(0)
    assert caught.value.ceiling == row.ceiling_ms  # the next claim starts there
