"""The page in real headless Chromium: live results, messages, languages, the decoder, no-JS."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SEED_ID = "4194439168"


def fill_compose(page: Any, timestamp: str, datacenter: str, machine: str, sequence: str) -> None:
    page.fill("#f-timestamp", timestamp)
    page.fill("#f-datacenter", datacenter)
    page.fill("#f-machine", machine)
    page.fill("#f-sequence", sequence)


def test_typing_the_seed_example_shows_the_id_and_the_blocks(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/?lang=en&timestamp=&datacenter=0&machine=0&sequence=0")
    fill_compose(page, "1288834975657", "1", "1", "0")
    page.wait_for_function(f"document.querySelector('#out-id').textContent === '{SEED_ID}'")
    blocks = page.locator("#out-bits .block")
    assert blocks.count() == 5
    assert [b.get_attribute("data-segment") for b in blocks.all()] == [
        "sign",
        "timestamp",
        "datacenter",
        "machine",
        "sequence",
    ]
    assert page.locator(".block-timestamp .block-bits").text_content() == format(1000, "041b")
    steps = page.locator("#out-steps").inner_text()  # issue 19: grouped the page's way
    assert "4,194,304,000 + 131,072 + 4,096 + 0 = 4,194,439,168" in steps
    assert "timestamp=1288834975657" in page.url  # the address is shareable while typing


def test_an_invalid_field_shows_its_own_message_and_recovers(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/?lang=en")
    page.fill("#f-datacenter", "32")
    message = page.locator("#err-datacenter")
    message.wait_for(state="visible")
    assert message.inner_text() == "Datacenter 32 is out of range 0..31"
    assert page.get_attribute("#f-datacenter", "aria-invalid") == "true"
    assert page.locator("#err-machine").is_hidden()
    assert page.locator("#err-sequence").is_hidden()
    page.fill("#f-datacenter", "31")
    message.wait_for(state="hidden")
    page.wait_for_selector("#out-id")
    assert page.get_attribute("#f-datacenter", "aria-invalid") is None


def test_the_now_button_fills_the_current_time(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/?lang=en")
    page.fill("#f-timestamp", "")
    before = page.evaluate("Date.now()")
    page.click("button.now")
    page.wait_for_function(
        "document.querySelector('#f-timestamp').value !== '' &&"
        " document.querySelector('#out-local').dataset.ms === document.querySelector('#f-timestamp').value"
    )
    value = int(page.input_value("#f-timestamp"))
    assert before <= value <= page.evaluate("Date.now()")


def test_the_language_switch_changes_the_texts(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/?lang=en")
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.locator("h1").inner_text() == "Generate a Snowflake ID"
    page.click("nav.langs a[data-lang='vi']")
    page.wait_for_function("document.documentElement.lang === 'vi'")
    assert page.locator("h1").inner_text() == "Tạo ID Snowflake"
    assert page.locator("label[for='f-machine']").inner_text() == "Mã máy"
    page.fill("#f-machine", "99")
    page.locator("#err-machine").wait_for(state="visible")
    assert page.locator("#err-machine").inner_text() == "Mã máy 99 nằm ngoài phạm vi cho phép 0..31"
    page.goto(f"{base_url}/decode")  # the choice sticks (cookie)
    assert page.locator("html").get_attribute("lang") == "vi"


def test_the_decoder(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/decode?lang=en")
    page.fill("#f-id", SEED_ID)
    page.click("form#decode-form button.primary")
    page.wait_for_function(f"document.querySelector('#out-id')?.textContent === '{SEED_ID}'")
    assert page.locator("#out-utc").inner_text() == "2010-11-04 01:42:55.657 UTC"
    page.fill("#f-id", str(1 << 63))
    page.locator("#err-id").wait_for(state="visible")
    assert "sign bit" in page.locator("#err-id").inner_text()
    # the last good result stays, marked out of date
    assert page.locator("#out-id").inner_text() == SEED_ID
    assert "stale" in (page.get_attribute("#result", "class") or "")
    assert page.locator("#result .stale-note").is_visible()


def test_keyboard_reaches_the_skip_link_and_the_fields(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/?lang=en")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "f-timestamp":
            break
    assert page.evaluate("document.activeElement.id") == "f-timestamp"


def test_the_page_works_without_javascript(browser_factory: Any, base_url: str) -> None:
    context = browser_factory(java_script_enabled=False, viewport={"width": 1024, "height": 800})
    page = context.new_page()
    page.goto(f"{base_url}/?lang=en")
    # id, hex, binary, UTC, the link, and (issue 25) Unix seconds, Discord markup, ISO 8601
    assert page.locator("button.copy").count() == 8
    for button in page.locator("button.copy").all():
        assert button.is_hidden()  # needs JavaScript, so it stays hidden
    assert page.locator("[data-when]").is_hidden()  # the date input too
    fill_compose(page, "1288834975657", "1", "1", "0")
    page.click("form#compose-form button.primary")
    page.wait_for_url("**/?lang=en&timestamp=1288834975657&datacenter=1&machine=1&sequence=0")
    assert page.locator("#out-id").inner_text() == SEED_ID
    page.fill("#f-sequence", "5000")
    page.press("#f-sequence", "Enter")  # Enter submits with Generate, not Now
    page.wait_for_url("**sequence=5000")
    assert "now=" not in page.url
    assert page.locator("#err-sequence").inner_text() == "Sequence 5000 is out of range 0..4095"
    page.click("button.now")
    page.wait_for_url("**/?timestamp=*")
    assert page.input_value("#f-timestamp").isdigit()
    page.goto(f"{base_url}/decode?id={SEED_ID}")
    assert page.locator("#out-id").inner_text() == SEED_ID


def test_the_page_runs_under_its_content_security_policy(
    browser_factory: Any, base_url: str
) -> None:
    """The CSP is enforced here (no bypass): live results, the copy button and the decoder
    work, and the browser reports no violation (an inline style or script would be one)."""
    from playwright.sync_api import expect

    context = browser_factory(bypass_csp=False)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page = context.new_page()
    reports: list[str] = []
    page.on("console", lambda message: reports.append(message.text))
    # sequence=5, then 0 typed: every field changes, so the seed's id is shown only by the
    # answer to the last field, and no later answer replaces the result (and its "Copied").
    # With sequence=0 already there, an answer sent before the last (same-value) field could
    # show the id first; the clean-clone gate once saw the last one land after the click.
    response = page.goto(f"{base_url}/?lang=en&timestamp=&datacenter=0&machine=0&sequence=5")
    assert response is not None
    assert "default-src 'self'" in response.headers["content-security-policy"]
    fill_compose(page, "1288834975657", "1", "1", "0")
    expect(page.locator("#out-id")).to_have_text(SEED_ID)  # the script fetched and swapped
    expect(page.locator("#out-bits .block")).to_have_count(5)
    # "Copied" stays until the test has seen it (2.5 s can pass unseen on a busy machine).
    page.evaluate("document.body.setAttribute('data-copied-ms', '600000')")
    page.click("#out-id + .copy-wrap button.copy")
    expect(page.locator("#out-id + .copy-wrap .copied")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == SEED_ID
    page.goto(f"{base_url}/decode?lang=en&id={SEED_ID}")
    page.fill("#f-id", "1541815603606036480")
    expect(page.locator("#out-id")).to_have_text("1541815603606036480")
    assert not [text for text in reports if "Content Security Policy" in text], reports
