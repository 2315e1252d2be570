"""Which slow tests run together in one xdist worker (scripts/test's slow stage runs on
several, ``--dist loadgroup``), so that what they share is set up once.

A test module with a fixture of module or class scope (its own server, a page served on a
loopback port, a browser context of one size) keeps its tests in one group, split by the
parameters of those fixtures (a module's phone and desktop contexts are two groups). Every
other slow test is a unit of its own and goes to whichever worker is free. The browser
package's Chromium (package scope) is started once per worker that runs browser tests.

The first stage also writes down which files hold slow tests (``write_slow_files``, to the
file ``SNOWID_SLOW_FILES`` names), so that the slow stage's workers import only those: each
worker collects what it is given, and collecting the whole suite cost each about 7
CPU-seconds, where the files with slow tests cost about 3.

Tests on the shared servers never collide across workers: each makes its own table, schema
or key prefix (``servers.new_name()``), and the Django site its own test database.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

_WIDE = ("class", "module")


def _scope(fixture: Any) -> str | None:
    marker = getattr(fixture, "_fixture_function_marker", None)
    scope = getattr(marker, "scope", None)
    return scope if isinstance(scope, str) else None


def _module_has_wide_fixture(item: pytest.Item) -> bool:
    """A fixture of module or class scope defined or imported in the test's module (one a
    test may ask for by name at run time, which its static closure does not show)."""
    module = getattr(item, "module", None)
    return module is not None and any(_scope(v) in _WIDE for v in vars(module).values())


def group_of(item: pytest.Item) -> str | None:
    """The xdist group of ``item``, or None: free to run anywhere."""
    info: Any = getattr(item, "_fixtureinfo", None)
    callspec = getattr(item, "callspec", None)
    wide, params = _module_has_wide_fixture(item), []
    for name, definitions in sorted((info.name2fixturedefs if info else {}).items()):
        # A plugin's own (pytest-django's class-scoped autouse one) is everywhere: not ours.
        if definitions[-1].scope in _WIDE and definitions[-1].baseid:
            wide = True
            if callspec is not None and name in callspec.params:
                params.append(str(callspec.params[name]))
    if not wide:
        return None
    where = item.path.relative_to(item.config.rootpath).as_posix()
    return f"{where}[{'-'.join(params)}]" if params else where


def mark_groups(items: list[pytest.Item]) -> None:
    """Give each slow test that shares a module-wide fixture its ``xdist_group`` mark."""
    for item in items:
        if item.get_closest_marker("slow") is None or item.get_closest_marker("xdist_group"):
            continue
        group = group_of(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


SLOW_FILES_ENV = "SNOWID_SLOW_FILES"


def slow_files(items: list[pytest.Item]) -> list[str]:
    """The test files (relative to the root) that hold at least one slow test, sorted."""
    return sorted(
        {
            item.path.relative_to(item.config.rootpath).as_posix()
            for item in items
            if item.get_closest_marker("slow") is not None
        }
    )


def write_slow_files(items: list[pytest.Item]) -> None:
    """Where ``SNOWID_SLOW_FILES`` names a file, write ``slow_files`` to it, one a line (the
    first xdist worker only: every worker collects the same tests). Called before the
    ``-m`` option deselects anything. The variable is taken out of the environment, so that
    a pytest that a test runs in a child process never writes its own few files there."""
    target = os.environ.pop(SLOW_FILES_ENV, None)
    if not target or os.environ.get("PYTEST_XDIST_WORKER", "gw0") != "gw0":
        return
    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text("".join(f"{name}\n" for name in slow_files(items)))
    partial.replace(path)
