"""What importing snowid's public modules loads: only what reading an id needs.

``import snowid`` leaves the generator, the process-wide default, the lease stores, the
web service, the CLI and the adapters to first use (``snowid.__init__._LAZY``), and
``import snowid.errors`` leaves the layers' own errors to first use
(``snowid.errors._LAZY``), so that neither loads asyncio, a server or a store. Each
check runs in a fresh interpreter.
"""

from __future__ import annotations

import ast
import importlib
import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import snowid
from snowid import errors

_PROBE = """
import json, sys
before = set(sys.modules)
import {module}
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def loaded_by(module: str) -> list[str]:
    """The modules that ``import module`` loads in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(module=module)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    found: list[str] = json.loads(done.stdout)
    return found


def under(modules: list[str], *packages: str) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(f"{p}.") for p in packages)]


NOT_BY_IMPORT_SNOWID = (
    "snowid.generate._generator",
    "snowid.generate._gencore",
    "snowid.process",
    "snowid.lease",
    "snowid.web",
    "snowid.cli",
    "snowid.client",
    "snowid.errors",
    "snowid.integrations.pydantic",
    "snowid.integrations.sql",
    "snowid.integrations.sqlalchemy",
    "snowid.integrations.dbapi",
    "snowid.integrations.django",
    "snowid.i18n.web_en",
    "asyncio",
)

NOT_BY_IMPORT_ERRORS = (
    "snowid.client",
    "snowid.lease",
    "snowid.web",
    "snowid.cli",
    "snowid.integrations.sql",
    "asyncio",
    "starlette",
    "uvicorn",
    "psycopg",
    "redis",
    "pymysql",
)


def test_import_snowid_loads_no_generator_store_server_or_adapter() -> None:
    modules = loaded_by("snowid")
    assert "snowid.ids" in modules  # the probe sees snowid's own modules
    assert under(modules, *NOT_BY_IMPORT_SNOWID) == []


def test_import_snowid_errors_loads_no_layer_asyncio_or_store() -> None:
    modules = loaded_by("snowid.errors")
    assert "snowid.errors" in modules
    assert under(modules, *NOT_BY_IMPORT_ERRORS) == []


def test_the_probe_sees_a_lazy_name_load_its_layer() -> None:
    """Reading a layer's error loads that layer: what the two tests above rule out is
    visible to the probe."""
    assert "snowid.lease.k8s" in loaded_by("snowid.errors; snowid.errors.OrdinalMissingError")
    assert "snowid.process" in loaded_by("snowid; snowid.next_id")


@pytest.mark.parametrize("name", sorted(snowid._LAZY))
def test_a_lazy_name_of_snowid_is_loaded_once_and_kept(name: str) -> None:
    """The first read imports it; later reads are the same object, found without the hook
    (``next_id`` on the hot path is a plain module-dict lookup)."""
    value = getattr(snowid, name)
    assert vars(snowid)[name] is value
    assert getattr(snowid, name) is value
    assert name in dir(snowid)


@pytest.mark.parametrize("name", sorted(errors._LAZY))
def test_a_lazy_error_names_snowid_errors_and_pickles(name: str) -> None:
    cls = getattr(errors, name)
    assert vars(errors)[name] is cls
    assert name in dir(errors)
    assert cls.__module__ == "snowid.errors"
    assert pickle.loads(pickle.dumps(cls)) is cls


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = snowid.no_such_name  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="NoSuchError"):
        _ = errors.NoSuchError  # type: ignore[attr-defined]


_RAISED_BEFORE_THE_FACE = r"""
import pickle, sys
import snowid
try:
    snowid.SnowId(-1)
except ValueError as error:
    caught = error
from snowid.lease.k8s import OrdinalMissingError
assert "snowid.errors" not in sys.modules, "the probe must not import the face first"
print(type(caught).__module__, OrdinalMissingError.__module__, repr(type(caught)))
data = pickle.dumps(caught)
assert b"csnowid.errors\nNegativeIdError\n" in pickle.dumps(caught, 0), data
print(type(pickle.loads(data)).__name__)
"""


def test_an_error_names_snowid_errors_before_that_module_is_imported() -> None:
    """Reprs and pickles say ``snowid.errors.X`` however the class was reached, even in a
    program that never imported ``snowid.errors``."""
    done = subprocess.run(
        [sys.executable, "-c", _RAISED_BEFORE_THE_FACE],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.split("\n")[:2] == [
        "snowid.errors snowid.errors <class 'snowid.errors.NegativeIdError'>",
        "NegativeIdError",
    ]


# --- one lazy-export helper (issue 24) ---------------------------------------------------

LAZY_MODULES = ("snowid", "snowid.errors", "snowid.generate", "snowid.client", "snowid.web")


@pytest.mark.parametrize("module", LAZY_MODULES)
def test_each_lazy_module_takes_its_hooks_from_the_one_helper(module: str) -> None:
    """Issue 24: the PEP 562 hook was written out five times; now each of these modules
    gets it from ``snowid._lazy``, and every name of its table loads once, is kept and is
    listed by ``dir``; any other name is an AttributeError naming the module."""
    loaded = importlib.import_module(module)
    assert vars(loaded)["__getattr__"].__module__ == "snowid._lazy"
    for name in vars(loaded)["_LAZY"]:
        value = getattr(loaded, name)
        assert vars(loaded)[name] is value
        assert name in dir(loaded)
    with pytest.raises(AttributeError, match=f"^module '{module}' has no attribute 'no_such'$"):
        _ = loaded.no_such


def test_no_module_writes_its_own_lazy_hook() -> None:
    """Issue 24: one helper. A module-level ``def __getattr__`` anywhere but ``_lazy`` is
    the hook written again."""

    def module_level(body: list[ast.stmt]) -> list[ast.stmt]:
        """The statements of a module, also those under its ``if``s (not in classes)."""
        return [
            inner
            for node in body
            for inner in (
                [node, *module_level([*node.body, *node.orelse])]
                if isinstance(node, ast.If)
                else [node]
            )
        ]

    source = Path(snowid.__file__).parent
    found = [
        f"{path.relative_to(source)}:{node.lineno}"
        for path in sorted(source.rglob("*.py"))
        if path.name != "_lazy.py"
        for node in module_level(ast.parse(path.read_text(encoding="utf-8")).body)
        if isinstance(node, ast.FunctionDef) and node.name in ("__getattr__", "__dir__")
    ]
    assert found == []
