"""A restart's wait for the grant its predecessor left behind, and the spare identities that
avoid it (docs/process.md, "Restarting: the wait for the old grant"; the README's restart
paragraph), on every networked store.

A release leaves the ceiling where it was, up to ``span`` ahead of the clock: a successor on
the same identity starts above it, so it waits; a successor that finds a spare identity (the
free one with the lowest ceiling is claimed first) starts at once. No timing is asserted: a
grant's start against the clock read before the claim says whether the claim had to wait.
"""

from __future__ import annotations

import time

import pytest

from snowid import TWITTER
from tests.support.stores import Store, store

__all__ = ["store"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

# timeout: a harness margin (by default a store operation gets the 0.2 s renewal interval,
# and a claim on a loaded machine took longer); nothing here is about a slow store
QUERY = "ttl=1&renew=0.2&span=1&timeout=1.5"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def worker(grant: object) -> int:
    return TWITTER.worker(grant.datacenter, grant.machine)  # type: ignore[attr-defined]


def test_a_restart_on_a_range_sized_to_the_holders_waits_for_the_old_grant(store: Store) -> None:
    holder = store.open(f"range=0-0&{QUERY}")
    holder.acquire(0)
    holder.close()  # the release at a stop: the identity is free, its ceiling stays
    released_ceiling = store.row(0)[2]
    assert released_ceiling > now_ms()  # the old grant still reaches ahead of the clock
    with store.open(f"range=0-0&{QUERY}", claim_wait=5) as successor:
        grant = successor.acquire(0)
        assert (worker(grant), grant.start_ms) == (0, released_ceiling + 1)
        assert now_ms() >= grant.start_ms  # it waited for its clock to get there


@pytest.mark.parametrize("holders", [1, 2])
def test_one_spare_identity_per_restarting_process_avoids_the_wait(
    store: Store, holders: int
) -> None:
    """Each process restarted at once on a range of twice as many identities finds a spare
    one, never used or released long ago, and starts at or below the clock it read before."""
    query = f"range=0-{2 * holders - 1}&{QUERY}"
    first = [store.open(query) for _ in range(holders)]
    released = {worker(lease.acquire(0)) for lease in first}
    for lease in first:
        lease.close()
    successors = [store.open(query, claim_wait=5) for _ in range(holders)]
    try:
        before = now_ms()
        grants = [lease.acquire(0) for lease in successors]
        assert {worker(grant) for grant in grants}.isdisjoint(released)
        assert all(grant.start_ms <= before for grant in grants)
    finally:
        for lease in successors:
            lease.close()


def test_in_a_range_larger_than_a_claims_sample_the_worker_to_take_is_still_found(
    store: Store,
) -> None:
    """etcd and ZooKeeper first read the records of a few workers of a large range drawn at
    random (a thousand claimants at once would otherwise each read every record); the other
    stores read it whole. Either way a claim in a range of 100 takes the only worker that
    can start at once, and when none can, the one whose old grant runs out first."""
    query = f"range=0-99&{QUERY}"
    with store.open(query) as first:
        first.acquire(0)  # the records of the range are set up
    for other in range(100):
        store.push_ceiling(other, 60_000)
    store.set_ceiling(57, store.now_ms() - 1_000)
    with store.open(query, claim_wait=5) as lease:
        before = now_ms()
        grant = lease.acquire(0)
        assert (worker(grant), grant.start_ms <= before) == (57, True)
    store.push_ceiling(57, 60_000)
    store.push_ceiling(12, 1_000)
    with store.open(query, claim_wait=10) as lease:
        grant = lease.acquire(0)
        assert worker(grant) == 12
        assert now_ms() >= grant.start_ms  # it waited for the grant that ran out first
