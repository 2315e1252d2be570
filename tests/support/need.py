"""What a test does when a server or program it needs is missing."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def unavailable(what: str) -> NoReturn:
    """Fail in CI (scripts/test installs and starts everything the tests need), skip
    elsewhere, saying ``what`` is missing."""
    if os.environ.get("CI"):
        pytest.fail(what)
    pytest.skip(what)
