"""Issue 19 §3 and §6 in Chromium, once per language: the layout chosen before the result,
the explanation that follows it, the remembered choice and the link "copy link" copies;
Discord's one line and the disclosure; the worked steps' digit groups, the copied values'
plain digits and the seed's example that stays; axe on each new state; the radios without
JavaScript."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.web.browser.axe import violations

pytestmark = [pytest.mark.slow, pytest.mark.browser]

DISCORD_ID = "175928847299117063"
DISCORD_ISO = "2016-04-30T11:18:25.796Z"
WORDS = {
    "en": {"discord": "How a Discord ID is built", "twitter": "How a Twitter ID is built"},
    "vi": {
        "discord": "ID Discord được tạo như thế nào",
        "twitter": "ID Twitter được tạo như thế nào",
    },
}


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_layout_chosen_is_explained_remembered_and_named_in_the_copied_link(
    page: Any, base_url: str, axe_script: Path, lang: str
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto(f"{base_url}/decode?lang={lang}")
    # The choice stands before the box the ID goes in, and so before any result.
    choice = page.locator("#tool fieldset.layout-choice").bounding_box()
    box = page.locator("#f-id").bounding_box()
    assert choice is not None
    assert box is not None
    assert choice["y"] + choice["height"] <= box["y"]
    assert page.is_checked("#f-layout-auto")
    page.fill("#f-id", DISCORD_ID)
    also = page.locator("#out-also[data-layout='discord']")
    also.wait_for()
    assert "2016-04-30 11:18:25.796 UTC" in also.inner_text()
    assert not page.locator("#out-readings").is_visible()  # the rest behind the disclosure
    page.locator("#out-readings-more summary").click()
    page.locator("#out-readings").wait_for()
    assert page.locator("#h-explain").inner_text() == WORDS[lang]["twitter"]
    assert violations(page, axe_script) == []  # the one line, the disclosure open

    page.check("#f-layout-discord")
    page.locator("#explain[data-layout='discord']").wait_for()
    assert page.locator("#h-explain").inner_text() == WORDS[lang]["discord"]
    assert "1420070400000" in page.locator("#explain-formula").inner_text()
    assert page.locator("#out-utc").get_attribute("datetime") == DISCORD_ISO
    page.locator(".result-head .copy-link").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    query = parse_qs(urlsplit(copied).query)
    assert query == {"id": [DISCORD_ID], "layout": ["discord"], "lang": [lang]}

    page.goto(f"{base_url}/decode?lang={lang}")  # a new empty form: the last choice
    assert page.is_checked("#f-layout-discord")
    page.locator("#layout-remembered").wait_for()
    assert page.locator("#explain").get_attribute("data-layout") == "discord"
    assert violations(page, axe_script) == []
    page.goto(f"{base_url}/decode?lang={lang}&id={DISCORD_ID}")  # a link: never the cookie
    assert page.is_checked("#f-layout-auto")
    assert page.locator("#out-layout").get_attribute("data-layout") == "twitter"
    page.locator(".result-head .copy-link").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert parse_qs(urlsplit(copied).query)["layout"] == ["twitter"]


# Per language: the worked steps' digit groups, the word for Discord's worker, the example.
STEPS = {
    "en": ("4,194,304,000", ["Worker", "exactly 1,000 ms after the epoch"]),
    "vi": ("4.194.304.000", ["Nút xử lý", "cách epoch đúng 1.000 ms"]),
}


@pytest.mark.parametrize("lang", list(STEPS))
def test_the_steps_group_digits_the_copies_do_not_and_the_example_stays(
    page: Any, base_url: str, axe_script: Path, lang: str
) -> None:
    grouped, words = STEPS[lang]
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto(f"{base_url}/?lang={lang}")
    shift = page.locator("#out-steps .shift-timestamp").inner_text()
    assert grouped in shift
    example = page.locator("#explain-example")
    assert words[1] in example.inner_text()
    page.fill("#f-machine", "7")
    page.wait_for_function("document.querySelector('#out-id')?.textContent === '4194463744'")
    assert words[1] in example.inner_text()  # the worked example stays as the fields change
    assert "4194439168" in example.inner_text().replace(".", "").replace(",", "")
    page.locator("#out-id + .copy-wrap button").click()
    assert page.evaluate("navigator.clipboard.readText()") == "4194463744"  # plain digits

    page.goto(f"{base_url}/decode?lang={lang}&id={DISCORD_ID}&layout=discord")
    assert page.locator("#out-bits .block").first.get_attribute("data-segment") == "timestamp"
    fields = page.locator("#result .fields-out").inner_text()
    assert words[0] in fields
    assert (
        page.locator("#explain-fields [data-field='worker'] dt").inner_text().startswith(words[0])
    )
    page.goto(f"{base_url}/decode?lang={lang}&id=4194439168&layout=twitter")
    sign = page.locator("#out-bits .block-sign .block-name").inner_text()
    assert sign == {"en": "Sign bit", "vi": "Bit dấu"}[lang]
    assert violations(page, axe_script) == []


def test_the_layout_radios_work_without_javascript(browser_factory: Any, base_url: str) -> None:
    page = browser_factory(java_script_enabled=False).new_page()
    page.goto(f"{base_url}/decode?lang=vi")
    page.fill("#f-id", DISCORD_ID)
    page.check("#f-layout-sonyflake")
    page.click("button.primary")
    page.wait_for_url("**layout=sonyflake**")
    assert page.locator("#explain").get_attribute("data-layout") == "sonyflake"
    assert "nhịp 10 ms" in page.locator("#explain-structure").inner_text()
    page.goto(f"{base_url}/decode?lang=vi")
    assert page.is_checked("#f-layout-sonyflake")  # remembered without any script


def test_the_new_colours_pass_axe_in_the_dark_scheme(
    browser_factory: Any, base_url: str, axe_script: Path
) -> None:
    """The chosen radio's wash and edge, the one line and the open disclosure, dark."""
    page = browser_factory(color_scheme="dark").new_page()
    page.goto(f"{base_url}/decode?lang=vi&id={DISCORD_ID}")
    page.locator("#out-readings-more summary").click()
    page.locator("#out-readings").wait_for()
    assert page.is_checked("#f-layout-auto")
    assert violations(page, axe_script) == []
    page.check("#f-layout-mastodon")
    page.locator("#explain[data-layout='mastodon']").wait_for()
    assert violations(page, axe_script) == []
