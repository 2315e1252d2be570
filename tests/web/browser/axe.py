"""The page states the accessibility checks load, and the check itself: axe-core run on a
page as it is now (test_axe, and test_screens in the same load as each state's picture)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SEED = "timestamp=1288834975657&datacenter=1&machine=1&sequence=0"
MANY = "%0A".join(["4194439168", "0xfa021000", "hello", "1541815603606036480", str((1 << 63) - 1)])
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
RUN_AXE = """async () => {
    const rules = {};
    for (const rule of axe.getRules(["experimental"])) { rules[rule.ruleId] = {enabled: true}; }
    const result = await axe.run(document, {rules, resultTypes: ["violations"]});
    return result.violations.map(v => `${v.id} (${v.impact}): ${v.help} at ` +
        v.nodes.slice(0, 5).map(n => JSON.stringify(n.target)).join(", "));
}"""


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
