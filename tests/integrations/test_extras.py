"""Each extra installs only what its integration needs; [all] and [test] install everything.

Read from the installed package's metadata (Requires-Dist), as pip would, and checked
against pyproject.toml so that a stale install cannot pass for the current one.
"""

from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

PYPROJECT = Path(__file__).parents[2] / "pyproject.toml"
NOT_INTEGRATIONS = {"all", "test", "bench"}


def _requirements() -> list[Requirement]:
    return [Requirement(text) for text in importlib.metadata.requires("snowid") or []]


def _extras() -> set[str]:
    return set(importlib.metadata.metadata("snowid").get_all("Provides-Extra") or [])


def _installs(extra: str) -> set[str]:
    """The distributions ``pip install 'snowid[extra]'`` brings, following snowid[...] links."""
    found: set[str] = set()
    seen: set[str] = set()
    todo = [extra]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for req in _requirements():
            if req.marker is None or not req.marker.evaluate({"extra": current}):
                continue
            if req.name == "snowid":
                todo += sorted(req.extras)
            else:
                found.add(req.name.lower())
    return found


def _flatten(declared: dict[str, list[str]], extra: str) -> set[str]:
    """pyproject's requirements of ``extra`` with snowid[...] expanded (as the build does)."""
    out: set[str] = set()
    for text in declared[extra]:
        req = Requirement(text)
        if req.name == "snowid":
            for inner in req.extras:
                out |= _flatten(declared, inner)
        else:
            out.add(str(req))
    return out


def test_the_installed_metadata_is_this_pyproject() -> None:
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    assert _extras() == set(declared)
    for extra in declared:
        installed = {
            str(req).split(";")[0].strip()
            for req in _requirements()
            if req.marker is not None and req.marker.evaluate({"extra": extra})
        }
        assert installed - {"snowid"} == _flatten(declared, extra), extra


def test_the_core_needs_nothing() -> None:
    assert [str(req) for req in _requirements() if req.marker is None] == []


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("pydantic", {"pydantic"}),
        ("fastapi", {"fastapi", "pydantic"}),
        ("sqlalchemy", {"sqlalchemy"}),
        ("sqlalchemy-asyncio", {"sqlalchemy"}),  # with SQLAlchemy's own [asyncio]: below
        ("sqlmodel", {"sqlmodel", "sqlalchemy", "pydantic"}),
        ("mysql", {"pymysql"}),
        ("postgres", {"psycopg"}),
        ("django", {"django"}),
        ("drf", {"django", "djangorestframework"}),
        ("bulk", {"numpy"}),
        ("parquet", {"numpy", "pyarrow"}),
    ],
)
def test_each_integration_extra_installs_only_what_it_needs(extra: str, expected: set[str]) -> None:
    assert _installs(extra) == expected


def test_all_installs_every_integration_and_test_installs_all() -> None:
    everything = set().union(*(_installs(e) for e in _extras() - NOT_INTEGRATIONS))
    assert _installs("all") == everything
    assert _installs("test") >= everything


DOC = PYPROJECT.parent / "docs" / "sqlalchemy.md"


def _asks_for(extra: str, name: str) -> list[Requirement]:
    """The requirements on ``name`` that ``pip install 'snowid[extra]'`` installs."""
    return [
        req
        for req in _requirements()
        if req.name == name and req.marker is not None and req.marker.evaluate({"extra": extra})
    ]


def test_the_asyncio_extra_brings_what_sqlalchemy_s_asyncio_extension_needs() -> None:
    """Issue 25 §3: the documented ``pip install 'snowid[sqlalchemy]' asyncpg`` left out
    greenlet, which SQLAlchemy 2.1 installs only with its own ``asyncio`` extra, and
    ``create_async_engine`` failed at the first query. ``snowid[sqlalchemy-asyncio]`` asks
    for that extra (read from SQLAlchemy's installed metadata: it is what brings greenlet),
    and the docs' install lines name it."""
    assert any("asyncio" in req.extras for req in _asks_for("sqlalchemy-asyncio", "sqlalchemy"))
    assert not any("asyncio" in req.extras for req in _asks_for("sqlalchemy", "sqlalchemy"))
    assert any("asyncio" in req.extras for req in _asks_for("all", "sqlalchemy"))
    sqlalchemy_own = [Requirement(t) for t in importlib.metadata.requires("sqlalchemy") or []]
    greenlet = [req for req in sqlalchemy_own if req.name == "greenlet"]
    assert greenlet
    assert all(req.marker is not None for req in greenlet)  # not installed by default
    assert any(req.marker.evaluate({"extra": "asyncio"}) for req in greenlet if req.marker)
    lines = [line for line in DOC.read_text().splitlines() if line.startswith("pip install")]
    assert lines
    assert all("snowid[sqlalchemy-asyncio" in line for line in lines), lines
