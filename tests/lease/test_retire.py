"""Lease.retire (release at stop): a store lease is given back at once and keeps issuing
inside the grant already held, never beyond it; file slots and static identities keep
theirs until exit. And the log line of a claim that must wait longer than a second."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from snowid import Generator
from snowid.errors import LeaseLostError
from snowid.lease import init_lease, lease_status, open_lease
from snowid.testing import FakeClock
from tests.support import pg
from tests.support.marks import write_mark
from tests.support.need import unavailable
from tests.support.servers import new_name
from tests.support.stores import Store, store

__all__ = ["store"]  # the fixture, imported for pytest


@pytest.mark.slow
def test_a_retired_store_lease_is_free_issues_inside_its_grant_and_never_renews() -> None:
    with pg.fresh_table() as table:
        url = pg.SHARED.url(f"table={table}&range=5-5&ttl=1&renew=0.1&timeout=2")
        holder = pg.open_pg(url)
        generator = Generator(fence=holder)
        before = generator.next_id()
        holder.retire()
        holder.retire()  # idempotent
        assert [row.worker for row in lease_status(url) if row.held] == []
        grant = holder._grant
        assert grant is not None
        renewals = holder.renewals
        after = generator.next_id()  # in flight during the drain: still an id
        assert after > before
        with pytest.raises(LeaseLostError, match="given back as the process stops"):
            holder.acquire(grant.ceiling_ms + 1)
        with pg.open_pg(url) as successor:  # ~1 s: renewals (every 0.1 s) would show here
            assert successor.warm_up().start_ms > grant.ceiling_ms  # never overlaps
        assert holder.renewals == renewals  # no renewal raised the ceiling after release
        holder.close()


@pytest.mark.slow
def test_warm_up_on_a_store_made_without_first_deployment_waits_once_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The quarantine of a new store is waited out at start-up, logged once; ids then
    come at once."""
    table = new_name()
    url = pg.SHARED.url(f"table={table}&range=6-6&ttl=0.5&max_skew=0.5&timeout=2")
    if not pg.pg_available():
        unavailable("PostgreSQL is not reachable on 127.0.0.1:5432")
    init_lease(url)  # no --first-deployment: the store's quarantine is ttl+span+max_skew
    try:
        with caplog.at_level(logging.WARNING, logger="snowid.lease"), pg.open_pg(url) as lease:
            lease.warm_up()
            generator = Generator(fence=lease)
            generator.next_ids(10)
        waits = [r.getMessage() for r in caplog.records if "waits" in r.getMessage()]
        assert len(waits) == 1, waits
        assert "snowid lease init URL --first-deployment" in waits[0]
    finally:
        pg.sql(f"DROP TABLE IF EXISTS {table}, {table}_meta")


def test_file_slots_and_static_identities_keep_theirs_until_exit(tmp_path: Path) -> None:
    """The kernel drops a slot's lock when the process dies (SIGKILL too); a static
    identity has no ceiling to fence a successor."""
    for url in (f"file://{tmp_path}/slots?range=3-3", "static://1/2"):
        with open_lease(url) as lease:
            lease.warm_up()
            lease.retire()
            assert lease.state == "held"
            assert lease.grant is not None


def test_a_claim_that_waits_over_a_second_says_why_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """snowid.lease logs the wait, the reason and the remedy (--first-deployment, warm_up)."""
    clock = FakeClock(start_ms=1_700_000_000_000)
    write_mark(tmp_path / "slots", 7, clock.time_ms() + 2_000)  # 2 s ahead of the clock
    with (
        caplog.at_level(logging.WARNING, logger="snowid.lease"),
        open_lease(f"file://{tmp_path}/slots?range=7-7", clock=clock) as lease,
    ):
        lease.warm_up()
    waits = [r.getMessage() for r in caplog.records if "waits" in r.getMessage()]
    assert len(waits) == 1, waits
    assert "worker 7 waits 2." in waits[0]
    assert "--first-deployment" in waits[0]
    assert "snowid.warm_up()" in waits[0]


def test_a_short_wait_says_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock(start_ms=1_700_000_000_000)
    write_mark(tmp_path / "slots", 7, clock.time_ms() + 500)
    with (
        caplog.at_level(logging.WARNING, logger="snowid.lease"),
        open_lease(f"file://{tmp_path}/slots?range=7-7", clock=clock) as lease,
    ):
        lease.warm_up()
    assert not [r for r in caplog.records if "waits" in r.getMessage()]


@pytest.mark.slow
def test_warm_up_claims_on_a_store_just_upgraded_from_the_older_format(store: Store) -> None:
    """Issue 16's store-format upgrade (``snowid lease init``) then a start-up claim: the
    warm-up gets a grant (a worker claimed before keeps its record and starts at once)."""
    query = "range=0-0&ttl=1&renew=0.1&timeout=2"
    with store.open(query) as lease:
        before = lease.warm_up()
    store.forget_format()
    init_lease(store.url(query))  # the upgrade
    with store.open(query) as lease:
        grant = lease.warm_up()
        assert grant.start_ms > before.ceiling_ms
        assert [row.worker for row in lease.status() if row.held] == [0]
