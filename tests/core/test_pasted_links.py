"""Issue 25 in the library: the links and mentions visitors paste, the layout they are read
in (a link decides; a layout named against it is refused, naming both; a remembered one is
for bare numbers only), Instagram's share links, a number that looks like a time in ms,
and the forms of the time people copy."""

from __future__ import annotations

import pytest

import snowid
from snowid import DISCORD, INSTAGRAM, TWITTER
from snowid.errors import InstagramShareLinkError, LayoutConflictError, NotAnIdOrLinkError
from snowid.ids import MS_TIME_FIRST, MS_TIME_LAST, PastedId, choose_layout, read_pasted

TWEET = 1585341984679469056  # x.com, 2022-10-26
MEDIA = 2715604631366879010  # instagram.com/p/CWvxAY7B0ci/
EMOJI = 175928847299117063
CHANNEL, MESSAGE = 381886868708655104, 1000000000000000000

# Each was refused on main before issue 25 (NotAnIdOrLinkError).
READ_NOW = [
    (f"https://fxtwitter.com/elonmusk/status/{TWEET}/photo/1", [(TWEET, "")], "twitter"),
    (f"https://vxtwitter.com/elonmusk/status/{TWEET}", [(TWEET, "")], "twitter"),
    (f"https://fixupx.com/elonmusk/status/{TWEET}/photo/1", [(TWEET, "")], "twitter"),
    (f"https://d.fxtwitter.com/elonmusk/status/{TWEET}", [(TWEET, "")], "twitter"),
    (f"https://m.twitter.com/elonmusk/status/{TWEET}", [(TWEET, "")], "twitter"),
    (f"https://x.com/elonmusk/status/{TWEET}/analytics", [(TWEET, "")], "twitter"),
    (f"https://x.com/elonmusk/status/{TWEET}/likes", [(TWEET, "")], "twitter"),
    (f"https://x.com/elonmusk/status/{TWEET}/quotes", [(TWEET, "")], "twitter"),
    (f"https://x.com/i/status/{TWEET}", [(TWEET, "")], "twitter"),
    (
        f"https://www.discord.com/channels/81384788765712384/{CHANNEL}/{MESSAGE}",
        [(MESSAGE, "message"), (CHANNEL, "channel"), (81384788765712384, "server")],
        "discord",
    ),
    (f"<:snowid:{EMOJI}>", [(EMOJI, "emoji")], "discord"),
    (f"<a:party_blob:{EMOJI}>", [(EMOJI, "emoji")], "discord"),
    (f"{CHANNEL}-{MESSAGE}", [(MESSAGE, "message"), (CHANNEL, "channel")], "discord"),
    ("https://www.instagram.com/p/CWvxAY7B0ci/embed/", [(MEDIA, "")], "instagram"),
    ("https://www.instagram.com/p/CWvxAY7B0ci/embed/captioned/", [(MEDIA, "")], "instagram"),
    ("https://instagr.am/p/CWvxAY7B0ci/", [(MEDIA, "")], "instagram"),
    ("instagr.am/reel/CWvxAY7B0ci", [(MEDIA, "")], "instagram"),
]


@pytest.mark.parametrize(("text", "ids", "source"), READ_NOW)
def test_the_links_visitors_paste_are_read(
    text: str, ids: list[tuple[int, str]], source: str
) -> None:
    pasted = read_pasted(text)
    assert pasted.ids == tuple(PastedId(value, label) for value, label in ids)
    assert pasted.source == source


def test_a_discord_message_link_leads_with_the_message() -> None:
    """The message's own time leads; its channel and server follow."""
    pasted = read_pasted(f"https://discord.com/channels/81384788765712384/{CHANNEL}/{MESSAGE}")
    assert [item.label for item in pasted.ids] == ["message", "channel", "server"]
    lead = snowid.decode(pasted.ids[0].value, "discord")
    assert lead.iso_utc == "2022-07-22T11:22:59.101Z"


@pytest.mark.parametrize(
    "text",
    [
        "https://www.instagram.com/share/reel/BAHtk2AamB/",  # the link: not 2011-09-18
        "https://www.instagram.com/share/p/BAHtk2AamB/",
        "https://instagram.com/share/BAHtk2AamB",
    ],
)
def test_an_instagram_share_link_is_refused_saying_why_and_what_to_paste(text: str) -> None:
    with pytest.raises(InstagramShareLinkError) as caught:
        read_pasted(text)
    assert isinstance(caught.value, NotAnIdOrLinkError)
    assert caught.value.code == "instagram_share_link"
    en, vi = caught.value.message("en"), caught.value.message("vi")
    assert "share link" in en
    assert "token" in en
    assert "instagram.com/p/" in en
    assert "liên kết chia sẻ" in vi
    assert "instagram.com/p/" in vi


@pytest.mark.parametrize(
    ("text", "reason", "site"),
    [
        ("https://x.com/elonmusk", "twitter", "x.com"),
        ("https://discord.gg/abc", "discord", "discord.gg"),
        ("https://www.instagram.com/elonmusk/", "instagram", "www.instagram.com"),
        ("https://www.youtube.com/watch?v=1", "site", "www.youtube.com"),
        ("<t:1666800000:F>", "mention", ""),
    ],
)
def test_a_refusal_names_the_site_recognised_and_what_was_not(
    text: str, reason: str, site: str
) -> None:
    with pytest.raises(NotAnIdOrLinkError) as caught:
        read_pasted(text)
    assert (caught.value.reason, caught.value.site) == (reason, site)
    assert site in str(caught.value)
    assert site in caught.value.message("vi")


# --- which layout: the link's, never one named against it -----------------------------------


def test_a_link_decides_its_layout_and_a_remembered_one_does_not_change_it() -> None:
    tweet = read_pasted(f"https://x.com/elonmusk/status/{TWEET}")
    assert choose_layout(tweet, None, remembered=DISCORD) == (TWITTER, "link")
    assert choose_layout(tweet, "twitter") == (TWITTER, "link")  # named, and the link's own


def test_a_remembered_layout_reads_bare_numbers_only_and_a_named_one_wins() -> None:
    bare = read_pasted("175928847299117063")
    assert choose_layout(bare, None, remembered=DISCORD) == (DISCORD, "remembered")
    assert choose_layout(bare, INSTAGRAM, remembered=DISCORD) == (INSTAGRAM, "request")
    assert choose_layout(bare) == (TWITTER, "default")


def test_a_layout_named_against_the_link_is_refused_naming_both() -> None:
    link = f"https://discord.com/channels/81384788765712384/{CHANNEL}/{MESSAGE}"
    with pytest.raises(LayoutConflictError) as caught:
        choose_layout(read_pasted(link), "twitter", text=link)
    error = caught.value
    assert (error.field, error.value, error.layout) == ("layout", "twitter", "discord")
    en = str(error)
    assert en.startswith("layout twitter contradicts the pasted link: https://discord.com/")
    assert "comes from Discord, so its IDs are Discord IDs" in en
    assert "bố cục twitter mâu thuẫn" in error.message("vi")


# --- a number that looks like a time in milliseconds -----------------------------------------


@pytest.mark.parametrize(
    ("text", "time_ms"),
    [
        ("1700000000000", 1700000000000),
        ("1 700 000 000 000", 1700000000000),  # digit groups: still the number typed
        (str(MS_TIME_FIRST), MS_TIME_FIRST),  # 2001-09-09T01:46:40Z, the first 13-digit ms
        (str(MS_TIME_LAST), MS_TIME_LAST),  # 2099-12-31T23:59:59.999Z
        (str(MS_TIME_FIRST - 1), None),  # 12 digits
        (str(MS_TIME_LAST + 1), None),  # 2100 on: not a time anyone pastes
        ("0x18bcfe56800", None),  # hex is an id's writing
        (f"https://x.com/a/status/{1700000000000}", None),  # a link says what it is
    ],
)
def test_a_bare_13_digit_number_in_2001_to_2099_looks_like_a_time(
    text: str, time_ms: int | None
) -> None:
    pasted = read_pasted(text)
    assert pasted.time_ms == time_ms
    hint = pasted.time_hint("en")
    if time_ms is None:
        assert hint is None
    else:
        assert hint is not None
        assert (hint["code"], hint["timestamp"]) == ("looks_like_time", time_ms)


def test_the_time_hint_asks_to_compose_in_both_languages_and_the_id_is_still_read() -> None:
    pasted = read_pasted("1700000000000")
    en, vi = pasted.time_hint("en"), pasted.time_hint("vi")
    assert en is not None
    assert vi is not None
    assert en["datetime"] == "2023-11-14T22:13:20.000Z"
    assert en["message"] == (
        "1700000000000 looks like a time, not an ID: as Unix milliseconds it is"
        " 2023-11-14T22:13:20.000Z. Compose an ID from it?"
    )
    assert "Tạo ID từ thời điểm này?" in str(vi["message"])
    assert pasted.ids == (PastedId(1700000000000),)  # still the id it may be


# --- the time as people copy it ----------------------------------------------------------------


def test_a_decoded_id_gives_unix_seconds_and_discords_markup() -> None:
    decoded = snowid.decode(TWEET)
    assert decoded.iso_utc == "2022-10-26T18:45:58.034Z"
    assert decoded.unix_seconds == 1666809958  # rounded down, never up
    assert decoded.discord_markup == "<t:1666809958:F>"
    data = decoded.as_dict()
    assert (data["unix_seconds"], data["discord_markup"]) == (1666809958, "<t:1666809958:F>")
    assert data["datetime"] == "2022-10-26T18:45:58.034Z"  # ISO 8601, as before
