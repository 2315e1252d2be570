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
from tests.lease_support.marks import write_mark
from tests.lease_support.pg import PG, open_pg, sql

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


@pytest.mark.postgres
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
