"""docs/library.md: its python examples run and show what they say; its commands exit 0.

The runner and its rules are in tests/docs/snippets.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs import snippets
from tests.docs.snippets import Example

PAGE = "docs/library.md"


def test_the_page_has_examples() -> None:
    assert snippets.blocks(PAGE, "python")
    assert snippets.commands(PAGE)


@pytest.mark.parametrize("block", snippets.python_params(PAGE))
def test_each_python_example_runs_and_shows_what_it_says(
    block: Example, tmp_path: Path, pg_url: str
) -> None:
    snippets.run_python(block, tmp_path, pg_url)


@pytest.mark.parametrize("command", snippets.command_params(PAGE))
def test_each_command_line_example_exits_0(command: Example, tmp_path: Path, pg_url: str) -> None:
    snippets.run_command(command, tmp_path, pg_url)
