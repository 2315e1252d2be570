"""axe-core in Chromium: no accessibility violation on any page state (issue 10 item 6, and
issue 11's layout picker, readings, warnings and time-range page).

Each page is checked in both languages, with and without errors, at desktop and phone
widths, in the light and the dark scheme, with axe's experimental rules on too
(label-content-name-mismatch is one). The page's own Content-Security-Policy is enforced
(issue 25 §2): axe is loaded from the page's origin through a Playwright route, which
``script-src 'self'`` allows, rather than injected inline (which needed the CSP bypassed).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SEED = "timestamp=1288834975657&datacenter=1&machine=1&sequence=0"
MANY = "%0A".join(["4194439168", "0x1", "nope", "1541815603606036480"])
STATES = {
    "compose": f"/?{SEED}",
    "compose-errors": "/?timestamp=1288834975&datacenter=32&machine=x&sequence=5000",
    "decode-empty": "/decode",
    "decode": "/decode?id=1541815603606036480",
    "decode-many": f"/decode?id={MANY}",
    "decode-errors": "/decode?id=9223372036854775808",
    # issue 11: another layout, a warning with the other readings, the time-range page
    "decode-discord": "/decode?id=175928847299117063&layout=discord",
    "decode-warning": "/decode?id=20",
    "range": "/range?from=2016-04-30T11:18:25.796&to=2016-04-30T11:18:26&layout=discord",
    "range-errors": "/range?from=&to=soon&layout=myspace",
}
SIZES = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
    },
    "desktop-dark": {"viewport": {"width": 1280, "height": 900}, "color_scheme": "dark"},
}
RUN_AXE = """async () => {
    const rules = {};
    for (const rule of axe.getRules(["experimental"])) { rules[rule.ruleId] = {enabled: true}; }
    const result = await axe.run(document, {rules, resultTypes: ["violations"]});
    return result.violations.map(v => `${v.id} (${v.impact}): ${v.help} at ` +
        v.nodes.slice(0, 5).map(n => JSON.stringify(n.target)).join(", "));
}"""


@pytest.fixture(scope="module", params=list(SIZES))
def sized_page(request: pytest.FixtureRequest, browser_factory: Any) -> Iterator[Any]:
    context = browser_factory(bypass_csp=False, **SIZES[request.param])
    page = context.new_page()
    yield page
    page.close()


AXE_PATH = "/__test-only__/axe.min.js"
"""Where the page loads axe from: a Playwright route answers it with the file, from the
page's own origin, so ``script-src 'self'`` allows it and the CSP need not be bypassed."""


def violations(page: Any, axe: Path) -> list[str]:
    """axe's violations on the page as it is now, one line each (rule, impact, where).
    axe is loaded as a same-origin script (``AXE_PATH``, answered by a route), which works
    with the page's real Content-Security-Policy as well as with it bypassed."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        if not getattr(page, "_snowid_axe_routed", False):
            page.route(
                f"**{AXE_PATH}",
                lambda route: route.fulfill(path=str(axe), content_type="text/javascript"),
            )
            page._snowid_axe_routed = True
        page.add_script_tag(url=AXE_PATH)
    found: list[str] = page.evaluate(RUN_AXE)
    return found


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
