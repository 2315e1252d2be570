"""The clock-back policies on a fake clock: raise, wait:N, logical:N (and ride, the default).

Every test drives time through snowid.testing.FakeClock (its sleeps move fake time at
once); none sleeps on the real clock. What each policy promises, whatever the step: ids
strictly increase; ``raise`` and ``wait`` never issue an id ahead of the clock;
``logical`` issues at most N ms ahead and never past its lease's ceiling.
"""

from __future__ import annotations

import asyncio
import itertools

import pytest

from snowid import TWITTER, ClockBack, Generator
from snowid.errors import (
    CeilingReachedError,
    ClockMovedBackwards,
    ClockPolicyError,
    OutOfRangeError,
)
from snowid.testing import FakeClock, FixedCeiling

T = 1_700_000_000_000
FAR = TWITTER.max_timestamp


def stamp(value: int) -> int:
    return TWITTER.decompose(value).timestamp


def increasing(ids: list[int]) -> bool:
    return all(a < b for a, b in itertools.pairwise(ids))


def logical(clock: FakeClock, n: int, *, ceiling: int = FAR, max_wait_ms: int = 1000) -> Generator:
    fence = FixedCeiling(ceiling, start_ms=T - 60_000, datacenter=2, machine=9, max_lead_ms=50)
    return Generator(fence=fence, clock=clock, clock_back=f"logical:{n}", max_wait_ms=max_wait_ms)


# --- the spelling --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "policy", "ms"),
    [
        ("raise", "raise", 0),
        ("ride", "ride", 5),
        ("ride:0", "ride", 0),
        (" Wait:200 ", "wait", 200),
        ("logical:1000", "logical", 1000),
        ("wait:86400000", "wait", 86_400_000),
    ],
)
def test_a_policy_is_read_from_its_one_spelling(text: str, policy: str, ms: int) -> None:
    parsed = ClockBack.parse(text)
    assert (parsed.policy, parsed.ms) == (policy, ms)
    assert ClockBack.parse(str(parsed)) == parsed


@pytest.mark.parametrize(
    ("value", "reason", "words"),
    [
        ("soon", "syntax", "not a clock-back policy"),
        ("wait:abc", "syntax", "raise, ride:N, wait:N or logical:N"),
        ("", "syntax", "not a clock-back policy"),
        (5, "syntax", "not a clock-back policy"),
        ("wait", "needs_ms", "as wait:N"),
        ("logical", "needs_ms", "as logical:N"),
        ("raise:5", "no_ms", "raise takes no bound"),
    ],
)
def test_a_bad_policy_is_refused_naming_the_field_and_the_value(
    value: object, reason: str, words: str
) -> None:
    with pytest.raises(ClockPolicyError) as caught:
        ClockBack.parse(value, field="SNOWID_CLOCK_BACK")
    assert caught.value.reason == reason
    assert caught.value.field == "SNOWID_CLOCK_BACK"
    assert words in str(caught.value)
    assert "SNOWID_CLOCK_BACK" in str(caught.value)
    assert caught.value.message("vi") != str(caught.value)


def test_a_bound_over_a_day_is_out_of_range_with_the_range_named() -> None:
    with pytest.raises(OutOfRangeError) as caught:
        Generator(1, 1, clock_back="wait:86400001")
    assert (caught.value.field, caught.value.min, caught.value.max) == ("clock_back", 0, 86_400_000)
    assert "86400001" in str(caught.value)


def test_ride_5_stays_the_default_and_max_backward_ms_is_its_older_spelling() -> None:
    assert Generator(1, 1).clock_back == ClockBack("ride", 5)
    assert Generator(1, 1, max_backward_ms=9).clock_back == ClockBack("ride", 9)
    assert Generator(1, 1, clock_back="wait:9").max_backward_ms == 0
    with pytest.raises(ClockPolicyError) as caught:
        Generator(1, 1, clock_back="raise", max_backward_ms=9)
    assert caught.value.reason == "both"


# --- raise ----------------------------------------------------------------------------


def test_raise_refuses_a_step_back_of_1ms_even_with_sequence_left_then_resumes() -> None:
    clock = FakeClock(T)
    generator = Generator(3, 7, clock=clock, clock_back="raise")
    first = generator.next_id()
    clock.step(-1)
    with pytest.raises(ClockMovedBackwards) as caught:
        generator.next_id()
    assert (caught.value.step_ms, caught.value.tolerance_ms) == (1, 0)
    clock.advance(2)
    later = generator.next_id()
    assert later > first
    assert stamp(later) == T + 1 == clock.time_ms()
    assert clock.sleeps == []
    assert generator.stats.clock_backward_events == 1


# --- wait -----------------------------------------------------------------------------


def test_wait_sleeps_out_a_step_it_can_and_issues_nothing_ahead_of_the_clock() -> None:
    clock = FakeClock(T)
    generator = Generator(3, 7, clock=clock, clock_back="wait:5")
    first = generator.next_id()
    clock.step(-4)  # the clock must pass T: 5 ms of waiting, the whole budget
    value = generator.next_id()
    assert value > first
    assert stamp(value) == T + 1 == clock.time_ms()  # not on T, which the clock left
    assert sum(clock.sleeps) == pytest.approx(0.005)
    assert generator.stats.clock_backward_events == 1


def test_wait_raises_at_once_for_a_step_it_cannot_wait_out_within_n() -> None:
    clock = FakeClock(T)
    generator = Generator(3, 7, clock=clock, clock_back="wait:5")
    generator.next_id()
    clock.step(-5)  # would need 6 ms of waiting
    with pytest.raises(ClockMovedBackwards) as caught:
        generator.next_id()
    assert (caught.value.step_ms, caught.value.tolerance_ms) == (5, 5)
    assert clock.sleeps == []


def test_wait_counts_every_wait_of_one_step_against_its_budget() -> None:
    """A clock that keeps stepping back while the generator waits runs the budget out."""
    clock = FakeClock(T)
    generator = Generator(3, 7, clock=clock, clock_back="wait:10")
    generator.next_id()
    clock.step(-6)
    first, count = generator._core.take(1, acquire=None)
    assert count == 0
    assert first == 7_000_000
    clock.advance(6)  # 6 ms went by, and the clock stepped back as much again
    clock.step(-6)
    with pytest.raises(ClockMovedBackwards):
        generator._core.take(1, acquire=None)  # 6 waited + 7 more > 10


def test_wait_in_asyncio_awaits_the_step_out() -> None:
    clock = FakeClock(T)
    generator = Generator(3, 7, clock=clock, clock_back="wait:50")
    first = generator.next_id()
    clock.step(-20)
    values = asyncio.run(generator.anext_ids(3))
    assert increasing([first, *values])
    assert all(stamp(v) <= clock.time_ms() for v in values)
    assert stamp(values[0]) == T + 1


# --- logical --------------------------------------------------------------------------


def test_logical_keeps_issuing_above_the_last_id_at_most_n_ahead_then_waits() -> None:
    clock = FakeClock(T)
    generator = logical(clock, 20)
    ids = [generator.next_id()]
    clock.step(-10)
    leads, waits = [], []
    for _ in range(12 * 4096 - 1):  # the rest of T, then T+1 .. T+11
        ids.append(generator.next_id())
        leads.append(stamp(ids[-1]) - clock.time_ms())
        waits.append(len(clock.sleeps))
    assert increasing(ids)
    assert max(leads) == 20  # it ran ahead of the clock, as far as it may and no further
    assert stamp(ids[-1]) == T + 11  # 11 ms past the millisecond the clock stepped back from
    assert waits[leads.index(20)] == 0  # no wait before the lead reached 20 ms ...
    assert waits[-1] == 1
    assert clock.sleeps == [0.001]
    assert generator.stats.clock_backward_events == 1


def test_logical_waits_for_a_step_larger_than_n_then_issues_n_ahead() -> None:
    clock = FakeClock(T)
    generator = logical(clock, 20)
    first = generator.next_id()
    clock.step(-500)
    value = generator.next_id()
    assert value > first
    assert sum(clock.sleeps) == pytest.approx(0.480)  # until the clock is 20 ms behind T
    assert stamp(value) - clock.time_ms() == 20


def test_logical_raises_when_the_wait_would_outlast_max_wait_ms() -> None:
    clock = FakeClock(T)
    generator = logical(clock, 20, max_wait_ms=1000)
    generator.next_id()
    clock.step(-3000)
    with pytest.raises(ClockMovedBackwards) as caught:
        generator.next_id()
    assert (caught.value.step_ms, caught.value.tolerance_ms) == (3000, 20)
    assert clock.sleeps == []


def test_logical_never_issues_past_the_lease_ceiling_it_waits_there() -> None:
    clock = FakeClock(T)
    generator = logical(clock, 20, ceiling=T + 2, max_wait_ms=50)
    ids = [generator.next_id()]
    clock.step(-10)

    def issue_until_refused() -> None:
        while True:
            ids.append(generator.next_id())

    with pytest.raises(CeilingReachedError):
        issue_until_refused()
    assert increasing(ids)
    assert max(stamp(v) for v in ids) == T + 2  # up to the ceiling, never past it
    assert clock.time_ms() > T + 2  # it waited there for the wall clock to pass it


def test_logical_batches_and_asyncio_stay_within_n() -> None:
    clock = FakeClock(T)
    generator = logical(clock, 3)
    first = generator.next_id()
    clock.step(-2)
    batch = generator.next_ids(5 * 4096)
    more = asyncio.run(generator.anext_ids(4096))
    assert increasing([first, *batch, *more])
    assert max(stamp(v) for v in batch + more) <= clock.time_ms() + 3


def test_logical_is_refused_with_a_fixed_identity_or_a_fence_without_a_mark() -> None:
    with pytest.raises(ClockPolicyError) as caught:
        Generator(1, 1, clock_back="logical:5")
    assert caught.value.reason == "no_mark"
    assert "a fixed identity" in str(caught.value)
    assert "state_dir" in str(caught.value)
    with pytest.raises(ClockPolicyError) as caught:
        Generator(fence=FixedCeiling(FAR), clock_back="logical:5")
    assert caught.value.reason == "no_mark"
    with pytest.raises(ClockPolicyError):
        Generator(1, 1, fence=FixedCeiling(FAR, max_lead_ms=50), clock_back="logical:5")


def test_logical_n_may_not_exceed_the_fence_max_lead() -> None:
    Generator(fence=FixedCeiling(FAR, max_lead_ms=50), clock_back="logical:50")
    with pytest.raises(ClockPolicyError) as caught:
        Generator(fence=FixedCeiling(FAR, max_lead_ms=50), clock_back="logical:51")
    assert (caught.value.reason, caught.value.max) == ("lead", 50)
    assert "logical:0..50" in str(caught.value)
