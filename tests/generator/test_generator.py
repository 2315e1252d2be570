"""The production generator on a fake clock: sequence, clock steps, end of time, batches, stats.

Every test drives time through snowid.testing.FakeClock; none sleeps on the real clock.
"""

from __future__ import annotations

import asyncio
import enum
import itertools
from collections.abc import Callable
from typing import Any

import pytest

from snowid import TWITTER, Generator, GeneratorStats
from snowid.errors import (
    ClockMovedBackwards,
    EmptyValueError,
    EndOfTimeError,
    MissingIdentityError,
    OutOfRangeError,
    TimestampBeforeEpochError,
    WrongTypeError,
)
from snowid.generate._generator import DEFAULT_MAX_BACKWARD_MS
from snowid.i18n import translate
from snowid.testing import FakeClock

T = 1_700_000_000_000


def make(clock: FakeClock, *, max_backward_ms: int = DEFAULT_MAX_BACKWARD_MS) -> Generator:
    return Generator(3, 7, clock=clock, max_backward_ms=max_backward_ms)


def assert_strictly_increasing(ids: list[int]) -> None:
    assert all(a < b for a, b in itertools.pairwise(ids))


# --- the sequence within one millisecond -------------------------------------------


def test_ids_within_one_millisecond_count_the_sequence_up_from_zero() -> None:
    clock = FakeClock(T)
    generator = make(clock)
    parts = [TWITTER.decompose(generator.next_id()) for _ in range(5)]
    assert parts == [(T, 3, 7, seq) for seq in range(5)]


def test_sequence_exhaustion_waits_for_the_next_millisecond_and_never_spills() -> None:
    """4096 ids fill one millisecond; the 4097th waits (a sleep, not a spin) for the next.

    The sequence field never holds 4096 and the datacenter/machine fields never change.
    """
    clock = FakeClock(T)
    generator = make(clock)
    ids = [generator.next_id() for _ in range(4096)]
    assert clock.sleeps == []
    parts = [TWITTER.decompose(value) for value in ids]
    assert {p.timestamp for p in parts} == {T}
    assert [p.sequence for p in parts] == list(range(4096))
    following = generator.next_id()
    assert clock.sleeps, "the generator must wait by sleeping"
    assert all(seconds > 0 for seconds in clock.sleeps)
    assert TWITTER.decompose(following) == (T + 1, 3, 7, 0)
    assert following > ids[-1]
    assert generator.stats.sequence_waits == 1


def test_sequence_field_stays_below_4096_over_many_exhausted_milliseconds() -> None:
    clock = FakeClock(T)
    generator = make(clock)
    ids = [generator.next_id() for _ in range(3 * 4096 + 10)]
    assert_strictly_increasing(ids)
    for value in ids:
        parts = TWITTER.decompose(value)
        assert (parts.datacenter, parts.machine) == (3, 7)
        assert 0 <= parts.sequence <= 4095
    assert TWITTER.decompose(ids[-1]) == (T + 3, 3, 7, 9)
    assert generator.stats.sequence_waits == 3


def test_a_new_millisecond_restarts_the_sequence_at_zero() -> None:
    clock = FakeClock(T)
    generator = make(clock)
    generator.next_id()
    generator.next_id()
    clock.advance(1)
    assert TWITTER.decompose(generator.next_id()) == (T + 1, 3, 7, 0)


# --- clock steps -----------------------------------------------------------------


def test_clock_step_back_of_2ms_is_ridden_out_on_the_last_timestamp() -> None:
    """Within the tolerance the generator keeps issuing at the last timestamp, then waits."""
    clock = FakeClock(T)
    generator = make(clock)
    before = [generator.next_id() for _ in range(10)]
    clock.step(-2)
    after = [generator.next_id() for _ in range(4096)]
    assert_strictly_increasing(before + after)
    parts = [TWITTER.decompose(value) for value in after]
    # The rest of millisecond T's sequence, then (after a wait) the clock has caught up.
    assert [p.timestamp for p in parts[:4086]] == [T] * 4086
    assert [p.sequence for p in parts[:4086]] == list(range(10, 4096))
    assert parts[4086] == (T + 1, 3, 7, 0)
    assert clock.time_ms() >= T + 1
    stats = generator.stats
    assert stats.clock_backward_events == 1
    assert stats.issued == 10 + 4096


def test_clock_step_back_of_10s_raises_with_the_size_of_the_step() -> None:
    clock = FakeClock(T)
    generator = make(clock)
    generator.next_id()
    clock.step(-10_000)
    with pytest.raises(ClockMovedBackwards) as caught:
        generator.next_id()
    assert caught.value.step_ms == 10_000
    assert caught.value.tolerance_ms == 5
    assert "10000 ms" in str(caught.value)
    with pytest.raises(ClockMovedBackwards):
        generator.next_ids(3)  # batches refuse too
    assert generator.stats.clock_backward_events == 1


def test_after_a_large_step_back_the_generator_recovers_once_the_clock_catches_up() -> None:
    clock = FakeClock(T)
    generator = make(clock)
    last = generator.next_id()
    clock.step(-10_000)
    with pytest.raises(ClockMovedBackwards):
        generator.next_id()
    clock.advance(10_000 - 6)  # still 6 ms behind: beyond the 5 ms tolerance
    with pytest.raises(ClockMovedBackwards) as caught:
        generator.next_id()
    assert caught.value.step_ms == 6
    clock.advance(6 + 1)
    value = generator.next_id()
    assert value > last
    assert TWITTER.decompose(value).timestamp == T + 1


def test_the_backward_tolerance_is_configurable() -> None:
    clock = FakeClock(T)
    strict = make(clock, max_backward_ms=0)
    strict.next_id()
    clock.step(-1)
    with pytest.raises(ClockMovedBackwards) as caught:
        strict.next_id()
    assert (caught.value.step_ms, caught.value.tolerance_ms) == (1, 0)

    lenient_clock = FakeClock(T)
    lenient = make(lenient_clock, max_backward_ms=20_000)
    first = lenient.next_id()
    lenient_clock.step(-10_000)
    assert lenient.next_id() > first


def test_a_forward_jump_is_followed_and_counted() -> None:
    clock = FakeClock(T)
    generator = make(clock)
    before = generator.next_id()
    clock.step(3_600_000)  # the wall clock jumps an hour ahead; no time passed
    after = generator.next_id()
    assert after > before
    assert TWITTER.decompose(after).timestamp == T + 3_600_000
    assert generator.stats.forward_jumps == 1


def test_time_passing_normally_is_not_a_forward_jump() -> None:
    clock = FakeClock(T)
    generator = make(clock)
    for _ in range(50):
        generator.next_id()
        clock.advance(1000)
    assert generator.stats.forward_jumps == 0


# --- end of time -------------------------------------------------------------------


def test_the_last_millisecond_issues_then_end_of_time_raises_instead_of_wrapping() -> None:
    clock = FakeClock(TWITTER.max_timestamp)
    generator = make(clock)
    last = generator.next_ids(4096)
    assert TWITTER.decompose(last[-1]) == (TWITTER.max_timestamp, 3, 7, 4095)
    with pytest.raises(EndOfTimeError) as caught:
        generator.next_id()  # the sequence is used up and there is no next millisecond
    assert (caught.value.timestamp, caught.value.max) == (
        TWITTER.max_timestamp + 1,
        TWITTER.max_timestamp,
    )
    assert "2080-07-10T17:30:30.208Z" in str(caught.value)
    clock.advance(10)
    with pytest.raises(EndOfTimeError):
        generator.next_id()


def test_a_clock_before_the_twitter_epoch_is_refused() -> None:
    generator = make(FakeClock(TWITTER.epoch_ms - 1))
    with pytest.raises(TimestampBeforeEpochError):
        generator.next_id()


# --- batches -------------------------------------------------------------------------


def test_next_ids_fills_whole_milliseconds_of_sequence() -> None:
    clock = FakeClock(T)
    generator = make(clock)
    ids = generator.next_ids(10_000)
    assert len(ids) == 10_000
    assert_strictly_increasing(ids)
    parts = [TWITTER.decompose(value) for value in ids]
    assert [p.timestamp for p in parts] == [T] * 4096 + [T + 1] * 4096 + [T + 2] * 1808
    assert parts[4096].sequence == 0
    assert len(clock.sleeps) == 2


class OversleepingClock(FakeClock):
    """A FakeClock whose sleeps overshoot, like a loaded machine's."""

    __slots__ = ("extra_ms",)

    def __init__(self, start_ms: int, extra_ms: int) -> None:
        super().__init__(start_ms)
        self.extra_ms = extra_ms

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds)
        self.advance(self.extra_ms)


def test_a_batch_that_overslept_fills_the_milliseconds_it_missed() -> None:
    """Within one next_ids call, milliseconds lost to a late wake-up are used after all,
    no further behind the clock than max_backward_ms."""
    clock = OversleepingClock(T, extra_ms=2)
    generator = make(clock)
    ids = generator.next_ids(3 * 4096)
    assert_strictly_increasing(ids)
    stamps = sorted({TWITTER.timestamp_of(value) for value in ids})
    assert stamps == [T, T + 1, T + 2]
    assert clock.time_ms() - stamps[-1] <= generator.max_backward_ms


def test_a_batch_catches_up_no_further_than_the_tolerance() -> None:
    clock = OversleepingClock(T, extra_ms=20)
    generator = make(clock)
    ids = generator.next_ids(2 * 4096)
    stamps = sorted({TWITTER.timestamp_of(value) for value in ids})
    assert stamps == [T, T + 21 - 5]


def test_a_new_batch_starts_at_the_clock_not_where_the_last_one_ended() -> None:
    clock = FakeClock(T)
    generator = make(clock)
    generator.next_ids(10)
    clock.advance(3)
    assert TWITTER.timestamp_of(generator.next_ids(1)[0]) == T + 3


def test_next_ids_continues_the_current_millisecond() -> None:
    clock = FakeClock(T)
    generator = make(clock)
    first = generator.next_id()
    batch = generator.next_ids(5)
    assert batch == list(range(first + 1, first + 6))
    assert generator.next_id() == first + 6


def test_next_ids_of_zero_is_empty_and_negative_is_refused() -> None:
    generator = make(FakeClock(T))
    assert generator.next_ids(0) == []
    with pytest.raises(OutOfRangeError):
        generator.next_ids(-1)


def test_iterating_a_generator_yields_increasing_ids() -> None:
    generator = make(FakeClock(T))
    ids = list(itertools.islice(generator, 100))
    assert len(ids) == 100
    assert_strictly_increasing(ids)


# --- stats ---------------------------------------------------------------------------


def test_stats_count_every_id_exactly() -> None:
    clock = FakeClock(T)
    generator = make(clock)
    assert generator.stats == GeneratorStats(0, 0, 0, 0, 0)
    for _ in range(7):
        generator.next_id()
    generator.next_ids(5000)
    clock.advance(3)
    generator.next_id()
    generator.next_ids(3)
    assert generator.stats.issued == 7 + 5000 + 1 + 3


# --- construction ---------------------------------------------------------------------


def test_identity_is_validated_with_the_field_the_value_and_the_range() -> None:
    with pytest.raises(OutOfRangeError, match=r"^datacenter 32 is out of range 0\.\.31$"):
        Generator(32, 0)
    with pytest.raises(OutOfRangeError, match=r"^machine -1 is out of range 0\.\.31$"):
        Generator(0, -1)
    with pytest.raises(EmptyValueError) as caught:
        Generator(1)
    assert caught.value.field == "machine"


class _Rack(enum.IntEnum):
    EAST = 4


def _loose(value: object) -> Any:
    """``value`` typed Any: these calls pass what the signatures refuse, on purpose."""
    return value


@pytest.mark.parametrize(
    ("call", "function", "field", "given"),
    [
        # A bool is not a machine id, even though it is an int.
        (lambda: Generator(True, 1), "Generator()", "datacenter", "bool"),
        # Changed on purpose (issue 16): strings were coerced ("4" became 4), floats too.
        (lambda: Generator(_loose("4"), _loose("5")), "Generator()", "datacenter", "str"),
        (lambda: Generator(_loose(1.0), 1), "Generator()", "datacenter", "float"),
        (
            lambda: Generator(1, 1, max_backward_ms=_loose("10")),
            "Generator()",
            "max_backward_ms",
            "str",
        ),
        (lambda: Generator(1, 1, max_wait_ms=_loose(1.5)), "Generator()", "max_wait_ms", "float"),
        (lambda: Generator(1, 1).next_ids(_loose(2.0)), "Generator.next_ids()", "count", "float"),
        (lambda: Generator(1, 1).next_ids(_loose("5")), "Generator.next_ids()", "count", "str"),
        (lambda: Generator(1, 1).next_ids(False), "Generator.next_ids()", "count", "bool"),
        (
            lambda: asyncio.run(Generator(1, 1).anext_ids(_loose(2.0))),
            "Generator.anext_ids()",
            "count",
            "float",
        ),
    ],
)
def test_numbers_must_be_ints_with_the_wrong_type_error_naming_the_function(
    call: Callable[[], object], function: str, field: str, given: str
) -> None:
    """The library takes ints; the lenient readers are for text (CLI, environment, URLs)."""
    with pytest.raises(WrongTypeError) as caught:
        call()
    assert (caught.value.function, caught.value.field) == (function, field)
    assert caught.value.given_type == given
    assert str(caught.value).startswith(f"{function} takes int for {field}, not {given}")


def test_an_int_subclass_counts_as_its_value() -> None:
    generator = Generator(_Rack.EAST, _Rack.EAST, max_backward_ms=_Rack.EAST)
    assert (generator.datacenter, generator.max_backward_ms) == (4, 4)
    assert type(generator.datacenter) is int
    assert len(generator.next_ids(_Rack.EAST)) == 4


def test_a_generator_without_identity_or_fence_says_what_to_pass() -> None:
    with pytest.raises(MissingIdentityError) as caught:
        Generator()
    assert "datacenter and machine" in str(caught.value)
    assert caught.value.message("vi") == translate("generator_no_identity", "vi")
    assert caught.value.message("vi") != str(caught.value)


def test_negative_waits_are_refused() -> None:
    with pytest.raises(OutOfRangeError) as caught:
        Generator(1, 1, max_backward_ms=-1)
    assert caught.value.field == "max_backward_ms"
    with pytest.raises(OutOfRangeError) as caught:
        Generator(1, 1, max_wait_ms=-1)
    assert caught.value.field == "max_wait_ms"


def test_repr_and_identity_properties() -> None:
    generator = Generator(2, 9, clock=FakeClock(T))
    assert (generator.datacenter, generator.machine) == (2, 9)
    assert "datacenter=2, machine=9" in repr(generator)
    assert generator.max_backward_ms == 5


def test_a_generator_cannot_be_copied_or_pickled() -> None:
    """A copy would share the identity but escape the fork guard: two issuers, one identity."""
    import copy
    import pickle

    generator = Generator(1, 1, clock=FakeClock(T))
    for attempt in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match="cannot be"):
            attempt(generator)


def test_a_clock_that_is_not_a_clock_is_refused_clearly() -> None:
    with pytest.raises(TypeError, match=r"^clock must implement snowid\.Clock, not object$"):
        Generator(1, 1, clock=object())  # type: ignore[arg-type]
