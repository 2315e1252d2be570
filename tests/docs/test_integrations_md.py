"""docs/integrations.md: its python examples run and show what they say; its commands exit 0.

The runner is tests/docs/snippets.py. Blocks that need a framework's settings module or an
Alembic env.py rather than a script are left out here, and LEFT_OUT names the tests that run
the same code in a configured project against a real database; test_integrations_md_types.py
type-checks the SQLAlchemy and SQLModel blocks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs import snippets
from tests.docs.snippets import Example

PAGE = "docs/integrations.md"
LEFT_OUT = {
    "Django (`pip install 'snowid[django]'`, Django 5.2 LTS or later)": (
        "tests/integrations/test_django*.py"
    ),
    "Async SQLAlchemy (`pip install 'snowid[sqlalchemy-asyncio]' asyncpg`, or"
    " `'snowid[sqlalchemy-asyncio,postgres]'` for psycopg)": (
        "tests/integrations/test_sqlalchemy_async.py"
    ),
    "Alembic (`pip install alembic`)": "tests/integrations/test_alembic.py",
}


def test_the_page_has_examples_and_what_is_left_out_runs_elsewhere() -> None:
    assert snippets.python_params(PAGE, LEFT_OUT)
    assert snippets.commands(PAGE)
    snippets.check_left_out(PAGE, LEFT_OUT)


@pytest.mark.parametrize("block", snippets.python_params(PAGE, LEFT_OUT))
def test_each_python_example_runs_and_shows_what_it_says(
    block: Example, tmp_path: Path, pg_url: str
) -> None:
    snippets.run_python(block, tmp_path, pg_url)


@pytest.mark.parametrize("command", snippets.command_params(PAGE))
def test_each_command_line_example_exits_0(command: Example, tmp_path: Path, pg_url: str) -> None:
    snippets.run_command(command, tmp_path, pg_url)
