"""ZooKeeper leases on a 3-server ensemble on loopback (issue 27), while holders issue ids:

- the leader killed: holders that named every server go on (or fail closed for a moment),
  never past what they had acknowledged; the ensemble elects another leader; then a
  second server killed (no quorum): holders fail closed before their grants end, a claim
  is refused with StoreUnreachableError naming the store, never a traceback nor a silent
  claim; both back: renewals and claims resume;
- a holder cut off from the ensemble (the only proxy it knows blackholed): it stops
  issuing before its grant ends, by its own clock, never waiting for its session to
  expire; once the session expires another process claims its worker and starts above
  every id it issued.

A holder SIGKILLed or SIGSTOPped, a clock stepped, the data directories copied back and
claimants at once are test_zookeeper_faults.py's.

Counted over the real id streams: 0 duplicate ids, no (worker, ms) shared by two writers.
One ensemble for the module (servers start in parallel, about 2 s).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from snowid import Generator
from snowid.errors import StoreUnreachableError
from snowid.lease import open_lease
from snowid.lease._store import StoreLease
from tests.support.cleanup import Cleanup
from tests.support.cluster import Cluster
from tests.support.holders import FAIL_CLOSED_CODES, Issuer, assert_unique, wait_until
from tests.support.proxy import TcpProxy
from tests.support.servers import new_name
from tests.support.stores import wait_for_claim
from tests.support.zookeeper import ZkServer, leader_of, zookeeper_ensemble

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

TTL = 2.0
FAST = f"ttl={TTL:g}&renew=0.4&span=1&max_skew=1&timeout=1.5"


@pytest.fixture(scope="module")
def ensemble() -> Iterator[Cluster[ZkServer]]:
    with Cleanup() as steps:
        yield zookeeper_ensemble(3, steps)


def _open(url: str) -> StoreLease:
    lease = open_lease(url, claim_wait=10)
    assert isinstance(lease, StoreLease)
    return lease


def _url(ensemble: Cluster[ZkServer], members: list[int], path: str, query: str) -> str:
    hosts = ",".join(f"127.0.0.1:{ensemble.port(i)}" for i in members)
    return f"zookeeper://{hosts}/{path}?{query}&{FAST}"


def test_leader_killed_then_quorum_lost_and_restored_gives_no_duplicate(
    ensemble: Cluster[ZkServer],
) -> None:
    """Holders on every server: the leader killed (they go on once another is elected),
    then a second server killed (no quorum: they fail closed before their grants end, and
    a fresh claim is refused with StoreUnreachableError naming the store), then both
    back (claims and renewals resume)."""
    path = new_name()
    url = _url(ensemble, [0, 1, 2], path, "range=0-3")
    holders = [Issuer(_open(url)) for _ in range(3)]
    for holder in holders:
        holder.start()
    down: list[int] = []
    try:
        wait_until(lambda: all(h.last_ok > 0 for h in holders), 30, "every holder to issue")
        down.append(leader_of(ensemble))
        ensemble.kill(down[0])
        killed = time.monotonic()
        # A new leader within a few ticks (500 ms) and some: holders issue again.
        wait_until(lambda: all(h.last_ok > killed + 1 for h in holders), 40, "holders again")
        down.append(next(i for i in range(3) if i not in down))
        ensemble.kill(down[1])
        lost = time.monotonic()
        wait_until(lambda: all(h.lease.ceiling_ms == -1 for h in holders), 15, "fail closed")
        # By their own clocks: within the TTL of their last acknowledged renewals.
        assert all(h.last_ok < lost + TTL for h in holders)
        with _open(_url(ensemble, [0, 1, 2], path, "range=4-4&connect_timeout=1.5")) as fresh:
            with pytest.raises(StoreUnreachableError) as caught:
                fresh.acquire(0)
            assert caught.value.store == f"zookeeper://{url.split('//')[1].split('?')[0]}"
        for index in down:
            ensemble.start(index)
        restored = time.monotonic()
        wait_until(lambda: all(h.last_ok > restored for h in holders), 60, "holders again")
    finally:
        for holder in holders:
            holder.finish()
        for index in down:
            if not ensemble[index].running:
                ensemble.start(index)  # back for the next test, on its data
    for holder in holders:
        holder.assert_within_acked_ceilings()
        assert {code for _, code in holder.errors} <= FAIL_CLOSED_CODES | {"no_free_identity"}
        holder.lease.close()
    assert_unique(*(h.ids for h in holders))
    for member in ensemble.members:
        member.wait_ready()


def test_a_holder_cut_off_fails_closed_before_its_grant_ends(
    ensemble: Cluster[ZkServer],
) -> None:
    path = new_name()
    cut = TcpProxy("127.0.0.1", ensemble.port(0))
    try:
        holder = Issuer(_open(f"zookeeper://127.0.0.1:{cut.port}/{path}?range=0-0&{FAST}"))
        holder.start()
        wait_until(lambda: holder.last_ok > 0, 30, "the holder to issue")
        time.sleep(0.5)
        cut.set_mode("blackhole")
        since = time.monotonic()
        wait_until(lambda: holder.lease.ceiling_ms == -1, 10, "the holder to fail closed")
        # By its own clock: within the TTL of its last acknowledged renewal, before its
        # session (1.5 × TTL, 3 s at least) expires.
        assert holder.last_ok < since + TTL
        other = _open(_url(ensemble, [1, 2], path, "range=0-0"))
        try:
            grant = wait_for_claim(other, 30)  # once the cut holder's session expired
            assert grant.start_ms > holder.acked_ceiling(0)
            taken = Generator(fence=other).next_ids(2000)
            cut.set_mode("pass")  # heal: the holder's next compare-and-set fails
            wait_until(
                lambda: any(e.kind == "lost" for e in holder.events), 30, "the holder's CAS to fail"
            )
            assert other.state == "held"
        finally:
            holder.finish()
            other.close()
    finally:
        cut.close()
    holder.assert_within_acked_ceilings()
    assert {code for _, code in holder.errors} <= FAIL_CLOSED_CODES | {"no_free_identity"}
    holder.lease.close()
    assert_unique(holder.ids, taken)
