"""Issue 19 §5 and §7 in Chromium: errors a visitor can act on, the copy buttons, the range
in local time, the 100-id table, the skip link; on a 390 px phone the live result beside
the fields and the bits drawn to scale. Each item in both languages; axe on every new
state, in the light and the dark scheme; the fixes also without JavaScript."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser import phone as phone_device
from tests.web.browser.axe import violations

pytestmark = [pytest.mark.slow, pytest.mark.browser]

# UTC+7 all year (ICU calls Ho Chi Minh City Asia/Saigon)
PHONE = {**phone_device.PHONE, "timezone_id": "Asia/Bangkok"}
SEED = "timestamp=1288834975657&datacenter=1&machine=1&sequence=0"
SECONDS = "timestamp=1700000000&datacenter=1&machine=1&sequence=0"
REVERSED = "from=2024-01-02T00:00&to=2024-01-01T00:00&layout=twitter"
IDS = ["1800000000000000000", "4194439168", "1541815603606036480"]
SWAP = {"en": "Swap the two times", "vi": "Đổi chỗ hai thời điểm"}
SECONDS_FIX = {"en": "Looks like seconds", "vi": "Có vẻ là giây"}
COPY_ALL = {"en": "Copy all", "vi": "Sao chép tất cả"}
LOCAL = {"en": "Local time (Asia/Bangkok)", "vi": "giờ địa phương (Asia/Bangkok)"}


@pytest.fixture(scope="module")
def phone(browser_factory: Any, base_url: str) -> Any:
    context = browser_factory(**PHONE)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    return context


@pytest.fixture(scope="module")
def phone_dark(browser_factory: Any) -> Any:
    return browser_factory(**PHONE, color_scheme="dark")


@pytest.fixture(scope="module")
def no_script(browser_factory: Any) -> Any:
    return browser_factory(java_script_enabled=False)


@pytest.fixture
def small(phone: Any) -> Iterator[Any]:
    yield from phone_device.one_page(phone)


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, selector
    return dict(found)


def place(page: Any, selector: str) -> list[float]:
    """Where ``selector`` is on the page (not in the viewport, which scrolls): x, y, w, h."""
    found: list[float] = page.locator(selector).evaluate(
        "el => { const r = el.getBoundingClientRect();"
        " return [r.x + scrollX, r.y + scrollY, r.width, r.height]; }"
    )
    return found


def load(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("html.js")  # app.js has run


# --- §5: errors a visitor can act on -----------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_seconds_hint_is_a_button_that_puts_the_milliseconds_in_the_field(
    page: Any, base_url: str, lang: str
) -> None:
    load(page, f"{base_url}/?lang={lang}&{SEED}")
    page.fill("#f-timestamp", "1700000000")
    page.keyboard.press("Tab")  # leaving the field shows its message at once
    fix = page.locator("#err-timestamp button.fix")
    fix.wait_for(state="visible")
    assert SECONDS_FIX[lang] in fix.inner_text()
    # what is wrong first, then the fix, then the range in smaller text
    lead, detail = (
        box(page, "#err-timestamp .error-lead"),
        box(page, "#err-timestamp .error-detail"),
    )
    assert lead["y"] < box(page, "#err-timestamp button.fix")["y"] < detail["y"]
    size = "parseFloat(getComputedStyle(document.querySelector('{}')).fontSize)"
    assert page.evaluate(size.format("#err-timestamp .error-detail")) < page.evaluate(
        size.format("#err-timestamp .error-lead")
    )
    fix.click()
    page.wait_for_url("**timestamp=1700000000000**")
    assert page.input_value("#f-timestamp") == "1700000000000"
    assert page.evaluate("document.activeElement.id") == "f-timestamp"
    page.locator("#err-timestamp").wait_for(state="hidden")
    assert page.locator("#out-id").inner_text() == "1724551110456381440"


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_a_reversed_range_is_swapped_with_one_click(small: Any, base_url: str, lang: str) -> None:
    load(small, f"{base_url}/range?lang={lang}&{REVERSED}")
    assert small.locator("#f-to").get_attribute("aria-invalid") == "true"
    small.get_by_role("button", name=SWAP[lang]).click()
    small.locator("#out-low").wait_for()
    assert small.input_value("#f-from").startswith("2024-01-01T00:00")
    assert small.input_value("#f-to").startswith("2024-01-02T00:00")
    assert small.locator("#err-to").is_hidden()
    assert "from=2024-01-01" in small.url


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_both_fixes_work_without_javascript(no_script: Any, base_url: str, lang: str) -> None:
    page = no_script.new_page()
    page.goto(f"{base_url}/?lang={lang}&{SECONDS}")
    page.locator("#err-timestamp button.fix").click()
    page.wait_for_url("**timestamp=1700000000000**")
    assert page.locator("#out-id").inner_text() == "1724551110456381440"
    page.goto(f"{base_url}/range?lang={lang}&{REVERSED}")
    page.press("#f-from", "Enter")  # Enter submits the form as it is: no swap by itself
    page.wait_for_url("**zone=UTC**")  # the form's own fields, sent by its submit button
    assert "fix=" not in page.url
    assert page.locator("#err-to").is_visible()
    page.get_by_role("button", name=SWAP[lang]).click()
    page.wait_for_url("**from=2024-01-01**")
    assert page.locator("#out-low").is_visible()
    assert page.locator("#err-to").is_hidden()


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_range_reads_local_time_in_the_zone_it_names(
    small: Any, base_url: str, lang: str
) -> None:
    load(small, f"{base_url}/range?lang={lang}")
    small.select_option("#f-zone", label=LOCAL[lang])
    small.fill("#f-from", "2024-01-01T07:00")
    small.fill("#f-to", "2024-01-01T08:00")
    # The result follows each field as it is typed: wait until it shows the second one (on a
    # busy machine "to" still showed the default, now, when it was read at once).
    small.locator('#out-to[datetime="2024-01-01T01:00:00.000Z"]').wait_for()
    assert "zone=Asia%2FBangkok" in small.url
    assert small.locator("#out-from").get_attribute("datetime") == "2024-01-01T00:00:00.000Z"
    assert small.locator("#out-from-local").inner_text() == "2024-01-01 07:00:00.000"
    assert small.locator("#out-to").get_attribute("datetime") == "2024-01-01T01:00:00.000Z"


# --- §5: the copy buttons, on a phone -------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_copied_clears_moves_nothing_and_waits_for_a_fresh_result(
    small: Any, base_url: str, lang: str
) -> None:
    load(small, f"{base_url}/?lang={lang}&{SEED}")
    small.evaluate("document.body.dataset.copiedMs = '1000'")  # the page's 2.5 s, shortened
    button = small.locator("#out-id + .copy-wrap button.copy")
    before = place(small, "#out-id + .copy-wrap button.copy")
    button.click()
    status = small.locator("#out-id + .copy-wrap .copied")
    status.wait_for(state="visible")
    assert place(small, "#out-id + .copy-wrap button.copy") == before  # nothing pushed
    assert small.evaluate("navigator.clipboard.readText()") == "4194439168"
    status.wait_for(state="hidden", timeout=60_000)  # "Copied" clears after a moment
    # out of date (a bad value being typed): nothing in the result can be copied
    small.evaluate("document.getElementById('compose-form').dataset.pauseMs = '60000'")
    small.fill("#f-machine", "77")
    small.wait_for_function("document.getElementById('result').classList.contains('stale')")
    assert all(b.is_disabled() for b in small.locator("#result button.copy").all())
    small.fill("#f-machine", "2")
    small.wait_for_function("!document.getElementById('result').classList.contains('stale')")
    assert not any(b.is_disabled() for b in small.locator("#result button.copy").all())


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_copy_link_of_a_blank_timestamp_copies_the_millisecond_used(
    small: Any, base_url: str, lang: str
) -> None:
    load(small, f"{base_url}/?lang={lang}&timestamp=&datacenter=1&machine=1&sequence=0")
    shown = small.locator("#out-id").inner_text()
    used = (int(shown) >> 22) + 1288834974657
    note = small.locator("#link-note")
    assert str(used) in note.inner_text()
    small.locator("button.copy-link").click()
    small.locator(".copy-link + .copied").wait_for(state="visible")
    copied = small.evaluate("navigator.clipboard.readText()")
    assert f"timestamp={used}" in copied
    assert f"lang={lang}" in copied
    load(small, copied)  # the link opens the same id
    assert small.locator("#out-id").inner_text() == shown


# --- §5: the 100-id table, the announcements, the skip link ---------------------------------


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_table_copies_all_for_a_sheet_and_sorts_by_time(
    small: Any, base_url: str, lang: str
) -> None:
    load(small, f"{base_url}/decode?lang={lang}&id=" + "%0A".join(IDS))
    assert small.get_by_role("rowheader").all_inner_texts() == IDS
    small.get_by_role("button", name=COPY_ALL[lang]).click()
    lines = small.evaluate("navigator.clipboard.readText()").split("\n")
    assert [line.split("\t")[0] for line in lines[1:]] == IDS
    assert all(len(line.split("\t")) == 5 for line in lines)
    small.locator("#sort-time").click()
    small.locator("#out-sorted").wait_for()
    assert small.get_by_role("rowheader").all_inner_texts() == [IDS[1], IDS[2], IDS[0]]
    small.fill("#f-id", "\n".join([*IDS, "175928847299117063"]))  # typing keeps the sort
    small.wait_for_function("document.querySelectorAll('#out-table tbody tr').length === 4")
    assert small.get_by_role("rowheader").all_inner_texts()[-1] == IDS[0]


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_a_new_id_is_announced_once(page: Any, base_url: str, lang: str) -> None:
    load(page, f"{base_url}/?lang={lang}&{SEED}")
    page.fill("#f-sequence", "7")
    page.wait_for_function("document.getElementById('announce').textContent.includes('4194439175')")
    live = page.evaluate(
        """() => [...document.querySelectorAll('[role=status], [aria-live], output')]
            .filter(el => el.getAttribute('aria-live') !== 'off')
            .filter(el => el.textContent.includes('4194439175')).map(el => el.id)"""
    )
    assert live == ["announce"]


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_focused_skip_link_covers_no_tab(small: Any, base_url: str, lang: str) -> None:
    load(small, f"{base_url}/decode?lang={lang}")
    small.keyboard.press("Tab")
    assert small.evaluate("document.activeElement.className") == "skip"
    skip = box(small, "a.skip")
    for item in small.locator("header a").all():
        other = item.bounding_box()
        apart = (
            skip["y"] + skip["height"] <= other["y"]
            or other["y"] + other["height"] <= skip["y"]
            or skip["x"] + skip["width"] <= other["x"]
            or other["x"] + other["width"] <= skip["x"]
        )
        assert apart, item.inner_text()


# --- §7: the phone ------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_on_a_phone_the_id_and_its_time_stay_in_sight_while_typing(
    small: Any, base_url: str, lang: str
) -> None:
    load(small, f"{base_url}/?lang={lang}&{SEED}")
    assert box(small, "#out-id")["y"] > 844  # the full result is below the fold
    small.locator("#f-timestamp").click()
    small.keyboard.press("End")
    small.keyboard.press("Backspace")
    small.keyboard.type("8")  # 1288834975658: one millisecond later
    small.wait_for_function("document.getElementById('peek-id').textContent === '4198633472'")
    peek, field = box(small, "#peek"), box(small, "#f-timestamp")
    assert field["y"] + field["height"] <= peek["y"]
    assert peek["y"] + peek["height"] <= 844  # in sight, with the field being typed in
    assert "2010-11-04 01:42:55.658 UTC" in small.locator("#peek").inner_text()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_bits_are_drawn_to_scale_on_a_phone(
    request: pytest.FixtureRequest, base_url: str, lang: str, scheme: str
) -> None:
    page = request.getfixturevalue("phone" if scheme == "light" else "phone_dark").new_page()
    page.goto(f"{base_url}/?lang={lang}&timestamp=1700000000000&datacenter=17&machine=9")
    widths = page.evaluate(
        """() => [...document.querySelectorAll('#out-strip .strip-seg')].map(seg => {
            const cells = [...seg.children].map(c => c.getBoundingClientRect());
            return [cells.length, cells[cells.length - 1].right - cells[0].left];
        })"""
    )
    assert [bits for bits, _ in widths] == [1, 41, 5, 5, 12]
    per_bit = [width / bits for bits, width in widths if bits > 1]
    assert max(per_bit) - min(per_bit) < 1.0  # px: every bit as wide as any other
    assert widths[4][1] > 2 * widths[2][1]  # 12 bits of sequence over twice the 5 of datacenter
    assert widths[0][1] < widths[2][1] / 3  # the sign bit narrower than the machine's 5
    assert (
        page.evaluate("document.querySelector('#out-strip').getBoundingClientRect().right") <= 390
    )
    # the strip takes the blocks' colours of the scheme: a 1 in the block's edge colour
    edge = page.evaluate(
        """() => [getComputedStyle(document.querySelector('.block-timestamp')).borderTopColor,
            getComputedStyle(document.querySelector('.strip-timestamp i.b1')).backgroundColor]"""
    )
    assert edge[0] == edge[1]
    assert edge[0] == ("rgb(127, 162, 255)" if scheme == "dark" else "rgb(31, 79, 209)")
    assert page.locator("#out-bits").evaluate("el => el.tagName") == "OL"  # a list to read
    assert page.locator("#out-strip").get_attribute("aria-hidden") == "true"


# --- axe on every new state ----------------------------------------------------------------


def _typed_seconds(page: Any) -> None:
    page.fill("#f-timestamp", "1700000000")
    page.keyboard.press("Tab")
    page.locator("#err-timestamp button.fix").wait_for(state="visible")


def _stale_copies(page: Any) -> None:
    page.evaluate("document.getElementById('compose-form').dataset.pauseMs = '60000'")
    page.fill("#f-machine", "77")
    page.wait_for_function("document.getElementById('result').classList.contains('stale')")


NEW_STATES = {
    "seconds": (f"/?{SEED}", _typed_seconds),
    "stale-copies": (f"/?{SEED}", _stale_copies),
    "blank-timestamp": ("/?timestamp=&datacenter=1&machine=1&sequence=0", None),
    "range-reversed": (f"/range?{REVERSED}", None),
    "range-zone": ("/range?from=2024-01-01T07:00&to=2024-01-01T08:00&zone=Asia/Ho_Chi_Minh", None),
    "table-sorted": ("/decode?sort=time&id=" + "%0A".join([*IDS, "nope"]), None),
}


@pytest.mark.parametrize(("lang", "scheme"), [("en", "light"), ("vi", "dark")])
def test_axe_finds_no_violation_in_the_new_states(
    request: pytest.FixtureRequest, base_url: str, axe_script: Path, lang: str, scheme: str
) -> None:
    """Every new state on a phone, in each language and each colour scheme (the colours do
    not depend on the language: one scheme per language keeps the run short)."""
    page = request.getfixturevalue("phone" if scheme == "light" else "phone_dark").new_page()
    found = {}
    for name, (path, action) in NEW_STATES.items():
        load(page, f"{base_url}{path}&lang={lang}")
        if action is not None:
            action(page)
        found[name] = violations(page, axe_script)
    assert found == {name: [] for name in NEW_STATES}
