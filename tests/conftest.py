"""Fixtures shared by several test modules, the ``slow`` mark's check (tests/support/slow.py),
and the stop of what a test's body left running (tests/support/leftovers.py)."""

from __future__ import annotations

from collections.abc import Generator, Iterator

import pytest
from hypothesis import settings

from tests.support import groups, leftovers, slow
from tests.support.cleanup import Cleanup
from tests.support.pg import fresh_table

# Hypothesis fails an example slower than its deadline (200 ms by default): on a loaded
# machine a plain example can take that long (tests/core/test_redact.py did). The deadline
# only guards against a pathologically slow example; tests that set their own keep theirs.
settings.register_profile("snowid", deadline=2000)
settings.load_profile("snowid")


@pytest.fixture
def table() -> Iterator[str]:
    """A fresh, initialised lease table in the test database, dropped afterwards."""
    with fresh_table() as name:
        yield name


@pytest.fixture
def cleanup() -> Iterator[Cleanup]:
    """Undo steps run in this test's teardown, pass or fail (tests/support/cleanup.py):
    hand it to what the test starts (a cluster, a process)."""
    with Cleanup() as steps:
        yield steps


@pytest.fixture(scope="session")
def session_cleanup() -> Iterator[Cleanup]:
    """Undo steps run when the session (an xdist worker's) ends: for servers started once
    and shared by many tests."""
    with Cleanup() as steps:
        yield steps


def pytest_sessionstart(session: pytest.Session) -> None:
    slow.install()


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups, and before -m deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    groups.mark_groups(items)
    groups.write_slow_files(items)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    slow.watch(item)
    yield
    slow.unwatch(item)


_BEFORE_CALL = pytest.StashKey[leftovers.Snapshot]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    item.stash[_BEFORE_CALL] = leftovers.snapshot()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    """Before the fixtures' teardown: stop what the test's body started and left running
    (a failing test's lease must not keep renewing into its neighbours)."""
    slow.pause()
    before = item.stash.get(_BEFORE_CALL, None)
    if before is not None:
        stopped = leftovers.stop_since(before)
        if stopped:
            item.add_report_section("teardown", "left running, stopped", "\n".join(stopped))
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, None]:
    """After teardown, a test that reached a server without the mark fails, naming it."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "teardown":
        return
    reached = slow.unwatch(item)
    if reached and report.passed:
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} reached {', '.join(dict.fromkeys(reached))} but is not marked"
            " @pytest.mark.slow (scripts/test's first stage runs without servers)"
        )
