"""Layout as configuration: what it derives, what it refuses, the spec text, names, pickles."""

from __future__ import annotations

import pickle
import re

import pytest

import snowid
from snowid import DISCORD, LAYOUTS, SONYFLAKE, TWITTER, Layout
from snowid.errors import LAYOUT_REASONS, InvalidLayoutError, WrongTypeError
from snowid.i18n import catalog
from snowid.ids._builtins import builtin_layout, get_layout, layout_info, parse_layout_spec


def test_every_shift_mask_and_limit_comes_from_the_widths() -> None:
    assert DISCORD.shifts == (22, 17, 12, 0)
    assert DISCORD.maxima == (2**42 - 1, 31, 31, 4095)
    assert (DISCORD.max_id, DISCORD.low_mask) == (2**64 - 1, 2**22 - 1)
    assert SONYFLAKE.shifts == (24, 16, 0)
    assert SONYFLAKE.max_timestamp == SONYFLAKE.epoch_ms + (2**39 - 1) * 10
    assert SONYFLAKE.max_id == 2**63 - 1
    assert SONYFLAKE.spans() == (
        ("sign", 63, 63),
        ("time", 62, 24),
        ("sequence", 23, 16),
        ("machine", 15, 0),
    )
    assert DISCORD.spans()[0] == ("timestamp", 63, 22)


def test_twitter_layout_adds_only_names_the_library_uses() -> None:
    """TwitterLayout keeps the names the generator, leases, SnowId and the SQL functions use
    (the constants are pinned in test_layout.test_constants_are_derived_from_the_widths):
    no alias (``segment_spans`` was ``spans``) and no member only tests called
    (``worker_ms``). Each method it adds over Layout is called somewhere in ``src/``."""
    from pathlib import Path

    from snowid.ids._layout import TwitterLayout

    added = {
        name
        for name, value in vars(TwitterLayout).items()
        if callable(value) and not name.startswith("_")
    }
    assert not {"segment_spans", "worker_ms", "shifted_fields"} & added
    root = Path(snowid.__file__).parent
    sources = "\n".join(
        path.read_text() for path in root.rglob("*.py") if path.name != "_layout.py"
    )
    unused = {name for name in added if not re.search(rf"\.{name}\b", sources)}
    assert unused == set()


def test_built_ins_are_listed_twitter_first_with_sources() -> None:
    assert [layout.name for layout in LAYOUTS] == [
        "twitter",
        "discord",
        "instagram",
        "sonyflake",
        "sonyflake-v2",
        "mastodon",
    ]
    for layout in LAYOUTS:
        info = layout_info(layout)
        assert str(info["source"]).startswith("https://")
        assert info["note"]
        assert info["generates"] is (layout is TWITTER)


def test_a_custom_layout_is_one_expression() -> None:
    mine = Layout(
        name="mine",
        epoch_ms=1409529600000,
        unit_ms=10,
        fields=[("time", 39), ("sequence", 8), ("machine", 16)],
    )
    assert mine.signed  # 39 + 8 + 16 = 63 under the sign bit
    assert mine.fields == (("time", 39), ("sequence", 8), ("machine", 16))
    assert mine == Layout(name="mine", epoch_ms=1409529600000, unit_ms=10, fields=SONYFLAKE.fields)
    assert hash(mine) == hash(
        parse_layout_spec(
            "name=mine,epoch=1409529600000,unit=10,fields=time:39,sequence:8,machine:16"
        )
    )
    assert mine != SONYFLAKE  # another name: another layout
    assert layout_info(mine)["source"] is None


@pytest.mark.parametrize(
    ("kwargs", "reason", "text"),
    [
        ({"epoch_ms": -1}, "epoch", "the epoch -1 is not in range 0..9007199254740991"),
        ({"unit_ms": 0}, "unit", "the time unit 0 ms is not in range 1..86400000"),
        ({"fields": []}, "no_fields", "at least its time field"),
        ({"fields": [("Time", 63)]}, "field_name", "field name Time is not allowed"),
        ({"fields": [("t", 40), ("t", 23)]}, "duplicate_field", "field t is given twice"),
        ({"fields": [("t", 40), ("layout", 23)]}, "reserved_field", "layout cannot name"),
        ({"fields": [("t", 30), ("big", 33)]}, "width", "field big is 33 bits wide"),
        ({"fields": [("t", 40), ("zero", 0), ("x", 23)]}, "width", "field zero is 0 bits"),
        ({"fields": [("t", 40), ("x", 24)]}, "total_width", "add up to 64 bits, not 63"),
        ({"fields": [("t", 40), ("x", 23)], "signed": False}, "total_width", "not 64"),
        ({"fields": [("t", 63)]}, "time_range", "past 9007199254740991"),
    ],
)
def test_a_layout_that_cannot_work_is_refused_with_its_reason(
    kwargs: dict[str, object], reason: str, text: str
) -> None:
    given: dict[str, object] = {"name": "bad", "epoch_ms": 0, "fields": [("t", 40), ("x", 23)]}
    with pytest.raises(InvalidLayoutError) as caught:
        Layout(**{**given, **kwargs})  # type: ignore[arg-type]
    assert caught.value.reason == reason
    assert text in str(caught.value)
    assert caught.value.message("vi") != str(caught.value)


def test_every_layout_reason_has_a_message_in_both_languages() -> None:
    for reason in LAYOUT_REASONS:
        assert f"invalid_layout.{reason}" in catalog("en")
        assert f"invalid_layout.{reason}" in catalog("vi")


@pytest.mark.parametrize(
    "fields", ["time:39,sequence:8", [("time", "39")], [("time", 39, 1)], 42, None]
)
def test_fields_of_the_wrong_type_are_a_type_error(fields: object) -> None:
    with pytest.raises(WrongTypeError):
        Layout(name="x", epoch_ms=0, fields=fields)  # type: ignore[arg-type]


def test_layout_names_and_specs_are_read_once() -> None:
    assert get_layout("Discord ") is DISCORD
    assert get_layout(DISCORD) is DISCORD
    spec = get_layout("epoch=2014-09-01T00:00:00Z,unit=10,fields=time:39,sequence:8,machine:16")
    assert (spec.epoch_ms, spec.unit_ms, spec.fields, spec.signed) == (
        SONYFLAKE.epoch_ms,
        10,
        SONYFLAKE.fields,
        True,
    )
    unsigned = get_layout("epoch=0,fields=timestamp:48,sequence:16")
    assert not unsigned.signed  # 64 bits of fields: bit 63 is time
    named = get_layout("name=shop,epoch=0,fields=timestamp:48,sequence:16,signed=no")
    assert named.name == "shop"


@pytest.mark.parametrize(
    "spec",
    [
        "epoch=0",  # no fields
        "fields=t:63",  # no epoch
        "epoch=0,fields=t:63,colour=red",  # unknown key
        "epoch=0,epoch=1,fields=t:63",  # repeated key
        "epoch=0,fields=t",  # no width
        "epoch=0,fields=t:sixty",  # a width that is not a number
        "epoch=yesterday,fields=t:63",  # an epoch that is not a time
        "epoch=0,unit=fast,fields=t:63",
        "epoch=0,fields=t:63,signed=maybe",
        "epoch=0,fields=" + "t:1," * 200,
    ],
)
def test_a_spec_that_cannot_be_read_says_how_to_write_one(spec: str) -> None:
    with pytest.raises(InvalidLayoutError) as caught:
        get_layout(spec)
    assert caught.value.reason == "syntax"
    assert "epoch=MS,unit=MS,fields=NAME:BITS" in str(caught.value)


def test_a_spec_with_a_bad_layout_quotes_the_spec() -> None:
    with pytest.raises(InvalidLayoutError) as caught:
        get_layout("epoch=0,fields=t:40,x:25")
    assert caught.value.reason == "total_width"
    assert caught.value.value == "epoch=0,fields=t:40,x:25"


def test_unknown_names_list_the_built_ins() -> None:
    with pytest.raises(InvalidLayoutError) as caught:
        get_layout("flickr")
    assert "twitter, discord, instagram, sonyflake, sonyflake-v2, mastodon" in str(caught.value)
    with pytest.raises(InvalidLayoutError):
        builtin_layout("Discord")  # the HTTP door takes exact names only
    with pytest.raises(WrongTypeError):
        get_layout(7)  # type: ignore[arg-type]


def test_built_ins_pickle_as_their_name_in_snowid_and_custom_ones_by_value() -> None:
    for layout in LAYOUTS:
        data = pickle.dumps(layout)
        assert b"snowid._" not in data
        assert pickle.loads(data) is layout
    custom = get_layout("epoch=0,fields=timestamp:48,sequence:16")
    copy = pickle.loads(pickle.dumps(custom))
    assert copy == custom
    assert copy is not custom


def test_the_constants_are_public() -> None:
    assert snowid.DISCORD is DISCORD
    assert snowid.LAYOUTS == LAYOUTS
    assert repr(DISCORD).startswith("Layout(name='discord', epoch_ms=1420070400000")
