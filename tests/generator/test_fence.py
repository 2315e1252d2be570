"""The generator under a fence: a ceiling it never passes, grants that carry the identity."""

from __future__ import annotations

import pytest

from snowid import TWITTER, Fence, Generator, Grant
from snowid.errors import CeilingReachedError, ClockMovedBackwards, ForkedGeneratorError
from snowid.testing import FakeClock, FixedCeiling

T = 1_700_000_000_000


class ScriptedFence:
    """A Fence whose grants a test sets; records every acquire."""

    def __init__(self, grant: Grant) -> None:
        self.grant = grant
        self.ceiling_ms = -1  # like a lease before its first claim
        self.calls: list[int] = []
        self.raise_ceiling_after: int | None = None
        self.raised_ceiling = 0

    def acquire(self, needed_ms: int) -> Grant:
        self.calls.append(needed_ms)
        if self.raise_ceiling_after is not None and len(self.calls) > self.raise_ceiling_after:
            self.grant = Grant(
                self.grant.datacenter,
                self.grant.machine,
                self.grant.start_ms,
                self.raised_ceiling,
                self.grant.epoch,
            )
        self.ceiling_ms = self.grant.ceiling_ms
        return self.grant

    async def aacquire(self, needed_ms: int) -> Grant:
        return self.acquire(needed_ms)


def _identity(generator: Generator) -> tuple[int | None, int | None]:
    return generator.datacenter, generator.machine


def test_fixed_ceiling_is_a_fence() -> None:
    fence = FixedCeiling(T, datacenter=1, machine=2)
    assert isinstance(fence, Fence)
    assert fence.acquire(T + 5) == Grant(1, 2, TWITTER.epoch_ms, T, 0)
    assert repr(fence).startswith(f"FixedCeiling({T}")


def test_the_ceiling_is_never_passed_and_the_wait_is_bounded() -> None:
    """Ids carry timestamps up to the ceiling; past it the generator waits, then raises."""
    clock = FakeClock(T)
    generator = Generator(1, 1, clock=clock, fence=FixedCeiling(T + 2), max_wait_ms=20)
    ids = []
    for _ in range(3):
        ids += generator.next_ids(10)
        clock.advance(1)
    assert max(TWITTER.timestamp_of(value) for value in ids) == T + 2
    with pytest.raises(CeilingReachedError) as caught:
        generator.next_id()
    assert caught.value.ceiling == T + 2
    assert caught.value.waited_ms >= 20
    assert clock.sleeps, "it waited before raising"
    with pytest.raises(CeilingReachedError):
        generator.next_ids(5)
    assert generator.stats.ceiling_waits == 2
    assert generator.stats.issued == 30


def test_exhausting_the_last_millisecond_under_the_ceiling_does_not_pass_it() -> None:
    clock = FakeClock(T)
    generator = Generator(1, 1, clock=clock, fence=FixedCeiling(T), max_wait_ms=0)
    ids = generator.next_ids(4096)
    assert {TWITTER.timestamp_of(value) for value in ids} == {T}
    with pytest.raises(CeilingReachedError):
        generator.next_id()


def test_a_ceiling_that_rises_while_waiting_lets_issuing_continue() -> None:
    clock = FakeClock(T)
    fence = ScriptedFence(Grant(4, 5, T, T, epoch=1))
    fence.raise_ceiling_after = 3
    fence.raised_ceiling = T + 1000
    generator = Generator(fence=fence, clock=clock, max_wait_ms=1000)
    first = generator.next_id()
    clock.advance(1)
    second = generator.next_id()  # waits at the ceiling until the third acquire raises it
    assert second > first
    assert TWITTER.decompose(second).timestamp <= T + 1000
    assert generator.stats.ceiling_waits == 1


def test_a_fence_supplies_the_identity_and_the_first_grant_starts_later() -> None:
    """Issuing starts at the grant's start_ms, under the grant's identity."""
    clock = FakeClock(T)
    fence = ScriptedFence(Grant(4, 5, start_ms=T + 10, ceiling_ms=T + 100, epoch=1))
    generator = Generator(fence=fence, clock=clock)
    assert _identity(generator) == (None, None)
    parts = TWITTER.decompose(generator.next_id())
    assert parts == (T + 10, 4, 5, 0)
    assert _identity(generator) == (4, 5)
    assert fence.calls == [T]


def test_a_grant_starting_too_far_ahead_raises_instead_of_waiting_long() -> None:
    clock = FakeClock(T)
    fence = ScriptedFence(Grant(4, 5, start_ms=T + 5000, ceiling_ms=T + 9000, epoch=1))
    generator = Generator(fence=fence, clock=clock, max_wait_ms=1000)
    with pytest.raises(ClockMovedBackwards) as caught:
        generator.next_id()
    assert caught.value.step_ms == 5000
    clock.advance(4500)  # within max_wait_ms of the start: wait
    assert TWITTER.decompose(generator.next_id()).timestamp == T + 5000


def test_a_new_grant_with_another_identity_starts_afresh() -> None:
    clock = FakeClock(T)
    fence = ScriptedFence(Grant(4, 5, start_ms=T, ceiling_ms=T + 100, epoch=1))
    generator = Generator(fence=fence, clock=clock)
    before = generator.next_ids(3)
    fence.grant = Grant(6, 7, start_ms=T + 200, ceiling_ms=T + 500, epoch=2)
    fence.ceiling_ms = -1  # the lease was lost: go through acquire
    clock.advance(1)
    after = generator.next_id()
    assert TWITTER.decompose(after) == (T + 200, 6, 7, 0)
    assert after > before[-1]
    assert generator.stats.issued == 4


def test_a_ceiling_of_minus_one_sends_the_next_millisecond_through_acquire() -> None:
    clock = FakeClock(T)
    fence = ScriptedFence(Grant(4, 5, start_ms=T, ceiling_ms=T + 100, epoch=1))
    generator = Generator(fence=fence, clock=clock)
    generator.next_id()
    generator.next_id()
    assert len(fence.calls) == 1  # the hot path only reads ceiling_ms
    fence.ceiling_ms = -1
    clock.advance(1)
    generator.next_id()
    assert fence.calls == [T, T + 1]


def test_a_fence_handing_a_forked_child_its_parents_grant_is_refused() -> None:
    clock = FakeClock(T)
    fence = ScriptedFence(Grant(4, 5, start_ms=T, ceiling_ms=T + 100, epoch=1))
    generator = Generator(fence=fence, clock=clock)
    generator.next_id()
    generator._core.after_fork()  # what the at-fork hook does in a child
    with pytest.raises(ForkedGeneratorError):
        generator.next_id()
    fence.grant = Grant(4, 5, start_ms=T + 1, ceiling_ms=T + 100, epoch=2)  # a fresh claim
    clock.advance(1)
    assert TWITTER.decompose(generator.next_id()) == (T + 1, 4, 5, 0)


class SequenceFence:
    """A Fence that hands out the given grants one per acquire (the last one repeats)."""

    def __init__(self, *grants: Grant) -> None:
        self.grants = list(grants)
        self.ceiling_ms = -1

    def acquire(self, needed_ms: int) -> Grant:
        grant = self.grants.pop(0) if len(self.grants) > 1 else self.grants[0]
        self.ceiling_ms = grant.ceiling_ms
        return grant

    async def aacquire(self, needed_ms: int) -> Grant:
        return self.acquire(needed_ms)


def test_ids_keep_growing_when_a_batch_moves_to_an_identity_with_an_earlier_start() -> None:
    """A batch that switches identity mid-way (its grant ran out) never issues a smaller id,
    even when the new grant starts below the last millisecond issued."""
    clock = FakeClock(T + 5)
    fence = SequenceFence(Grant(31, 31, T, T + 5, epoch=1), Grant(0, 0, T + 1, T + 100, epoch=1))
    generator = Generator(fence=fence, clock=clock)
    ids = generator.next_ids(4096 + 10)
    assert _identity(generator) == (0, 0)
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    assert TWITTER.timestamp_of(ids[-1]) == T + 6


def test_a_fence_whose_ceiling_now_belongs_to_another_grant_never_extends_the_old_one() -> None:
    """Someone else made the fence claim a new identity: its high ceiling must not let ids of
    the old identity pass the old grant's ceiling; the generator settles the new grant."""
    clock = FakeClock(T)
    fence = ScriptedFence(Grant(1, 1, T, T + 2, epoch=1))
    generator = Generator(fence=fence, clock=clock)
    first = generator.next_id()
    fence.grant = Grant(2, 2, T + 3, T + 100, epoch=1)  # claimed behind the generator's back
    fence.ceiling_ms = T + 100
    clock.advance(5)
    later = generator.next_id()
    assert _identity(generator) == (2, 2)
    assert TWITTER.decompose(later).datacenter == 2
    assert later > first
