"""The layout commands: decode --layout/--from, readings, layouts, range and encode."""

from __future__ import annotations

import json
import time

import pytest

from snowid import decode
from snowid.cli import main
from snowid.ids._builtins import layout_info
from snowid.integrations.sql import range_info


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["--lang", "en", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_decode_a_discord_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "decode", "175928847299117063", "--layout", "discord")
    assert code == 0
    assert "2016-04-30T11:18:25.796Z" in out
    for line in ("worker        1", "process       0", "increment     7"):
        assert line in out
    assert "000000100111000100000110010110101100000100 00001 00000 000000000111" in out
    assert "Also a plausible time as: Twitter 2012-03-03T13:01:20.453Z" in out


def test_decode_json_is_the_apis_object(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "decode", "175928847299117063", "--layout", "discord", "--json")
    assert code == 0
    assert json.loads(out) == decode(175928847299117063, "discord").as_dict("en")
    assert json.loads(out)["fields"] == {"worker": 1, "process": 0, "increment": 7}


def test_decode_reads_hex_and_other_bases(capsys: pytest.CaptureFixture[str]) -> None:
    by_hex = run(capsys, "decode", "0x0271065ac1020007", "--layout", "discord", "--json")[1]
    by_62 = run(
        capsys, "decode", "Czks0tP37X", "--from", "base62", "--layout", "discord", "--json"
    )[1]
    assert json.loads(by_hex)["id"] == json.loads(by_62)["id"] == "175928847299117063"


def test_decode_a_custom_layout_from_its_spec(capsys: pytest.CaptureFixture[str]) -> None:
    spec = "epoch=2014-09-01T00:00:00Z,unit=10,fields=time:39,sequence:8,machine:16"
    code, out, _ = run(capsys, "decode", "0x45eec4a4600041b", "--layout", spec, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["datetime"] == "2020-08-12T17:35:29.980Z"
    assert (data["layout"], data["fields"]) == ("custom", {"sequence": 0, "machine": 1051})


def test_decode_warns_of_pre_snowflake_tweet_ids(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "decode", "20")[1]
    assert "Warning: This number is at most 29700859247" in out
    vi = main(["--lang", "vi", "decode", "20"])
    assert vi == 0
    assert "Cảnh báo: Số này không lớn hơn 29700859247" in capsys.readouterr().out


def test_decode_twitter_text_is_unchanged_and_warning_free_from_2011(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = run(capsys, "decode", "1212092628029698048", "--steps")[1]
    assert "2019-12-31T19:26:16.771Z" in out
    assert "Step 3" in out
    assert "Warning" not in out


@pytest.mark.parametrize(
    ("argv", "text"),
    [
        (["decode", "9223372036854775808"], "Twitter IDs are in range 0..9223372036854775807"),
        (["decode", "1", "--layout", "flickr"], "layout flickr is unknown; built in: twitter"),
        (["decode", "1", "--layout", "epoch=0,fields=t:40"], "the field widths add up to 40"),
        (["decode", "0xzz"], "0xzz is not a hex number: z at position 3"),
        (["decode", "10l", "--from", "base58"], "is not a base58 number"),
        (["range", "yesterday"], "start yesterday is not a time"),
        (["encode", "18446744073709551615"], "sign bit"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], argv: list[str], text: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 1
    assert out == ""
    assert err.startswith("Error: ")
    assert text in err
    assert err.count("\n") == 1


def test_readings_lists_every_plausible_layout_twitter_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "readings", "175928847299117063")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("Twitter ")
    assert "Discord       2016-04-30T11:18:25.796Z  worker 1, process 0, increment 7" in lines
    data = json.loads(run(capsys, "readings", "175928847299117063", "--json")[1])
    assert [r["layout"] for r in data["readings"]][:2] == ["twitter", "discord"]


def test_readings_of_a_number_no_layout_finds_plausible(capsys: pytest.CaptureFixture[str]) -> None:
    assert "No built-in layout" in run(capsys, "readings", str(2**64 - 1))[1]


def test_layouts_lists_the_table_with_sources(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "layouts")
    assert code == 0
    assert out.splitlines()[0].startswith("twitter       2010-11-04T01:42:54.657Z   1 ms")
    assert "time:39 sequence:8 machine:16  (bit 63: sign)" in out
    assert "timestamp:48 sequence:16  (bit 63: time)" in out
    assert "https://discord.com/developers/docs/reference#snowflakes" in out
    data = json.loads(run(capsys, "layouts", "--json")[1])
    assert data["layouts"][1] == layout_info(decode(0, "discord").spec, "en")


def test_range_gives_between_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "range", "2016-04-30T11:18:25.796Z", "1462015105796", "--layout", "discord"
    )
    assert code == 0
    assert "low     175928847298985984" in out
    assert "WHERE id BETWEEN 175928847298985984 AND 175928847303180287" in out
    data = json.loads(
        run(capsys, "range", "1462015105796", "1462015105796", "--layout", "discord", "--json")[1]
    )
    assert data == range_info(1462015105796, 1462015105796, "discord")


def test_range_without_an_end_runs_to_now(capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(run(capsys, "range", "2023-01-01", "--json")[1])
    assert data["to"]["datetime"] > "2024"
    assert not data["empty"]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["range", "1000", "0"], "end 0 is before the start 1000"),
        (["range", "2024-01-02", "2024-01-01", "--json"], "end 2024-01-01 is before the start"),
    ],
)
def test_swapped_bounds_are_a_usage_error_naming_both(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    """The regression: exit 0 and "No id of this layout was made in that window"."""
    with pytest.raises(SystemExit) as stopped:
        main(["--lang", "en", *argv])
    assert stopped.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("usage: snowid range")
    assert f"snowid range: error: {words}" in err


def test_an_empty_range_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "range", "2000-01-01", "2001-01-01")[1]
    assert "No id of this layout was made in that window." in out
    assert "BETWEEN" not in out


def test_encode_writes_every_base_or_one(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "encode", "4194439168")[1]
    assert "hex      00000000fa021000" in out
    assert "base62   " in out
    text = run(capsys, "encode", "4194439168", "--to", "base36")[1]
    assert int(text, 36) == 4194439168  # Python reads base 36 itself
    data = json.loads(run(capsys, "encode", text.strip(), "--from", "base36", "--json")[1])
    assert data["id"] == "4194439168"
    assert int(data["base36"], 36) == 4194439168


def test_a_time_hours_before_year_10000_in_a_zone_east_of_utc_has_no_local_time(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last millisecond a date can show, read where the clocks are ahead of UTC: the
    local time is past year 9999, so it is shown as "—" (it was an OverflowError traceback)."""
    last_ms = 253402300799999  # 9999-12-31T23:59:59.999Z
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        code, out, err = run(capsys, "decode", str(last_ms << 16), "--layout", "mastodon")
    finally:
        monkeypatch.undo()
        time.tzset()
    assert (code, err) == (0, "")
    assert "9999-12-31T23:59:59.999Z" in out
    assert "time (local)  —" in out


@pytest.mark.parametrize(
    ("layout", "number"),
    [
        ("twitter", 2**63 - 1),
        ("discord", 175928847299117063),
        ("sonyflake", 0x45EEC4A4600041B),
        ("mastodon", (2**48 - 1) << 16 | 5),  # a 15-digit time, the longest value
    ],
)
def test_the_rows_of_bit_blocks_keep_the_bits_in_one_column(
    capsys: pytest.CaptureFixture[str], layout: str, number: int
) -> None:
    """Every layout's blocks share the Twitter table's renderer; a long value widens it."""
    lines = run(capsys, "decode", str(number), "--layout", layout)[1].splitlines()
    first = lines.index("bits:") + 2
    rows = lines[first : lines.index("", first)]
    assert len(rows) == len(decode(number, layout).spec.spans())
    assert len({len(row) - len(row.split()[-1]) for row in rows}) == 1


def test_a_custom_field_called_sign_is_not_shown_on_the_sign_bit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The sign block is the first block of a signed layout, whatever a field is called."""
    lines = run(capsys, "decode", "7", "--layout", "epoch=0,fields=time:40,sign:23")[1]
    rows = [line.split() for line in lines.splitlines() if line.startswith("  sign ")]
    assert [row[:5] for row in rows] == [
        ["sign", "63", "1", "=", "0"],
        ["sign", "22..0", "23", "=", "7"],
    ]
