"""tests/support/groups.py: which slow tests the slow stage keeps on one xdist worker."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.support.groups import SLOW_FILES_ENV, group_of, mark_groups, write_slow_files

ROOT = Path("/repo")
CONFIG = SimpleNamespace(rootpath=ROOT)


@pytest.fixture(scope="module")
def a_module_server() -> str:
    return "a fixture of module scope, as a module's own server is"


@pytest.fixture
def a_function_fixture() -> str:
    return "a fixture of function scope"


@dataclass
class FakeItem:
    """What group_of reads of a pytest item."""

    fixtures: dict[str, tuple[str, str]]  # name -> (scope, baseid)
    params: dict[str, object] = field(default_factory=dict)
    module: Any = None
    slow: bool = True
    marks: list[Any] = field(default_factory=list)
    path: Path = ROOT / "tests/lease/test_x.py"
    config: Any = field(default_factory=lambda: CONFIG)

    @property
    def _fixtureinfo(self) -> Any:
        defs = {
            name: [SimpleNamespace(scope=scope, baseid=baseid)]
            for name, (scope, baseid) in self.fixtures.items()
        }
        return SimpleNamespace(name2fixturedefs=defs)

    @property
    def callspec(self) -> Any:
        return SimpleNamespace(params=self.params) if self.params else None

    def get_closest_marker(self, name: str) -> Any:
        if name == "slow":
            return object() if self.slow else None
        return next((m for m in self.marks if m.name == name), None)

    def add_marker(self, mark: Any) -> None:
        self.marks.append(mark)


def test_tests_with_only_function_fixtures_run_anywhere() -> None:
    item = FakeItem({"store": ("function", "tests/lease"), "tmp_path": ("function", "")})
    assert group_of(item) is None  # type: ignore[arg-type]


def test_a_module_scoped_fixture_keeps_the_module_together() -> None:
    item = FakeItem({"maria": ("module", "tests/lease/test_x.py")})
    assert group_of(item) == "tests/lease/test_x.py"  # type: ignore[arg-type]


def test_the_parameters_of_a_module_fixture_split_the_group() -> None:
    """A module's phone and desktop browser contexts are two groups."""
    phone = FakeItem({"sized": ("module", "tests/web")}, {"sized": "phone", "lang": "vi"})
    desktop = FakeItem({"sized": ("module", "tests/web")}, {"sized": "desktop"})
    assert group_of(phone) == "tests/lease/test_x.py[phone]"  # type: ignore[arg-type]
    assert group_of(desktop) == "tests/lease/test_x.py[desktop]"  # type: ignore[arg-type]


def test_a_plugins_own_wide_fixture_does_not_group() -> None:
    """pytest-django's class-scoped autouse fixture is on every test (no baseid)."""
    item = FakeItem({"_django_setup_unittest": ("class", "")})
    assert group_of(item) is None  # type: ignore[arg-type]


def test_a_module_fixture_asked_for_by_name_at_run_time_still_groups() -> None:
    """A test that picks its server with request.getfixturevalue() shows only function
    fixtures; the module-scoped one it may ask for is found in the module itself."""
    module = SimpleNamespace(server=a_module_server, other=a_function_fixture)
    item = FakeItem({"request": ("function", "")}, module=module)
    assert group_of(item) == "tests/lease/test_x.py"  # type: ignore[arg-type]
    plain = FakeItem({"request": ("function", "")}, module=SimpleNamespace(f=a_function_fixture))
    assert group_of(plain) is None  # type: ignore[arg-type]


def test_only_slow_tests_are_marked_and_an_explicit_group_is_kept() -> None:
    fast = FakeItem({"maria": ("module", "tests/x.py")}, slow=False)
    chosen = FakeItem(
        {"maria": ("module", "tests/x.py")}, marks=[pytest.mark.xdist_group("mine").mark]
    )
    grouped = FakeItem({"maria": ("module", "tests/x.py")})
    mark_groups([fast, chosen, grouped])  # type: ignore[list-item]
    assert fast.marks == []
    assert [m.args for m in chosen.marks] == [("mine",)]
    assert [m.args for m in grouped.marks] == [("tests/lease/test_x.py",)]


def test_the_slow_files_are_the_files_with_a_slow_test_each_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the slow stage is given to collect: every file with a slow test, none other."""
    items = [
        FakeItem({}, path=ROOT / "tests/lease/test_b.py"),
        FakeItem({}, path=ROOT / "tests/lease/test_b.py"),
        FakeItem({}, path=ROOT / "tests/web/test_a.py"),
        FakeItem({}, path=ROOT / "tests/core/test_fast.py", slow=False),
    ]
    target = tmp_path / "gate" / "slow-files.txt"
    monkeypatch.setenv(SLOW_FILES_ENV, str(target))
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    write_slow_files(items)  # type: ignore[arg-type]
    assert not target.exists()  # only the first worker writes
    assert SLOW_FILES_ENV not in os.environ  # and no child of any worker sees the variable
    monkeypatch.setenv(SLOW_FILES_ENV, str(target))
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    write_slow_files(items)  # type: ignore[arg-type]
    assert target.read_text() == "tests/lease/test_b.py\ntests/web/test_a.py\n"
    assert SLOW_FILES_ENV not in os.environ
    target.unlink()
    write_slow_files(items)  # type: ignore[arg-type]
    assert not target.exists()  # not asked for: nothing written
