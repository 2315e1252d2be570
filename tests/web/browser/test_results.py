"""Results to copy and share, in Chromium (issue 10 item 4): copy buttons, relative times,
hex and many ids in the decoder, the dark colour scheme."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SEED = "timestamp=1288834975657&datacenter=1&machine=1&sequence=0"
SEED_ID = "4194439168"
SEED_MS = 1288834975657
LAST_MS = 3487858230208  # 2080-07-10T17:30:30.208Z
YEAR_S = 365.2425 * 86400


def years_between(ms: int) -> int:
    return int(abs(ms / 1000 - time.time()) // YEAR_S)


@pytest.mark.parametrize(
    ("button", "expected"),
    [
        ("Copy the decimal ID", SEED_ID),
        ("Copy the hexadecimal value", "0x00000000fa021000"),
        ("Copy the 64 binary digits", format(int(SEED_ID), "064b")),
        ("Copy the UTC time", "2010-11-04T01:42:55.657Z"),
    ],
)
def test_each_copy_button_puts_its_value_on_the_clipboard(
    page: Any, base_url: str, button: str, expected: str
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto(f"{base_url}/?lang=en&{SEED}")
    target = page.get_by_role("button", name=button, exact=True)
    assert target.inner_text() == "Copy"  # the visible text is part of the name
    target.click()
    status = target.locator("xpath=following-sibling::span[@class='copied']")
    status.wait_for(state="visible")
    assert status.inner_text() == "Copied"
    assert page.evaluate("navigator.clipboard.readText()") == expected


def test_copy_link_copies_the_address_as_it_is_now(page: Any, base_url: str) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto(f"{base_url}/?lang=vi&{SEED}")
    page.fill("#f-sequence", "7")
    page.wait_for_url("**sequence=7**")
    page.get_by_role("button", name="Sao chép liên kết tới kết quả này").click()
    page.wait_for_function("document.querySelector('.copy-link + .copied').textContent !== ''")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.url
    assert "sequence=7" in copied
    assert "lang=vi" in copied


def test_an_answer_identical_to_the_result_shown_leaves_it_and_its_copied_status(
    page: Any, base_url: str
) -> None:
    """A value typed over itself (0 over 0) fetches again; the same answer is not redrawn,
    so "Copied" stays. It used to be replaced, "Copied" and all (a browser test once waited
    120 s for a "Copied" the late answer had wiped). A different answer still replaces it."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto(f"{base_url}/?lang=en&{SEED}")
    page.wait_for_selector("html.js")
    page.evaluate("document.body.setAttribute('data-copied-ms', '600000')")
    status = page.locator("#out-id + .copy-wrap .copied")
    page.click("#out-id + .copy-wrap button.copy")
    status.wait_for(state="visible")
    page.locator("#out-id").evaluate("el => { el.dataset.marked = 'yes'; }")
    before = page.get_attribute("#compose-form", "data-applied")
    page.fill("#f-sequence", "0")
    page.wait_for_function(  # that answer is in: app.js numbers the answer it applied
        "before => document.getElementById('compose-form').getAttribute('data-applied') !== before",
        arg=before,
    )
    assert page.locator("#out-id").get_attribute("data-marked") == "yes"  # not redrawn
    assert status.inner_text() == "Copied"
    page.fill("#f-sequence", "1")
    page.wait_for_function("document.getElementById('out-id').textContent !== '4194439168'")
    assert page.locator("#out-id + .copy-wrap .copied").inner_text() == ""


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_relative_time_beside_the_times_in_the_page_language(
    page: Any, base_url: str, lang: str
) -> None:
    """Intl.RelativeTimeFormat in the page's language, for a past and a future time."""
    for ms, sign in ((SEED_MS, -1), (LAST_MS, 1)):
        page.goto(f"{base_url}/?lang={lang}&timestamp={ms}&datacenter=1&machine=1&sequence=0")
        expected = page.evaluate(
            "([n, lang]) => new Intl.RelativeTimeFormat(lang, {numeric: 'always'})"
            ".format(n, 'year')",
            [sign * years_between(ms), lang],
        )
        texts = page.locator("#result .rel").all_inner_texts()
        assert len(texts) == 2  # beside the UTC and the local time
        assert {text.removeprefix("· ") for text in texts} == {expected}
        words = {("en", -1): "years ago", ("en", 1): "in ", ("vi", -1): "năm trước"}
        assert words.get((lang, sign), "năm") in expected
    assert str(years_between(LAST_MS)) in expected


def test_relative_time_without_javascript_comes_from_the_server(
    browser_factory: Any, base_url: str
) -> None:
    page = browser_factory(java_script_enabled=False).new_page()
    page.goto(f"{base_url}/?lang=en&timestamp={LAST_MS}&datacenter=1&machine=1&sequence=0")
    assert page.locator("#result .rel").first.inner_text() == f"in {years_between(LAST_MS)} years"
    page.goto(f"{base_url}/?lang=vi&{SEED}")
    years = years_between(SEED_MS)
    assert page.locator("#result .rel").first.inner_text() == f"{years} năm trước"


@pytest.mark.parametrize("text", ["0xfa021000", "0XFA021000", "  0x00000000fa021000  "])
def test_the_decoder_reads_hexadecimal(page: Any, base_url: str, text: str) -> None:
    page.goto(f"{base_url}/decode?lang=en")
    page.fill("#f-id", text)
    page.wait_for_function(f"document.querySelector('#out-id')?.textContent === '{SEED_ID}'")
    assert page.locator("#out-hex").inner_text() == "0x00000000fa021000"


def test_the_decoder_reads_many_ids_as_a_table_linking_each_breakdown(
    page: Any, base_url: str
) -> None:
    page.goto(f"{base_url}/decode?lang=en")
    ids = [SEED_ID, "0x1", "not-an-id", "1541815603606036480", "9223372036854775807"]
    page.fill("#f-id", "\n".join(ids) + "\n\n")
    page.locator("#out-table").wait_for()
    assert page.locator("#h-result").inner_text() == "5 IDs"
    rows = page.locator("#out-table tbody tr")
    assert rows.count() == 5
    # the id heads its row (issue 19 §5): a row header, not a plain cell
    assert rows.nth(0).locator("th").first.inner_text() == SEED_ID
    assert rows.nth(1).locator("th").first.inner_text() == "1"
    assert "is not an ID snowid can read" in rows.nth(2).inner_text()  # issue 19
    assert rows.nth(3).locator("td.num").all_inner_texts() == ["11", "26", "0"]
    assert rows.nth(4).locator("time").get_attribute("datetime") == "2080-07-10T17:30:30.208Z"
    link = rows.nth(3).get_by_role("link", name="Details of 1541815603606036480")
    assert link.get_attribute("href") == "/decode?id=1541815603606036480&lang=en"
    link.click()
    page.wait_for_url("**/decode?id=1541815603606036480&lang=en")
    assert page.locator("#out-id").inner_text() == "1541815603606036480"


def test_more_than_100_ids_is_a_clear_error(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/decode?lang=en")
    page.fill("#f-id", "\n".join(str(4194439168 + n) for n in range(101)))
    page.keyboard.press("Tab")
    page.locator("#err-id").wait_for(state="visible")
    assert page.locator("#err-id").inner_text() == (
        "101 IDs given; the decoder reads up to 100 at once. Split the list."
    )
    page.fill("#f-id", "\n".join(str(4194439168 + n) for n in range(100)))
    page.locator("#out-table tbody tr").nth(99).wait_for()


def _rgb(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def _luminance(rgb: tuple[int, ...]) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("width", [1280, 390])
def test_the_dark_scheme_follows_the_system_and_keeps_the_blocks_apart(
    browser_factory: Any, base_url: str, artifacts: Path, width: int
) -> None:
    context = browser_factory(color_scheme="dark", viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(f"{base_url}/?lang=vi&{SEED}")
    background = _rgb(page.evaluate("getComputedStyle(document.body).backgroundColor"))
    assert _luminance(background) < 0.05  # dark
    fills, edges = [], []
    for block in page.locator("#out-bits .block").all():
        style = block.evaluate(
            "b => [getComputedStyle(b).backgroundColor, getComputedStyle(b).borderTopColor,"
            " getComputedStyle(b.querySelector('.block-bits')).color]"
        )
        fill, edge, ink = (_rgb(x) for x in style)
        assert _contrast(fill, ink) >= 4.5  # the bits stay readable on their block
        fills.append(fill)
        edges.append(edge)
    assert len(set(fills)) == 5  # five different fills
    assert len(set(edges)) == 5  # and five different edges
    name = "desktop" if width > 600 else "phone"
    page.screenshot(path=str(artifacts / f"page-compose-dark-{name}.png"), full_page=True)
