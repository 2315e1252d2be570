"""Issue 25 §1 in Chromium, where the page's script matters: a layout picked once is
remembered, and a later tweet link typed into the live form is read as the tweet, not
through the remembered layout; clicking that layout makes it the visitor's own choice,
which the link refuses on the layout field, and its fix button reads the link in its own
layout. axe finds nothing on the refusal with its button, nor on the result with the row
of times to copy."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.web.browser.axe import violations

pytestmark = [pytest.mark.slow, pytest.mark.browser]

TWEET_LINK = "https://x.com/elonmusk/status/1585341984679469056"
TWEET_UTC = "2022-10-26T18:45:58.034Z"  # read as Discord it was 2026-12-23


def test_a_remembered_layout_never_reads_a_link_and_a_picked_one_is_refused(
    page: Any, base_url: str, axe_script: Path
) -> None:
    page.goto(f"{base_url}/decode?lang=en&id=175928847299117063")
    page.wait_for_selector("html.js")
    page.check("#f-layout-discord")  # picked once: remembered for a year
    page.locator("#out-layout[data-layout='discord']").wait_for()

    page.goto(f"{base_url}/decode?lang=en")  # later: an empty form
    page.wait_for_selector("html.js")
    assert page.is_checked("#f-layout-discord")
    page.fill("#f-id", TWEET_LINK)
    page.locator(f"#out-utc[datetime='{TWEET_UTC}']").wait_for()
    assert page.locator("#out-layout").get_attribute("data-layout") == "twitter"
    query = parse_qs(urlsplit(page.url).query)
    assert (query["layout"], query["remembered"]) == (["discord"], ["discord"])
    copies = page.locator("#out-copies").inner_text()
    assert "<t:1666809958:F>" in copies
    assert violations(page, axe_script) == []

    page.check("#f-layout-twitter")  # the visitor's own choice now, then back to Discord
    page.wait_for_url("**layout=twitter**")
    page.check("#f-layout-discord")
    error = page.locator("#err-layout .fix")
    error.wait_for()
    assert "contradicts the pasted link" in page.locator("#err-layout").inner_text()
    assert "remembered" not in parse_qs(urlsplit(page.url).query)
    assert violations(page, axe_script) == []
    error.click()  # "Read it as Twitter"
    page.locator("#err-layout").wait_for(state="hidden")
    page.wait_for_url("**layout=twitter**")
    assert page.is_checked("#f-layout-twitter")
    assert page.locator("#out-layout").get_attribute("data-layout") == "twitter"
    assert page.locator("#out-utc").get_attribute("datetime") == TWEET_UTC
