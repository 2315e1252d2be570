"""tests/support/cleanup.py: every undo step runs, newest first, once, whatever fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cleanup import Cleanup


def test_steps_run_newest_first_and_once() -> None:
    ran: list[int] = []
    cleanup = Cleanup()
    for n in range(3):
        cleanup.add(lambda n=n: ran.append(n))
    cleanup.close()
    cleanup.close()  # nothing left: a second close does nothing
    assert ran == [2, 1, 0]
    assert len(cleanup) == 0


def test_a_failing_step_does_not_stop_the_others_and_its_error_is_raised_after() -> None:
    ran: list[str] = []
    cleanup = Cleanup()
    cleanup.add(lambda: ran.append("first"))
    cleanup.add(lambda: 1 / 0, "the broken one")
    cleanup.add(lambda: ran.append("last"))
    with pytest.raises(ZeroDivisionError) as caught:
        cleanup.close()
    assert ran == ["last", "first"]
    assert "while cleaning up: the broken one" in caught.value.__notes__


def test_the_error_of_the_body_wins_over_a_cleanup_error_and_cleanup_still_runs() -> None:
    ran: list[str] = []

    def failing_test() -> None:
        with Cleanup() as cleanup:
            cleanup.add(lambda: ran.append("ran"))
            cleanup.add(lambda: 1 / 0)
            raise KeyError("the test's own failure")

    with pytest.raises(KeyError):
        failing_test()
    assert ran == ["ran"]


def test_enter_exits_the_context_manager_at_the_close() -> None:
    events: list[str] = []

    class Manager:
        def __enter__(self) -> str:
            events.append("enter")
            return "value"

        def __exit__(self, *exc: object) -> None:
            events.append("exit")

    with Cleanup() as cleanup:
        assert cleanup.enter(Manager()) == "value"
        assert events == ["enter"]
    assert events == ["enter", "exit"]


def test_a_process_still_running_is_ended_and_reaped() -> None:
    with Cleanup() as cleanup:
        proc = cleanup.process(
            subprocess.Popen([sys.executable, "-c", "input()"], stdin=subprocess.PIPE)
        )
        done = cleanup.process(subprocess.Popen([sys.executable, "-c", "pass"]))
        done.wait(30)
    assert proc.returncode is not None
    assert proc.returncode != 0  # ended by the cleanup, not by itself
    assert done.returncode == 0


def test_the_fixture_is_a_cleanup_run_in_teardown(cleanup: Cleanup) -> None:
    """The ``cleanup`` fixture hands a Cleanup (its teardown closes it)."""
    assert isinstance(cleanup, Cleanup)
    assert len(cleanup) == 0


def test_clusters_and_cleanup_need_no_pytest() -> None:
    """bench/ uses them as a script: importing them loads no pytest."""
    code = (
        "import sys, tests.support.cluster, tests.support.cleanup, tests.support.servers;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest')))"
    )
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr
