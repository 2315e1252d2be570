"""One failover round, for every store and every way clients reach it (issue 26 §1).

``failover_round`` is the sequence: a holder issues ids; replication is cut; the holder
issues on for a while (renewals the replica never gets); the primary is killed (or, for
split brain, left alive) and the replica promoted; a fresh claimant whose clock is behind
claims on the promoted store first and issues. The caller's ``with`` body does what
follows (move the clients, wait for the holder to notice); everything is stopped when it
ends, pass or fail. ``no_duplicates_through_a_failover`` is the whole round with the
checks every store must pass.

A pair is anything with the four steps (``FailoverPair``): tests/support/failover.py's
``PgPair`` and ``RedisPair``, tests/support/sentinel.py's ``SentinelPair``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from snowid.generate import Grant
from snowid.lease import open_lease
from snowid.lease._store import StoreLease
from snowid.testing import OffsetClock
from tests.support.holders import Issuer, wait_until
from tests.support.stores import wait_for_claim

__all__ = ["FailoverPair", "Round", "duplicates", "failover_round", "open_store_lease"]

BEHIND_MS = -400  # the fresh claimant's clock, behind the store's (within max_skew)
AFTER_CUT_S = 1.5  # the holder issues this long on the primary after replication is cut
CLAIM_WAIT_S = 30  # a harness wait: the claim waits out the quarantine, or a lease the
# replica saw still running


class FailoverPair(Protocol):
    def cut(self) -> None: ...
    def kill_primary(self) -> None: ...
    def promote(self) -> None: ...
    def move_clients(self) -> None: ...


def open_store_lease(url: str, offset_ms: int = 0) -> StoreLease:
    lease = open_lease(url, clock=OffsetClock(offset_ms))
    assert isinstance(lease, StoreLease)
    return lease


def duplicates(*streams: list[int]) -> int:
    every = [v for stream in streams for v in stream]
    return len(every) - len(set(every))


@dataclass
class Round:
    """The parties of a round: the holder and its issuer, the fresh claimant and its."""

    holder: StoreLease
    issuer: Issuer
    acked_before: int = 0  # the holder's acknowledged ceiling when the primary went
    claimant: StoreLease | None = None
    grant: Grant | None = None
    fresh: Issuer | None = field(default=None)

    def holder_saw_the_failover(self) -> bool:
        codes = {code for _, code in self.issuer.errors}
        return "store_failed_over" in codes or self.holder.failovers > 0


@contextlib.contextmanager
def failover_round(
    pair: FailoverPair,
    holder_url: str,
    claimant_url: str,
    *,
    kill: bool = True,
    behind_ms: int = BEHIND_MS,
    after_cut_s: float = AFTER_CUT_S,
    before_cut: Callable[[], None] | None = None,
) -> Iterator[Round]:
    """The sequence of the module docstring; yields with the fresh claimant issuing."""
    holder = open_store_lease(holder_url)
    parties = Round(holder, Issuer(holder))
    try:
        parties.issuer.start()
        wait_until(lambda: len(parties.issuer.ids) > 200, 30, "the holder to issue")
        if before_cut is not None:
            before_cut()
        pair.cut()
        time.sleep(after_cut_s)  # renewals and ids the replica never gets
        parties.acked_before = holder.ceiling_ms
        if kill:
            pair.kill_primary()
        pair.promote()
        parties.claimant = open_store_lease(claimant_url, behind_ms)
        parties.grant = wait_for_claim(parties.claimant, CLAIM_WAIT_S)
        parties.fresh = Issuer(parties.claimant)
        parties.fresh.start()
        yield parties
    finally:
        parties.issuer.finish()
        if parties.fresh is not None:
            parties.fresh.finish()
        holder.close()
        if parties.claimant is not None:
            parties.claimant.close()


def no_duplicates_through_a_failover(
    pair: FailoverPair,
    holder_url: str,
    claimant_url: str,
    *,
    settle_s: float = 1.0,
    before_cut: Callable[[], None] | None = None,
) -> Round:
    """A round, then the clients moved to the promoted store; asserts what every store
    must show: the claim started above the old holder's acknowledged ceiling, the holder
    saw the failover, 0 duplicates, the holder issued only below acknowledged ceilings."""
    with failover_round(pair, holder_url, claimant_url, before_cut=before_cut) as parties:
        assert parties.grant is not None
        assert parties.grant.start_ms > parties.acked_before, (
            "the claim started below the old holder's ceiling"
        )
        pair.move_clients()
        wait_until(parties.holder_saw_the_failover, 30, "the holder to see the failover")
        time.sleep(settle_s)
    assert parties.fresh is not None
    assert parties.claimant is not None
    assert parties.fresh.ids, "the fresh claimant issued nothing"
    assert duplicates(parties.issuer.ids, parties.fresh.ids) == 0
    assert parties.holder.failovers + parties.claimant.failovers >= 1
    parties.issuer.assert_within_acked_ceilings()
    return parties
