"""The seed's sections, the FAQ and the page's language, in Chromium (issue 10 items 1-2)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from snowid.web._about import FAQ_KEYS

pytestmark = [pytest.mark.slow, pytest.mark.browser]

HEADINGS = {
    "en": [
        "What is a Snowflake ID generator?",
        "How a Snowflake ID is built",
        "Where Snowflake IDs are used",
        "History of Snowflake IDs",
        "Frequently asked questions",
        "References",
    ],
    "vi": [
        "Bộ tạo ID Snowflake là gì?",
        "ID Snowflake được tạo như thế nào",
        "ID Snowflake được sử dụng ở đâu",
        "Lịch sử của ID Snowflake",
        "Các câu hỏi thường gặp",
        "Tài liệu tham khảo",
    ],
}
TITLES = {
    "en": ("Snowflake ID generator", "Snowflake ID decoder"),
    "vi": ("Trình tạo ID Snowflake", "Giải mã ID Snowflake"),
}


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_seed_sections_are_on_the_page_in_order(page: Any, base_url: str, lang: str) -> None:
    page.goto(f"{base_url}/?lang={lang}")
    headings = page.locator("main h2").all_inner_texts()
    after_result = headings[headings.index(HEADINGS[lang][0]) :]
    assert after_result == HEADINGS[lang]
    for section in page.locator("section.prose").all():
        assert len(section.inner_text()) > 150  # each heading has its text under it


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_title_and_description_say_what_each_page_does_in_its_language(
    page: Any, base_url: str, lang: str
) -> None:
    compose_title, decode_title = TITLES[lang]
    page.goto(f"{base_url}/?lang={lang}")
    assert page.title().startswith(compose_title)
    compose_description = page.get_attribute("meta[name=description]", "content") or ""
    page.goto(f"{base_url}/decode?lang={lang}")
    assert page.title().startswith(decode_title)
    decode_description = page.get_attribute("meta[name=description]", "content") or ""
    assert len(compose_description) > 80
    assert len(decode_description) > 80
    assert compose_description != decode_description
    words = {"en": ("Generate", "decode"), "vi": ("Tạo", "giải mã")}[lang]
    assert all(word in compose_description for word in words)


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_faq_opens_and_matches_its_schema_org_data(page: Any, base_url: str, lang: str) -> None:
    page.goto(f"{base_url}/?lang={lang}")
    items = page.locator("#faq details.qa")
    assert items.count() == len(FAQ_KEYS) == 7  # the seed's six and issue 11's layouts
    first = items.nth(0)
    assert first.get_attribute("open") is None
    assert not first.locator(".answer").is_visible()
    first.locator("summary").click()
    assert first.get_attribute("open") is not None
    assert first.locator(".answer").is_visible()
    page.keyboard.press("Enter")  # the summary has focus: Enter closes it again
    assert first.get_attribute("open") is None

    data = json.loads(page.locator("script[type='application/ld+json']").text_content() or "")
    assert data["@type"] == "FAQPage"
    assert data["inLanguage"] == lang
    questions = [q["name"] for q in data["mainEntity"]]
    assert questions == page.locator("#faq summary").all_inner_texts()
    answers = [q["acceptedAnswer"]["text"] for q in data["mainEntity"]]
    for index, answer in enumerate(answers):
        shown = page.locator("#faq .answer").nth(index).text_content() or ""
        assert " ".join(shown.split()).startswith(answer)


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_decode_question_says_yes_and_links_the_decoder(
    page: Any, base_url: str, lang: str
) -> None:
    page.goto(f"{base_url}/?lang={lang}")
    item = page.locator("#faq-decode")
    item.locator("summary").click()
    assert item.locator(".answer").inner_text().startswith({"en": "Yes.", "vi": "Có."}[lang])
    item.locator(".answer a").click()
    page.wait_for_url(f"**/decode?lang={lang}")
    assert page.locator("#f-id").is_visible()


def test_the_references_are_links(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/?lang=en")
    links = page.locator(".refs a")
    assert links.all_inner_texts() == [
        "“Announcing Snowflake”, Twitter Engineering Blog, 2010",
        "“Snowflake ID”, Wikipedia",
    ]
    assert [a.get_attribute("href") for a in links.all()] == [
        "https://blog.twitter.com/engineering/en_us/a/2010/announcing-snowflake",
        "https://en.wikipedia.org/wiki/Snowflake_ID",
    ]


@pytest.mark.parametrize(
    ("locale", "query", "expected"),
    [
        ("de-DE", "", "vi"),  # a browser language the page does not have: Vietnamese
        ("en-US", "", "en"),  # Accept-Language decides
        ("vi-VN", "?lang=en", "en"),  # ?lang= wins
    ],
)
def test_the_page_language_when_nothing_or_something_is_asked(
    browser_factory: Any, base_url: str, locale: str, query: str, expected: str
) -> None:
    context = browser_factory(locale=locale)
    page = context.new_page()
    page.goto(f"{base_url}/{query}")
    assert page.locator("html").get_attribute("lang") == expected


def test_the_cookie_beats_accept_language(browser_factory: Any, base_url: str) -> None:
    context = browser_factory(locale="en-US")
    page = context.new_page()
    page.goto(f"{base_url}/?lang=vi")  # sets the cookie
    page.goto(f"{base_url}/decode")
    assert page.locator("html").get_attribute("lang") == "vi"


def test_lang_stays_in_the_address_while_typing_so_a_shared_link_keeps_it(
    browser_factory: Any, base_url: str
) -> None:
    """The language came from the browser (no ?lang=); after typing, the address names it,
    and a browser that would get Vietnamese opens the link in English."""
    sender = browser_factory(locale="en-US").new_page()
    sender.goto(f"{base_url}/")
    assert sender.locator("html").get_attribute("lang") == "en"
    sender.fill("#f-machine", "7")
    sender.wait_for_url("**machine=7**")
    shared = sender.url
    assert "lang=en" in shared
    # the language switch keeps what was typed
    switch = sender.get_attribute("nav.langs a[data-lang='vi']", "href") or ""
    assert "machine=7" in switch
    assert "lang=vi" in switch

    receiver = browser_factory(locale="de-DE").new_page()
    receiver.goto(shared)
    assert receiver.locator("html").get_attribute("lang") == "en"
    assert receiver.input_value("#f-machine") == "7"
