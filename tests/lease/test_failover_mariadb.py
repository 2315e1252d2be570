"""A MariaDB lease store that fails over to a binlog replica that was behind (issue 26 §1-§2;
docs/leases.md, "A store that failed over"): a primary and a replica of the test's own on
loopback (tests/support/failover_mariadb.py).

The round: a holder issues ids through the whole sequence, through a proxy playing the
virtual IP, as an unprivileged account; replication is cut; the holder issues on for a while
(renewals the replica never gets); the primary is killed and the replica promoted; a fresh
claimant whose clock is behind reaches the promoted store first (directly); then the clients
are moved to it. Expected: 0 duplicates over every id stream; the holder stops at its next
renewal with StoreFailedOverError; the claim waits out the quarantine, once, then issues.
A second lease table in the same round, whose recorded history is written over at the
promotion (the check defeated), shows what the check prevents: duplicates. Timings are
scaled down (TTL 2 s).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import pytest

from snowid import TWITTER
from snowid.errors import NoFreeIdentityError
from snowid.lease import init_lease, open_lease
from snowid.lease._store import StoreLease
from snowid.testing import OffsetClock
from tests.support.cleanup import Cleanup
from tests.support.failover_mariadb import MariaPair
from tests.support.holders import Issuer, wait_until
from tests.support.servers import MariaDb

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

TIMINGS = "range=0-0&ttl=2&renew=0.3&max_skew=0.5&timeout=1.5&connect_timeout=1"
BEHIND_MS = -400  # the fresh claimant's clock, behind the store's (within max_skew)
AFTER_CUT_S = 1.5  # the holder issues this long on the primary after replication is cut
USER = "snowid_app"


@dataclass
class Side:
    """One lease table through the round: its old holder and the fresh claimant."""

    table: str
    holder: StoreLease
    claimant: StoreLease
    issuer: Issuer
    fresh: Issuer
    acked_before_kill: int = 0
    start_ms: int = 0

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


def _side(pair: MariaPair, table: str) -> Side:
    query = f"table={table}&{TIMINGS}"
    init_lease(pair.url(query, user=USER), first_deployment=True)
    holder = _open(pair.url(query, user=USER))
    claimant = _open(pair.replica_url(query, user=USER), BEHIND_MS)
    return Side(table, holder, claimant, Issuer(holder), Issuer(claimant))


def _failover_round(pair: MariaPair) -> tuple[Side, Side]:
    """The sequence of the module docstring on two lease tables at once: ``checked``, and
    ``unchecked``, whose recorded history is written over with the promoted replica's
    right after the promotion, as if snowid did not check it (what the store looked like
    before this check). The fresh claimant of ``unchecked`` claims first (no quarantine
    to wait out), then ``checked``'s. Holders and claimants are closed after."""
    checked, unchecked = _side(pair, "checked"), _side(pair, "unchecked")
    sides = (checked, unchecked)
    pair.caught_up()
    try:
        for side in sides:
            side.issuer.start()
        for side in sides:
            wait_until(lambda side=side: len(side.issuer.ids) > 200, 30, "the holders to issue")
        pair.cut()
        time.sleep(AFTER_CUT_S)  # renewals and ids the replica never gets
        for side in sides:
            side.acked_before_kill = side.holder.ceiling_ms
        pair.kill_primary()
        pair.promote()
        pair.replica.sql("UPDATE unchecked_meta SET history = CAST(@@global.server_id AS CHAR)")
        for side in (unchecked, checked):  # first on the promoted store
            side.start_ms = _claim(side.claimant)
            side.fresh.start()
        pair.move_clients()
        wait_until(lambda: checked.holder.failovers > 0, 30, "the holder to see the failover")
        time.sleep(1.0)
    finally:
        for side in sides:
            for issuer in (side.issuer, side.fresh):
                if issuer.is_alive():
                    issuer.finish()
            side.holder.close()
            side.claimant.close()
    return checked, unchecked


def test_mariadb_failover_through_a_virtual_ip_no_duplicates(
    cleanup: Cleanup, capsys: pytest.CaptureFixture[str]
) -> None:
    """server_id tells the promoted replica from the primary that granted the lease, in
    the claim's and the renewal's own batch, read by an account with no privilege beyond
    the database: the holder fails closed with StoreFailedOverError, the claimant waits
    out one quarantine and starts above everything the old holder was granted. The table
    whose recorded history was written over (the check defeated) duplicates in the same
    round: what the check prevents is not an accident of the round's timing."""
    pair = MariaPair(cleanup)
    pair.user(USER)
    done, unchecked = _failover_round(pair)
    assert done.fresh.ids, "the fresh claimant issued nothing"
    assert done.duplicates == 0
    assert done.start_ms > done.acked_before_kill, "the claim started below the old ceiling"
    assert done.holder.failovers == 1  # its renewal on the promoted replica: failed over
    assert done.claimant.failovers == 1  # one quarantine, said once
    done.issuer.assert_within_acked_ceilings()
    history, seen = pair.replica.sql(
        "SELECT history, quarantine_seen FROM checked_meta WHERE id = 1"
    )[0]
    assert (seen, history) == ("1", "2")  # the primary's server_id, then the replica's
    _status_says_so(pair.replica_url(f"table=checked&{TIMINGS}", user=USER), capsys)
    # Unchecked: granted from the replica's stale ceiling, below what the old holder had
    # acknowledged, and over milliseconds in which it had already issued ids (any id the
    # claimant issues there can be one of them; the streams' duplicates count those).
    assert unchecked.start_ms <= unchecked.acked_before_kill
    issued_ms = {TWITTER.timestamp_of(v) for v in unchecked.issuer.ids}
    assert max(issued_ms) >= unchecked.start_ms


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


def test_the_pair_serves_several_rounds_then_a_restore(cleanup: Cleanup) -> None:
    """What bench/faults.py's MariaDB target relies on: after each failover ``next_round``
    makes the promoted replica the primary with a new replica (a new server_id) that has
    its data and follows it; what the old primary wrote after the cut is gone; after a
    restore into another server (``replace``) the virtual IP reaches it and its writes
    reach a new replica. Servers 1 and 2, then 3 and 4 in the rounds, 5 and 6 at the
    restore."""
    pair = MariaPair(cleanup)
    pair.primary.sql("CREATE TABLE rounds (n INT PRIMARY KEY)")
    for n in (1, 2):
        pair.primary.sql("INSERT INTO rounds VALUES (%s)", (n,))
        pair.caught_up()
        pair.cut()
        pair.primary.sql("INSERT INTO rounds VALUES (%s)", (100 + n,))  # never replicated
        pair.kill_primary()
        pair.promote()
        pair.move_clients()
        pair.next_round()
        pair.primary.sql("INSERT INTO rounds VALUES (%s)", (10 + n,))
        pair.caught_up()
    assert pair.replica.sql("SELECT n FROM rounds ORDER BY n") == [(1,), (2,), (11,), (12,)]
    backup = pair.new_server()
    pair.load(backup, pair.dump(pair.primary))
    pair.kill_primary()
    pair.replace(backup)
    through_vip = MariaDb(pair.vip.port, pair.primary.database)
    through_vip.sql("INSERT INTO rounds VALUES (13)")
    pair.caught_up()
    assert pair.replica.sql("SELECT n FROM rounds ORDER BY n") == [(1,), (2,), (11,), (12,), (13,)]
    assert through_vip.sql("SELECT @@server_id") == [(5,)]
    assert pair.replica.sql("SELECT @@server_id, @@read_only") == [(6, 1)]
