"""MySQL / MariaDB leases across crashes, restarts, stalls and wipes of the server
(docs/leases.md cases 18, 21, 22), on a mariadbd of the module's own (SIGKILL is a crash:
InnoDB replays its redo log at the next start). Timings are scaled down: TTL 2 s,
renewals every 0.5 s, 1 s per round trip, so a holder's local deadline is 1.78 s after
its last acknowledged send.

Expected: while the server is down a holder never issues past the ceiling it had
acknowledged; after a restart with the data kept it renews the same lease (nothing was
lost, so no StoreRegressedError) and issues again [continue or fail closed]; a server
that comes back empty has no lease tables: holders fail closed for good and the store
is set up again, quarantined. A frozen server (SIGSTOP) makes the holder drop its
ceiling at the local deadline and resume the same lease once it answers again.
"""

from __future__ import annotations

import contextlib
import time

import pytest

from snowid import TWITTER, Generator
from snowid.errors import StoreRegressedError, StoreUnreachableError
from snowid.lease import LeaseEvent, init_lease
from tests.lease_support.holders import Issuer, wait_until
from tests.lease_support.mysql import MariaServer, maria, murl, open_mysql

__all__ = ["maria", "murl"]  # fixtures, imported for pytest

pytestmark = pytest.mark.timeout(90)

TTL, RENEW, TIMEOUT = 2.0, 0.5, 1.0
TIMINGS = f"ttl={TTL:g}&renew={RENEW:g}&timeout={TIMEOUT:g}"
FAIL_CLOSED_CODES = {"store_unreachable", "ceiling_reached"}


@pytest.mark.parametrize(
    "outage",
    [
        pytest.param(0.3, id="rides-through"),  # usually shorter than the local deadline
        pytest.param(1.9, id="fails-closed"),  # always longer: it must stop, then resume
    ],
)
def test_crash_and_restart_holder_continues_or_fails_closed_then_issues_again(
    maria: MariaServer, murl: str, outage: float
) -> None:
    """Case 21: SIGKILL and restart under a holder that keeps issuing: it rides the outage
    on its acknowledged ceiling (or raises StoreUnreachable/CeilingReached once that runs
    out) and never issues past it; after the restart its renewals succeed on the same
    worker and epoch; ids stay unique and increasing. The second outage outlasts the
    local deadline: that holder must have failed closed, issuing nothing meanwhile."""
    holder = Issuer(open_mysql(f"{murl}&range=0-0&{TIMINGS}"))
    holder.start()
    wait_until(lambda: holder.last_ok > 0, 10, "the holder to issue")
    grant = holder.lease.grant
    assert grant is not None
    time.sleep(0.6)  # at least one renewal before the crash
    failures_before = holder.lease.renew_failures

    maria.kill()
    time.sleep(outage)
    restarting = time.monotonic()
    maria.start()
    restarted = time.monotonic()
    renewals_at_restart = holder.lease.renewals
    wait_until(
        lambda: holder.lease.renewals > renewals_at_restart, 8, "a renewal after the restart"
    )
    wait_until(lambda: holder.last_ok > restarted + 0.3, 5, "the holder to issue again")
    holder.finish()

    assert holder.lease.renew_failures > failures_before  # the holder did see the outage
    codes = {code for _, code in holder.errors}
    assert codes <= FAIL_CLOSED_CODES  # continued, or failed closed; never anything else
    if outage > TTL * 0.89:
        assert "store_unreachable" in codes
        assert "expired" in [e.kind for e in holder.events]
        first_error = holder.errors[0][0]
        assert not [t for _, _, t in holder.batches if first_error < t < restarting]
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
    assert ids == sorted(set(ids))
    holder.lease.close()


def test_data_survives_the_crash_no_regression_no_new_incarnation(
    maria: MariaServer, murl: str
) -> None:
    """Case 21: a renewal acknowledged just before SIGKILL is still there after the restart
    (redo log replay): same incarnation, owner and epoch, ceiling >= every one acknowledged.
    The holder renews without StoreRegressedError, and the idempotent init (without
    first_deployment) sees the store as existing: no quarantine."""
    url = f"{murl}&range=0-3&{TIMINGS}"
    table = url.split("table=", 1)[1].split("&", 1)[0]
    holder = open_mysql(url)
    events: list[LeaseEvent] = []
    holder.listeners.append(events.append)
    generator = Generator(fence=holder, max_wait_ms=100)
    before = generator.next_ids(2000)
    for _ in range(3):
        holder.acquire(holder.ceiling_ms + 1)  # a synchronous, acknowledged renewal
    grant = holder.grant
    assert grant is not None
    worker, incarnation, owner = holder.worker, holder.incarnation, holder.owner

    maria.kill()  # right after the last acknowledgement
    acked = max(e.ceiling_ms for e in holder.events if e.kind in ("claim", "extend"))
    maria.start()

    ((stored,),) = maria.sql(f"SELECT incarnation FROM {table}_meta")
    assert stored == incarnation
    ((stored_owner, stored_epoch, stored_ceiling),) = maria.sql(
        f"SELECT owner, epoch, ceiling_ms FROM {table} WHERE worker = %s", (worker,)
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
    while holder.renewals == renewals:  # the first round trip meets the dead socket
        assert time.monotonic() < deadline, "no renewal after the restart"
        with contextlib.suppress(StoreUnreachableError):  # StoreRegressedError would fail
            holder.acquire(holder.ceiling_ms + 1)
        time.sleep(0.05)
    after = generator.next_ids(2000)
    assert holder.state == "held"
    assert holder.grant is not None
    assert holder.grant.epoch == grant.epoch
    assert holder.ceiling_ms >= acked
    assert [e.kind for e in events if e.kind != "extend"] == ["claim"]
    assert min(after) > max(before)
    holder.close()


def test_a_frozen_server_fails_closed_at_the_deadline_then_resumes_the_same_lease(
    maria: MariaServer, murl: str
) -> None:
    """Case 18: the server is frozen (SIGSTOP) for 2 s, longer than the TTL: round trips
    time out, the holder drops its ceiling at the local deadline and issues nothing; once
    the server answers again (nothing lost, nobody else claimed) the next renewal resumes
    the same epoch."""
    holder = Issuer(open_mysql(f"{murl}&range=0-0&ttl=1&renew=0.2&timeout=0.3&span=2"))
    holder.start()
    wait_until(lambda: holder.last_ok > 0, 10, "the holder to issue")
    grant = holder.lease.grant
    assert grant is not None
    time.sleep(0.3)
    maria.pause()
    try:
        stalled = time.monotonic()
        wait_until(lambda: holder.lease.ceiling_ms == -1, 2, "the local deadline")
        dropped_after = time.monotonic() - stalled
        assert time.time_ns() // 1_000_000 < holder.acked_ceiling(0)  # before the span ran out
        wait_until(lambda: bool(holder.errors), 2, "an error")
        stalled_ok = holder.last_ok
        time.sleep(max(0.0, 2.0 - (time.monotonic() - stalled)))
        assert holder.last_ok == stalled_ok  # nothing issued while the server was frozen
    finally:
        maria.resume()
    resumed = time.monotonic()
    wait_until(lambda: holder.last_ok > resumed, 8, "the holder to resume")
    holder.finish()

    assert dropped_after < 1.0  # the deadline: TTL * 0.89 after the last acknowledged send
    assert {code for _, code in holder.errors} <= FAIL_CLOSED_CODES
    assert holder.lease.state == "held"
    assert holder.lease.grant is not None
    assert holder.lease.grant.epoch == grant.epoch  # the same lease
    assert "lost" not in [e.kind for e in holder.events]
    holder.assert_within_acked_ceilings()
    assert holder.ids == sorted(set(holder.ids))
    holder.lease.close()


def test_a_server_back_empty_fails_holders_closed_and_quarantines(
    maria: MariaServer, murl: str
) -> None:
    """Case 22: the server comes back with an empty data directory (its volume lost): the
    holder's renewal finds no lease table and it fails closed for good; a new process sets
    the store up again with every ceiling quarantined, so it starts above anything the
    old holder could issue."""
    url = f"{murl}&range=0-0&ttl=1&renew=0.2&timeout=0.5&max_skew=0.5"
    holder = Issuer(open_mysql(url))
    holder.start()
    wait_until(lambda: holder.last_ok > 0, 10, "the holder to issue")
    maria.kill()
    maria.wipe()
    maria.start()
    wait_until(lambda: holder.lease.state == "lost", 10, "the holder to fail closed")
    holder.finish()
    assert any(e.kind == "lost" for e in holder.events)
    assert {code for _, code in holder.errors} <= FAIL_CLOSED_CODES | {"store_regressed"}
    with pytest.raises(StoreRegressedError):
        holder.lease.acquire(int(time.time() * 1000))
    before = int(time.time() * 1000)
    with open_mysql(url, claim_wait=5) as fresh:
        grant = fresh.acquire(0)
        assert grant.start_ms > before + 1000 + 1000 + 500 - 50  # the quarantine
        assert grant.start_ms > max(TWITTER.timestamp_of(v) for v in holder.ids)
        took = Generator(fence=fresh).next_ids(1000)
    assert min(took) > max(holder.ids)
    holder.lease.close()
