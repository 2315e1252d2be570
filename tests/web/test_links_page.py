"""Issue 25 on the page's decoder, as the server renders it (Starlette's test client, no
browser): a link always decides its own layout, the remembered layout reads bare numbers
only, a layout picked against the link is refused naming both (with a button that reads it
in the link's layout), Instagram's share links are refused, a Discord message link leads
with the message, the time is offered in the forms people copy, and a number that looks
like a time in ms gets the hint. Now is 2026-12-06T12:00:00Z, from the clock the app is
given, so relative words ("in 17 days") are the ones the issue quotes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

import pytest
from starlette.testclient import TestClient

import snowid
from snowid.testing import FakeClock
from snowid.web import Settings, create_app
from snowid.web.pages import LAYOUT_COOKIE
from tests.support.web import fixed_identity_service

NOW_MS = 1796558400000  # 2026-12-06T12:00:00Z
TWEET_LINK = "https://x.com/elonmusk/status/1585341984679469056"  # 2022-10-26
TWEET_20 = "https://twitter.com/jack/status/20"
INSTAGRAM_POST = "https://www.instagram.com/p/CWvxAY7B0ci/"  # 2021-11-26
DISCORD_LINK = (
    "https://discord.com/channels/81384788765712384/381886868708655104/1000000000000000000"
)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(Settings(), service=fixed_identity_service(), clock=FakeClock(NOW_MS))
    with TestClient(app) as http:
        yield http


class _Form(HTMLParser):
    """What a browser sends when the decoder's form is submitted: the checked radio and the
    hidden fields of the form as the server rendered it."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag != "input" or "name" not in found or found["name"] == "sort":
            return
        kind = found.get("type", "text")
        if kind == "hidden" or (kind == "radio" and "checked" in found):
            self.fields[found["name"]] = found.get("value", "")


def submit(client: TestClient, remembered: str, pasted: str) -> str:
    """The visitor's path: a layout picked once (the cookie), later an empty decoder form,
    then ``pasted`` typed into it and the form sent as the page sends it."""
    client.cookies.clear()
    client.cookies.set(LAYOUT_COOKIE, remembered)
    form = _Form()
    form.feed(client.get("/decode", params={"lang": "en"}).text)
    assert form.fields["layout"] == remembered  # the picker starts at the remembered one
    html = client.get("/decode", params={**form.fields, "id": pasted, "lang": "en"}).text
    client.cookies.clear()
    return html


def layout_read(html: str) -> str:
    found = re.search(r'id="out-layout" data-layout="([a-z0-9-]+)"', html)
    assert found is not None, "no result"
    return found.group(1)


def utc(html: str) -> str:
    found = re.search(r'<time id="out-utc" datetime="([^"]+)"', html)
    assert found is not None, "no result"
    return found.group(1)


def layout_error(html: str) -> str:
    found = re.search(r'<p class="error[^"]*" id="err-layout" data-field="layout">(.*?)</p>', html)
    assert found is not None, "no error on the layout"
    return unescape(re.sub(r"<[^>]+>", " ", found.group(1)))


# --- §1: a remembered layout never overrides a pasted link -----------------------------------


def test_a_tweet_link_with_discord_remembered_is_read_as_the_2022_tweet(
    client: TestClient,
) -> None:
    """Was 2026-12-23, "in 17 days": the tweet's id read as a Discord id."""
    html = submit(client, "discord", TWEET_LINK)
    assert layout_read(html) == "twitter"
    assert utc(html) == "2022-10-26T18:45:58.034Z"
    assert "in 17 days" not in html
    assert "4 years ago" in html
    assert "Read as Twitter: the layout the link names." in html


def test_the_link_to_tweet_20_with_discord_remembered_is_twitters_with_its_warning(
    client: TestClient,
) -> None:
    """Was 2015-01-01 with no warning: 20 read as Discord's epoch."""
    html = submit(client, "discord", TWEET_20)
    assert layout_read(html) == "twitter"
    assert 'data-warning="before_first_snowflake"' in html
    assert utc(html) == "2010-11-04T01:42:54.657Z"  # Twitter's epoch, not Discord's


def test_an_instagram_post_with_discord_remembered_is_read_as_instagram(
    client: TestClient,
) -> None:
    """Was years ahead (2035 for this post): its media id read as a Discord id."""
    html = submit(client, "discord", INSTAGRAM_POST)
    assert layout_read(html) == "instagram"
    assert utc(html) == "2021-11-26T16:48:40.527Z"


def test_a_discord_message_link_with_twitter_remembered_is_read_as_discord(
    client: TestClient,
) -> None:
    """Was 2013-09-22 for its channel: Discord's ids read as tweets."""
    html = submit(client, "twitter", DISCORD_LINK)
    assert layout_read(html) == "discord"
    assert utc(html) == "2022-07-22T11:22:59.101Z"  # the message leads
    assert "2013-09-22" not in html


def test_the_remembered_layout_still_reads_a_bare_number(client: TestClient) -> None:
    html = submit(client, "discord", "175928847299117063")
    assert layout_read(html) == "discord"
    assert utc(html) == "2016-04-30T11:18:25.796Z"
    assert 'id="layout-remembered"' in html  # and says it is the remembered one
    assert 'name="remembered" value="discord"' in html  # kept for the next send


# --- §1: a layout picked against the link is refused, naming both ------------------------------


def test_a_layout_picked_against_a_discord_link_is_refused_naming_both(
    client: TestClient,
) -> None:
    query = {"id": DISCORD_LINK, "layout": "twitter", "lang": "en"}
    html = client.get("/decode", params=query).text
    message = layout_error(html)
    assert "Layout twitter contradicts the pasted link" in message
    assert "comes from Discord, so its IDs are Discord IDs" in message
    assert 'name="fix" value="layout=discord"' in html  # the button: read it as Discord
    assert "Read it as Discord" in html
    assert 'id="out-layout"' not in html  # no result read the wrong way
    vi = client.get("/decode", params={"id": DISCORD_LINK, "layout": "twitter", "lang": "vi"})
    assert "mâu thuẫn với liên kết đã dán" in layout_error(vi.text)


def test_the_fix_button_without_javascript_reads_the_link_in_its_layout(
    client: TestClient,
) -> None:
    query = {"id": DISCORD_LINK, "layout": "twitter", "fix": "layout=discord", "lang": "en"}
    moved = client.get("/decode", params=query, follow_redirects=False)
    assert moved.status_code == 303
    target = parse_qs(urlsplit(moved.headers["location"]).query)
    assert target == {"id": [DISCORD_LINK], "layout": ["discord"], "lang": ["en"]}
    assert layout_read(client.get(moved.headers["location"]).text) == "discord"


def test_in_a_list_a_link_of_another_layout_is_its_rows_error(client: TestClient) -> None:
    lines = f"{TWEET_LINK}\n{DISCORD_LINK}\n20"
    html = client.get("/decode", params={"id": lines, "lang": "en"}).text
    rows = re.findall(r'<td class="cell-error"[^>]*>(.*?)</td>', html, re.S)
    assert len(rows) == 1
    assert "comes from Discord, but this list is read as twitter IDs" in unescape(rows[0])
    assert '<table class="ids" id="out-table">' in html


# --- §1: Instagram's share links ---------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_an_instagram_share_link_is_refused_saying_what_to_paste(
    client: TestClient, lang: str
) -> None:
    link = "https://www.instagram.com/share/reel/BAHtk2AamB/"
    html = client.get("/decode", params={"id": link, "lang": lang}).text
    assert "18048316772297089" not in html  # the id the token made up
    assert 'id="out-layout"' not in html
    error = re.search(r'id="err-id" data-field="id">(.*?)</p>', html, re.S)
    assert error is not None
    words = {"en": "is an Instagram share link", "vi": "là liên kết chia sẻ của Instagram"}
    assert words[lang] in unescape(error.group(1))
    assert "instagram.com/p/" in error.group(1)


# --- §2: what visitors see ---------------------------------------------------------------------


def test_a_discord_message_link_leads_with_the_message_and_marks_channel_and_server(
    client: TestClient,
) -> None:
    html = client.get("/decode", params={"id": DISCORD_LINK, "lang": "en"}).text
    assert utc(html) == "2022-07-22T11:22:59.101Z"
    linked = html[html.index('id="out-linked"') :]
    rows = re.findall(
        r'<li data-label="(\w+)"><span class="id-label">\w+</span> <a[^>]*>(\d+)', linked
    )
    assert rows == [("channel", "381886868708655104"), ("server", "81384788765712384")]
    assert html.index('id="out-utc"') < html.index('id="out-linked"')
    assert '<table class="ids" id="out-table">' not in html  # one result, not a table
    vi = client.get("/decode", params={"id": DISCORD_LINK, "lang": "vi"}).text
    assert '<span class="id-label">kênh</span>' in vi


def test_the_time_is_offered_as_unix_seconds_discord_markup_and_iso(client: TestClient) -> None:
    html = client.get("/decode", params={"id": TWEET_LINK, "lang": "en"}).text
    copies = dict(
        re.findall(r'<li data-copy-kind="(\w+)">.*?<code class="mono">([^<]+)</code>', html)
    )
    assert copies == {
        "unix_seconds": "1666809958",
        "discord": "&lt;t:1666809958:F&gt;",
        "iso": "2022-10-26T18:45:58.034Z",
    }
    assert 'data-copy="&lt;t:1666809958:F&gt;"' in html  # the button copies the markup


def test_a_13_digit_number_gets_the_time_hint_and_is_still_read_as_an_id(
    client: TestClient,
) -> None:
    html = client.get("/decode", params={"id": "1700000000000", "lang": "en"}).text
    hint = re.search(r'id="out-time-hint">(.*?)</p>', html, re.S)
    assert hint is not None
    assert "1700000000000 looks like a time, not an ID" in hint.group(1)
    assert "2023-11-14T22:13:20.000Z" in hint.group(1)
    href = re.search(r'<a href="([^"]+)" id="time-hint-compose">', hint.group(1))
    assert href is not None
    target = unescape(href.group(1))
    assert parse_qs(urlsplit(target).query) == {
        "timestamp": ["1700000000000"],
        "datacenter": ["0"],
        "machine": ["0"],
        "sequence": ["0"],
        "lang": ["en"],
    }
    composed = str(snowid.compose(1700000000000, datacenter=0, machine=0, sequence=0))
    assert f'<span id="out-id" class="id mono">{composed}</span>' in client.get(target).text
    assert utc(html) == "2010-11-04T01:49:39.968Z"  # the id it may be, still decoded
    plain = client.get("/decode", params={"id": "175928847299117063", "lang": "en"}).text
    assert 'id="out-time-hint"' not in plain


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", ["link or mention", "discord.com/channels/"]), ("vi", ["liên kết hay lượt nhắc"])],
)
def test_the_decoders_intro_and_hint_say_it_takes_links_and_mentions(
    client: TestClient, lang: str, words: list[str]
) -> None:
    html = client.get("/decode", params={"lang": lang}).text
    intro = html[html.index("<main") : html.index('id="f-id"')]
    hint = re.search(r'<p class="hint" id="hint-id">(.*?)</p>', html, re.S)
    assert hint is not None
    for word in words:
        assert word in unescape(intro + hint.group(1))
