"""Issue 25 in ``snowid decode``: a link decides its layout (``--layout`` against it is
refused naming both), an Instagram share link is refused, a Discord message link leads
with the message, the time in the forms people copy, and the hint for a number that looks
like a time in ms (the number is still decoded)."""

from __future__ import annotations

import json

import pytest

from snowid.cli import main

DISCORD_LINK = (
    "https://discord.com/channels/81384788765712384/381886868708655104/1000000000000000000"
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_layout_against_a_discord_link_exits_1_naming_both(
    capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    """Was exit 0 with the Discord message read as a tweet."""
    code, out, err = run(capsys, "--lang", lang, "decode", DISCORD_LINK, "--layout", "twitter")
    assert (code, out) == (1, "")
    words = {"en": "contradicts the pasted link", "vi": "mâu thuẫn với liên kết đã dán"}
    assert words[lang] in err
    assert "twitter" in err
    assert "Discord" in err


def test_an_instagram_share_link_exits_1_saying_what_to_paste(
    capsys: pytest.CaptureFixture[str],
) -> None:
    link = "https://www.instagram.com/share/reel/BAHtk2AamB/"
    code, out, err = run(capsys, "--lang", "en", "decode", link)
    assert (code, out) == (1, "")
    assert "is an Instagram share link" in err
    assert "instagram.com/p/" in err


def test_a_discord_message_link_leads_with_the_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "--lang", "en", "decode", DISCORD_LINK)
    assert code == 0
    headings = [
        line for line in out.splitlines() if line.split(":")[0] in ("message", "channel", "server")
    ]
    assert headings == [
        "message: 1000000000000000000",
        "channel: 381886868708655104",
        "server: 81384788765712384",
    ]


def test_the_time_is_printed_as_unix_seconds_discord_markup_and_iso(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys, "--lang", "en", "decode", "175928847299117063", "--layout", "discord"
    )
    assert code == 0
    rows = {line.split("  ")[0]: line.split()[-1] for line in out.splitlines() if "  " in line}
    assert rows["Unix seconds"] == "1462015105"
    assert rows["Discord markup"] == "<t:1462015105:F>"
    assert rows["ISO 8601"] == "2016-04-30T11:18:25.796Z"
    code, out, _ = run(capsys, "decode", "175928847299117063", "--layout", "discord", "--json")
    body = json.loads(out)
    assert (body["unix_seconds"], body["discord_markup"]) == (1462015105, "<t:1462015105:F>")


def test_a_13_digit_number_gets_the_hint_and_the_command_and_is_still_decoded(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "--lang", "en", "decode", "1700000000000")
    assert code == 0
    first, command = out.splitlines()[:2]
    assert first == (
        "1700000000000 looks like a time, not an ID: as Unix milliseconds it is"
        " 2023-11-14T22:13:20.000Z. Compose an ID from it?"
    )
    assert command.strip() == "snowid compose --timestamp 1700000000000 --datacenter 0 --machine 0"
    assert "2010-11-04T01:49:39.968Z" in out  # the id it may be
    code, out, _ = run(capsys, "decode", "1700000000000", "--json")
    body = json.loads(out)
    assert body["id"] == "1700000000000"
    assert body["time_hint"]["timestamp"] == 1700000000000
    assert body["time_hint"]["compose"].startswith("snowid compose --timestamp 1700000000000")
    code, out, _ = run(capsys, *command.split()[1:], "--json")
    assert (code, json.loads(out)["timestamp"]) == (0, 1700000000000)
    code, out, _ = run(capsys, "decode", "175928847299117063", "--json")
    assert "time_hint" not in json.loads(out)
