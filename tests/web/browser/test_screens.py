"""Every page state at desktop width and at 390 px, saved to tests/artifacts/ for a person
to look at, with the layout faults a look would catch checked here too: nothing sticking out
sideways, each copy button on its id's line, the bit blocks in one row on a desktop.

The page's own Content-Security-Policy is enforced, and the states tests/web/browser/axe.py names are
checked with axe in the same load (``AXE_STATES``): test_axe itself checks them in the dark
scheme, so each state is loaded once per size for its picture and its accessibility check."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser.axe import MANY, violations
from tests.web.browser.axe import STATES as AXE_STATES

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SEED = "timestamp=1288834975657&datacenter=1&machine=1&sequence=0"
MANY_SONY = "%0A".join(["175928847299117063", "20", "0x1", str((1 << 63) - 1)])


def _stale(page: Any) -> None:
    page.evaluate("document.getElementById('compose-form').dataset.pauseMs = '60000'")
    page.fill("#f-machine", "77")
    page.wait_for_function("() => document.getElementById('result').classList.contains('stale')")


def _stale_with_error(page: Any) -> None:
    page.fill("#f-machine", "77")
    page.keyboard.press("Tab")
    page.locator("#err-machine").wait_for(state="visible")


def _faq_open(page: Any) -> None:
    for summary in page.locator("#faq summary").all():
        summary.click()
    page.locator("#faq").scroll_into_view_if_needed()


def _copied(page: Any) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    for button in page.locator("#result button.copy").all():
        button.click()
    page.wait_for_function("() => document.querySelector('.copy-link + .copied').textContent")


# name: (address, what to do after loading)
STATES: dict[str, tuple[str, Callable[[Any], None] | None]] = {
    "compose": (f"/?{SEED}", None),
    "compose-max": ("/?timestamp=3487858230208&datacenter=31&machine=31&sequence=4095", None),
    "compose-errors": ("/?timestamp=1288834975&datacenter=32&machine=x&sequence=5000", None),
    "compose-typing": (f"/?{SEED}", _stale),
    "compose-stale-error": (f"/?{SEED}", _stale_with_error),
    "compose-copied": (f"/?{SEED}", _copied),
    "compose-faq": (f"/?{SEED}", _faq_open),
    "decode-empty": ("/decode", None),
    "decode": ("/decode?id=1541815603606036480", None),
    "decode-hex": ("/decode?id=0x7fffffffffffffff", None),
    "decode-many": (f"/decode?id={MANY}", None),
    "decode-errors": ("/decode?id=9223372036854775808", None),
    # issue 11: other layouts, readings side by side, warnings, the time-range page
    "decode-discord": ("/decode?id=175928847299117063&layout=discord", None),
    "decode-warning": ("/decode?id=20", None),
    "decode-mastodon-far": (f"/decode?id={(1 << 64) - 1}&layout=mastodon", None),
    "decode-many-sonyflake": (f"/decode?id={MANY_SONY}&layout=sonyflake", None),
    "range": ("/range?from=2016-04-30T11:18:25.796&to=2016-04-30T11:18:26&layout=discord", None),
    "range-notes": (
        "/range?from=2000-01-01T00:00&to=2014-09-01T00:00:00.019&layout=sonyflake",
        None,
    ),
    "range-errors": ("/range?from=&to=soon&layout=myspace", None),
    "not-found": ("/no/such/page", None),
}
SIZES = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
    },
}


@pytest.fixture(scope="module", params=list(SIZES))
def sized(request: pytest.FixtureRequest, browser_factory: Any) -> Iterator[tuple[str, Any]]:
    """One page per size, each state loaded into it in turn (a new tab per state cost about
    0.2 CPU-seconds more); a state's action changes only that load's document. The page's
    Content-Security-Policy is enforced, as for test_axe's checks."""
    page = browser_factory(bypass_csp=False, **SIZES[request.param]).new_page()
    try:
        yield request.param, page
    finally:
        page.close()


def _box(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return dict(box)


@pytest.mark.parametrize("lang", ["en", "vi"])
@pytest.mark.parametrize("state", list(STATES))
def test_every_state_looks_right(
    sized: tuple[str, Any],
    base_url: str,
    artifacts: Path,
    *,
    axe_script: Path,
    state: str,
    lang: str,
) -> None:
    size, page = sized
    path, action = STATES[state]
    joiner = "&" if "?" in path else "?"
    page.goto(f"{base_url}{path}{joiner}lang={lang}", wait_until="load")
    page.wait_for_selector("html.js")
    if action is not None:
        action(page)
    file = artifacts / f"page-{state}-{lang}-{size}.png"
    # one image pixel per CSS pixel: a phone's 2x image took twice the CPU to encode, and
    # the page is still laid out and painted at the phone's own device pixel ratio
    page.screenshot(path=str(file), full_page=True, scale="css")
    assert file.stat().st_size > 10_000
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "sideways"
    for shown in ("#out-id", "#out-low", "#out-high"):
        if page.locator(shown).count():
            identifier, button = _box(page, shown), _box(page, f"{shown} + .copy-wrap")
            # the copy button sits on the id's line, not wrapped under it
            assert button["y"] < identifier["y"] + identifier["height"]
            assert button["x"] + button["width"] <= width
    if size == "desktop" and page.locator("#out-bits").count():
        tops = {
            round(b["y"])
            for b in page.locator("#out-bits .block").evaluate_all(
                "blocks => blocks.map(b => b.getBoundingClientRect().toJSON())"
            )
        }
        assert len(tops) == 1, "the blocks (five for Twitter) share one row"
    if state in AXE_STATES:
        assert STATES[state][0] == AXE_STATES[state], f"{state}: test_axe loads another address"
        assert violations(page, axe_script) == [], f"axe, {state}, {lang}, {size}"
