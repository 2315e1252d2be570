"""Typing, hints and errors in Chromium (issue 10 item 3), and what the live region says."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SEED = "timestamp=1288834975657&datacenter=1&machine=1&sequence=0"
SEED_ID = "4194439168"

# Records, in page time, each key typed and the first moment an error message shows.
WATCH_ERRORS = """() => {
    window.typedAt = [];
    window.errorShownAt = null;
    document.addEventListener("input", () => window.typedAt.push(performance.now()), true);
    const seen = () => {
        if (window.errorShownAt === null && document.querySelector("p.error:not([hidden])")) {
            window.errorShownAt = performance.now();
        }
    };
    new MutationObserver(seen).observe(document.body, {subtree: true, attributes: true,
        childList: true, characterData: true});
}"""


def test_no_error_while_typing_only_after_a_pause(page: Any, base_url: str) -> None:
    """A bad value typed key by key shows no message until the keys stop for the pause."""
    page.goto(f"{base_url}/?lang=en&{SEED}")
    page.evaluate("document.getElementById('compose-form').dataset.pauseMs = '1500'")
    page.evaluate(WATCH_ERRORS)
    page.click("#f-machine")
    page.keyboard.press("End")
    page.keyboard.type("234", delay=150)  # 1 -> 12 -> 123 -> 1234: bad after the second key
    page.locator("#err-machine").wait_for(state="visible")
    shown, last_key = page.evaluate("[window.errorShownAt, window.typedAt.at(-1)]")
    assert shown - last_key >= 1400  # not a key earlier, not a flash while typing
    assert page.locator("#err-machine").inner_text() == "Machine 1234 is out of range 0..31"


def test_the_last_good_result_stays_dimmed_and_marked_out_of_date(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/?lang=en&{SEED}")
    page.evaluate("document.getElementById('compose-form').dataset.pauseMs = '60000'")
    page.fill("#f-datacenter", "99")
    page.wait_for_function("document.getElementById('result').classList.contains('stale')")
    assert page.locator("#out-id").inner_text() == SEED_ID  # still there
    assert page.locator("#result .stale-note").inner_text().startswith("Out of date")
    dimmed = page.evaluate(
        "[getComputedStyle(document.querySelector('#out-id')).color,"
        " getComputedStyle(document.querySelector('#result .bits')).filter]"
    )
    assert dimmed == ["rgb(93, 100, 114)", "grayscale(1)"]  # greyed, still readable
    assert page.locator("#err-datacenter").is_hidden()  # still typing: no message yet
    page.fill("#f-datacenter", "2")  # good again: a fresh result, nothing stale
    page.wait_for_function("document.querySelector('#out-id').textContent !== '4194439168'")
    assert "stale" not in (page.get_attribute("#result", "class") or "")
    assert page.locator("#result .stale-note").is_hidden()


def test_leaving_the_field_shows_its_error_at_once(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/?lang=en&{SEED}")
    page.evaluate("document.getElementById('compose-form').dataset.pauseMs = '60000'")
    page.fill("#f-sequence", "5000")
    page.wait_for_function("document.getElementById('result').classList.contains('stale')")
    assert page.locator("#err-sequence").is_hidden()
    page.keyboard.press("Tab")  # leave the field
    # at once: long before the 60 s pause set above (30 s is a busy machine's margin)
    page.locator("#err-sequence").wait_for(state="visible", timeout=30_000)
    assert page.get_attribute("#f-sequence", "aria-invalid") == "true"


@pytest.mark.parametrize(
    ("lang", "hint"),
    [
        ("en", "Looks like seconds: use 1288834975000 (milliseconds)"),
        ("vi", "Có vẻ là giây: dùng 1288834975000 (mili giây)"),
    ],
)
def test_a_timestamp_in_seconds_gets_the_milliseconds_hint(
    page: Any, base_url: str, lang: str, hint: str
) -> None:
    """Issue 19 §5: the hint is the message's button, right after its first line."""
    page.goto(f"{base_url}/?lang={lang}&{SEED}")
    page.fill("#f-timestamp", "1288834975")
    page.keyboard.press("Tab")
    page.locator("#err-timestamp").wait_for(state="visible")
    assert page.locator("#err-timestamp").inner_text().split("\n")[1] == hint
    assert page.locator("#err-timestamp button.fix").inner_text() == hint


def test_the_date_input_fills_the_millisecond_field_in_utc(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/?lang=en&timestamp=&datacenter=1&machine=1&sequence=0")
    assert page.locator("label[for='f-when']").inner_text() == "Date and time"
    assert page.locator("#f-zone option:checked").inner_text() == "UTC"
    page.fill("#f-when", "2010-11-04T01:42:55.657")
    page.wait_for_function(f"document.querySelector('#out-id')?.textContent === '{SEED_ID}'")
    assert page.input_value("#f-timestamp") == "1288834975657"
    # the millisecond field stays the source of truth: typing there moves the date
    page.fill("#f-timestamp", "3487858230208")
    page.wait_for_function(
        "document.querySelector('#f-when').value.startsWith('2080-07-10T17:30:30')"
    )


def test_the_date_input_reads_local_time_when_asked(browser_factory: Any, base_url: str) -> None:
    context = browser_factory(timezone_id="Asia/Ho_Chi_Minh", locale="vi-VN")
    page = context.new_page()
    page.goto(f"{base_url}/?lang=vi&timestamp=&datacenter=1&machine=1&sequence=0")
    page.select_option("#f-zone", "local")
    assert "Asia/" in page.locator("#f-zone option:checked").inner_text()  # the zone is named
    page.fill("#f-when", "2010-11-04T08:42:55.657")  # UTC+7
    page.wait_for_function(f"document.querySelector('#out-id')?.textContent === '{SEED_ID}'")
    assert page.input_value("#f-timestamp") == "1288834975657"


@pytest.mark.parametrize(
    ("lang", "timestamp_hint", "sequence_hint"),
    [
        ("en", "Leave blank for now.", "Leave blank for 0."),
        ("vi", "Để trống để dùng thời gian hiện tại.", "Để trống nghĩa là 0."),
    ],
)
def test_the_hints_say_what_a_blank_field_means(
    page: Any, base_url: str, lang: str, timestamp_hint: str, sequence_hint: str
) -> None:
    page.goto(f"{base_url}/?lang={lang}")
    assert page.locator("#hint-timestamp").inner_text().endswith(timestamp_hint)
    assert page.locator("#hint-sequence").inner_text().endswith(sequence_hint)


@pytest.mark.parametrize(("lang", "word"), [("en", "Step"), ("vi", "Bước")])
def test_the_formula_steps_are_numbered_once(
    page: Any, base_url: str, lang: str, word: str
) -> None:
    page.goto(f"{base_url}/?lang={lang}&{SEED}")
    labels = page.locator("#out-steps > li > .step-label").all_inner_texts()
    assert [label.split(" —")[0] for label in labels] == [f"{word} 1", f"{word} 2", f"{word} 3"]
    assert (
        page.evaluate("getComputedStyle(document.querySelector('#out-steps')).listStyleType")
        == "none"
    )  # no "1." before "Step 1"
    shifts = page.locator("#out-steps .shifts > li").all_inner_texts()
    assert len(shifts) == 4
    assert not any(word in shift for shift in shifts)  # sub-steps carry no number of their own


def test_long_bit_strings_are_grouped_in_fours_and_copy_as_plain_digits(
    page: Any, base_url: str
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto(f"{base_url}/?lang=en&{SEED}")
    groups = page.locator(".block-timestamp .block-bits .g").all_inner_texts()
    assert groups == ["0"] + ["0000"] * 7 + ["0011", "1110", "1000"]
    gap = page.evaluate(
        "getComputedStyle(document.querySelectorAll('.block-timestamp .g')[0]).marginRight"
    )
    assert float(gap.removesuffix("px")) > 2  # a visible gap between groups
    assert len(page.locator("#out-binary .g").all()) == 16
    copied = page.evaluate(
        """async () => {
            const range = document.createRange();
            range.selectNodeContents(document.querySelector('.block-timestamp .block-bits'));
            getSelection().removeAllRanges();
            getSelection().addRange(range);
            document.execCommand('copy');
            return navigator.clipboard.readText();
        }"""
    )
    assert copied == format(1000, "041b")


def test_the_live_region_announces_the_id_not_the_whole_result(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/?lang=en&{SEED}")
    assert page.locator("#result").get_attribute("aria-live") is None
    assert page.locator("[aria-live], [role=status]#announce").count() >= 1
    page.fill("#f-machine", "2")
    page.wait_for_function("document.getElementById('announce').textContent !== ''")
    text = page.locator("#announce").text_content() or ""
    new_id = page.locator("#out-id").inner_text()
    assert text == f"Result: ID {new_id}"
    assert page.get_attribute("#announce", "role") == "status"


def test_the_now_button_is_named_by_its_visible_text(page: Any, base_url: str) -> None:
    for lang, text in (("en", "Now"), ("vi", "Bây giờ")):
        page.goto(f"{base_url}/?lang={lang}")
        button = page.get_by_role("button", name=text, exact=True)
        assert button.inner_text() == text
