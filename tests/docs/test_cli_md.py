"""docs/cli.md: every command it shows exits 0 (the runner: tests/docs/snippets.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs import snippets
from tests.docs.snippets import Example

PAGE = "docs/cli.md"


def test_the_page_has_examples() -> None:
    assert snippets.commands(PAGE)


@pytest.mark.parametrize("command", snippets.command_params(PAGE))
def test_each_command_line_example_exits_0(command: Example, tmp_path: Path, pg_url: str) -> None:
    snippets.run_command(command, tmp_path, pg_url)
