"""etcd leases on a 3-member cluster on loopback (issue 27), while holders issue ids:

- the leader killed: holders that named every member go on (or fail closed for a moment),
  never past what they had acknowledged, and the cluster elects another leader;
- a holder cut off from the cluster (the only proxy it knows blackholed): it stops
  issuing before its grant ends, by its own clock; another process then claims its worker
  and starts above every id it issued; after the cut heals its compare-and-set fails.

Counted over the real id streams: 0 duplicate ids, no (worker, ms) shared by two writers.
One cluster for the module (members start in parallel; a JVM-free etcd starts in ~1 s).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from snowid.lease import open_lease
from snowid.lease._store import StoreLease
from tests.support.cleanup import Cleanup
from tests.support.cluster import Cluster
from tests.support.etcd import EtcdServer, etcd_cluster, leader_of
from tests.support.holders import (
    FAIL_CLOSED_CODES,
    Issuer,
    assert_unique,
    wait_until,
)
from tests.support.proxy import TcpProxy
from tests.support.servers import new_name
from tests.support.stores import wait_for_claim

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

FAST = "ttl=2&renew=0.4&span=1&max_skew=1&timeout=1"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster[EtcdServer]]:
    with Cleanup() as steps:
        yield etcd_cluster(3, steps)


def _open(url: str) -> StoreLease:
    lease = open_lease(url, claim_wait=10)
    assert isinstance(lease, StoreLease)
    return lease


def _hosts(cluster: Cluster[EtcdServer], members: list[int]) -> str:
    return ",".join(f"127.0.0.1:{cluster.port(i)}" for i in members)


def test_leader_killed_while_holders_issue_gives_no_duplicate(
    cluster: Cluster[EtcdServer],
) -> None:
    prefix = new_name()
    url = f"etcd://{_hosts(cluster, [0, 1, 2])}/{prefix}?range=0-3&{FAST}"
    holders = [Issuer(_open(url)) for _ in range(3)]
    for holder in holders:
        holder.start()
    try:
        wait_until(lambda: all(h.last_ok > 0 for h in holders), 30, "every holder to issue")
        leader = leader_of(cluster)
        cluster.kill(leader)
        killed = time.monotonic()
        # A new leader within the election timeout (2 s) and some: holders issue again.
        wait_until(lambda: all(h.last_ok > killed + 1 for h in holders), 40, "holders again")
    finally:
        for holder in holders:
            holder.finish()
        cluster.start(leader)  # back for the next test, on its data
    for holder in holders:
        holder.assert_within_acked_ceilings()
        assert {code for _, code in holder.errors} <= FAIL_CLOSED_CODES
        holder.lease.close()
    assert_unique(*(h.ids for h in holders))
    cluster[leader].wait_ready()


def test_a_holder_cut_off_fails_closed_before_its_grant_ends(
    cluster: Cluster[EtcdServer],
) -> None:
    prefix = new_name()
    cut = TcpProxy("127.0.0.1", cluster.port(0))
    try:
        holder = Issuer(_open(f"etcd://127.0.0.1:{cut.port}/{prefix}?range=0-0&{FAST}"))
        holder.start()
        wait_until(lambda: holder.last_ok > 0, 30, "the holder to issue")
        time.sleep(0.5)
        cut.set_mode("blackhole")
        since = time.monotonic()
        wait_until(lambda: holder.lease.ceiling_ms == -1, 10, "the holder to fail closed")
        # By its own clock: within the TTL of its last acknowledged renewal.
        assert holder.last_ok < since + 2.0
        other = _open(f"etcd://{_hosts(cluster, [1, 2])}/{prefix}?range=0-0&{FAST}")
        try:
            grant = wait_for_claim(other, 30)
            assert grant.start_ms > holder.acked_ceiling(0)
            from snowid import Generator

            taken = Generator(fence=other).next_ids(2000)
            cut.set_mode("pass")  # heal: the holder's next compare-and-set fails
            healed = time.monotonic()
            wait_until(
                lambda: any(e.kind == "lost" for e in holder.events), 30, "the holder's CAS to fail"
            )
            assert other.state == "held"
            del healed
        finally:
            holder.finish()
            other.close()
    finally:
        cut.close()
    holder.assert_within_acked_ceilings()
    assert {code for _, code in holder.errors} <= FAIL_CLOSED_CODES | {"no_free_identity"}
    holder.lease.close()
    assert_unique(holder.ids, taken)
