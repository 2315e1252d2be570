"""decode, compose and readings across layouts: round trips, limits, warnings and plausibility."""

from __future__ import annotations

import datetime as dt
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

import snowid
from snowid import (
    DISCORD,
    LAYOUTS,
    MASTODON,
    Layout,
    SnowId,
    compose,
    decode,
    readings,
)
from snowid.errors import (
    IdTooLargeError,
    NegativeIdError,
    NotAnIntegerError,
    OutOfRangeError,
    SignBitSetError,
    TimestampAfterEndError,
    TimestampBeforeEpochError,
    UnknownFieldError,
    WrongTypeError,
)
from snowid.testing import FakeClock

CUSTOM = Layout(
    name="custom",
    epoch_ms=1600000000000,
    unit_ms=7,
    fields=[("t", 40), ("region", 3), ("node", 9), ("counter", 11)],
    signed=True,
)
EVERY_LAYOUT = [*LAYOUTS, CUSTOM]
NOW = 1_700_000_000_000  # 2023-11-14T22:13:20Z


@st.composite
def layout_values(draw: st.DrawFn) -> tuple[Layout, int, dict[str, int]]:
    """A layout, a time on one of its ticks, and a value for each of its other fields."""
    layout = draw(st.sampled_from(EVERY_LAYOUT))
    ticks = draw(st.integers(0, layout.max_delta))
    fields = {name: draw(st.integers(0, layout.field_max(name))) for name in layout.field_names}
    return layout, layout.epoch_ms + ticks * layout.unit_ms, fields


@given(layout_values())
def test_decode_of_compose_gives_back_the_time_and_every_field(
    case: tuple[Layout, int, dict[str, int]],
) -> None:
    layout, timestamp, fields = case
    decoded = decode(compose(timestamp, layout, **fields), layout)
    assert (decoded.timestamp, decoded.fields) == (timestamp, fields)
    assert decoded.layout == layout.name


@given(st.sampled_from(EVERY_LAYOUT), st.data())
def test_compose_of_decode_gives_back_the_id(layout: Layout, data: st.DataObject) -> None:
    value = data.draw(st.integers(0, layout.max_id))
    decoded = decode(value, layout)
    assert compose(decoded.timestamp, layout, **decoded.fields) == value


@given(st.sampled_from(EVERY_LAYOUT), st.data())
def test_a_later_tick_always_sorts_after(layout: Layout, data: st.DataObject) -> None:
    ticks = data.draw(st.integers(0, layout.max_delta - 1))
    high = {name: layout.field_max(name) for name in layout.field_names}
    earlier = compose(layout.epoch_ms + ticks * layout.unit_ms, layout, **high)
    later = compose(layout.epoch_ms + (ticks + 1) * layout.unit_ms, layout)
    assert earlier < later


def test_compose_cuts_the_time_to_the_layouts_tick() -> None:
    """Sonyflake counts 10 ms ticks: 5 ms after the start is still tick 0, as Sony's own
    toInternalTime (UnixNano / 1e7) makes it."""
    start = snowid.SONYFLAKE.epoch_ms
    assert compose(start + 5, "sonyflake") == compose(start, "sonyflake") == 0
    assert decode(compose(start + 15, "sonyflake"), "sonyflake").timestamp == start + 10


def test_compose_takes_datetimes_and_now() -> None:
    when = dt.datetime(2016, 4, 30, 11, 18, 25, 796000, tzinfo=dt.UTC)
    assert compose(when, "discord", worker=1, increment=7) == 175928847299117063
    before = int(dt.datetime.now(dt.UTC).timestamp() * 1000)
    made = decode(compose(layout="discord"), "discord").timestamp
    assert before - 1 <= made <= int(dt.datetime.now(dt.UTC).timestamp() * 1000) + 1


def test_fields_not_given_are_zero_and_unknown_ones_are_refused() -> None:
    assert decode(compose(NOW, "discord", worker=3), "discord").fields == {
        "worker": 3,
        "process": 0,
        "increment": 0,
    }
    with pytest.raises(UnknownFieldError) as caught:
        compose(NOW, "discord", datacenter=1)
    message = str(caught.value)
    assert "Discord IDs have no field datacenter (given 1)" in message
    assert "worker, process, increment" in message


@pytest.mark.parametrize(
    ("layout", "fields", "error", "text"),
    [
        ("discord", {"worker": 32}, OutOfRangeError, "worker 32 is out of range 0..31"),
        ("instagram", {"shard": 8192}, OutOfRangeError, "shard 8192 is out of range 0..8191"),
        ("sonyflake", {"sequence": 256}, OutOfRangeError, "sequence 256 is out of range 0..255"),
        ("mastodon", {"sequence": -1}, OutOfRangeError, "sequence -1 is out of range 0..65535"),
        ("discord", {"worker": True}, WrongTypeError, "takes int for worker, not bool"),
    ],
)
def test_compose_names_the_field_its_value_and_its_range(
    layout: str, fields: dict[str, int], error: type[Exception], text: str
) -> None:
    with pytest.raises(error) as caught:
        compose(NOW, layout, **fields)
    assert text in str(caught.value)


@pytest.mark.parametrize("layout", EVERY_LAYOUT, ids=lambda layout: layout.name)
def test_times_outside_a_layout_name_its_own_range(layout: Layout) -> None:
    with pytest.raises(TimestampBeforeEpochError) as before:
        compose(layout.epoch_ms - 1, layout)
    assert (before.value.min, before.value.layout) == (layout.epoch_ms, layout.name)
    last = layout.max_timestamp + layout.unit_ms - 1
    compose(last, layout)
    with pytest.raises(TimestampAfterEndError) as after:
        compose(last + 1, layout)
    assert after.value.max == last


def test_time_errors_give_the_layouts_dates_in_both_languages() -> None:
    with pytest.raises(TimestampBeforeEpochError) as caught:
        compose(0, "discord")
    assert "before the Discord epoch" in str(caught.value)
    assert "2015-01-01T00:00:00.000Z .. 2154-05-15T07:35:11.103Z" in str(caught.value)
    assert "epoch của Discord" in caught.value.message("vi")


@pytest.mark.parametrize(
    ("value", "layout", "error", "maximum"),
    [
        (-1, "discord", NegativeIdError, 2**64 - 1),
        (2**64, "discord", IdTooLargeError, 2**64 - 1),
        (2**64, "mastodon", IdTooLargeError, 2**64 - 1),
        (2**63, "twitter", SignBitSetError, 2**63 - 1),
        (2**63, "sonyflake-v2", SignBitSetError, 2**63 - 1),
    ],
)
def test_ids_outside_a_layout_name_its_own_limit(
    value: int, layout: str, error: type[Exception], maximum: int
) -> None:
    with pytest.raises(error) as caught:
        decode(value, layout)
    assert caught.value.max == maximum  # type: ignore[attr-defined]
    assert f"0..{maximum}" in str(caught.value)


def test_decode_reads_what_people_paste() -> None:
    assert decode(" 175_928_847_299_117_063 ", DISCORD).id == 175928847299117063
    assert decode("0x0271065AC1020007", DISCORD).id == 175928847299117063
    assert decode(SnowId(4194439168)).id == 4194439168
    with pytest.raises(NotAnIntegerError):
        decode("12abc")


def test_decoded_is_a_value() -> None:
    decoded = decode(175928847299117063, "discord")
    assert decoded == decode("175928847299117063", DISCORD)
    assert decoded.datetime == dt.datetime(2016, 4, 30, 11, 18, 25, 796000, tzinfo=dt.UTC)
    assert pickle.loads(pickle.dumps(decoded)) == decoded
    assert decoded.spec is DISCORD


def test_snowid_helpers_are_thin_calls() -> None:
    """SnowId.decode() went (issue 17: the value type does not import the decoder);
    snowid.decode(sid) is the one way."""
    assert not hasattr(SnowId, "decode")
    assert decode(SnowId(4194439168)) == decode(4194439168)
    assert int(SnowId.first_at(1288834975657)) == snowid.first_id_at(1288834975657)
    assert int(SnowId.last_at(1288834975657)) == snowid.last_id_at(1288834975657)


# --- warnings --------------------------------------------------------------------


@pytest.mark.parametrize("value", [20, 3444662, 28669546014, 29700859247, 4194439168])
def test_twitter_ids_from_before_snowflake_warn(value: int) -> None:
    """Tweets up to 29700859247 were numbered by the old counter (20 is the first tweet;
    the others are the issue's examples); the seed's composed 4194439168 warns too."""
    decoded = decode(value)
    assert decoded.warnings == ("before_first_snowflake",)
    (message,) = decoded.messages("en")
    assert "29700859247" in message["message"]
    assert "4194439168" in decoded.messages("vi")[0]["message"]


@pytest.mark.parametrize(
    "when", ["2011-01-01T00:00:00Z", "2015-06-01T12:00:00Z", "2023-11-14T22:13:20Z"]
)
def test_twitter_ids_from_2011_on_do_not_warn(when: str) -> None:
    first = snowid.first_id_at(dt.datetime.fromisoformat(when))
    assert first > 29700859247
    assert decode(first, clock=FakeClock(NOW)).warnings == ()
    assert decode(29700859248).warnings == ()


def test_other_layouts_never_get_the_tweet_warning() -> None:
    assert decode(20, "discord").warnings == ()


def test_a_time_more_than_a_day_ahead_warns() -> None:
    clock = FakeClock(NOW)
    day = 86_400_000
    assert decode(compose(NOW + day, "discord"), "discord", clock=clock).warnings == ()
    ahead = decode(compose(NOW + day + 1, "discord"), "discord", clock=clock)
    assert ahead.warnings == ("in_the_future",)
    assert "2023-11-15T22:13:20.001Z" in ahead.messages()[0]["message"]


# --- readings ----------------------------------------------------------------------


def test_readings_of_the_discord_example_put_twitter_first() -> None:
    found = readings(175928847299117063, clock=FakeClock(NOW))
    assert [r.layout for r in found] == ["twitter", "discord", "instagram", "sonyflake"]
    assert found[1] == decode(175928847299117063, "discord", clock=FakeClock(NOW))


def test_readings_leave_out_times_more_than_a_day_ahead() -> None:
    tweet = compose(NOW, "twitter", datacenter=1, machine=2)
    found = {r.layout: r for r in readings(tweet, clock=FakeClock(NOW))}
    assert found["twitter"].timestamp == NOW
    assert decode(tweet, "mastodon").timestamp > NOW + 86_400_000  # year 2800 or so
    assert "mastodon" not in found
    assert all(r.timestamp <= NOW + 86_400_000 for r in found.values())


def test_readings_leave_out_layouts_that_cannot_hold_the_number() -> None:
    """From late 2084 Discord ids set bit 63, which no Twitter or Sonyflake id may."""
    later = int(dt.datetime(2100, 1, 1, tzinfo=dt.UTC).timestamp() * 1000)
    value = compose(later, "discord")
    assert value >= 2**63
    found = [r.layout for r in readings(value, clock=FakeClock(later))]
    assert "discord" in found
    assert not {"twitter", "sonyflake", "sonyflake-v2"} & set(found)


def test_readings_of_a_number_no_layout_holds_is_an_error() -> None:
    with pytest.raises(IdTooLargeError) as caught:
        readings(2**64)
    assert "Snowflake IDs are in range 0..18446744073709551615" in str(caught.value)
    assert readings(2**64 - 1, clock=FakeClock(NOW)) == ()


def test_a_mastodon_time_past_9999_has_no_datetime() -> None:
    decoded = decode(2**64 - 1, MASTODON)
    assert decoded.datetime is None
    assert decoded.as_dict()["datetime"] is None


def test_the_twitter_json_keeps_every_breakdown_key() -> None:
    data = decode(4194439168).as_dict()
    existing = snowid.breakdown(SnowId(4194439168)).as_dict()
    assert {key: data[key] for key in existing} == existing
    assert data["fields"] == {"datacenter": 1, "machine": 1, "sequence": 0}
    assert data["warnings"][0]["code"] == "before_first_snowflake"  # type: ignore[index]


def test_every_layouts_json_segments_add_up_to_its_64_bits() -> None:
    for layout in EVERY_LAYOUT:
        value = compose(layout.epoch_ms + 12345 * layout.unit_ms, layout)
        data = decode(value, layout).as_dict()
        segments = data["segments"]
        assert isinstance(segments, list)
        assert "".join(s["bits"] for s in segments) == data["binary"]
        assert sum(s["width"] for s in segments) == 64
        assert segments[0]["name"] == ("sign" if layout.signed else layout.fields[0][0])


@given(st.integers(0, 2**63 - 1))
def test_decoded_segments_of_a_twitter_id_are_its_breakdowns(value: int) -> None:
    """One cutter for every layout: a Twitter id's blocks are the breakdown's, value for value."""
    assert decode(value).segments == snowid.breakdown(SnowId(value)).segments


def test_a_custom_field_named_sign_does_not_lend_its_value_to_the_sign_bit() -> None:
    """The sign block is bit 63, always 0: it was read by name, so a field called "sign"
    showed its own value there (5 for the id 5)."""
    layout = Layout(name="odd", epoch_ms=0, fields=[("time", 40), ("sign", 23)], signed=True)
    blocks = decode(5, layout).as_dict()["segments"]
    assert isinstance(blocks, list)
    assert [(b["name"], b["width"], b["value"]) for b in blocks] == [
        ("sign", 1, 0),
        ("time", 40, 0),
        ("sign", 23, 5),
    ]
