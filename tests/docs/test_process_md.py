"""docs/process.md: its python examples run and show what they say (tests/docs/snippets.py).

The FastAPI lifespan block is built here, not served; tests/lease/test_release_at_stop.py
serves examples/fastapi_app.py under uvicorn and checks that its identity goes back at the stop.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs import snippets
from tests.docs.snippets import Example

PAGE = "docs/process.md"


def test_the_page_has_examples() -> None:
    assert snippets.blocks(PAGE, "python")


@pytest.mark.parametrize("block", snippets.python_params(PAGE))
def test_each_python_example_runs_and_shows_what_it_says(
    block: Example, tmp_path: Path, pg_url: str
) -> None:
    snippets.run_python(block, tmp_path, pg_url)
