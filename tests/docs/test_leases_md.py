"""docs/leases.md: its python example runs on a fresh PostgreSQL table (tests/docs/snippets.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs import snippets
from tests.docs.snippets import Example

PAGE = "docs/leases.md"


def test_the_page_has_examples() -> None:
    assert snippets.blocks(PAGE, "python")


@pytest.mark.parametrize("block", snippets.python_params(PAGE))
def test_each_python_example_runs_and_shows_what_it_says(
    block: Example, tmp_path: Path, pg_url: str
) -> None:
    snippets.run_python(block, tmp_path, pg_url)
