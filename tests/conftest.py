"""Fixtures shared by several test modules."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.pg import fresh_table


@pytest.fixture
def table() -> Iterator[str]:
    """A fresh, initialised lease table in the test database, dropped afterwards."""
    with fresh_table() as name:
        yield name
