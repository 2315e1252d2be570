"""What the page shows, without a browser: bit groups, relative times, the decoder's readings
and the FAQ data (issue 10)."""

from __future__ import annotations

import dataclasses
import json
import re
import typing
from pathlib import Path

import pytest

import snowid.web
from snowid import DISCORD, SnowId, decode
from snowid.errors import (
    EmptyValueError,
    IdTooLargeError,
    InvalidEncodingError,
    InvalidValueError,
    NotAnIdOrLinkError,
    SignBitSetError,
)
from snowid.web._about import FAQ_KEYS, faq, faq_json_ld
from snowid.web._box import read_page_ids
from snowid.web._decoded_view import (
    LayoutOption,
    ReadingRow,
    ResultView,
    WarningView,
    result_view,
)
from snowid.web._range_view import RangeView
from snowid.web._view import (
    _UNITS,
    MAX_IDS,
    BadRow,
    Block,
    IdList,
    Math,
    TableRow,
    TableView,
    bit_groups,
    relative_time,
    table_view,
    translator,
)

SEED_ID = 4194439168
SEED_MS = 1288834975657
DAY_MS = 86_400_000
YEAR_MS = int(365.2425 * DAY_MS)


@pytest.mark.parametrize(
    ("bits", "groups"),
    [
        ("0", ["0"]),
        ("00001", ["00001"]),
        ("01010101", ["01010101"]),
        ("000000000001", ["0000", "0000", "0001"]),
        (format(1000, "041b"), ["0"] + ["0000"] * 7 + ["0011", "1110", "1000"]),
        ("1" * 64, ["1111"] * 16),
    ],
)
def test_bit_groups_are_fours_counted_from_the_right(bits: str, groups: list[str]) -> None:
    assert bit_groups(bits) == groups
    assert "".join(bit_groups(bits)) == bits


@pytest.mark.parametrize(
    ("delta_ms", "en", "vi"),
    [
        (0, "now", "bây giờ"),
        (-999, "now", "bây giờ"),
        (-1000, "1 second ago", "1 giây trước"),
        (-59_999, "59 seconds ago", "59 giây trước"),
        (-60_000, "1 minute ago", "1 phút trước"),
        (-3 * 3_600_000, "3 hours ago", "3 giờ trước"),
        (2 * DAY_MS, "in 2 days", "sau 2 ngày nữa"),
        (-40 * DAY_MS, "1 month ago", "1 tháng trước"),
        (-3 * YEAR_MS - DAY_MS, "3 years ago", "3 năm trước"),
        (54 * YEAR_MS + DAY_MS, "in 54 years", "sau 54 năm nữa"),
        (YEAR_MS, "in 1 year", "sau 1 năm nữa"),
    ],
)
def test_relative_time_in_both_languages(delta_ms: int, en: str, vi: str) -> None:
    """The server's fallback for Intl.RelativeTimeFormat, in the units app.js picks."""
    now = 1_700_000_000_000
    assert relative_time(now + delta_ms, now, "en") == en
    assert relative_time(now + delta_ms, now, "vi") == vi


def test_the_browser_and_the_server_pick_the_unit_of_a_relative_time_from_one_table() -> None:
    """app.js words a relative time with Intl.RelativeTimeFormat and the server words the
    same time without JavaScript: both walk the same units, largest first, with the same
    lengths, so the two never disagree on "1 month" against "30 days"."""
    script = (Path(snowid.web.__file__).parent / "static" / "app.js").read_text()
    table = re.search(r"var DAY = (\d+);.*?var UNITS = \[(.*?)\];", script, re.S)
    assert table is not None
    day = int(table[1])
    rows = re.findall(r'\["(\w+)", ([^\]]+)\]', table[2])
    lengths = [(unit, eval(length, {"__builtins__": {}}, {"DAY": day})) for unit, length in rows]
    assert lengths == list(_UNITS)


@pytest.mark.parametrize(
    "text", ["0xfa021000", "0XFA021000", " 0x00000000fa021000 ", "4_194_439_168", "4194439168"]
)
def test_the_decoder_reads_decimal_and_hexadecimal(text: str) -> None:
    """One reader: the page reads what snowid.decode reads, with the same answer."""
    read = read_page_ids(text)
    assert not isinstance(read, IdList)
    assert read.id == SEED_ID
    assert read == decode(SnowId.parse(text))


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("0x", EmptyValueError),
        ("0xg1", InvalidEncodingError),
        ("0x-1", InvalidEncodingError),
        ("0xfa02_1000", InvalidEncodingError),
        ("0x8000000000000000", SignBitSetError),
        ("0x10000000000000000", IdTooLargeError),
    ],
)
def test_bad_hexadecimal_gets_the_libraries_specific_error(
    text: str, error: type[InvalidValueError]
) -> None:
    """The page has no hex reader of its own: the library's errors, as SnowId.parse raises."""
    with pytest.raises(error) as caught:
        read_page_ids(text)
    assert caught.value.field == "id"
    if error is not SignBitSetError:  # SnowId.parse refuses the same text the same way
        with pytest.raises(error):
            SnowId.parse(text)


def test_the_decoder_reads_in_the_chosen_layout_with_that_layouts_limits() -> None:
    """A Discord id may use bit 63 (it is unsigned); a Twitter id may not."""
    big = 2**63 + 5
    read = read_page_ids(str(big), DISCORD)
    assert not isinstance(read, IdList)
    assert read.fields == {"worker": 0, "process": 0, "increment": 5}
    with pytest.raises(SignBitSetError):
        read_page_ids(str(big))
    with pytest.raises(IdTooLargeError):
        read_page_ids(str(2**64), DISCORD)


def test_one_line_is_one_id_several_lines_a_list_each_with_its_own_result() -> None:
    assert read_page_ids(f"\n  {SEED_ID}  \n\n") == decode(SEED_ID)
    read = read_page_ids(f"{SEED_ID}\n\n0x1\nnope\n")
    assert isinstance(read, IdList)
    assert [text for text, _ in read.lines] == [str(SEED_ID), "0x1", "nope"]
    assert read.lines[1][1] == decode(1)
    assert isinstance(read.lines[2][1], NotAnIdOrLinkError)
    with pytest.raises(NotAnIdOrLinkError):
        read_page_ids("nope")


def test_the_table_has_a_row_per_line_and_a_link_to_each_breakdown() -> None:
    read = read_page_ids(f"{SEED_ID}\nnope\n9223372036854775807")
    assert isinstance(read, IdList)
    table = table_view(read, "vi", now_ms=SEED_MS + 3 * YEAR_MS + DAY_MS)
    first, bad, last = table.rows
    assert isinstance(first, TableRow)
    assert isinstance(last, TableRow)
    assert first.href == f"/decode?id={SEED_ID}&lang=vi"
    assert first.time.relative == "3 năm trước"
    assert table.columns == ["Trung tâm dữ liệu", "Máy", "Số thứ tự"]
    assert first.values == [1, 1, 0]
    assert first.warnings == ["có trước Snowflake: có thể không chứa thời gian"]
    assert bad == BadRow(
        "nope",
        "ID nope không phải là ID mà snowid đọc được: hãy dán một ID, hoặc liên kết tweet,"
        " Discord, Mastodon hay Instagram",
    )
    assert last.time.iso == "2080-07-10T17:30:30.208Z"
    assert table.announce == "Đã giải mã 3 ID, 2 ID hợp lệ"
    assert MAX_IDS == 100


def test_the_result_keeps_the_seeds_three_steps_and_the_copy_values() -> None:
    view = result_view(SnowId(SEED_ID), "en", now_ms=SEED_MS)
    assert view.formula is not None
    assert view.reading is None
    # The worked steps group their digits the page's way (nothing in them is copied).
    assert view.formula.delta == Math("1,288,834,975,657 − 1,288,834,974,657", "1,000")
    assert [s.result for s in view.formula.shifts] == ["4,194,304,000", "131,072", "4,096", "0"]
    assert [s.key for s in view.formula.shifts] == [
        "timestamp",
        "datacenter",
        "machine",
        "sequence",
    ]
    assert view.formula.combine.result == f"{SEED_ID:,}"
    assert view.decimal == str(SEED_ID)  # the copied value stays plain digits
    assert view.binary == format(SEED_ID, "064b")
    assert view.time.iso == "2010-11-04T01:42:55.657Z"
    assert view.time.relative == "now"
    assert view.announce == f"Result: ID {SEED_ID}"


def test_the_compose_result_shows_none_of_the_decoders_additions() -> None:
    """The compose page's result is built whole (no placeholder for the decoder to fill):
    no layout line, no warning (the seed's id is below Twitter's first Snowflake id), no
    readings and no range link."""
    view = result_view(SnowId(SEED_ID), "en", now_ms=SEED_MS)
    assert (view.layout, view.warnings, view.readings, view.range_href) == (None, [], None, None)
    assert view.compose_href == (
        "/?timestamp=1288834975657&datacenter=1&machine=1&sequence=0&lang=en"
    )


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_faq_data_is_the_faq_text_and_cannot_close_its_script_element(lang: str) -> None:
    questions = faq(translator(lang))
    assert [q.key for q in questions] == list(FAQ_KEYS)
    data = faq_json_ld(questions, lang)
    assert data["@type"] == "FAQPage"
    assert [e["name"] for e in data["mainEntity"]] == [q.question for q in questions]
    from snowid.web.pages import templates

    html = (
        templates()
        .env.from_string('<script type="application/ld+json">{{ data|tojson }}</script>')
        .render(data=data)
    )
    body = re.fullmatch(r'<script type="application/ld\+json">(.*)</script>', html, re.S)
    assert body is not None
    assert "<" not in body.group(1)  # "<<" of the formula is escaped
    assert json.loads(body.group(1)) == data


# The names the templates give the views (pages.py's context, the loops over their lists).
TEMPLATE_VIEWS = {
    "result": ResultView,
    "table": TableView,
    "row": TableRow | BadRow,
    "r": ReadingRow,
    "b": Block,
    "w": WarningView,
    "o": LayoutOption,
    "range": RangeView,
}


def _attribute_types(kind: object) -> dict[str, object]:
    """The attributes a view (or each member of a union of views) has, with their types."""
    found: dict[str, object] = {}
    for member in typing.get_args(kind) or (kind,):
        if dataclasses.is_dataclass(member):
            found.update(typing.get_type_hints(member))
    return found


def test_every_attribute_a_template_reads_is_a_field_of_its_view() -> None:
    """Which values a template reads is written in the views: each ``result.time.iso``,
    ``range.low``, ``row.href`` … of the templates names a field of the dataclass, down
    the whole chain."""
    folder = Path(snowid.web.__file__).parent / "templates"
    chain = re.compile(rf"(?<![\w.])({'|'.join(TEMPLATE_VIEWS)})((?:\.\w+)+)")
    missing = []
    for path in folder.glob("*.html"):
        for name, rest in chain.findall(path.read_text()):
            kind: object = TEMPLATE_VIEWS[name]
            for attribute in rest.split(".")[1:]:
                fields = _attribute_types(kind)
                if not fields:  # a str, an int, a list: the chain leaves the views
                    break
                if attribute not in fields:
                    missing.append(f"{path.name}: {name}{rest}")
                    break
                kind = fields[attribute]
    assert missing == []
