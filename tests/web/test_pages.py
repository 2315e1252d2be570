"""The HTML pages without a browser: the seed's tool, the decoder, languages, no-JS paths."""

from __future__ import annotations

import os
import re
import string
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from snowid.i18n import web_en, web_vi
from snowid.web import Settings, create_app
from snowid.web._lang import from_accept_language
from tests.support.web import fixed_identity_service, serving

SEED_QUERY = "timestamp=1288834975657&datacenter=1&machine=1&sequence=0"


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serving(create_app(Settings(), service=fixed_identity_service())) as url:
        yield url


def get(base_url: str, path: str, **kwargs: object) -> httpx.Response:
    with httpx.Client(base_url=base_url, timeout=10) as http:
        return http.get(path, **kwargs)  # type: ignore[arg-type]


def error_text(html: str, field: str) -> str | None:
    """The message shown next to ``field``, or None when its message element is hidden."""
    match = re.search(
        rf'<p class="error" id="err-{field}" data-field="{field}"( hidden)?>(.*?)</p>', html, re.S
    )
    assert match, f"no message element for {field}"
    return None if match.group(1) else match.group(2)


def test_first_visit_shows_the_seed_worked_example(base_url: str) -> None:
    html = get(base_url, "/").text
    assert "4194439168" in html
    # The worked steps group their digits the page's way (vi: points); what is copied does not.
    for number in (
        "1.288.834.975.657 − 1.288.834.974.657",
        "1.000 &lt;&lt; 22",
        "4.194.304.000",
        "1 &lt;&lt; 17",
        "131.072",
        "1 &lt;&lt; 12",
        "4.096",
        "4.194.304.000 + 131.072 + 4.096 + 0 = <strong>4.194.439.168</strong>",
        'data-copy="4194439168"',
    ):
        assert number in html
    assert "0x00000000fa021000" in html  # hex


def test_compose_shows_the_64_bits_as_labelled_blocks(base_url: str) -> None:
    html = get(base_url, f"/?{SEED_QUERY}&lang=en").text
    blocks = [
        re.sub(r"<[^>]+>", "", b)
        for b in re.findall(r'<code class="block-bits grouped">(.*?)</code>', html)
    ]
    assert [len(b) for b in blocks] == [1, 41, 5, 5, 12]
    assert "".join(blocks) == format(4194439168, "064b")
    for text in (
        "bits 62–22",
        "bits 21–17",
        "bits 16–12",
        "bits 11–0",
        "bit 63",
        "value 1000 (ms since the epoch)",
    ):
        assert text in html
    assert (
        '<time id="out-utc" datetime="2010-11-04T01:42:55.657Z">2010-11-04 01:42:55.657 UTC' in html
    )


def test_every_invalid_field_gets_its_own_message_and_nothing_else_breaks(base_url: str) -> None:
    response = get(base_url, "/?timestamp=12&datacenter=32&machine=x&sequence=5&lang=en")
    assert response.status_code == 200
    html = response.text
    assert "before the Twitter epoch" in (error_text(html, "timestamp") or "")
    assert error_text(html, "datacenter") == "Datacenter 32 is out of range 0..31"
    assert error_text(html, "machine") == "Machine x is not a whole number"
    assert error_text(html, "sequence") is None
    assert html.count('aria-invalid="true"') == 3
    assert 'value="x"' in html  # what was typed stays in the form
    assert 'class="result"' not in html


def test_messages_next_to_fields_are_in_the_page_language(base_url: str) -> None:
    html = get(base_url, "/?timestamp=&datacenter=40&machine=1&sequence=1&lang=vi").text
    assert error_text(html, "datacenter") == (
        "Mã trung tâm dữ liệu 40 nằm ngoài phạm vi cho phép 0..31"
    )


def test_blank_timestamp_means_now_and_says_so(base_url: str) -> None:
    html = get(base_url, "/?timestamp=&datacenter=1&machine=2&sequence=3&lang=en").text
    assert "The timestamp was blank, so the current time was used" in html
    assert 'class="result"' in html


def test_now_button_without_javascript_redirects_to_a_shareable_url(base_url: str) -> None:
    response = get(base_url, "/?timestamp=&datacenter=4&machine=5&sequence=6&now=1")
    assert response.status_code == 303
    location = response.headers["location"]
    match = re.fullmatch(r"/\?timestamp=(\d+)&datacenter=4&machine=5&sequence=6", location)
    assert match
    assert int(match.group(1)) > 1288834974657


@pytest.mark.parametrize(
    ("path", "field", "values"),
    [
        (f"/?{SEED_QUERY}&machine=2", "machine", "1, 2"),
        ("/?timestamp=&datacenter=4&machine=5&sequence=6&now=1&sequence=7", "sequence", "6, 7"),
        ("/decode?id=4194439168&id=1", "id", "4194439168, 1"),
        ("/decode?id=1&layout=discord&layout=twitter", "layout", "discord, twitter"),
        ("/range?from=2024-01-01T00:00&from=0", "from", "2024-01-01T00:00, 0"),
        ("/range?from=0&layout=discord&layout=twitter", "layout", "discord, twitter"),
    ],
)
@pytest.mark.parametrize(("lang", "words"), [("en", "is given 2 times"), ("vi", "xuất hiện 2 lần")])
def test_a_field_given_twice_is_refused_on_the_page_as_the_api_refuses_it(
    base_url: str, path: str, *, field: str, values: str, lang: str, words: str
) -> None:
    """The regression: the pages took the last value where the API answers 400
    duplicate_parameter; now they show that error on the field, in the page's language."""
    response = get(base_url, f"{path}&lang={lang}")
    assert response.status_code == 200
    shown = error_text(response.text, field) or ""
    assert words in shown
    assert values in shown
    assert '<section class="result' not in response.text  # no result from a guessed value


def test_decoder_shows_the_same_breakdown(base_url: str) -> None:
    html = get(base_url, "/decode?id=4194439168&lang=en").text
    assert "4,194,304,000 + 131,072 + 4,096 + 0 = <strong>4,194,439,168</strong>" in html
    assert 'href="/?timestamp=1288834975657&amp;datacenter=1&amp;machine=1&amp;sequence=0' in html


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("9223372036854775808", "sign bit"),
        ("18446744073709551616", "more than 64 bits"),
        ("-5", "negative"),
        ("hello", "paste an ID, or a tweet, Discord, Mastodon or Instagram link"),
        ("", "empty"),
    ],
)
def test_decoder_explains_ids_that_are_not_snowflakes(
    base_url: str, value: str, words: str
) -> None:
    html = get(base_url, "/decode", params={"id": value, "lang": "en"}).text
    assert words in (error_text(html, "id") or "")
    assert 'class="result"' not in html


def test_decoder_without_an_id_shows_only_the_form(base_url: str) -> None:
    html = get(base_url, "/decode").text
    assert error_text(html, "id") is None
    assert 'class="result"' not in html


def test_lang_query_sets_html_lang_and_a_cookie_that_sticks(base_url: str) -> None:
    with httpx.Client(base_url=base_url) as http:
        first = http.get("/?lang=vi")
        assert '<html lang="vi">' in first.text
        assert first.cookies.get("snowid_lang") == "vi"
        assert "Tạo ID Snowflake" in first.text
        again = http.get("/decode")  # no ?lang=: the cookie decides
        assert '<html lang="vi">' in again.text
        back = http.get("/?lang=en")
        assert '<html lang="en">' in back.text


def test_accept_language_decides_without_query_or_cookie(base_url: str) -> None:
    html = get(base_url, "/", headers={"Accept-Language": "vi;q=0.8, de;q=0.9, en;q=0.1"}).text
    assert '<html lang="vi">' in html
    html = get(base_url, "/", headers={"Accept-Language": "en;q=0.8, de;q=0.9, vi;q=0.1"}).text
    assert '<html lang="en">' in html


@pytest.mark.parametrize("path", ["/", "/decode", "/decode?id=4194439168", "/no/such/page"])
@pytest.mark.parametrize("accept", [None, "de, fr;q=0.5", "*"])
def test_a_page_is_vietnamese_when_the_request_names_no_language_of_ours(
    base_url: str, path: str, accept: str | None
) -> None:
    """Issue 10 item 2: no ?lang=, no cookie and no usable Accept-Language: Vietnamese, as
    the seed page is."""
    headers = {"Accept": "text/html"} | ({"Accept-Language": accept} if accept else {})
    html = get(base_url, path, headers=headers).text
    assert '<html lang="vi">' in html


def test_query_beats_cookie_beats_accept_language_on_the_page(base_url: str) -> None:
    english = {"Accept-Language": "en"}
    with httpx.Client(base_url=base_url) as http:
        assert '<html lang="en">' in http.get("/", headers=english).text
        http.cookies.set("snowid_lang", "vi")
        assert '<html lang="vi">' in http.get("/", headers=english).text  # cookie > header
        assert '<html lang="en">' in http.get("/?lang=en", headers=english).text  # query > all


def test_the_json_api_keeps_english_as_its_fallback(base_url: str) -> None:
    """The Vietnamese default is the page's only: an API error with no language named is
    English."""
    response = get(base_url, "/api/compose?datacenter=32&machine=1")
    assert response.json()["error"]["message"] == "Datacenter 32 is out of range 0..31"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("vi-VN,vi;q=0.9,en-US;q=0.8", "vi"),
        ("en-GB, vi;q=0.5", "en"),
        ("fr, de", None),
        ("vi;q=0, en;q=0.1", "en"),
        ("vi;q=abc", None),
        ("", None),
        ("*", None),
        ("EN;Q=0.3, VI;Q=0.7", "vi"),
    ],
)
def test_accept_language_parsing(header: str, expected: str | None) -> None:
    assert from_accept_language(header) == expected


def test_language_switch_keeps_the_current_inputs(base_url: str) -> None:
    html = get(base_url, f"/?{SEED_QUERY}&lang=en").text
    assert f'href="?{SEED_QUERY.replace("&", "&amp;")}&amp;lang=vi"' in html


def test_unknown_page_is_a_404_page_for_browsers(base_url: str) -> None:
    response = get(base_url, "/no/such/page", headers={"Accept": "text/html"})
    assert response.status_code == 404
    assert "<html" in response.text


def test_static_files_are_served_from_the_package(base_url: str) -> None:
    assert get(base_url, "/static/style.css").status_code == 200
    assert "DOMParser" in get(base_url, "/static/app.js").text
    assert get(base_url, "/static/../templates/base.html").status_code == 404


def test_templates_load_from_the_package_not_the_working_directory(tmp_path: Path) -> None:
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with serving(create_app(Settings(), service=fixed_identity_service())) as url:
            assert "4194439168" in get(url, "/").text
    finally:
        os.chdir(cwd)


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_web_catalogs_have_the_same_keys_and_placeholders() -> None:
    assert set(web_en.MESSAGES) == set(web_vi.MESSAGES)
    for key, text in web_en.MESSAGES.items():
        assert _placeholders(text) == _placeholders(web_vi.MESSAGES[key]), key


def test_every_page_text_key_used_in_the_templates_exists() -> None:
    templates = Path(__file__).parents[2] / "src" / "snowid" / "web" / "templates"
    used: set[str] = set()
    for path in templates.glob("*.html"):
        used |= set(re.findall(r"""t\(["'](web\.[a-z_.]+[a-z])["']""", path.read_text()))
    assert used
    assert used <= set(web_en.MESSAGES)


# --- issue 10: the seed's sections, the decoder's new inputs, the language in the form ----


@pytest.mark.parametrize(
    ("lang", "headings"),
    [
        (
            "en",
            [
                "What is a Snowflake ID generator?",
                "Where Snowflake IDs are used",
                "History of Snowflake IDs",
                "Frequently asked questions",
                "References",
            ],
        ),
        (
            "vi",
            [
                "Bộ tạo ID Snowflake là gì?",
                "ID Snowflake được sử dụng ở đâu",
                "Lịch sử của ID Snowflake",
                "Các câu hỏi thường gặp",
                "Tài liệu tham khảo",
            ],
        ),
    ],
)
def test_the_seed_sections_are_rendered_without_javascript(
    base_url: str, lang: str, headings: list[str]
) -> None:
    html = get(base_url, f"/?lang={lang}").text
    found = re.findall(r'<h2 id="h-[a-z]+">(.*?)</h2>', html)
    assert [h for h in found if h in headings] == headings
    assert html.count('<details class="qa"') == 7  # the seed's six, then issue 11's layouts
    assert html.count('<script type="application/ld+json">') == 1
    assert f'href="/decode?lang={lang}"' in html  # the FAQ's answer links the decoder


def test_each_form_carries_the_page_language(base_url: str) -> None:
    for path in ("/?lang=vi", "/decode?lang=vi"):
        assert '<input type="hidden" name="lang" value="vi">' in get(base_url, path).text
    html = get(base_url, "/", headers={"Accept-Language": "en"}).text
    assert '<input type="hidden" name="lang" value="en">' in html


def test_the_now_button_is_named_by_its_text_alone(base_url: str) -> None:
    html = get(base_url, "/?lang=en").text
    button = re.search(r"<button[^>]*data-now[^>]*>([^<]*)</button>", html)
    assert button is not None
    assert "aria-label" not in button.group(0)  # the visible text is its name
    assert button.group(1) == "Now"


def test_the_decoder_reads_hexadecimal_without_javascript(base_url: str) -> None:
    html = get(base_url, "/decode", params={"id": "0xFA021000", "lang": "en"}).text
    assert '<span id="out-id" class="id mono">4194439168</span>' in html


def test_the_decoder_shows_several_ids_as_a_table(base_url: str) -> None:
    ids = "4194439168\n0x1\nhello\n"
    html = get(base_url, "/decode", params={"id": ids, "lang": "en"}).text
    assert '<h2 id="h-result">3 IDs</h2>' in html
    assert html.count("<tr") == 4  # the header and three rows
    assert 'href="/decode?id=4194439168&amp;lang=en"' in html
    assert 'href="/decode?id=1&amp;lang=en"' in html
    assert "ID hello is not an ID snowid can read" in html
    assert error_text(html, "id") is None


def test_the_decoder_refuses_more_than_100_ids_with_a_clear_message(base_url: str) -> None:
    ids = "\n".join(str(4194439168 + n) for n in range(150))
    html = get(base_url, "/decode", params={"id": ids, "lang": "en"}).text
    assert (
        error_text(html, "id")
        == "150 IDs given; the decoder reads up to 100 at once. Split the list."
    )
    assert "<table" not in html
