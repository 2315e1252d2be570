"""ZooKeeper leases on a 3-server ensemble on loopback under the faults of issue 27 §2 that
test_zookeeper_cluster.py does not cover, each while holders issue ids, counted over the
real id streams (0 duplicate ids, no (worker, ms) shared by two writers, every id within
the ceiling its holder had acknowledged). The sequences are test_etcd_faults.py's
(tests/support/lease_faults.py):

- a holder SIGKILLed and one SIGSTOPped past its TTL (then resumed): both identities are
  claimable again within 2 x TTL (ZooKeeper expires their sessions after 1.5 x TTL, 3 s at
  least), and the resumed holder
  never issues past its old grant;
- a holder's wall clock stepped +5 s and -5 s (libfaketime, the boot clock left alone);
- the ensemble's data directories copied back from an older copy (every server stopped,
  its directory replaced, every server started): a live holder detects it at its next
  renewal (its record's ceiling is below the one it acknowledged) and fails closed for
  good; a fresh claimant cannot tell (the documented limit, a strict xfail);
- claimants at once (4 processes of 32 threads on 128 workers, ``maxClientCnxns`` raised
  in tests/support/zookeeper.py): distinct identities, the next one refused.

One ensemble for the module. Each test uses a path of its own; the restores put back every
path, which no other test reads again.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from snowid.errors import StoreRegressedError
from tests.support.cleanup import Cleanup
from tests.support.cluster import Cluster
from tests.support.crowd import crowd_url
from tests.support.holders import FAIL_CLOSED_CODES, Issuer, assert_unique, wait_until
from tests.support.lease_faults import (
    clock_steps,
    crowd_then_one_more,
    fresh_claim_after_restore,
    killed_and_frozen,
    open_store,
)
from tests.support.servers import new_name
from tests.support.stores import set_up
from tests.support.zookeeper import ZkServer, copy_data, restore_data, zookeeper_ensemble

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

TTL = 2.0
FAST = f"ttl={TTL:g}&renew=0.4&span=1&max_skew=1&timeout=1.5"


@pytest.fixture(scope="module")
def ensemble() -> Iterator[Cluster[ZkServer]]:
    with Cleanup() as steps:
        yield zookeeper_ensemble(3, steps)


def _store(ensemble: Cluster[ZkServer], query: str) -> str:
    """A fresh path on every server, set up as a first deployment (no quarantine)."""
    hosts = ",".join(f"127.0.0.1:{ensemble.port(i)}" for i in range(len(ensemble)))
    return set_up(f"zookeeper://{hosts}/{new_name()}?{query}")


# --- a holder killed, a holder frozen -------------------------------------------------------

SESSIONS_TTL = 4.0
SESSIONS = f"ttl={SESSIONS_TTL:g}&renew=0.5&span=1&max_skew=1&timeout=1.5"
"""A TTL whose session (1.5 x TTL) is past the 3 s least one, so 2 x TTL leaves the claims
room: at TTL 2 s, the session's 3 s and the server's 0.5 s tick left the successors' claims
0.5 s, and they took up to 0.7 s with both cores busy (3.0-3.7 s in all); at TTL 3 s,
4.6-5.6 s of 6 s."""


def test_a_killed_and_a_frozen_holder_free_their_identities_after_their_sessions(
    ensemble: Cluster[ZkServer], tmp_path: Path
) -> None:
    """Two holder processes issue; one is SIGKILLed and the other SIGSTOPped at the same
    moment. Both identities are claimed by others once ZooKeeper expires the holders'
    sessions: the lease asks for 1.5 x TTL (3 s at least), counted from each holder's last
    request (a renewal every 0.4 s) and rounded up to the server's next tick, so both are
    claimed within 2 x TTL of the faults (issue 27 §2); the frozen holder, resumed, issues
    nothing past the grant it had (its deadline passed while frozen) and loses the worker
    at its next renewal."""
    url = _store(ensemble, f"range=0-1&{SESSIONS}")
    freed_after = killed_and_frozen(url, tmp_path)
    # Not before the TTL (the session outlives a dead connection); the session (6 s from
    # the last request, 0-0.5 s before the faults), one tick (0.5 s) and the two
    # successors' claims within 2 x TTL.
    assert SESSIONS_TTL < freed_after <= 2 * SESSIONS_TTL, freed_after


# --- a clock stepped ------------------------------------------------------------------------


def test_a_holder_whose_clock_steps_5_s_either_way_gives_no_duplicate(
    ensemble: Cluster[ZkServer], tmp_path: Path
) -> None:
    """A holder under libfaketime steps +5 s, back, -5 s and back: ahead, the renewals
    grant no ceiling past the leader's clock + span + max_skew and it refuses to issue;
    behind, the generator refuses to go back; then a successor claims its worker (see
    tests/support/lease_faults.py, ``clock_steps``)."""
    clock_steps(_store(ensemble, f"range=0-0&{FAST}"), tmp_path)


# --- the data directories copied back ---------------------------------------------------------

RESTORED = "ttl=2&renew=0.4&span=0.5&max_skew=0.5&timeout=2"
"""Options of the restore tests; the timeout is a harness margin (the first requests to an
ensemble just restarted on its copy)."""


def test_a_restore_is_seen_by_a_live_holder_which_fails_closed(
    ensemble: Cluster[ZkServer], tmp_path: Path
) -> None:
    """A holder claims and issues; the data directories are copied; it renews twice more;
    the ensemble is put back to the copy. At its next renewal the holder's compare-and-set
    fails (its record's version went back), it reads its own claim with a ceiling below the
    one it acknowledged, and fails closed for good (StoreRegressedError), never having
    issued past an acknowledged ceiling."""
    url = _store(ensemble, f"range=0-0&{RESTORED}")
    holder = Issuer(open_store(url, claim_wait=30))
    holder.start()
    wait_until(lambda: holder.last_ok > 0, 30, "the holder to issue")
    copy_data(ensemble, tmp_path / "copy")
    renewals = holder.lease.renewals
    wait_until(lambda: holder.lease.renewals >= renewals + 2, 30, "two renewals after the copy")
    restore_data(ensemble, tmp_path / "copy")
    wait_until(
        lambda: any(
            e.kind == "lost" and "below the acknowledged" in e.detail for e in holder.events
        ),
        60,  # a harness margin: reconnecting to servers just restarted on the copy (the
        # whole test took 20 s once at a load average of 16)
        "the holder to detect the restore",
    )
    holder.finish()
    with pytest.raises(StoreRegressedError):
        holder.lease.acquire(0)  # for good: its process's supervisor restarts it
    codes = {code for _, code in holder.errors}
    assert "store_regressed" in codes
    assert codes <= FAIL_CLOSED_CODES | {"store_regressed"}
    holder.assert_within_acked_ceilings()
    assert_unique(holder.ids)
    holder.lease.close()


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,  # the grant's start below the ceiling; a harness timeout fails
    reason="documented limit (docs/lease-zookeeper.md): ZooKeeper has no identity a restore"
    " changes (etcd's cluster_id under a new --initial-cluster-token is one): the copied data"
    " directories bring back the meta node's incarnation and every node's version and zxid,"
    " and the epoch rises at the restart as at any restart, so with no holder live across"
    " the restore nothing in the ensemble tells the restored nodes from live ones; only a"
    " record kept outside the ensemble, such as the old holder's own acknowledged ceiling,"
    " or /P/meta deleted after the restore (the next claim quarantines every ceiling),"
    " would reveal it",
)
def test_a_restore_with_no_live_holder_is_not_seen_by_a_fresh_claimant(
    ensemble: Cluster[ZkServer], tmp_path: Path
) -> None:
    """The data directories are copied; a holder claims, issues and releases; the ensemble
    is put back to the copy; a fresh claimant's grant should start above the holder's
    ceiling (it starts at the copy's instead)."""
    url = _store(ensemble, f"range=0-0&{RESTORED}")
    copy = tmp_path / "copy"
    acked, start = fresh_claim_after_restore(
        url, lambda: copy_data(ensemble, copy), lambda: restore_data(ensemble, copy)
    )
    assert start > acked


# --- claimants at once ----------------------------------------------------------------------


def test_claimants_at_once_get_distinct_identities_and_the_next_is_refused(
    ensemble: Cluster[ZkServer], tmp_path: Path, cleanup: Cleanup
) -> None:
    """4 processes of 32 threads, each thread a lease with its own ZooKeeper session (128
    sessions from 127.0.0.1: past ZooKeeper's default ``maxClientCnxns`` of 60 per
    address, raised for the test ensemble), released together on a range of 128 workers:
    every claim succeeds, on 128 distinct workers; then one more claimant is refused with
    NoFreeIdentityError. (A long TTL: no renewal runs meanwhile; a request may take 30 s,
    a harness margin.)"""
    # The servers' own ports, not the proxies': no fault is injected here, and the
    # connections of a crowd are more than the test's Python proxies should carry.
    hosts = [f"127.0.0.1:{member.port}" for member in ensemble.members]
    url = crowd_url("zookeeper", hosts, new_name(), "ttl=60&timeout=30&range=0-127")
    crowd_then_one_more(url, tmp_path, cleanup.process, processes=4, threads=32)
