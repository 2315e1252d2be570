"""Real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright.

Never ``playwright install``: the browser is the system one. Without it the browser
tests skip, except under CI, where a missing browser is a failure.

The page's Content-Security-Policy allows no inline or evaluated script, and Playwright's
``wait_for_function``/``evaluate`` with a string and any injected checker are just that:
the contexts here bypass the CSP (``bypass_csp=True``). The test that the page itself
runs under its CSP asks ``browser_factory(bypass_csp=False)``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snowid.web import Settings, create_app
from tests.support.web import fixed_identity_service, serving

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
# axe-core, pinned and installed from the npm registry by scripts/test.
AXE = Path(__file__).resolve().parents[3] / ".cache/node/node_modules/axe-core/axe.min.js"
# How long a browser action or check may wait (Playwright's default is 30 s, and 5 s for
# expect()): a harness margin, as on a busy 2-core machine Chromium renders slowly (a
# 30 s wait ran out with both cores taken). A test that proves something happens at once
# bounds that itself.
WAIT_MS = 120_000
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if CHROMIUM.exists() or os.environ.get("CI"):
        return
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is missing (apt-get install chromium)")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


# Package scope, not session: Playwright's sync API keeps an event loop running on the
# main thread while it is open, and asyncio.run() in later test modules would refuse to start.
@pytest.fixture(scope="package")
def playwright() -> Iterator[Any]:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="package")
def browser(playwright: Any) -> Iterator[Any]:
    with tempfile.TemporaryDirectory(prefix="snowid-chromium-") as profile:
        # A persistent context is the only way to hand Chromium a fresh --user-data-dir.
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
            bypass_csp=True,
        )
        context.set_default_timeout(WAIT_MS)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="package")
def browser_factory(playwright: Any) -> Iterator[Any]:
    """Makes extra contexts (phone size, JavaScript off, the CSP enforced), each with its own
    fresh profile; they bypass the CSP unless ``bypass_csp=False`` is given."""
    made: list[Any] = []
    dirs: list[tempfile.TemporaryDirectory[str]] = []

    def make(**options: Any) -> Any:
        profile = tempfile.TemporaryDirectory(prefix="snowid-chromium-")
        dirs.append(profile)
        context = playwright.chromium.launch_persistent_context(
            profile.name,
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            **{"bypass_csp": True, **options},
        )
        context.set_default_timeout(WAIT_MS)
        made.append(context)
        return context

    try:
        yield make
    finally:
        for context in made:
            context.close()
        for profile in dirs:
            profile.cleanup()


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serving(create_app(Settings(), service=fixed_identity_service(1, 1))) as url:
        yield url


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page()
    browser.clear_cookies()
    try:
        yield page
    finally:
        page.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def axe_script() -> Path:
    """axe.min.js; missing, the accessibility tests skip (fail under CI): run scripts/test."""
    if not AXE.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{AXE} is missing: scripts/test installs axe-core")
        pytest.skip(f"{AXE} is missing: scripts/test installs axe-core")
    return AXE
