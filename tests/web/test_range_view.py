"""The "ids between two times" page without a browser: reading its form and what it shows
of ``snowid.id_range`` (issue 11's page)."""

from __future__ import annotations

import pytest

from snowid import DISCORD, SONYFLAKE, decode, id_range
from snowid.testing import FakeClock
from snowid.web._range_view import RangeView, range_view, read_range

NOW = FakeClock(1764547200000)  # 2025-12-01T00:00:00Z
DISCORD_MS = 1462015105796  # 2016-04-30T11:18:25.796Z, Discord's documented example


def view(query: dict[str, str], lang: str = "en") -> RangeView:
    form = read_range(query, lang, NOW)
    assert form is not None
    shown = range_view(form, lang, NOW)
    assert shown is not None, form.errors
    return shown


def test_nothing_asked_is_the_empty_form() -> None:
    assert read_range({"lang": "en"}, "en", NOW) is None


def test_a_discord_window_gives_the_librarys_tight_bounds_and_the_sql() -> None:
    start, end = "2016-04-30T11:18:25.796", "2016-04-30T11:18:26.000"
    shown = view({"from": start, "to": end, "layout": "discord"})
    low, high = id_range(DISCORD_MS, DISCORD_MS + 204, DISCORD)
    assert (shown.low, shown.high) == (str(low), str(high))
    assert shown.sql == f"WHERE id BETWEEN {low} AND {high}"
    # tight: the id below low is earlier than the start, the one above high later than the end
    assert decode(low - 1, DISCORD).timestamp < DISCORD_MS <= decode(low, DISCORD).timestamp
    assert decode(high, DISCORD).timestamp <= DISCORD_MS + 204 < decode(high + 1, DISCORD).timestamp
    assert low <= 175928847299117063 <= high  # the documented id is in its own millisecond
    assert shown.empty is False
    assert shown.announce == f"low {low}, high {high}"


def test_the_inputs_are_shown_again_as_utc_date_and_time_values() -> None:
    """A time given as Unix ms, or with a zone, refills the datetime-local input in UTC."""
    form = read_range({"from": str(DISCORD_MS), "to": "2016-04-30T13:18:25+02:00"}, "en", NOW)
    assert form is not None
    assert form.values["from"] == "2016-04-30T11:18:25.796"
    assert form.values["to"] == "2016-04-30T11:18:25.000"
    assert form.values["layout"] == "twitter"


def test_a_blank_end_is_now_and_the_api_link_leaves_it_out() -> None:
    shown = view({"from": "2025-11-30T00:00", "to": ""})
    assert shown.end_is_now is True
    assert shown.end.timestamp == NOW.time_ms()
    assert shown.api_href == "/api/range?from=1764460800000&layout=twitter"


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "Choose the start of the window (a date and time)."),
        ("vi", "Hãy chọn thời điểm bắt đầu (ngày và giờ)."),
    ],
)
def test_a_blank_start_asks_for_one(lang: str, message: str) -> None:
    form = read_range({"from": " ", "to": ""}, lang, NOW)
    assert form is not None
    assert form.errors == {"from": message}
    assert range_view(form, lang, NOW) is None


def test_bad_times_and_layouts_get_the_librarys_messages_each_on_its_own_field() -> None:
    form = read_range({"from": "yesterday", "to": "2016-13-01", "layout": "myspace"}, "en", NOW)
    assert form is not None
    assert set(form.errors) == {"from", "to", "layout"}
    assert form.errors["from"].startswith("From yesterday is not a time")
    assert form.errors["to"].startswith("To 2016-13-01 is not a time")
    assert form.errors["layout"].startswith("Layout myspace is unknown; choose one of the list")
    assert form.values["from"] == "yesterday"  # shown again as typed


def test_a_window_without_ids_says_so() -> None:
    shown = view({"from": "2000-01-01", "to": "2001-01-01"})
    assert shown.empty is True
    assert shown.announce == "No ID in that window"


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", "To 2020-01-01 is before the start 2020-01-02: the two times are swapped"),
        ("vi", "Thời điểm kết thúc 2020-01-01 nằm trước thời điểm bắt đầu 2020-01-02"),
    ],
)
def test_swapped_bounds_are_an_error_on_the_end_field_not_an_empty_window(
    lang: str, words: str
) -> None:
    """The regression: "2020-01-02 to 2020-01-01" said "no ID in that window"."""
    form = read_range({"from": "2020-01-02", "to": "2020-01-01"}, lang, NOW)
    assert form is not None
    assert form.errors == {"to": form.errors["to"]}
    assert form.errors["to"].startswith(words)
    assert range_view(form, lang, NOW) is None
    assert id_range(1577923200000, 1577836800000) == (1, 0)  # the library keeps its answer


def test_a_window_reaching_past_the_layout_is_cut_and_noted() -> None:
    shown = view({"from": "2000-01-01", "to": "2014-09-01T00:00:00.019", "layout": "sonyflake"})
    assert shown.low == "0"
    assert shown.high == str(id_range(0, SONYFLAKE.epoch_ms + 19, SONYFLAKE)[1])
    notes = shown.notes
    assert notes[0].startswith("The window starts before the Sonyflake epoch")
    assert notes[1].startswith("Sonyflake counts time in ticks of 10 ms")


# --- issue 19 §5: local time in a named zone ---------------------------------------------


def test_a_date_without_offset_is_read_in_the_zone_named() -> None:
    """07:00 in Ho Chi Minh City (UTC+7, no summer time) is 00:00 UTC; the inputs show the
    zone's time again, the result both."""
    query = {"from": "2024-01-01T07:00", "to": "2024-01-01T08:00", "zone": "Asia/Ho_Chi_Minh"}
    form = read_range(query, "en", NOW)
    assert form is not None
    assert not form.errors
    assert (form.start_ms, form.end_ms) == (1704067200000, 1704070800000)
    assert form.values["from"] == "2024-01-01T07:00:00.000"
    assert form.values["zone"] == "Asia/Ho_Chi_Minh"
    shown = view(query)
    assert shown.zone == "Asia/Ho_Chi_Minh"
    assert shown.start_local == "2024-01-01 07:00:00.000"
    assert shown.start.iso == "2024-01-01T00:00:00.000Z"
    same = view({"from": "1704067200000", "to": "1704070800000"})
    assert (shown.low, shown.high) == (same.low, same.high)


def test_unix_ms_and_a_written_offset_are_exact_whatever_the_zone() -> None:
    zoned = {"from": "1704067200000", "to": "2024-01-01T01:00+00:00", "zone": "America/New_York"}
    utc = {"from": "1704067200000", "to": "2024-01-01T01:00+00:00"}
    assert (view(zoned).low, view(zoned).high) == (view(utc).low, view(utc).high)


@pytest.mark.parametrize("zone", ["", "UTC", "utc"])
def test_blank_or_utc_reads_the_dates_as_utc(zone: str) -> None:
    shown = view({"from": "2024-01-01T00:00", "to": "2024-01-01T01:00", "zone": zone})
    assert shown.zone == ""
    assert shown.start_local == ""
    assert shown.start.timestamp == 1704067200000


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "Time zone Mars/Base is not a time zone"), ("vi", "Múi giờ Mars/Base không phải")],
)
def test_an_unknown_zone_is_an_error_on_its_field_naming_the_value(lang: str, words: str) -> None:
    for zone in ("Mars/Base", "../../etc/passwd"):
        form = read_range({"from": "2024-01-01T00:00", "zone": zone}, lang, NOW)
        assert form is not None
        assert set(form.errors) == {"zone"}
        assert zone in form.errors["zone"]
        assert range_view(form, lang, NOW) is None
    form = read_range({"from": "2024-01-01T00:00", "zone": "Mars/Base"}, lang, NOW)
    assert form is not None
    assert form.errors["zone"].startswith(words)
