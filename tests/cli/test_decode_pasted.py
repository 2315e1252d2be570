"""Issue 19 §1-§2 and §4 in the CLI: ``snowid decode`` takes links, mentions and numbers
written with digit groups as the page does; ``readings``, ``encode``, ``compose`` and
``range`` take digit groups in their id and time arguments."""

from __future__ import annotations

import json

import pytest

from snowid import decode
from snowid.cli import main

TWEET = 266031293945503744


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_tweet_link_is_decoded_as_twitter(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--lang", "en", "decode", f"https://x.com/a/status/{TWEET}?s=1")
    assert code == 0
    assert "Read as Twitter: the layout the link names." in out
    assert str(TWEET) in out


def test_a_discord_link_decodes_every_id_labelled(capsys: pytest.CaptureFixture[str]) -> None:
    link = "https://discord.com/channels/@me/381886868708655104/1000000000000000000"
    code, out, _ = run(capsys, "--lang", "vi", "decode", link)
    assert code == 0
    assert "kênh: 381886868708655104" in out
    assert "tin nhắn: 1000000000000000000" in out
    assert out.index("tin nhắn:") < out.index("kênh:")  # the message leads (issue 25)
    code, out, _ = run(capsys, "decode", link, "--json")
    body = json.loads(out)
    assert body["source"] == "discord"
    assert [item["label"] for item in body["ids"]] == ["message", "channel"]
    assert body["ids"][0]["reading"] == decode(1000000000000000000, "discord").as_dict()


def test_a_mention_json_is_the_decoded_object_with_its_source(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "decode", "<@!175928847299117063>", "--json")
    assert code == 0
    body = json.loads(out)
    assert body["ids"][0]["label"] == "user"
    assert body["ids"][0]["reading"]["layout"] == "discord"


def test_a_layout_against_the_links_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 25 §1 changed this on purpose: --layout used to win, reading a tweet's id as a
    Discord id; now it exits 1 naming both."""
    code, out, err = run(
        capsys, "decode", f"https://twitter.com/a/status/{TWEET}", "--layout", "discord", "--json"
    )
    assert (code, out) == (1, "")
    assert "layout discord contradicts the pasted link" in err
    assert "comes from Twitter" in err


@pytest.mark.parametrize(
    ("argv", "number"),
    [
        (["decode", "4.194.439.168", "--json"], 4194439168),
        (["--lang", "vi", "decode", "4.194", "--json"], 4194),
        (["decode", "4 194 439 168", "--json"], 4194439168),
    ],
)
def test_decode_reads_digit_groups(
    capsys: pytest.CaptureFixture[str], argv: list[str], number: int
) -> None:
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert json.loads(out)["id"] == str(number)


def test_the_other_arguments_take_digit_groups(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "readings", "4_194_439_168", "--json")
    assert (code, json.loads(out)["id"]) == (0, "4194439168")
    code, out, _ = run(capsys, "encode", "4'194'439'168", "--to", "hex")
    assert (code, out.strip()) == (0, f"{4194439168:016x}")
    args = ["compose", "--timestamp", "1,288,834,975,657", "--datacenter", "1", "--machine", "1"]
    code, out, _ = run(capsys, *args, "--json")
    assert (code, json.loads(out)["id"]) == (0, "4194439168")
    code, out, _ = run(capsys, "range", "1.288.834.975.657", "1.288.834.975.658", "--json")
    assert code == 0
    assert json.loads(out)["from"]["timestamp"] == 1288834975657


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--lang", "en", "decode", "1.000"], "ambiguous"),
        (["--lang", "vi", "decode", "1,000"], "không rõ nghĩa"),
        (["--lang", "en", "decode", "12.34.567"], "'.'"),
        (["--lang", "en", "decode", "https://example.com/x"], "is a link to example.com"),
        (["--lang", "en", "decode", "hello"], "paste an ID, or a tweet"),
    ],
)
def test_unreadable_input_gets_a_specific_error(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 1
    assert fragment in err
    assert "not a whole number" not in err


def test_instagrams_stored_negative_is_decoded(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "decode", "-8958609928324058060", "--layout", "instagram", "--json")
    assert code == 0
    body = json.loads(out)
    assert (body["id"], body["stored"]) == ("9488134145385493556", "-8958609928324058060")
    code, out, _ = run(
        capsys, "--lang", "en", "decode", "-8958609928324058060", "--layout", "instagram"
    )
    assert "negative bigint Instagram's next_id() stores" in out
