"""axe-core in Chromium: no accessibility violation on any page state (issue 10 item 6).

Each page is checked in both languages, with and without errors, at desktop and phone
widths. axe is injected as a script, which the page's Content-Security-Policy would refuse:
the contexts here bypass it (``bypass_csp=True``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

SEED = "timestamp=1288834975657&datacenter=1&machine=1&sequence=0"
STATES = {
    "compose-ok": f"/?{SEED}",
    "compose-errors": "/?timestamp=1288834975&datacenter=32&machine=x&sequence=5000",
    "decode-ok": "/decode?id=1541815603606036480",
    "decode-errors": "/decode?id=9223372036854775808",
    "decode-empty": "/decode",
}
WIDTHS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module", params=list(WIDTHS))
def sized(request: pytest.FixtureRequest, browser_factory: Any) -> Iterator[tuple[str, Any]]:
    name = request.param
    options: dict[str, Any] = {"viewport": WIDTHS[name], "bypass_csp": True}
    if name == "phone":
        options.update(device_scale_factor=2, is_mobile=True, has_touch=True)
    context = browser_factory(**options)
    page = context.new_page()
    yield name, page
    page.close()


def violations(page: Any, axe: Path) -> list[str]:
    """axe's violations on the page as it is now, one line each (rule, impact, where)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(axe))
    # The experimental rules too (label-content-name-mismatch is one): they are off by default.
    found = page.evaluate(
        """async () => {
            const rules = {};
            for (const rule of axe.getRules(["experimental"])) {
                rules[rule.ruleId] = {enabled: true};
            }
            const result = await axe.run(document, {rules, resultTypes: ["violations"]});
            return result.violations;
        }"""
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + ", ".join(str(node["target"]) for node in v["nodes"][:5])
        for v in found
    ]


@pytest.mark.parametrize("lang", ["en", "vi"])
@pytest.mark.parametrize("state", list(STATES))
def test_axe_finds_no_violation(
    sized: tuple[str, Any], base_url: str, axe_script: Path, state: str, lang: str
) -> None:
    _, page = sized
    path = STATES[state]
    joiner = "&" if "?" in path else "?"
    page.goto(f"{base_url}{path}{joiner}lang={lang}")
    page.wait_for_load_state("load")
    assert violations(page, axe_script) == []
