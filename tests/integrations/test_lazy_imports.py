"""Integrations load only when used: `import snowid` (and its ids) pulls in no extra."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

EXTRAS = (
    "pydantic",
    "pydantic_core",
    "fastapi",
    "sqlalchemy",
    "sqlmodel",
    "psycopg",
    "pymysql",
    "django",
    "rest_framework",
)


def _run(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout.split()


def test_import_snowid_and_the_process_wide_generator_load_no_extra(tmp_path: Path) -> None:
    loaded = _run(
        f"""
        import sys
        import snowid
        snowid.configure(lease="file://{tmp_path}/slots")
        snowid.next_id(), snowid.next_ids(3), snowid.SnowId(4194439168).datetime
        print(*sorted(m for m in {EXTRAS!r} + ("snowid.integrations.pydantic", "snowid.dbapi", "snowid.django")
                      if m in sys.modules))
        """
    )
    assert loaded == []


def test_pydantic_support_loads_when_a_model_uses_snowid_not_before() -> None:
    loaded = _run(
        """
        import sys
        import pydantic
        import snowid
        class Plain(pydantic.BaseModel):
            n: int
        print("before:" + str("snowid.integrations.pydantic" in sys.modules))
        class Keyed(pydantic.BaseModel):
            id: snowid.SnowId
        print("after:" + str("snowid.integrations.pydantic" in sys.modules))
        """
    )
    assert loaded == ["before:False", "after:True"]


def test_the_sqlalchemy_integration_does_not_load_pydantic_or_fastapi() -> None:
    loaded = _run(
        """
        import sys
        import snowid.sqlalchemy
        print(*sorted(m for m in ("pydantic", "fastapi", "sqlmodel") if m in sys.modules))
        """
    )
    assert loaded == []


def test_the_django_integration_loads_django_only() -> None:
    loaded = _run(
        """
        import sys
        import snowid.django
        print(*sorted(m for m in ("pydantic", "sqlalchemy", "psycopg", "pymysql", "rest_framework")
                      if m in sys.modules))
        """
    )
    assert loaded == []
