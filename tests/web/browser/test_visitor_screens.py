"""Issue 25 §2's visitor states, each screenshotted at phone (390×844) and desktop
(1280×800) size in both languages into tests/artifacts/, and each axe-clean with the
page's real Content-Security-Policy enforced (axe comes from the page's own origin
through a route: ``test_axe.violations``).

Cost: one page load per state; the states of a size and a language share one test and one
page, so the file is four tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser.axe import violations

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SEED = "timestamp=1288834975657&datacenter=1&machine=1&sequence=0"
TWEET = "https://x.com/elonmusk/status/1585341984679469056"
DISCORD_MESSAGE = (
    "https://discord.com/channels/81384788765712384/381887113391505410/1205573420456570920"
)


def _pasted(page: Any) -> None:
    """A link pasted into the empty decoder: on a phone the page moves to its result."""
    page.evaluate("text => navigator.clipboard.writeText(text)", TWEET)
    page.locator("#f-id").focus()
    page.keyboard.press("Control+V")
    page.locator("#out-id").wait_for()
    page.wait_for_function(
        "() => { const b = document.getElementById('h-result').getBoundingClientRect();"
        " return b.top >= 0 && b.bottom <= window.innerHeight; }"
    )


def _date_refused(page: Any) -> None:
    page.locator("#f-when").fill("26.10.2022")
    page.locator("#f-when").press("Tab")
    page.locator("#err-when").wait_for(state="visible")


def _machine_focused(page: Any) -> None:
    page.locator("#f-machine").focus()
    page.wait_for_timeout(50)  # app.js's check runs on the next frame


# name: (address, what to do after loading, whether the screenshot is the screen only)
STATES: dict[str, tuple[str, Callable[[Any], None] | None, bool]] = {
    "link-read": (f"/decode?id={TWEET}", None, False),
    "link-refused": ("/decode?id=https://example.com/status/1585341984679469056", None, False),
    "discord-message": (f"/decode?id={DISCORD_MESSAGE}", None, False),
    "emoji-and-pair": (
        "/decode?id=%3C%3Asnowid%3A175928847299117063%3E%0A381887113391505410-1205573420456570920",
        None,
        False,
    ),
    "time-hint": ("/decode?id=1666778400000", None, False),
    "pasted": ("/decode", _pasted, True),
    "range-date-refused": ("/range?from=2022&to=&layout=twitter", None, False),
    "range-seconds": ("/range?from=1666778400&to=&layout=twitter", None, False),
    "compose-date-refused": (f"/?{SEED}", _date_refused, False),
    "compose-field-focused": (f"/?{SEED}", _machine_focused, True),
}
SIZES = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {
        "viewport": {"width": 390, "height": 844},  # at 1 px per CSS px: half the cost
        "is_mobile": True,
        "has_touch": True,
    },
}


@pytest.fixture(scope="module", params=list(SIZES))
def sized(
    request: pytest.FixtureRequest, browser_factory: Any, base_url: str
) -> Iterator[tuple[str, Any]]:
    context = browser_factory(bypass_csp=False, reduced_motion="reduce", **SIZES[request.param])
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page = context.new_page()
    try:
        yield request.param, page
    finally:
        page.close()


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_each_visitor_state_is_screenshotted_and_axe_clean_under_the_csp(
    sized: tuple[str, Any], base_url: str, artifacts: Path, axe_script: Path, lang: str
) -> None:
    size, page = sized
    csp: list[str] = []
    page.on("console", lambda message: csp.append(message.text))
    found: dict[str, list[str]] = {}
    for state, (path, action, screen_only) in STATES.items():
        joiner = "&" if "?" in path else "?"
        response = page.goto(f"{base_url}{path}{joiner}lang={lang}", wait_until="load")
        assert response is not None
        assert "default-src 'self'" in response.headers["content-security-policy"]
        page.wait_for_selector("html.js")
        if action is not None:
            action(page)
        file = artifacts / f"visitor-{state}-{lang}-{size}.png"
        page.screenshot(path=str(file), full_page=not screen_only)
        assert file.stat().st_size > 10_000, state
        assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
        problems = violations(page, axe_script)
        if problems:
            found[state] = problems
    assert found == {}
    assert not [text for text in csp if "Content Security Policy" in text], csp
