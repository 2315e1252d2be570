"""Issue 11's page parts in Chromium: the decoder's layout picker (kept in the address), the
other plausible readings, the warnings in both languages, and the ids-between-two-times
panel with its copy buttons, live and without JavaScript."""

from __future__ import annotations

from typing import Any

import pytest

from snowid import decode, id_range

pytestmark = [pytest.mark.slow, pytest.mark.browser]

# Discord's documented example (discord.com/developers/docs/reference#snowflakes).
DISCORD_ID = "175928847299117063"
DISCORD_ISO = "2016-04-30T11:18:25.796Z"
DISCORD_MS = 1462015105796


def fields_shown(page: Any) -> list[tuple[str, str]]:
    rows = page.locator("#result .fields-out .row")
    return [(r.locator("dt").inner_text(), r.locator("dd").inner_text()) for r in rows.all()]


def test_the_layout_picker_decodes_in_discords_layout_and_keeps_it_in_the_address(
    page: Any, base_url: str
) -> None:
    page.goto(f"{base_url}/decode?lang=en&id={DISCORD_ID}")
    options = page.locator("#tool .layout-choice .choice")
    assert options.first.inner_text().strip() == "From the link (else Twitter)"  # issue 19
    assert options.nth(1).inner_text().strip() == "Twitter"
    assert page.locator("#out-utc").get_attribute("datetime") == "2012-03-03T13:01:20.453Z"
    page.check("#f-layout-discord")
    page.wait_for_url("**layout=discord**")
    page.locator("#out-layout[data-layout='discord']").wait_for()
    assert "lang=en" in page.url
    assert page.locator("#out-utc").get_attribute("datetime") == DISCORD_ISO
    assert fields_shown(page) == [
        ("Timestamp (Unix ms)", str(DISCORD_MS)),
        ("Worker", "1"),
        ("Process", "0"),
        ("Increment", "7"),
    ]
    blocks = page.locator("#out-bits .block")
    assert [b.get_attribute("data-segment") for b in blocks.all()] == [
        "timestamp",
        "worker",
        "process",
        "increment",
    ]
    # the language switch and a reload keep the layout
    switch = page.locator("nav.langs a[data-lang='vi']").get_attribute("href") or ""
    assert "layout=discord" in switch
    page.reload()
    assert page.is_checked("#f-layout-discord")
    assert page.locator("#out-utc").get_attribute("datetime") == DISCORD_ISO


def test_a_number_plausible_in_several_layouts_lists_them_and_the_reader_chooses(
    page: Any, base_url: str
) -> None:
    page.goto(f"{base_url}/decode?lang=en")
    page.fill("#f-id", DISCORD_ID)
    # Issue 19: Discord on one line under the time, the other readings behind a disclosure.
    page.locator("#out-also[data-layout='discord']").wait_for()
    page.locator("#out-readings-more summary").click()
    rows = page.locator("#out-readings tbody tr")
    assert [r.get_attribute("data-layout") for r in rows.all()] == ["instagram", "sonyflake"]
    page.locator("#out-also").get_by_role("link", name="Read as Discord").click()
    page.wait_for_url(f"**/decode?id={DISCORD_ID}&layout=discord&lang=en")
    assert page.is_checked("#f-layout-discord")
    assert page.locator("#out-also").count() == 0  # the visitor chose: nothing singled out
    again = page.locator("#out-readings tbody tr")
    assert [r.get_attribute("data-layout") for r in again.all()] == [
        "twitter",
        "instagram",
        "sonyflake",
    ]


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "Twitter's old sequential counter"), ("vi", "bộ đếm tuần tự cũ của Twitter")],
)
def test_a_pre_snowflake_tweet_id_shows_the_warning_in_the_page_language(
    page: Any, base_url: str, lang: str, words: str
) -> None:
    page.goto(f"{base_url}/decode?lang={lang}")
    page.fill("#f-id", "20")
    warning = page.locator("#out-warnings .warn[data-warning='before_first_snowflake']")
    warning.wait_for()
    assert words in warning.inner_text()
    headline = {"en": "This ID is from before Snowflake", "vi": "ID này có từ trước Snowflake"}
    assert page.locator("#out-estimate").inner_text().startswith(headline[lang])
    announced = page.locator("#announce").inner_text()  # the headline first (issue 25)
    assert announced.startswith(
        {"en": "Result: ID 20. ", "vi": "Kết quả: ID 20. "}[lang] + headline[lang]
    )
    assert {"en": "Warnings: 1", "vi": "Cảnh báo: 1"}[lang] in announced
    page.fill("#f-id", "1541815603606036480")  # a tweet of 2022: no warning, no estimate
    page.wait_for_function(
        "document.querySelector('#out-id').textContent === '1541815603606036480'"
    )
    assert page.locator("#out-warnings").count() == 0
    assert page.locator("#out-estimate").count() == 0


def test_the_seed_example_composes_without_a_warning_shown(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/?lang=en&timestamp=&datacenter=0&machine=0&sequence=0")
    page.fill("#f-timestamp", "1288834975657")
    page.fill("#f-datacenter", "1")
    page.fill("#f-machine", "1")
    page.wait_for_function("document.querySelector('#out-id')?.textContent === '4194439168'")
    assert page.locator(".warn, .warnings, .warn-short").count() == 0
    page.get_by_role("link", name="Open in the decoder").click()
    page.locator(".warn[data-warning='before_first_snowflake']").wait_for()  # the decoder does


def test_the_range_panel_gives_tight_bounds_and_copies_them(page: Any, base_url: str) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto(f"{base_url}/range?lang=en")
    page.select_option("#f-layout", "discord")
    page.fill("#f-from", "2016-04-30T11:18:25.796")
    page.fill("#f-to", "2016-04-30T11:18:26.000")
    low, high = id_range(DISCORD_MS, DISCORD_MS + 204, "discord")
    page.wait_for_function(f"document.querySelector('#out-high')?.textContent === '{high}'")
    assert page.locator("#out-low").inner_text() == str(low)
    assert "from=2016-04-30T11%3A18%3A25.796" in page.url
    assert "layout=discord" in page.url
    # tight: the ids just outside the bounds were made just outside the window
    assert decode(low - 1, "discord").timestamp < DISCORD_MS == decode(low, "discord").timestamp
    assert decode(high + 1, "discord").timestamp == DISCORD_MS + 205
    assert low <= int(DISCORD_ID) <= high
    sql = f"WHERE id BETWEEN {low} AND {high}"
    assert page.locator("#out-sql").inner_text() == sql
    for name, expected in (("Copy low", str(low)), ("Copy high", str(high)), ("Copy the SQL", sql)):
        page.get_by_role("button", name=name, exact=True).click()
        assert page.evaluate("navigator.clipboard.readText()") == expected


def test_the_range_panel_works_without_javascript(browser_factory: Any, base_url: str) -> None:
    page = browser_factory(java_script_enabled=False).new_page()
    page.goto(f"{base_url}/range?lang=vi")
    page.fill("#f-from", "2016-04-30T11:18:25.796")
    page.select_option("#f-layout", "discord")
    page.click("button.primary")
    page.wait_for_url("**/range?**")
    low, high = id_range(DISCORD_MS, DISCORD_MS, "discord")
    assert page.locator("#out-low").inner_text() == str(low)
    # a blank end is now: the window runs to the page's own time
    assert int(page.locator("#out-high").inner_text()) > high
    assert page.input_value("#f-from") == "2016-04-30T11:18:25.796"
    assert page.input_value("#f-layout") == "discord"
