"""id_range, first_id_at and last_id_at in every layout: tight bounds for BETWEEN."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from snowid import DISCORD, LAYOUTS, SONYFLAKE, Layout, decode, first_id_at, id_range, last_id_at
from snowid.errors import (
    InvalidDateTimeError,
    OutOfRangeError,
    TimestampAfterEndError,
    TimestampBeforeEpochError,
)
from snowid.ids._parse import parse_time
from snowid.ids._timerange import EMPTY
from snowid.integrations.sql import range_info


def last_ms(layout: Layout) -> int:
    return layout.max_timestamp + layout.unit_ms - 1


@st.composite
def windows(draw: st.DrawFn) -> tuple[Layout, int, int]:
    """A layout and a window [start, end] inside its time span (start may be after end)."""
    layout = draw(st.sampled_from(LAYOUTS))
    start = draw(st.integers(layout.epoch_ms, last_ms(layout)))
    span = draw(st.integers(0, 5 * layout.unit_ms) | st.integers(0, 10**12))
    return layout, start, min(start + span, last_ms(layout))


@given(windows())
def test_the_bounds_are_tight(window: tuple[Layout, int, int]) -> None:
    """Every id between low and high has its time in the window; the id just below low is
    earlier than start, the id just above high later than end."""
    layout, start, end = window
    low, high = id_range(start, end, layout)
    assume((low, high) != EMPTY)
    assert start <= decode(low, layout).timestamp <= decode(high, layout).timestamp <= end
    if low > 0:
        assert decode(low - 1, layout).timestamp < start
    if high < layout.max_id:
        assert decode(high + 1, layout).timestamp > end


@given(st.sampled_from(LAYOUTS), st.data())
def test_every_id_is_inside_the_bounds_of_its_own_time(layout: Layout, data: st.DataObject) -> None:
    value = data.draw(st.integers(0, layout.max_id))
    when = decode(value, layout).timestamp
    low, high = id_range(when, when, layout)
    assert low <= value <= high
    assert (low, high) == (first_id_at(when, layout), last_id_at(when, layout))


def test_the_discord_example_lies_in_its_milliseconds_bounds() -> None:
    low, high = id_range(1462015105796, 1462015105796, "discord")
    assert low <= 175928847299117063 <= high
    assert decode(low, DISCORD).fields == {"worker": 0, "process": 0, "increment": 0}
    assert decode(high, DISCORD).fields == {"worker": 31, "process": 31, "increment": 4095}


def test_a_time_inside_a_tick_rounds_inwards() -> None:
    """Sonyflake ids carry 10 ms ticks: the ids of the tick 5 ms before start were made (as
    the id says) before it, and those of the tick 5 ms after end after it."""
    start = SONYFLAKE.epoch_ms + 1005
    low, high = id_range(start, start, SONYFLAKE)
    assert (low, high) == EMPTY  # no tick begins inside [start, start]
    low, high = id_range(start, start + 10, SONYFLAKE)
    assert decode(low, SONYFLAKE).timestamp == decode(high, SONYFLAKE).timestamp == start + 5


def test_datetimes_are_taken_as_given_and_naive_ones_as_utc() -> None:
    aware = dt.datetime(2016, 4, 30, 18, 18, 25, 796000, tzinfo=dt.timezone(dt.timedelta(hours=7)))
    naive = dt.datetime(2016, 4, 30, 11, 18, 25, 796000)
    assert id_range(aware, aware, "discord") == id_range(naive, naive, "discord")
    assert first_id_at(naive, "discord") <= 175928847299117063 <= last_id_at(aware, "discord")


def test_a_window_past_either_end_is_cut_to_the_layout() -> None:
    low, high = id_range(0, DISCORD.epoch_ms, DISCORD)
    assert low == 0  # the smallest id at or after 1970 is Discord's first
    assert high == last_id_at(DISCORD.epoch_ms, DISCORD)
    assert id_range(DISCORD.epoch_ms, 2**53 - 1, DISCORD)[1] == DISCORD.max_id
    assert id_range(0, DISCORD.epoch_ms - 1, DISCORD) == EMPTY
    assert id_range(2**53 - 1, 2**53 - 1, DISCORD) == EMPTY
    assert id_range(DISCORD.epoch_ms + 10, DISCORD.epoch_ms, DISCORD) == EMPTY


def test_single_bounds_refuse_times_that_have_no_such_id() -> None:
    with pytest.raises(TimestampBeforeEpochError):
        last_id_at(DISCORD.epoch_ms - 1, DISCORD)
    with pytest.raises(TimestampAfterEndError):
        first_id_at(last_ms(DISCORD) + 1, DISCORD)
    with pytest.raises(TimestampBeforeEpochError):
        first_id_at(dt.datetime(2000, 1, 1, tzinfo=dt.UTC))  # as on Twitter's side since h-integ


def test_range_info_is_the_json_of_the_api_and_cli() -> None:
    info = range_info(1462015105796, 1462015105796, "discord")
    assert info == {
        "layout": "discord",
        "from": {"timestamp": 1462015105796, "datetime": "2016-04-30T11:18:25.796Z"},
        "to": {"timestamp": 1462015105796, "datetime": "2016-04-30T11:18:25.796Z"},
        "low": "175928847298985984",
        "high": "175928847303180287",
        "empty": False,
        "ranges": [["175928847298985984", "175928847303180287"]],  # issue 25 §1: the stored form
        "sql": "id BETWEEN 175928847298985984 AND 175928847303180287",
    }
    assert range_info(0, 5, "twitter")["empty"] is True


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1462015105796", 1462015105796),
        (" 2016-04-30T11:18:25.796Z ", 1462015105796),
        ("2016-04-30T18:18:25.796+07:00", 1462015105796),
        ("2016-04-30 11:18:25.7969", 1462015105796),
        ("2016-04-30", 1461974400000),
    ],
)
def test_times_are_read_as_unix_ms_or_iso_8601(text: str, expected: int) -> None:
    assert parse_time("from", text) == expected


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", InvalidDateTimeError),
        ("  ", InvalidDateTimeError),
        ("yesterday", InvalidDateTimeError),
        ("2016-13-01", InvalidDateTimeError),
        ("-5", InvalidDateTimeError),
        ("1.5", InvalidDateTimeError),
        ("9" * 20, OutOfRangeError),
        ("2" * 100, OutOfRangeError),
    ],
)
def test_a_time_that_is_not_one_is_refused_clearly(text: str, error: type[Exception]) -> None:
    with pytest.raises(error) as caught:
        parse_time("from", text)
    assert "from" in str(caught.value)


def test_the_library_also_takes_times_as_text() -> None:
    assert id_range("2016-04-30", "2016-04-30T23:59:59.999Z", "discord") == id_range(
        1461974400000, 1462060799999, "discord"
    )
    assert first_id_at("1288834975657") == first_id_at(1288834975657)
