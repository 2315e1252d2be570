"""A test that fails while its lease renews, its issuer issues and its worker process and
proxy run does not take its neighbours down: tests/conftest.py stops all four in the
failing test's teardown (tests/support/leftovers.py). Run in a pytest of its own, with
this suite's hooks, so the failure is real and its neighbour runs after it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.procs import ROOT

INNER_CONFTEST = """
from tests.conftest import pytest_runtest_call, pytest_runtest_teardown  # noqa: F401
"""

INNER_TESTS = """
import subprocess
import sys
import threading
import time

from snowid.lease import _base
from snowid.testing import FakeClock
from tests.support import holders, procs, proxy
from tests.support.memstore import MemoryStoreLease


def lease_threads():
    return [t for t in threading.enumerate() if t.name == "snowid-lease" and t.is_alive()]


def test_fails_while_everything_it_started_runs(tmp_path):
    lease = MemoryStoreLease(clock=FakeClock(), store_clock=FakeClock())
    lease.acquire(0)
    issuer_lease = MemoryStoreLease(clock=FakeClock(), store_clock=FakeClock())
    holders.Issuer(issuer_lease).start()
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    procs.STARTED.add(worker)
    tcp = proxy.TcpProxy("127.0.0.1", 9)
    (tmp_path / "pid").write_text(str(worker.pid))
    deadline = time.monotonic() + 30  # a harness wait: the issuer claims in its own thread
    while len(lease_threads()) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(lease_threads()) == 2
    assert False, "on purpose"


def test_its_neighbour_finds_nothing_left_running():
    assert lease_threads() == []
    assert [lease for lease in _base._LIVE] == []
    assert [i for i in holders.RUNNING if i.is_alive()] == []
    assert [p for p in procs.STARTED if p.poll() is None] == []
    assert list(proxy.OPEN) == []
"""


def test_a_failing_test_leaves_nothing_running_for_its_neighbour(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(INNER_CONFTEST)
    (tmp_path / "test_inner.py").write_text(INNER_TESTS)
    # No plugins but the suite's own hooks: the inner run needs none, and loading them all
    # costs seconds.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         "--rootdir", str(tmp_path), "-c", os.devnull, "--basetemp", str(tmp_path / "t"),
         str(tmp_path / "test_inner.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    out = run.stdout + run.stderr
    assert "1 failed, 1 passed" in out, out
    assert "AssertionError: on purpose" in out, out
    assert "left running, stopped" in out, out
    for kind in ("issuer", "lease", "worker process", "proxy"):
        assert f"{kind} " in out, (kind, out)
