"""The store the docs' examples run against (tests/docs/snippets.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.docs.snippets import EXAMPLE_PG, Example
from tests.support.pg import PG, fresh_table


@pytest.fixture
def pg_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh lease table for an example that names the examples' store; others get none."""
    example = next(
        value for value in request.node.callspec.params.values() if isinstance(value, Example)
    )
    if EXAMPLE_PG not in example.code:
        yield EXAMPLE_PG  # nothing to replace
        return
    with fresh_table() as table:
        yield f"{PG}?table={table}"
