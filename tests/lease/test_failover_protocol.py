"""The failover check of the store protocol, without a server (issue 26 §2; the real
failovers are in test_failover.py): a store in memory whose server history can be changed
under a holder, with fake clocks (exact figures)."""

from __future__ import annotations

import pytest

from snowid.errors import LeaseLostError, StoreFailedOverError
from snowid.lease import Quarantine
from snowid.lease._failover import HistoryChanged
from snowid.lease._store import Claimed, Renewed
from snowid.testing import FakeClock
from snowid.web._metrics import render
from snowid.web._service import Snapshot
from tests.support.memstore import MemoryStoreLease

T = 1_700_000_000_000


class HistoryStore(MemoryStoreLease):
    """The memory store with a history identity: ``server`` is the server's, ``recorded``
    the one the store last granted under."""

    def __init__(self) -> None:
        super().__init__(clock=FakeClock(T), store_clock=FakeClock(T), max_skew=0.5)
        self.server = self.recorded = "A"
        self.quarantines = 0

    def _store_claim(self, owner: str, caller_ms: int, holder: str) -> Claimed | None:
        if self.recorded != self.server:
            raise HistoryChanged(self.recorded, self.server)
        claimed = super()._store_claim(owner, caller_ms, holder)
        assert claimed is not None
        until = None if not self.quarantines else int(self.record["ceiling"])
        return Claimed(
            0, claimed.old_ceiling, claimed.ceiling, claimed.epoch, "memory", (), self.server,
            until,
        )  # fmt: skip

    def _store_renew(
        self, worker: int, owner: str, epoch: int, caller_ms: int, acked_ms: int
    ) -> Renewed:
        if self.history != self.server:
            return Renewed("lost")
        return super()._store_renew(worker, owner, epoch, caller_ms, acked_ms)

    def _store_history(self) -> str | None:
        return self.server

    def _store_quarantine(self, seen: str, found: str) -> Quarantine:
        now = self.store_clock.time_ms()
        until = now + self.failover_quarantine_ms
        self.record = {**self.record, "ceiling": max(int(self.record["ceiling"]), until)}
        self.recorded = found
        self.quarantines += 1
        return Quarantine(seen, found, now, until, True)


def test_a_holder_stops_with_store_failed_over_and_the_next_claim_waits_out_the_quarantine() -> (
    None
):
    lease = HistoryStore()
    try:
        first = lease.acquire(T)
        assert lease.history == "A"
        lease.server = "B"  # the store failed over
        with pytest.raises(StoreFailedOverError) as failed:
            lease.acquire(first.ceiling_ms + 1)  # the renewal needed now
        assert isinstance(failed.value, LeaseLostError)
        assert (failed.value.seen, failed.value.found) == ("A", "B")
        assert lease.state == "lost"
        assert lease.ceiling_ms == -1
        now = lease.store_clock.time_ms()
        grant = lease.acquire(lease._clock.time_ms())  # claims: quarantines, waits, proceeds
        assert lease.quarantines == 1
        assert grant.start_ms > now + lease.failover_quarantine_ms
        assert grant.start_ms > first.ceiling_ms
        assert lease.failovers == 2  # seen by the renewal, then by the claim
        assert lease.history == "B"
        assert lease.failover_state == (2, lease.quarantine_until_ms)
    finally:
        lease.close()


def test_a_quarantine_longer_than_claim_wait_is_waited_out_not_refused() -> None:
    lease = HistoryStore()
    lease.claim_wait_ms = 100  # far less than the quarantine
    lease.server = "B"
    try:
        grant = lease.acquire(T)
        assert grant.start_ms > T + lease.failover_quarantine_ms
    finally:
        lease.close()


def test_the_metrics_say_how_many_failovers_and_when_the_quarantine_ends() -> None:
    snapshot = Snapshot(
        ready=True, lease_url="postgresql://db", lease_state="held", grant=None,
        ceiling_ms=1, renewals=3, renew_failures=0, failovers=1, quarantine_until_ms=T,
        pid=7,
    )  # fmt: skip
    text = render([snapshot], now_ms=T)
    assert 'snowid_lease_store_failovers_total{pid="7"} 1' in text
    assert f'snowid_lease_quarantine_end_seconds{{pid="7"}} {T / 1000}' in text
