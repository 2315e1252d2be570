"""Issue 19 §1-§2: the people-facing reader takes what visitors paste (links, mentions,
numbers written with digit groups); the program-facing readers do not."""

from __future__ import annotations

import pytest

import snowid
from snowid import SnowId
from snowid.errors import DigitGroupError, NotAnIdOrLinkError, NotAnIntegerError
from snowid.ids import PastedId, read_id, read_pasted, read_people_int, read_people_time
from snowid.ids._pasted import shortcode_id

TWEET = 266031293945503744

LINKS = [
    # (pasted text, ids found, the layout the link names)
    (f"https://twitter.com/x/status/{TWEET}", [(TWEET, "")], "twitter"),
    (f"twitter.com/jack/status/{TWEET}", [(TWEET, "")], "twitter"),
    (f"https://x.com/user_1/status/{TWEET}?s=20&t=abc", [(TWEET, "")], "twitter"),
    (f"https://mobile.twitter.com/a/status/{TWEET}/photo/1", [(TWEET, "")], "twitter"),
    (f"https://www.twitter.com/i/web/status/{TWEET}", [(TWEET, "")], "twitter"),
    (f"https://x.com/i/web/status/{TWEET}#frag", [(TWEET, "")], "twitter"),
    # A Discord message link: the message first (what the link is about), then its channel
    # and server (issue 25 §2: the message's own time leads).
    (
        "https://discord.com/channels/81384788765712384/381886868708655104/1000000000000000000",
        [
            (1000000000000000000, "message"),
            (381886868708655104, "channel"),
            (81384788765712384, "server"),
        ],
        "discord",
    ),
    (
        "https://ptb.discord.com/channels/1/2/3",
        [(3, "message"), (2, "channel"), (1, "server")],
        "discord",
    ),
    (
        "https://canary.discord.com/channels/1/2/3/",
        [(3, "message"), (2, "channel"), (1, "server")],
        "discord",
    ),
    (
        "https://discordapp.com/channels/1/2/3",
        [(3, "message"), (2, "channel"), (1, "server")],
        "discord",
    ),
    ("https://discord.com/channels/@me/22/33", [(33, "message"), (22, "channel")], "discord"),
    ("https://discord.com/channels/1/2", [(2, "channel"), (1, "server")], "discord"),
    ("<@175928847299117063>", [(175928847299117063, "user")], "discord"),
    ("<@!175928847299117063>", [(175928847299117063, "user")], "discord"),
    ("<#381886868708655104>", [(381886868708655104, "channel")], "discord"),
    ("<@&41771983423143936>", [(41771983423143936, "role")], "discord"),
    (
        "https://mastodon.social/@Gargron/109314856164302185",
        [(109314856164302185, "")],
        "mastodon",
    ),
    ("https://example.org/@a@b.c/1234567890123456", [(1234567890123456, "")], "mastodon"),
    # A public post's shortcode and the media id it writes: the example of a question on
    # askmeplz.com (2021-11-27); the id reads as 2021-11-26 in Instagram's layout.
    ("https://www.instagram.com/p/CWvxAY7B0ci/", [(2715604631366879010, "")], "instagram"),
    ("instagram.com/reel/CWvxAY7B0ci/?igsh=x", [(2715604631366879010, "")], "instagram"),
]


@pytest.mark.parametrize(("text", "ids", "source"), LINKS)
def test_a_link_gives_every_id_it_holds_and_names_its_layout(
    text: str, ids: list[tuple[int, str]], source: str
) -> None:
    pasted = read_pasted(f"  {text} \n")
    assert pasted.ids == tuple(PastedId(value, label) for value, label in ids)
    assert pasted.source == source


def test_an_instagram_shortcode_is_the_media_id_and_reads_as_instagrams_layout() -> None:
    """The known post's id decodes to the day before it was asked about, shard 465."""
    media = shortcode_id("CWvxAY7B0ci")
    reading = snowid.decode(media, "instagram")
    assert reading.iso_utc == "2021-11-26T16:48:40.527Z"
    assert reading.fields == {"shard": 465, "sequence": 802}


GROUPED = [
    # (text, page language, number)
    ("1 288 834 975 657", "en", 1288834975657),
    ("1\u00a0288\u00a0834\u00a0975\u00a0657", "vi", 1288834975657),
    ("1\u2009288\u2009834", "en", 1288834),
    ("1\u202f288\u202f834", "vi", 1288834),
    ("1_288_834_975_657", "en", 1288834975657),
    ("1'288'834'975'657", "vi", 1288834975657),
    ("1.288.834.975.657", "en", 1288834975657),  # two or more marks: groups in any language
    ("1,288,834,975,657", "vi", 1288834975657),
    ("1.000", "vi", 1000),  # vi's own group mark
    ("1,000", "en", 1000),  # en's own group mark
    ("12_34", "en", 1234),  # Python's rule, which the program readers take, taken here too
    ("  +42 ", "en", 42),
]


@pytest.mark.parametrize(("text", "lang", "number"), GROUPED)
def test_numbers_are_read_as_people_write_them(text: str, lang: str, number: int) -> None:
    assert read_pasted(text, lang).ids == (PastedId(number),)
    assert read_pasted(text, lang).normalised == str(number)
    assert read_people_int("machine", text, lang) == number


BAD_GROUPS = [
    # (text, page language, reason, the mark named)
    ("1.000", "en", "ambiguous", "'.'"),
    ("1,000", "vi", "ambiguous", "','"),
    ("12.34.567", "en", "irregular", "'.'"),
    ("1 2345", "en", "irregular", "' '"),
    ("1.000,000", "vi", "irregular", "','"),
    ("1 000\u00a0000", "en", "irregular", "U+00A0"),
    ("1__000", "en", "irregular", "'_'"),
    ("1,000,00", "en", "irregular", "','"),
]


@pytest.mark.parametrize(("text", "lang", "reason", "mark"), BAD_GROUPS)
def test_irregular_or_ambiguous_groups_are_named_not_called_not_a_whole_number(
    text: str, lang: str, reason: str, mark: str
) -> None:
    with pytest.raises(DigitGroupError) as caught:
        read_pasted(text, lang)
    assert (caught.value.reason, caught.value.separator) == (reason, mark)
    message = caught.value.message(lang)
    assert mark in message
    assert "whole number" not in message
    if reason == "ambiguous":
        assert "1,5" in message  # names the decimal mark Vietnamese writes


def test_the_ambiguity_message_reads_in_both_languages() -> None:
    with pytest.raises(DigitGroupError) as caught:
        read_pasted("1,000", "vi")
    assert "không rõ nghĩa" in caught.value.message("vi")
    assert "dấu thập phân" in caught.value.message("vi")


@pytest.mark.parametrize("text", ["hello", "12abc", "example.com", "a link"])
def test_text_that_is_no_link_gets_an_error_that_says_what_was_expected(text: str) -> None:
    with pytest.raises(NotAnIdOrLinkError) as caught:
        read_pasted(text)
    assert caught.value.reason == "text"
    assert "paste an ID, or a tweet, Discord, Mastodon or Instagram link" in str(caught.value)
    assert "dán một ID" in caught.value.message("vi")


# Issue 25 §2 changed these on purpose: a link is no longer answered "paste an ID or a link"
# (which blames the visitor for pasting one); the error names what was recognised.
@pytest.mark.parametrize(
    ("text", "reason", "words"),
    [
        ("https://example.com/status/123", "site", "is a link to example.com, a site whose"),
        ("https://mastodon.social/@a/123", "mastodon", "Mastodon's have 16 to 19 digits"),
        ("https://discord.com/channels/1", "discord", "but not to a message or a channel"),
        ("https://www.instagram.com/p/has!bang/", "instagram", "but not to a post"),
        ("<@abc>", "mention", "looks like a Discord mention but holds no ID"),
    ],
)
def test_a_link_holding_no_id_is_told_what_was_recognised(
    text: str, reason: str, words: str
) -> None:
    with pytest.raises(NotAnIdOrLinkError) as caught:
        read_pasted(text)
    assert caught.value.reason == reason
    assert words in str(caught.value)
    assert "paste an ID" not in str(caught.value)


@pytest.mark.parametrize("text", ["1 288 834 975 657", "1.288.834.975.657", "1,000"])
def test_the_program_readers_do_not_take_digit_groups(text: str) -> None:
    """SnowId.parse and snowid.decode() (the program tier: also pydantic, Django, DRF)."""
    with pytest.raises(NotAnIntegerError):
        SnowId.parse(text)
    with pytest.raises(NotAnIntegerError):
        snowid.decode(text)
    pydantic = pytest.importorskip("pydantic")

    class Row(pydantic.BaseModel):  # type: ignore[misc,name-defined]
        id: SnowId

    with pytest.raises(pydantic.ValidationError):
        Row(id=text)


def test_the_id_and_time_readers_of_people_take_groups_too() -> None:
    assert read_id("1.288.834.975.657", "vi") == SnowId(1288834975657)
    assert read_people_time("start", "1,288,834,975,657", "en") == 1288834975657
    assert read_people_time("start", "2010-11-04T01:42:54Z") == 1288834974000
