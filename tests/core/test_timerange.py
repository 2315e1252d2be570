"""first_id_at / last_id_at: BETWEEN bounds that select exactly the ids of a time window."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowid import TWITTER, SnowId
from snowid.errors import TimestampAfterEndError, TimestampBeforeEpochError
from snowid.ids._timerange import first_id_at, id_range, last_id_at

SEED_MS = 1288834975657  # the seed's example: 4194439168 was made in this millisecond
UTC = dt.UTC


def test_the_seed_example_lies_between_the_bounds_of_its_millisecond() -> None:
    low, high = first_id_at(SEED_MS), last_id_at(SEED_MS)
    assert low == 1000 << 22  # delta 1000 ms, every lower field 0
    assert high == (1001 << 22) - 1  # every lower field at its maximum
    assert low <= 4194439168 <= high
    assert SnowId(low).parts == (SEED_MS, 0, 0, 0)
    assert SnowId(high).parts == (SEED_MS, 31, 31, 4095)


def test_datetimes_between_milliseconds_round_inwards() -> None:
    """A window [t, t] with t inside a millisecond holds no id: that ms began before t."""
    at = dt.datetime.fromtimestamp(SEED_MS / 1000, UTC) + dt.timedelta(microseconds=500)
    assert first_id_at(at) == first_id_at(SEED_MS + 1)
    assert last_id_at(at) == last_id_at(SEED_MS)
    exact = dt.datetime(2010, 11, 4, 1, 42, 55, 657000, tzinfo=UTC)
    assert first_id_at(exact) == first_id_at(SEED_MS)
    assert last_id_at(exact) == last_id_at(SEED_MS)


def test_naive_datetimes_are_utc() -> None:
    naive = dt.datetime(2010, 11, 4, 1, 42, 55, 657000)
    assert first_id_at(naive) == first_id_at(naive.replace(tzinfo=UTC))
    plus7 = dt.timezone(dt.timedelta(hours=7))
    assert first_id_at(dt.datetime(2010, 11, 4, 8, 42, 55, 657000, tzinfo=plus7)) == (1000 << 22)


def test_id_range_is_both_bounds() -> None:
    assert id_range(SEED_MS, SEED_MS + 5) == (first_id_at(SEED_MS), last_id_at(SEED_MS + 5))


def test_times_outside_the_layout_are_refused_with_the_range() -> None:
    with pytest.raises(TimestampBeforeEpochError):
        first_id_at(TWITTER.epoch_ms - 1)
    with pytest.raises(TimestampAfterEndError):
        last_id_at(TWITTER.max_timestamp + 1)
    with pytest.raises(TimestampBeforeEpochError):
        last_id_at(dt.datetime(2000, 1, 1, tzinfo=UTC))
    assert last_id_at(TWITTER.max_timestamp) == TWITTER.max_id


@given(st.integers(0, TWITTER.max_id))
def test_every_id_is_inside_its_own_milliseconds_bounds_and_outside_the_neighbours(
    value: int,
) -> None:
    ms = SnowId(value).timestamp
    assert first_id_at(ms) <= value <= last_id_at(ms)
    if ms > TWITTER.epoch_ms:
        assert value > last_id_at(ms - 1)
    if ms < TWITTER.max_timestamp:
        assert value < first_id_at(ms + 1)
