"""Redis leases across restarts and stalls of the server (docs/leases.md cases 18, 21, 22).

Each test starts its own durable redis-server (appendonly yes, appendfsync always) and
SIGKILLs, restarts, empties or SIGSTOPs it. Timings are scaled down: TTL 1-2 s.

Expected: a restart (a new run_id) makes every holder stop, put back the ceiling it had
acknowledged, give its lease up and claim anew above it [fail closed, then continue];
with the data kept nothing regresses; a restart with nothing on disk has no incarnation:
holders fail closed for good and the store is set up again, quarantined. A stalled
server (SIGSTOP) makes the holder drop its ceiling at the local deadline and resume the
same lease once the server answers again.
"""

from __future__ import annotations

import time

import pytest

from snowid import TWITTER, Generator
from snowid.errors import StoreRegressedError
from snowid.lease import init_lease
from tests.lease_support.holders import Issuer, wait_until
from tests.lease_support.redis import RedisServer, open_redis, rurl, server

__all__ = ["rurl", "server"]  # fixtures, imported for pytest

pytestmark = pytest.mark.timeout(60)

FAIL_CLOSED_CODES = {"store_unreachable", "ceiling_reached"}


def test_restart_with_data_kept_fails_closed_then_claims_above_the_old_ceiling(
    server: RedisServer, rurl: str
) -> None:
    """Case 21: SIGKILL and restart under a holder that keeps issuing. The AOF (fsync
    always) kept every acknowledged write: the incarnation, epoch and ceiling are there
    after the restart. The holder sees the new run_id, stops (never past its acknowledged
    ceiling), gives the old lease up and claims again: epoch + 1, starting above the
    old ceiling. Ids stay unique and increasing."""
    holder = Issuer(open_redis(f"{rurl}&range=0-0&ttl=2&renew=0.5&timeout=0.5"))
    holder.start()
    wait_until(lambda: holder.last_ok > 0, 10, "the holder to issue")
    first = holder.lease.grant
    assert first is not None
    incarnation, run_id = holder.lease.incarnation, holder.lease.run_id
    time.sleep(0.6)  # at least one renewal before the crash
    with holder.lease._lock:
        acked = holder.lease.ceiling_ms
    server.kill()
    server.start()
    client = server.client()
    keys = holder.lease.keys.all
    assert client.hget(keys[0], "incarnation") == incarnation  # the data survived
    assert int(client.hget(keys[3], 0)) == first.epoch
    assert int(client.hget(keys[2], 0)) >= acked
    wait_until(lambda: len([e for e in holder.events if e.kind == "claim"]) == 2, 10, "a new claim")
    reclaimed = time.monotonic()
    wait_until(lambda: holder.last_ok > reclaimed, 10, "the holder to issue again")
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
    again = init_lease(rurl)
    assert (again["created"], again["incarnation"]) == (False, incarnation)
    holder.lease.close()


def test_restart_with_nothing_on_disk_fails_holders_closed_and_quarantines(
    server: RedisServer, rurl: str
) -> None:
    """Case 22: the server comes back empty (its volume lost): the holder's renewal finds no
    incarnation and it fails closed for good; a new process sets the store up again with
    every ceiling quarantined, so it starts above anything the old holder could issue."""
    url = f"{rurl}&range=0-0&ttl=1&renew=0.2&timeout=0.3&max_skew=0.5"
    holder = Issuer(open_redis(url))
    holder.start()
    wait_until(lambda: holder.last_ok > 0, 10, "the holder to issue")
    server.kill()
    server.wipe_disk()
    server.start()
    wait_until(lambda: holder.lease.state == "lost", 5, "the holder to fail closed")
    holder.finish()
    assert any(e.kind == "lost" and "incarnation" in e.detail for e in holder.events)
    assert {code for _, code in holder.errors} <= FAIL_CLOSED_CODES | {"store_regressed"}
    with pytest.raises(StoreRegressedError):
        holder.lease.acquire(int(time.time() * 1000))
    before = int(time.time() * 1000)
    with open_redis(url, claim_wait=5) as fresh:
        grant = fresh.acquire(0)
        assert grant.start_ms > before + 1000 + 1000 + 500 - 50  # the quarantine
        assert grant.start_ms > max(TWITTER.timestamp_of(v) for v in holder.ids)
        took = Generator(fence=fresh).next_ids(1000)
    assert min(took) > max(holder.ids)
    holder.lease.close()


def test_a_stalled_server_fails_closed_at_the_deadline_then_resumes_the_same_lease(
    server: RedisServer, rurl: str
) -> None:
    """Case 18: the server is frozen (SIGSTOP) for 2 s, longer than the TTL: renewals time
    out, the holder drops its ceiling at the local deadline and issues nothing; once the
    server answers again (same run_id, nothing lost, nobody else claimed) the next renewal
    resumes the same epoch."""
    holder = Issuer(open_redis(f"{rurl}&range=0-0&ttl=1&renew=0.2&timeout=0.3&span=2"))
    holder.start()
    wait_until(lambda: holder.last_ok > 0, 10, "the holder to issue")
    grant = holder.lease.grant
    assert grant is not None
    time.sleep(0.3)
    server.pause()
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
        server.resume()
    resumed = time.monotonic()
    wait_until(lambda: holder.last_ok > resumed, 5, "the holder to resume")
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
