"""axe-core in Chromium: no accessibility violation on any page state (issue 10 item 6, and
issue 11's layout picker, readings, warnings and time-range page).

Each page is checked in both languages, with and without errors, at desktop and phone
widths, in the light and the dark scheme, with axe's experimental rules on too
(label-content-name-mismatch is one). The light scheme at desktop and phone width is
checked by test_screens, in the same load as each state's screenshot (``STATES`` here names
the states, ``violations`` is the check); this module checks the dark scheme and the states
only the script makes. The page's own Content-Security-Policy is enforced
(issue 25 §2): axe is loaded from the page's origin through a Playwright route, which
``script-src 'self'`` allows, rather than injected inline (which needed the CSP bypassed).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser.axe import SEED, STATES, violations

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SIZES = {
    "desktop-dark": {"viewport": {"width": 1280, "height": 900}, "color_scheme": "dark"},
}


@pytest.fixture(scope="module", params=list(SIZES))
def sized_page(request: pytest.FixtureRequest, browser_factory: Any) -> Iterator[Any]:
    context = browser_factory(bypass_csp=False, **SIZES[request.param])
    page = context.new_page()
    yield page
    page.close()


@pytest.mark.parametrize("lang", ["en", "vi"])
@pytest.mark.parametrize("state", list(STATES))
def test_axe_finds_no_violation(
    sized_page: Any, base_url: str, axe_script: Path, state: str, lang: str
) -> None:
    path = STATES[state]
    joiner = "&" if "?" in path else "?"
    sized_page.goto(f"{base_url}{path}{joiner}lang={lang}")
    sized_page.wait_for_selector("html.js")  # app.js has run: copy buttons, date input shown
    assert violations(sized_page, axe_script) == []


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_axe_finds_no_violation_in_the_live_states(
    page: Any, base_url: str, axe_script: Path, lang: str
) -> None:
    """States only the script makes: a stale result with its error shown (its copy buttons
    disabled, issue 19 §5), every FAQ answer open, a copied status (copied while the result
    was fresh, and kept on screen for the check)."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto(f"{base_url}/?lang={lang}&{SEED}")
    page.wait_for_selector("html.js")
    page.evaluate("document.body.dataset.copiedMs = '600000'")
    page.locator("#out-id + .copy-wrap button").click()
    page.wait_for_function("document.querySelector('#out-id + .copy-wrap .copied').textContent")
    page.fill("#f-machine", "99")
    page.keyboard.press("Tab")
    page.locator("#err-machine").wait_for(state="visible")
    page.wait_for_function("document.getElementById('result').classList.contains('stale')")
    for summary in page.locator("#faq summary").all():
        summary.click()
    assert violations(page, axe_script) == []
