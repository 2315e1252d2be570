"""docs/integrations.md's SQLAlchemy and SQLModel examples pass ``mypy --strict``, as users'
code would.

Each block is written to a module of its own in a temporary directory (the async block after
the SQLAlchemy one it builds on), with the names a reader supplies (``start``, ``end``) typed
as datetimes, and one mypy run checks them all against the installed snowid and SQLAlchemy, with the project's
mypy settings and cache (scripts/test's ``mypy --strict`` has just filled it with SQLAlchemy,
pydantic and SQLModel, so this run checks only the examples: about 2 s instead of 20).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.docs import snippets

ROOT = Path(__file__).resolve().parents[2]

SQLALCHEMY = "SQLAlchemy 2 ("
ASYNC = "Async SQLAlchemy ("
SQLMODEL = "SQLModel ("
TIME_WINDOW = (
    "import datetime as dt\n"
    "start = dt.datetime(2024, 5, 1, tzinfo=dt.UTC)\n"
    "end = dt.datetime(2024, 5, 2, tzinfo=dt.UTC)\n"
)
SQLMODEL_IMPORTS = (  # the page's block shows only the class; these are the names it uses
    "import snowid\nfrom snowid import SnowId\nfrom sqlmodel import Field, SQLModel\n"
    "from snowid.sqlalchemy import SnowIdType\n"
)


PAGE = "docs/integrations.md"


def _block(heading: str) -> str:
    (code,) = [
        block.code for block in snippets.blocks(PAGE, "python") if block.heading.startswith(heading)
    ]
    return code


def modules() -> dict[str, str]:
    """Module name -> source of each type-checked example."""
    sync = TIME_WINDOW + _block(SQLALCHEMY)
    return {
        "docs_sqlalchemy": sync,
        "docs_sqlalchemy_async": sync + "\n" + _block(ASYNC),
        "docs_sqlmodel": SQLMODEL_IMPORTS + _block(SQLMODEL),
    }


def test_the_sqlalchemy_and_sqlmodel_examples_pass_mypy_strict(tmp_path: Path) -> None:
    """Before ``created_between`` took mapped attributes, ``created_between(Order.id, …)``
    failed here: ``InstrumentedAttribute[SnowId]`` is not a ``ColumnElement``."""
    paths = []
    for name, source in modules().items():
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        paths.append(str(path))
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", *paths],
        capture_output=True,
        text=True,
        cwd=ROOT,  # the project's [tool.mypy] and .mypy_cache; the paths replace its `files`
        timeout=240,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
