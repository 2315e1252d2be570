"""Issue 11's page parts as the server renders them, without a browser: the decoder's layout
picker, readings and warnings, the ids-between-two-times page (a GET form), the FAQ entry,
and the JSON of the layout endpoints (every 64-bit value a string)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest

from snowid import LAYOUTS, id_range
from snowid.web import Settings, create_app
from tests.support.web import fixed_identity_service, serving

DISCORD_ID = "175928847299117063"


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serving(create_app(Settings(), service=fixed_identity_service())) as url:
        yield url


def get(base_url: str, path: str, **params: str) -> str:
    with httpx.Client(base_url=base_url, timeout=10) as http:
        response = http.get(path, params=params)
    assert response.status_code == 200
    return response.text


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def layout_radios(html: str) -> list[tuple[str, bool]]:
    """The decoder's layout choice: each radio's value and whether it is checked."""
    picker = re.search(
        r'<fieldset class="field field-layout layout-choice.*?</fieldset>', html, re.S
    )
    assert picker is not None
    found = re.findall(r'name="layout" value="([a-z0-9-]*)"( checked)?', picker.group(0))
    return [(value, bool(checked)) for value, checked in found]


def selected_layout(html: str) -> list[str]:
    """The layout chosen: the decoder's checked radio, or the range page's selected option."""
    picker = re.search(r'<select id="f-layout" name="layout".*?</select>', html, re.S)
    if picker is not None:
        return re.findall(r'<option value="([a-z0-9-]+)" selected>', picker.group(0))
    return [value for value, checked in layout_radios(html) if checked and value]


def test_the_decoder_has_a_layout_picker_twitter_first_and_twitter_by_default(
    base_url: str,
) -> None:
    """Issue 19: first comes "from the link (else Twitter)" (value ""), chosen by default,
    so a pasted link's source chooses the layout; then the layouts, Twitter first."""
    html = get(base_url, "/decode", lang="en")
    names = [value for value, _ in layout_radios(html)]
    assert names == ["", *(layout.name for layout in LAYOUTS)]
    assert names[1] == "twitter"
    assert layout_radios(html)[0] == ("", True)
    assert "From the link (else Twitter)</label>" in html
    assert selected_layout(html) == []
    assert "<legend>Read the ID as</legend>" in html
    # The choice comes before the box the ID is typed in (and so before the result).
    assert html.index('id="f-layout-auto"') < html.index('id="f-id"')
    assert re.search(r'<form id="decode-form"[^>]*method="get" action="/decode"', html)


def test_discords_example_decodes_in_discords_layout_without_javascript(base_url: str) -> None:
    html = get(base_url, "/decode", id=DISCORD_ID, layout="discord", lang="en")
    assert selected_layout(html) == ["discord"]
    assert '<time id="out-utc" datetime="2016-04-30T11:18:25.796Z">' in html
    fields = re.search(r'<dl class="fields-out">(.*?)</dl>', html, re.S)
    assert fields is not None
    assert text_of(fields.group(1)) == (
        "Timestamp (Unix ms) 1462015105796 Worker 1 Process 0 Increment 7"
    )
    assert [b for b in re.findall(r'data-segment="(\w+)"', html)] == [
        "timestamp",
        "worker",
        "process",
        "increment",
    ]
    assert "epoch 2015-01-01 00:00:00.000 UTC (1420070400000 ms)" in html
    # each other reading is a link to the decoder in its layout
    assert f'href="/decode?id={DISCORD_ID}&amp;lang=en">Read as Twitter</a>' in html
    assert f'href="/decode?id={DISCORD_ID}&amp;layout=instagram&amp;lang=en"' in html
    # the language switch keeps the layout
    assert f'href="?id={DISCORD_ID}&amp;layout=discord&amp;lang=vi"' in html


def test_a_number_plausible_in_several_layouts_lists_them_side_by_side(base_url: str) -> None:
    html = get(base_url, "/decode", id=DISCORD_ID, lang="vi")
    table = re.search(r'<table class="ids readings" id="out-readings".*?</table>', html, re.S)
    assert table is not None
    # Issue 19: Discord, the one reading named under the time (the visitor chose no layout
    # and its time is between 2015 and now); the others behind a disclosure.
    also = re.search(r'<p class="also" id="out-also" data-layout="discord">.*?</p>', html, re.S)
    assert also is not None
    assert "Đọc theo Discord" in also.group(0)
    assert "2016-04-30 11:18:25.796 UTC" in also.group(0)
    more = re.search(
        r'<details class="readings-more" id="out-readings-more">.*?</details>', html, re.S
    )
    assert more is not None
    assert "Các cách đọc khác (2)" in more.group(0)
    assert re.findall(r'<tr data-layout="([a-z-]+)">', table.group(0)) == ["instagram", "sonyflake"]
    assert table.group(0) in more.group(0)


def test_an_unknown_layout_is_an_error_under_the_picker_not_a_guess(base_url: str) -> None:
    html = get(base_url, "/decode", id=DISCORD_ID, layout="myspace", lang="en")
    error = re.search(r'<p class="error" id="err-layout" data-field="layout">(.*?)</p>', html)
    assert error is not None
    assert error.group(1) == (  # the list, not the library's custom-spec hint: not taken here
        "Layout myspace is unknown; choose one of the list: Twitter, Discord, Instagram,"
        " Sonyflake, Sonyflake v2, Mastodon."
    )
    assert 'aria-invalid="true"' in html
    assert 'class="result"' not in html


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "Twitter's old sequential counter"), ("vi", "bộ đếm tuần tự cũ của Twitter")],
)
def test_a_pre_snowflake_tweet_id_shows_the_warning_in_the_page_language(
    base_url: str, lang: str, words: str
) -> None:
    html = get(base_url, "/decode", id="20", lang=lang)
    warning = re.search(r'<p class="warn" data-warning="before_first_snowflake">(.*?)</p>', html)
    assert warning is not None
    assert words in warning.group(1).replace("&#39;", "'")


def test_the_seed_example_composes_without_a_warning_shown(base_url: str) -> None:
    """The compose page never warns about what it just composed; the decoder, which cannot
    tell a composed teaching id from an old tweet id, does."""
    seed = {"timestamp": "1288834975657", "datacenter": "1", "machine": "1", "sequence": "0"}
    for lang in ("en", "vi"):
        composed = get(base_url, "/", **seed, lang=lang)
        assert '<span id="out-id" class="id mono">4194439168</span>' in composed
        assert 'class="warn' not in composed
        assert "29700859247" not in composed
    decoded = get(base_url, "/decode", id="4194439168", lang="en")
    assert 'data-warning="before_first_snowflake"' in decoded


def test_many_ids_in_a_layout_get_that_layouts_columns_and_links(base_url: str) -> None:
    html = get(base_url, "/decode", id=f"{DISCORD_ID}\n20", layout="discord", lang="en")
    header = re.search(r"<thead>(.*?)</thead>", html, re.S)
    assert header is not None
    assert text_of(header.group(1)) == "ID Time (UTC) Worker Process Increment Details"
    assert f'href="/decode?id={DISCORD_ID}&amp;layout=discord&amp;lang=en"' in html


# --- the ids between two times ----------------------------------------------------------


def test_every_page_links_the_time_range_page(base_url: str) -> None:
    for path in ("/", "/decode", "/range"):
        assert '<a href="/range?lang=en"' in get(base_url, path, lang="en")


def test_the_range_page_works_as_a_plain_get_form(base_url: str) -> None:
    empty = get(base_url, "/range", lang="en")
    assert re.search(r'<form id="range-form"[^>]*method="get" action="/range"', empty)
    # issue 25 §2: ISO text fields, not datetime-local (which shows the browser's locale)
    assert re.search(r'<input id="f-from" name="from" type="text" pattern="\[0-9\]\{4\}-', empty)
    assert 'type="datetime-local"' not in empty
    assert '<section class="result' not in empty
    html = get(
        base_url,
        "/range",
        **{"from": "2016-04-30T11:18:25.796", "to": "2016-04-30T11:18:25.796"},
        layout="discord",
        lang="en",
    )
    low, high = id_range(1462015105796, 1462015105796, "discord")
    assert f'<span id="out-low" class="id mono">{low}</span>' in html
    assert f'<span id="out-high" class="id mono">{high}</span>' in html
    assert f'<code id="out-sql" class="sql">WHERE id BETWEEN {low} AND {high}</code>' in html
    assert f'data-copy="{low}"' in html
    assert f'data-copy="WHERE id BETWEEN {low} AND {high}"' in html
    assert 'value="2016-04-30T11:18:25.796"' in html  # the inputs keep the window
    assert selected_layout(html) == ["discord"]


def test_the_decoder_links_the_ids_of_the_same_moment(base_url: str) -> None:
    html = get(base_url, "/decode", id=DISCORD_ID, layout="discord", lang="en")
    link = "/range?from=2016-04-30T11%3A18%3A25.796&amp;to=2016-04-30T11%3A18%3A25.796"
    assert f'href="{link}&amp;layout=discord&amp;lang=en"' in html


# --- the FAQ ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "question", "words"),
    [
        ("en", "Can this tool generate IDs in other layouts", "Twitter-only"),
        ("vi", "Công cụ này có tạo được ID theo bố cục khác", "chỉ dùng bố cục của Twitter"),
    ],
)
def test_the_faq_says_generation_stays_twitter_only(
    base_url: str, lang: str, question: str, words: str
) -> None:
    html = get(base_url, "/", lang=lang)
    item = re.search(r'<details class="qa" id="faq-layouts">(.*?)</details>', html, re.S)
    assert item is not None
    assert question in item.group(1)
    assert words in item.group(1)
    assert f'href="/range?lang={lang}"' in item.group(1)
    script = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    assert script is not None
    data = json.loads(script.group(1))
    last = data["mainEntity"][-1]
    assert last["name"].startswith(question)
    assert words in last["acceptedAnswer"]["text"]


# --- JSON: every 64-bit value a decimal string (issue 10 item 5, for issue 11's answers) --


def numbers_past_2_53(value: object, path: str = "$") -> list[str]:
    """Every JSON number in ``value`` that JavaScript's JSON.parse would round."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [f"{path} = {value}"] if abs(value) > 2**53 - 1 else []
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in numbers_past_2_53(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in numbers_past_2_53(v, f"{path}[{i}]")]
    return []


@pytest.mark.parametrize(
    "path",
    [
        f"/api/decode/{2**64 - 1}?layout=discord",
        f"/api/decode/{2**63}?layout=discord",
        f"/api/decode/{2**64 - 1}?layout=instagram",
        f"/api/decode/{2**64 - 1}?layout=mastodon",
        f"/api/decode/{2**63 - 1}?layout=sonyflake",
        f"/api/decode/{2**63 - 1}?layout=sonyflake-v2",
        f"/api/decode/{2**63 - 1}?layout=twitter",
        f"/api/readings/{DISCORD_ID}",
        "/api/readings/20",
        f"/api/readings/{2**64 - 1}",
        "/api/range?from=0&to=9007199254740991&layout=discord",
        "/api/range?from=0&to=9007199254740991&layout=mastodon",
        "/api/range?from=2016-04-30T11:18:25.796Z&to=2016-04-30T11:18:25.796Z&layout=discord",
        "/api/layouts",
    ],
)
def test_no_json_number_of_the_layout_answers_passes_2_to_the_53(base_url: str, path: str) -> None:
    with httpx.Client(base_url=base_url, timeout=10) as http:
        response = http.get(path)
    assert response.status_code == 200
    body = response.json()
    assert numbers_past_2_53(body) == []
    if path.startswith("/api/decode/"):  # the big ones are there, as strings
        assert body["id"] == path.removeprefix("/api/decode/").split("?")[0]
    if path.startswith("/api/range"):
        assert isinstance(body["low"], str)
        assert isinstance(body["high"], str)
