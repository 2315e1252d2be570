"""docs/bulk.md: the examples of columns run and show what they say (tests/docs/snippets.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs import snippets
from tests.docs.snippets import Example

PAGE = "docs/bulk.md"
LEFT_OUT = {"DuckDB": "tests/integrations/test_sql_embedded.py"}
"""The DuckDB example needs the snowid command on PATH; its macros are run there."""


def test_the_page_has_examples_and_what_is_left_out_runs_elsewhere() -> None:
    assert len(snippets.blocks(PAGE, "python")) >= 7
    snippets.check_left_out(PAGE, LEFT_OUT)


@pytest.mark.parametrize("block", snippets.python_params(PAGE, LEFT_OUT))
def test_each_python_example_runs_and_shows_what_it_says(block: Example, tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    snippets.run_python(block, tmp_path, snippets.EXAMPLE_PG)
