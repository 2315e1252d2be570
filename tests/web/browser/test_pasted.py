"""Issue 19 §1-§2 in Chromium, once per language: a Discord link pasted into the decoder is
read live as Discord, the message leading and its channel and server labelled after it
(issue 25), and the chosen layout said; a number written
with the language's digit groups is read and its plain digits shown; axe finds nothing on
those states nor on the ambiguous-group error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.web.browser.axe import violations

pytestmark = [pytest.mark.slow, pytest.mark.browser]

LINK = "https://discord.com/channels/81384788765712384/381886868708655104/1000000000000000000"
WORDS = {
    "en": {
        "source": "Read as Discord",
        "lead": "The result is the message the link points to (1000000000000000000)",
        "server": "server",
        "plain": "Read as 1288834975657.",
    },
    "vi": {
        "source": "Đọc theo bố cục Discord",
        "lead": "Kết quả là tin nhắn mà liên kết trỏ tới (1000000000000000000)",
        "server": "máy chủ",
        "plain": "Đã đọc thành 1288834975657.",
    },
}
GROUPED = {"en": "1,288,834,975,657", "vi": "1.288.834.975.657"}
AMBIGUOUS = {"en": "1.000", "vi": "1,000"}


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_a_pasted_link_and_a_grouped_number_are_read_live(
    page: Any, base_url: str, lang: str
) -> None:
    words = WORDS[lang]
    page.goto(f"{base_url}/decode?lang={lang}")
    page.wait_for_selector("html.js")
    page.fill("#f-id", LINK)
    page.locator("#out-linked").wait_for()  # issue 25: the message leads, the rest follow
    notes = page.locator("#result .pasted-notes").inner_text()
    assert words["source"] in notes
    assert words["lead"] in notes
    assert page.locator("#out-id").inner_text().strip() == "1000000000000000000"
    labels = [cell.inner_text() for cell in page.locator("#out-linked .id-label").all()]
    assert len(labels) == 2
    assert labels[-1] == words["server"]
    page.fill("#f-id", GROUPED[lang])
    notes = page.locator("#result .pasted-notes")
    notes.filter(has_text="1288834975657").wait_for()
    assert words["plain"] in notes.inner_text()
    assert page.locator("#out-id").inner_text().strip() == "1288834975657"
    assert page.locator("#err-id").is_hidden()


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_axe_finds_no_violation_on_the_pasted_states(
    page: Any, base_url: str, axe_script: Path, lang: str
) -> None:
    for value in (LINK, GROUPED[lang], AMBIGUOUS[lang]):
        page.goto(f"{base_url}/decode?lang={lang}&id={value}")
        page.wait_for_selector("html.js")
        assert violations(page, axe_script) == [], value
