"""etcd leases on a 3-member cluster on loopback under the faults of issue 27 §2, each while
holders issue ids, counted over the real id streams (0 duplicate ids, no (worker, ms) shared
by two writers, every id within the ceiling its holder had acknowledged):

- a holder SIGKILLed and one SIGSTOPped past its TTL (then resumed): both identities are
  claimable again within 2 x TTL, and the resumed holder never issues past its old grant;
- the quorum lost (2 of 3 members down) then restored: holders fail closed before their
  grant ends, and issue and claim again once the quorum is back;
- a holder's wall clock stepped +5 s and -5 s (libfaketime, the boot clock left alone);
- the store restored from an older snapshot (``etcdctl snapshot restore`` into new data
  directories, the members restarted on them): a live holder always detects it and fails
  closed; a fresh claimant detects it when the restore gave the cluster a new
  ``cluster_id`` (a new ``--initial-cluster-token``), and quarantines the store; with the
  cluster's own token it cannot (the documented limit, a strict xfail);
- claimants at once (4 processes of 32 threads on 128 workers): distinct identities, the
  next one refused (no free identity); the issue's 1,024 at once, timed, are
  bench/bench_lease_crowd.py's.

One cluster for the module (the leader test of test_etcd_cluster.py has its own). Each
test uses a prefix of its own; the restores put back every prefix, which no other test
reads again.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from snowid import Generator
from snowid.errors import StoreUnreachableError
from tests.support.cleanup import Cleanup
from tests.support.cluster import Cluster
from tests.support.crowd import crowd_url
from tests.support.etcd import (
    EtcdKv,
    EtcdServer,
    etcd_cluster,
    leader_of,
    snapshot_restore,
    snapshot_save,
)
from tests.support.holders import FAIL_CLOSED_CODES, Issuer, assert_unique, wait_until
from tests.support.lease_faults import (
    clock_steps,
    crowd_then_one_more,
    fresh_claim_after_restore,
    killed_and_frozen,
    open_store,
)
from tests.support.servers import new_name
from tests.support.stores import set_up, wait_for_claim

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

TTL = 2.0
FAST = f"ttl={TTL:g}&renew=0.4&span=1&max_skew=1&timeout=1"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster[EtcdServer]]:
    with Cleanup() as steps:
        yield etcd_cluster(3, steps)


def _url(cluster: Cluster[EtcdServer], prefix: str, query: str) -> str:
    hosts = ",".join(f"127.0.0.1:{cluster.port(i)}" for i in range(len(cluster)))
    return f"etcd://{hosts}/{prefix}?{query}"


def _store(cluster: Cluster[EtcdServer], query: str) -> str:
    """A fresh prefix, set up as a first deployment (no quarantine to wait out)."""
    return set_up(_url(cluster, new_name(), query))


# --- a holder killed, a holder frozen -------------------------------------------------------


def test_a_killed_and_a_frozen_holder_free_their_identities_within_two_ttls(
    cluster: Cluster[EtcdServer], tmp_path: Path
) -> None:
    """Two holder processes issue; one is SIGKILLed and the other SIGSTOPped at the same
    moment. Both identities are claimed by others within 2 x TTL (etcd's lease runs out:
    ``ttl`` 2 s, raised by etcd to 1.5 election timeouts, 3 s here); the frozen holder,
    resumed, issues nothing past the grant it had (its deadline passed while frozen) and
    loses the worker at its next renewal."""
    url = _store(cluster, f"range=0-1&{FAST}")
    freed_after = killed_and_frozen(url, tmp_path)
    assert freed_after <= 2 * TTL, freed_after  # etcd's 3 s lease (see above) within 2 x 2 s


# --- the quorum lost ------------------------------------------------------------------------


def test_quorum_lost_holders_fail_closed_in_time_and_resume_after(
    cluster: Cluster[EtcdServer],
) -> None:
    """Two of three members killed (the leader among them) while two holders issue: their
    renewals get no answer, each stops issuing before its grant ends (by its own clock,
    within the TTL of the last renewal acknowledged before the loss) and a claim on the
    member left is refused; with the members back on their data, the holders issue again
    and a new claimant gets a worker."""
    url = _store(cluster, f"range=0-3&{FAST}")
    holders = [Issuer(open_store(url, claim_wait=10)) for _ in range(2)]
    for holder in holders:
        holder.start()
    leader = leader_of(cluster)
    down = [leader, next(i for i in range(len(cluster)) if i != leader)]
    left = next(i for i in range(len(cluster)) if i not in down)
    try:
        wait_until(lambda: all(h.last_ok > 0 for h in holders), 30, "both holders to issue")
        for index in down:
            cluster.kill(index)
        lost = time.monotonic()
        wait_until(
            lambda: all(h.lease.ceiling_ms == -1 for h in holders), 15, "both to fail closed"
        )
        for holder in holders:
            assert holder.last_ok < lost + TTL  # nothing issued past the grant
        alone = open_store(f"etcd://127.0.0.1:{cluster.port(left)}/{url.split('/', 3)[3]}")
        with pytest.raises(StoreUnreachableError):
            alone.acquire(0)
        alone.close()
    finally:
        for index in down:
            if not cluster[index].running:
                cluster.start(index)
    for index in down:
        cluster[index].wait_ready()
    back = time.monotonic()
    try:
        wait_until(lambda: all(h.last_ok > back for h in holders), 30, "the holders to issue")
        fresh = open_store(url, claim_wait=10)
        wait_for_claim(fresh, 30)
        taken = Generator(fence=fresh).next_ids(2000)
        fresh.close()
    finally:
        for holder in holders:
            holder.finish()
    for holder in holders:
        holder.assert_within_acked_ceilings()
        assert {code for _, code in holder.errors} <= FAIL_CLOSED_CODES
        holder.lease.close()
    assert_unique(*(h.ids for h in holders), taken)


# --- a clock stepped ------------------------------------------------------------------------


def test_a_holder_whose_clock_steps_5_s_either_way_gives_no_duplicate(
    cluster: Cluster[EtcdServer], tmp_path: Path
) -> None:
    """A holder process under libfaketime issues on worker 0 while its wall clock steps
    +5 s, back, -5 s and back (the boot clock untouched). Ahead, its ids would need a
    ceiling the store caps at its own clock + span + max_skew: it refuses to issue rather
    than run past it. Behind, the generator refuses to go back. Afterwards another process
    claims worker 0 and issues. Over both streams: no duplicate, the holder's ids strictly
    increasing and each within the ceiling it had acknowledged."""
    clock_steps(_store(cluster, f"range=0-0&{FAST}"), tmp_path)


# --- the store restored from an older snapshot ----------------------------------------------

RESTORED = "ttl=2&renew=0.4&span=0.5&max_skew=0.5&timeout=2"
"""Options of the restore tests: a quarantine of ttl + span + 2 x max_skew = 3.5 s. The
timeout is a harness margin: on a busy machine the first write to a cluster just restarted
on its snapshot took more than 1 s (a fresh claimant's quarantine write timed out)."""


def _cluster_id(cluster: Cluster[EtcdServer]) -> str:
    header = EtcdKv(cluster[0].port).call("maintenance/status", {})["header"]
    assert isinstance(header, dict)
    return str(header["cluster_id"])


def test_a_restore_under_a_new_cluster_token_is_seen_by_holders_and_claimants(
    cluster: Cluster[EtcdServer], tmp_path: Path
) -> None:
    """The cluster restored from a snapshot taken while a holder issued, with a new
    ``--initial-cluster-token`` (a new etcd ``cluster_id``). The live holder, issuing
    through the restore, fails closed at its next renewal (StoreFailedOverError). Under a
    second prefix, a holder that claimed after the snapshot stopped before the restore; a
    fresh claimant there finds the meta key's cluster is not the one answering, quarantines
    the store itself, and starts above every ceiling that holder had acknowledged."""
    live_url = _store(cluster, f"range=0-1&{RESTORED}")
    idle_url = _store(cluster, f"range=2-2&{RESTORED}")  # (no worker of the other prefix)
    holder = Issuer(open_store(live_url, claim_wait=30))
    holder.start()
    wait_until(lambda: holder.last_ok > 0, 30, "the holder to issue")
    snapshot_save(cluster[0], tmp_path / "snap.db")
    before = _cluster_id(cluster)
    gone = Issuer(open_store(idle_url))
    gone.start()
    renewals = holder.lease.renewals
    wait_until(
        lambda: holder.lease.renewals >= renewals + 2 and gone.lease.renewals >= 2,
        30,
        "both holders to renew after the snapshot",
    )
    gone.finish()  # stopped issuing; its lease is not released
    gone_acked = gone.acked_ceiling(2)  # its only worker
    snapshot_restore(cluster, tmp_path / "snap.db", token=new_name())
    after = _cluster_id(cluster)
    assert after != before
    wait_until(lambda: holder.lease.failovers >= 1, 30, "the live holder to detect the restore")
    fresh = open_store(idle_url, claim_wait=30)
    with fresh:
        grant = wait_for_claim(fresh, 30)
        taken = Generator(fence=fresh).next_ids(2000)
        assert fresh.failovers == 1  # it detected the restore itself
        quarantine = fresh.last_quarantine()
    holder.finish()
    assert grant.start_ms > gone_acked
    assert quarantine is not None
    assert (quarantine.seen, quarantine.found) == (before, after)
    assert any(e.kind == "lost" and "went back in time" in e.detail for e in holder.events)
    holder.assert_within_acked_ceilings()
    assert {code for _, code in holder.errors} <= FAIL_CLOSED_CODES | {"store_failed_over"}
    assert_unique(holder.ids, gone.ids, taken)
    holder.lease.close()
    gone.lease.close()


def test_a_restore_under_the_same_token_is_seen_by_a_live_holder_which_quarantines(
    cluster: Cluster[EtcdServer], tmp_path: Path
) -> None:
    """Restored with the cluster's own token, etcd keeps its ``cluster_id``; a holder that
    renewed after the snapshot still sees it: its record's ``mod_revision`` (and the
    store's revision) went back below its own last write. It fails closed
    (StoreFailedOverError); its process's next claim quarantines the store, so a fresh
    claimant, which could not tell by itself, starts above every ceiling the holder had
    acknowledged."""
    url = _store(cluster, f"range=0-1&{RESTORED}")
    holder = Issuer(open_store(url, claim_wait=30))
    holder.start()
    wait_until(lambda: holder.last_ok > 0, 30, "the holder to issue")
    snapshot_save(cluster[0], tmp_path / "snap.db")
    before = _cluster_id(cluster)
    renewals = holder.lease.renewals
    wait_until(lambda: holder.lease.renewals >= renewals + 2, 30, "two renewals after it")
    snapshot_restore(cluster, tmp_path / "snap.db")
    assert _cluster_id(cluster) == before
    wait_until(lambda: holder.lease.failovers >= 1, 30, "the holder to detect the restore")
    acked = max(holder.acked_ceiling(w) for w in (0, 1))
    wait_until(lambda: holder.lease.quarantine_until_ms is not None, 30, "its claim to quarantine")
    fresh = open_store(url, claim_wait=30)
    with fresh:
        grant = wait_for_claim(fresh, 30)
        taken = Generator(fence=fresh).next_ids(2000)
        assert fresh.failovers == 0  # it could not tell; the holder's quarantine covers it
    holder.finish()
    assert grant.start_ms > acked
    assert any(e.kind == "lost" and "went back in time" in e.detail for e in holder.events)
    holder.assert_within_acked_ceilings()
    assert {code for _, code in holder.errors} <= FAIL_CLOSED_CODES | {"store_failed_over"}
    assert_unique(holder.ids, taken)
    holder.lease.close()


@pytest.mark.xfail(
    strict=True,
    reason="documented limit: a restore under the cluster's own --initial-cluster-token keeps"
    " etcd's cluster_id, and revisions go on from the snapshot's, so with no holder live"
    " across the restore nothing in the store tells the restored keys from live ones; only a"
    " new cluster_id (restore with a new --initial-cluster-token) or a record kept outside"
    " the store, such as the old holder's own acknowledged ceiling, would reveal it",
)
def test_a_same_token_restore_with_no_live_holder_is_not_seen_by_a_fresh_claimant(
    cluster: Cluster[EtcdServer], tmp_path: Path
) -> None:
    """A holder claims after the snapshot, issues and releases; the cluster is restored
    under its own token; a fresh claimant's grant should start above the holder's ceiling
    (it starts at the snapshot's instead)."""
    url = _store(cluster, f"range=0-0&{RESTORED}")
    snap = tmp_path / "snap.db"
    acked, start = fresh_claim_after_restore(
        url, lambda: snapshot_save(cluster[0], snap), lambda: snapshot_restore(cluster, snap)
    )
    assert start > acked


# --- claimants at once ----------------------------------------------------------------------


def test_claimants_at_once_get_distinct_identities_and_the_next_is_refused(
    cluster: Cluster[EtcdServer], tmp_path: Path, cleanup: Cleanup
) -> None:
    """4 processes of 32 threads, each thread a lease with its own connection, released
    together on a range of 128 workers (more than 64: the claims read a few records drawn
    at random, not all): every claim succeeds, on 128 distinct workers; then one more
    claimant is refused with NoFreeIdentityError. (A long TTL: no renewal runs meanwhile;
    a request may take 30 s, a harness margin.) The issue's 1,024 claimants at once, and
    how long they take, are bench/bench_lease_crowd.py's: on a busy 2-core machine they
    take minutes, more than the gate's budget."""
    # The members' own ports, not the proxies': no fault is injected here, and the
    # connections of a crowd are more than the test's Python proxies should carry.
    hosts = [f"127.0.0.1:{member.port}" for member in cluster.members]
    url = crowd_url("etcd", hosts, new_name(), "ttl=60&timeout=30&range=0-127")
    crowd_then_one_more(url, tmp_path, cleanup.process, processes=4, threads=32)
