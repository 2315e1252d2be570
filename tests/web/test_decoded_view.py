"""What the decoder shows of a number in any layout, without a browser (issue 11's page):
fields by the layout's own names, its epoch, unit and bit blocks, the other plausible
readings, and the warnings in the page's language."""

from __future__ import annotations

import pytest

from snowid import DISCORD, MASTODON, SONYFLAKE, TWITTER, compose, decode, readings
from snowid.errors import InvalidLayoutError
from snowid.testing import FakeClock
from snowid.web._decoded_view import (
    decoded_view,
    layout_options,
    layout_summary,
    page_layout,
    readings_view,
)
from snowid.web._view import Math, field_label

# Discord's documented example (discord.com/developers/docs/reference#snowflakes).
DISCORD_ID = 175928847299117063
NOW = FakeClock(1764547200000)  # 2025-12-01T00:00:00Z: every reading below is in its past


def test_the_discord_example_shows_its_fields_by_discords_names() -> None:
    view = decoded_view(decode(DISCORD_ID, "discord", clock=NOW), "en", NOW)
    assert view.formula is None
    assert view.reading is not None
    assert view.time.iso == "2016-04-30T11:18:25.796Z"
    assert view.fields == [
        ("Timestamp (Unix ms)", 1462015105796),
        ("Worker", 1),
        ("Process", 0),
        ("Increment", 7),
    ]
    assert view.layout is not None
    assert view.layout.label == "Discord"
    assert "epoch 2015-01-01 00:00:00.000 UTC (1420070400000 ms)" in view.layout.text
    assert view.warnings == []
    assert view.compose_href is None  # generation is Twitter-only
    assert view.decode_href == f"/decode?id={DISCORD_ID}&layout=discord&lang=en"


def test_the_blocks_are_the_layouts_own_and_cover_all_64_bits() -> None:
    view = decoded_view(decode(DISCORD_ID, "discord", clock=NOW), "en", NOW)
    blocks = view.blocks
    assert [(b.name, b.width, b.tone) for b in blocks] == [
        ("timestamp", 42, "timestamp"),  # no sign block: Discord's bit 63 is time
        ("worker", 5, "datacenter"),
        ("process", 5, "machine"),
        ("increment", 12, "sequence"),
    ]
    assert "".join(b.bits for b in blocks) == format(DISCORD_ID, "064b")
    assert blocks[0].span_text == "bits 63–22"
    assert blocks[0].value_text == "value 41944705796 (ms since the epoch)"


def test_the_reading_steps_take_each_field_out_then_add_the_epoch() -> None:
    view = decoded_view(decode(DISCORD_ID, "discord", clock=NOW), "en", NOW)
    assert view.reading is not None
    assert [(s.label, s.expression, s.result) for s in view.reading.extract] == [
        ("Timestamp", f"{DISCORD_ID:,} >> 22", "41,944,705,796"),
        ("Worker", f"({DISCORD_ID:,} >> 17) & 31", "1"),
        ("Process", f"({DISCORD_ID:,} >> 12) & 31", "0"),
        ("Increment", f"{DISCORD_ID:,} & 4,095", "7"),
    ]
    assert view.reading.to_time == Math("1,420,070,400,000 + 41,944,705,796", "1,462,015,105,796")


def test_a_layout_in_10_ms_units_says_so_and_multiplies() -> None:
    number = compose(SONYFLAKE.epoch_ms + 10_000, SONYFLAKE)  # time field 1000: 10 s
    view = decoded_view(decode(number, SONYFLAKE, clock=NOW), "vi", NOW)
    assert view.blocks[0].name == "sign"
    assert view.blocks[1].value_text == "giá trị 1000 (số đơn vị 10 ms kể từ epoch)"
    assert view.reading is not None
    assert view.reading.to_time.expression == "1.409.529.600.000 + 1.000 × 10"  # vi groups
    assert view.time.iso == "2014-09-01T00:00:10.000Z"
    assert view.layout is not None
    assert "10 ms" in view.layout.text
    assert [label for label, _ in view.fields][1:] == ["Số thứ tự", "Máy"]  # Sony's order


def test_a_time_past_year_9999_is_said_in_words_not_as_a_date() -> None:
    view = decoded_view(decode(2**64 - 1, MASTODON, clock=NOW), "en", NOW)
    assert view.time.iso is None
    assert view.time.local is None
    assert view.time.utc == "after the year 9999 (Unix ms 281474976710655)"
    assert view.range_href is None
    assert [w.code for w in view.warnings] == ["in_the_future"]
    assert "more than a day ahead" in view.warnings[0].message


def test_a_twitter_number_keeps_the_seeds_formula_and_lists_its_other_readings() -> None:
    view = decoded_view(decode(DISCORD_ID, clock=NOW), "en", NOW)
    assert view.formula is not None
    assert view.reading is None
    assert view.formula.combine.result == f"{DISCORD_ID:,}"
    assert view.also is None  # the visitor chose Twitter: no reading is singled out
    assert view.readings is not None
    assert [r.layout for r in view.readings] == ["discord", "instagram", "sonyflake"]
    discord = view.readings[0]
    assert discord.time.iso == "2016-04-30T11:18:25.796Z"
    assert discord.fields == [("Worker", 1), ("Process", 0), ("Increment", 7)]
    assert discord.href == f"/decode?id={DISCORD_ID}&layout=discord&lang=en"
    assert discord.link_text == "Read as Discord"


def test_with_no_layout_chosen_discords_reading_is_the_one_line_and_leaves_the_list() -> None:
    view = decoded_view(decode(DISCORD_ID, clock=NOW), "en", NOW, chosen=False)
    assert view.also is not None
    assert view.also.layout == "discord"
    assert view.also.href == f"/decode?id={DISCORD_ID}&layout=discord&lang=en"
    assert [r.layout for r in view.readings or []] == ["instagram", "sonyflake"]


def test_no_discord_line_for_a_discord_time_after_now_or_another_layout_shown() -> None:
    # Read as Discord, an hour after NOW: a plausible reading (within a day), not yet past.
    future = (NOW.time_ms() + 3_600_000 - DISCORD.epoch_ms) << 22
    assert "discord" in [d.layout for d in readings(future, clock=NOW)]
    late = decoded_view(decode(future, clock=NOW), "vi", NOW, chosen=False)
    assert late.also is None
    assert "discord" in [r.layout for r in late.readings or []]  # behind the disclosure
    shown_as_discord = decoded_view(decode(DISCORD_ID, DISCORD, clock=NOW), "en", NOW, chosen=False)
    assert shown_as_discord.also is None


def test_the_readings_leave_out_the_layout_shown_and_link_twitter_without_a_layout() -> None:
    rows = readings_view(decode(DISCORD_ID, DISCORD, clock=NOW), "vi", NOW)
    assert [r.layout for r in rows] == ["twitter", "instagram", "sonyflake"]
    assert rows[0].href == f"/decode?id={DISCORD_ID}&lang=vi"
    assert rows[0].link_text == "Đọc theo Twitter"
    expected = [d.layout for d in readings(DISCORD_ID, clock=NOW) if d.layout != "discord"]
    assert [r.layout for r in rows] == expected  # the library's list, not the page's guess


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", "Twitter's old sequential counter"),
        ("vi", "bộ đếm tuần tự cũ của Twitter"),
    ],
)
def test_a_pre_snowflake_tweet_id_warns_in_the_page_language(lang: str, words: str) -> None:
    view = decoded_view(decode(20, clock=NOW), lang, NOW)
    assert [w.code for w in view.warnings] == ["before_first_snowflake"]
    assert words in view.warnings[0].message
    assert (
        view.announce
        == {  # the live region leads with the headline, then says a warning is there
            "en": "Result: ID 20. This ID is from before Snowflake (Twitter numbered tweets"
            " with a counter until 2010-11-04). Warnings: 1, shown under the time.",
            "vi": "Kết quả: ID 20. ID này có từ trước Snowflake (Twitter đánh số tweet bằng"
            " một bộ đếm cho đến ngày 2010-11-04). Cảnh báo: 1, hiển thị bên dưới thời gian.",
        }[lang]
    )


def test_a_tweet_id_from_2011_on_has_no_warning() -> None:
    view = decoded_view(decode(29700859248, clock=NOW), "en", NOW)
    assert view.warnings == []


def test_the_page_takes_a_built_in_layout_by_name_in_any_case() -> None:
    assert page_layout(None) is TWITTER
    assert page_layout("  ") is TWITTER
    assert page_layout("Discord") is DISCORD
    with pytest.raises(InvalidLayoutError) as caught:
        page_layout("myspace")
    assert caught.value.field == "layout"


def test_the_picker_lists_twitter_first_and_marks_the_choice() -> None:
    options = layout_options("SONYFLAKE", "en")
    assert [o.name for o in options] == [
        "twitter",
        "discord",
        "instagram",
        "sonyflake",
        "sonyflake-v2",
        "mastodon",
    ]
    assert [o.name for o in options if o.selected] == ["sonyflake"]
    assert [o.name for o in layout_options(None, "en") if o.selected] == ["twitter"]


def test_mastodons_low_field_is_said_to_be_no_counter() -> None:
    assert "not a counter" in layout_summary(MASTODON, "en").note
    assert "không phải" in layout_summary(MASTODON, "vi").note


def test_a_field_without_a_page_label_keeps_its_own_name() -> None:
    assert field_label("increment", "vi") == "Số đếm tăng dần"
    assert field_label("node_id", "vi") == "node_id"
