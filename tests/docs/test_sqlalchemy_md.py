"""docs/sqlalchemy.md: its python examples run as written (tests/docs/snippets.py).

The model block runs as a script here; tests/integrations/test_alembic.py takes the same
model through Alembic on PostgreSQL and MariaDB and runs the two repair migrations
(``upgrade()``) against tables made the old way, and tests/integrations/test_extras.py
checks the page's install lines against the extras.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs import snippets
from tests.docs.snippets import Example

PAGE = "docs/sqlalchemy.md"
LEFT_OUT = {"Repairing it": "tests/integrations/test_alembic.py"}


def test_the_page_has_examples_and_what_is_left_out_runs_elsewhere() -> None:
    assert snippets.python_params(PAGE, LEFT_OUT)
    snippets.check_left_out(PAGE, LEFT_OUT)


@pytest.mark.parametrize("block", snippets.python_params(PAGE, LEFT_OUT))
def test_each_python_example_runs_and_shows_what_it_says(
    block: Example, tmp_path: Path, pg_url: str
) -> None:
    snippets.run_python(block, tmp_path, pg_url)
