"""A Redis lease through Redis Sentinel (``redis+sentinel://``) across a failover that
Sentinel itself makes, to a replica that was behind (issue 26 §1-§2): a primary, its
replica and three sentinels of the test's own on loopback (tests/support/sentinel.py),
the round of tests/support/failover_rounds.py.

The holder and the fresh claimant both name the sentinels, never a server: the holder
through proxies that close when the primary is killed (so it cannot ask the sentinels
until the fresh claimant has claimed on the promoted replica), the claimant directly.
Replication is cut, the holder issues on (renewals the replica never gets), the primary is
killed, and the sentinels see it down, elect a leader and promote the replica; the
claimant, whose clock is behind, finds the promoted replica through them and claims first;
then the holder reaches the sentinels again, they name the promoted replica, and the
holder stops at its next renewal with StoreFailedOverError. Expected: 0 duplicates over
both id streams.
"""

from __future__ import annotations

import json

import pytest

from snowid.cli import main
from tests.support.cleanup import Cleanup
from tests.support.failover_rounds import no_duplicates_through_a_failover
from tests.support.sentinel import SentinelPair
from tests.support.servers import new_name

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

# Sentinel takes about 3.5-4 s from the kill to the promotion (a primary is down after 2 s
# without an answer, then a vote): a TTL (and span) of 6 s keeps the old holder issuing, and
# its acknowledged ceiling above the promoted replica's, when the claimant arrives. With a
# TTL of 2 s the holder would have stopped before, and the round could not fail. Measured
# with the quarantine made 0 ms: the claim starts below the holder's ceiling (the assertion
# fails), and 120 and 980 duplicate ids in two rounds.
TIMINGS = "ttl=6&renew=0.3&max_skew=0.5&timeout=1.5&connect_timeout=1"


def test_a_failover_by_sentinel_no_duplicates(
    cleanup: Cleanup, capsys: pytest.CaptureFixture[str]
) -> None:
    from snowid.lease import init_lease

    pair = SentinelPair(cleanup)
    query = f"key={new_name()}&range=0-0&{TIMINGS}"
    init_lease(pair.url(query), first_deployment=True)
    # The replica attached again only once the holder has connected: the holder counts no
    # replica, so no WAIT confirms its writes (a replica that lags unseen, as measured).
    pair.detach()
    first = pair.pair.primary.port
    parties = no_duplicates_through_a_failover(
        pair, pair.holder_url(query), pair.url(query), before_cut=pair.attach
    )
    # The holder itself saw the failover (not merely an unreachable store), once it
    # reached the promoted replica through the sentinels.
    assert parties.holder.failovers >= 1
    # The sentinels moved the service: the promoted replica is the primary now.
    promoted = pair.sentinels.members[0].primary()
    assert promoted == ("127.0.0.1", pair.pair.replica.port)
    assert promoted[1] != first
    # ``snowid lease status`` through the sentinels names the failover and its quarantine.
    capsys.readouterr()
    assert main(["lease", "status", pair.url(query), "--json"]) == 0
    failover = json.loads(capsys.readouterr().out)["failover"]
    assert failover["seen"] != failover["found"]
    assert failover["until_ms"] > failover["at_ms"]
