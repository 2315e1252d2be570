"""snowid.testing: the fake clock's rules and the known-answer vectors, checked by hand."""

from __future__ import annotations

import asyncio

import pytest

from snowid import TWITTER, Clock, SnowId
from snowid.testing import DEFAULT_START_MS, KNOWN_ANSWERS, FakeClock

# --- FakeClock -------------------------------------------------------------------------


def test_fake_clock_is_a_clock_and_starts_where_told() -> None:
    assert isinstance(FakeClock(), Clock)
    assert FakeClock().time_ms() == DEFAULT_START_MS
    assert FakeClock(1234).time_ms() == 1234


def test_advance_moves_wall_and_monotonic_time_together() -> None:
    clock = FakeClock(1000)
    mono = clock.monotonic_ns()
    clock.advance(5)
    assert clock.time_ms() == 1005
    assert clock.monotonic_ns() - mono == 5_000_000
    with pytest.raises(ValueError, match="forward"):
        clock.advance(-1)


def test_step_and_set_move_the_wall_clock_only_and_may_go_back() -> None:
    clock = FakeClock(1000)
    mono = clock.monotonic_ns()
    clock.step(-300)
    assert clock.time_ms() == 700
    clock.set(5000)
    assert clock.time_ms() == 5000
    clock.set(10)
    assert clock.time_ms() == 10
    assert clock.monotonic_ns() == mono  # the monotonic clock never steps back


def test_sleep_advances_fake_time_at_once_and_is_recorded() -> None:
    clock = FakeClock(1000)
    clock.sleep(0.002)
    clock.sleep(0.0005)
    clock.sleep(0.0005)
    assert clock.time_ms() == 1003
    assert clock.sleeps == [0.002, 0.0005, 0.0005]
    with pytest.raises(ValueError, match="non-negative"):
        clock.sleep(-1)


def test_asleep_advances_fake_time() -> None:
    clock = FakeClock(1000)
    asyncio.run(clock.asleep(0.010))
    assert clock.time_ms() == 1010


def test_auto_advance_moves_time_after_each_read() -> None:
    clock = FakeClock(1000, auto_advance_ms=2)
    assert [clock.time_ms() for _ in range(3)] == [1000, 1002, 1004]


# --- known answers ----------------------------------------------------------------------

# Hand arithmetic, no shifts: 2**22 = 4194304, 2**17 = 131072, 2**12 = 4096.
EPOCH = 1288834974657
LAST = EPOCH + 2199023255551  # 2**41 - 1 = 2199023255551 -> 3487858230208
HAND = {
    (1288834975657, 1, 1, 0): 1000 * 4194304 + 1 * 131072 + 1 * 4096 + 0,
    (EPOCH, 0, 0, 0): 0,
    (EPOCH, 31, 31, 4095): 31 * 131072 + 31 * 4096 + 4095,
    (EPOCH, 1, 0, 0): 131072,
    (EPOCH, 0, 1, 0): 4096,
    (EPOCH, 0, 0, 1): 1,
    (1700000000000, 3, 7, 42): 411165025343 * 4194304 + 3 * 131072 + 7 * 4096 + 42,
    (LAST, 0, 0, 0): 2199023255551 * 4194304,
    (LAST, 31, 31, 4095): 2199023255551 * 4194304 + 4194303,
}


def test_hand_arithmetic_agrees_with_the_written_decimals() -> None:
    assert LAST == 3487858230208
    assert 1000 * 4194304 == 4194304000
    assert 4194304000 + 131072 + 4096 == 4194439168  # the seed's worked example
    assert 31 * 131072 + 31 * 4096 + 4095 == 4194303
    assert 1700000000000 - EPOCH == 411165025343
    assert 411165025343 * 4194304 == 1724551110456246272
    assert 2199023255551 * 4194304 + 4194303 == 2**63 - 1 == 9223372036854775807


@pytest.mark.parametrize("row", KNOWN_ANSWERS, ids=lambda row: str(row[-1]))
def test_every_known_answer_matches_hand_arithmetic_and_the_layout(
    row: tuple[int, int, int, int, int],
) -> None:
    timestamp, datacenter, machine, sequence, value = row
    assert HAND[(timestamp, datacenter, machine, sequence)] == value
    assert TWITTER.compose(timestamp, datacenter, machine, sequence) == value
    assert TWITTER.decompose(value) == (timestamp, datacenter, machine, sequence)
    assert int(SnowId(value)) == value


def test_known_answers_cover_the_seed_the_epoch_and_the_last_millisecond() -> None:
    rows = set(KNOWN_ANSWERS)
    assert (1288834975657, 1, 1, 0, 4194439168) in rows
    assert (EPOCH, 0, 0, 0, 0) in rows
    assert (LAST, 31, 31, 4095, 9223372036854775807) in rows
    assert set(HAND) == {row[:4] for row in KNOWN_ANSWERS}


def test_offset_clock_shifts_only_the_wall_clock() -> None:
    """OffsetClock reads the real clock plus its offset; the monotonic clock is untouched."""
    from snowid.ids._clock import SYSTEM_CLOCK
    from snowid.testing import OffsetClock

    ahead = OffsetClock(3_600_000)
    assert 3_599_000 < ahead.time_ms() - SYSTEM_CLOCK.time_ms() <= 3_600_000
    assert abs(ahead.monotonic_ns() - SYSTEM_CLOCK.monotonic_ns()) < 10**9
    ahead.offset_ms = -5_000
    assert -6_000 < ahead.time_ms() - SYSTEM_CLOCK.time_ms() <= -5_000
