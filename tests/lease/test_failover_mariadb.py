"""A MariaDB lease store that fails over to a binlog replica that was behind (issue 26 §1-§2;
docs/leases.md, "A store that failed over"): a primary and a replica of the test's own on
loopback (tests/support/failover_mariadb.py).

The round: a holder issues ids through the whole sequence, through a proxy playing the
virtual IP, as an unprivileged account; replication is cut; the holder issues on for a while
(renewals the replica never gets); the primary is killed and the replica promoted; a fresh
claimant whose clock is behind reaches the promoted store first (directly); then the clients
are moved to it. Expected: 0 duplicates over every id stream; the holder stops at its next
renewal with StoreFailedOverError; the claim waits out the quarantine, once, then issues.
The same round with the check switched off shows what it prevents: duplicates. Timings are
scaled down (TTL 2 s).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import pytest

from snowid.errors import NoFreeIdentityError
from snowid.lease import init_lease, open_lease
from snowid.lease._store import StoreLease
from snowid.testing import OffsetClock
from tests.support.cleanup import Cleanup
from tests.support.failover_mariadb import MariaPair
from tests.support.holders import Issuer, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

TIMINGS = "range=0-0&ttl=2&renew=0.3&max_skew=0.5&timeout=1.5&connect_timeout=1"
BEHIND_MS = -400  # the fresh claimant's clock, behind the store's (within max_skew)
AFTER_CUT_S = 1.5  # the holder issues this long on the primary after replication is cut
USER = "snowid_app"


@dataclass
class Round:
    holder: StoreLease
    claimant: StoreLease
    issuer: Issuer
    fresh: Issuer
    acked_before_kill: int
    start_ms: int

    @property
    def duplicates(self) -> int:
        every = self.issuer.ids + self.fresh.ids
        return len(every) - len(set(every))


def _open(url: str, offset_ms: int = 0) -> StoreLease:
    lease = open_lease(url, clock=OffsetClock(offset_ms))
    assert isinstance(lease, StoreLease)
    return lease


def _claim(lease: StoreLease) -> int:
    """Claim, waiting while the identity is held (a lease the replica saw still running);
    the grant's first millisecond."""
    deadline = time.monotonic() + 30
    while True:
        try:
            return lease.acquire(0).start_ms
        except NoFreeIdentityError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _failover_round(pair: MariaPair, *, detected: bool) -> Round:
    """The sequence of the module docstring; the holder and claimant are closed after."""
    init_lease(pair.url(TIMINGS, user=USER), first_deployment=True)
    pair.caught_up()
    holder = _open(pair.url(TIMINGS, user=USER))
    issuer = Issuer(holder)
    claimant = _open(pair.replica_url(TIMINGS, user=USER), BEHIND_MS)
    fresh = Issuer(claimant)
    try:
        issuer.start()
        wait_until(lambda: len(issuer.ids) > 200, 30, "the holder to issue")
        pair.cut()
        time.sleep(AFTER_CUT_S)  # renewals and ids the replica never gets
        acked = holder.ceiling_ms
        pair.kill_primary()
        pair.promote()
        start_ms = _claim(claimant)  # first on the promoted store
        fresh.start()
        pair.move_clients()
        if detected:
            wait_until(lambda: holder.failovers > 0, 30, "the holder to see the failover")
        else:  # nothing to wait for: past the holder's deadline, and some ids on the new one
            wait_until(lambda: len(fresh.ids) > 1000, 30, "the claimant to issue")
        time.sleep(1.0)
    finally:
        issuer.finish()
        if fresh.is_alive():
            fresh.finish()
        holder.close()
        claimant.close()
    return Round(holder, claimant, issuer, fresh, acked, start_ms)


def test_mariadb_failover_through_a_virtual_ip_no_duplicates(
    cleanup: Cleanup, capsys: pytest.CaptureFixture[str]
) -> None:
    """server_id tells the promoted replica from the primary that granted the lease, in
    the claim's and the renewal's own batch, read by an account with no privilege beyond
    the database: the holder fails closed with StoreFailedOverError, the claimant waits
    out one quarantine and starts above everything the old holder was granted."""
    pair = MariaPair(cleanup)
    pair.user(USER)
    done = _failover_round(pair, detected=True)
    assert done.fresh.ids, "the fresh claimant issued nothing"
    assert done.duplicates == 0
    assert done.start_ms > done.acked_before_kill, "the claim started below the old ceiling"
    assert done.holder.failovers == 1  # its renewal on the promoted replica: failed over
    assert done.claimant.failovers == 1  # one quarantine, said once
    done.issuer.assert_within_acked_ceilings()
    history, seen = pair.replica.sql(
        "SELECT history, quarantine_seen FROM snowid_leases_meta WHERE id = 1"
    )[0]
    assert (seen, history) == ("1", "2")  # the primary's server_id, then the replica's
    _status_says_so(pair.replica_url(TIMINGS, user=USER), capsys)


def _status_says_so(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``snowid lease status`` names the failover and when the quarantine ends."""
    from snowid.cli import main

    capsys.readouterr()
    assert main(["lease", "status", url, "--json"]) == 0
    failover = json.loads(capsys.readouterr().out)["failover"]
    assert (failover["seen"], failover["found"]) == ("1", "2")
    assert failover["until_ms"] > failover["at_ms"]
    assert main(["lease", "status", url]) == 0
    out = capsys.readouterr().out
    assert "failed over or went back in time" in out
    assert "quarantine" in out


def test_mariadb_failover_without_the_check_duplicates(
    cleanup: Cleanup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same round with every server answering one history (the check switched off):
    the claimant starts on the replica's stale ceiling and issues ids the old holder
    already issued. What the test above proves is not an accident of its timing."""
    monkeypatch.setattr("snowid.lease._mysqlsql.HISTORY", "'any server'")
    pair = MariaPair(cleanup)
    pair.user(USER)
    done = _failover_round(pair, detected=False)
    assert done.start_ms <= done.acked_before_kill
    assert done.duplicates > 0
