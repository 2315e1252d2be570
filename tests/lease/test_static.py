"""A static identity without state_dir says, once per process, what uniqueness is left to
the operator (issue 8, item 12): on Linux this host's guard refuses a second process of the
same network namespace (issue 16), but processes on other hosts or namespaces issue
duplicates silently.

A log record (the service's log; stderr through logging's last resort in the CLI), never
``warnings.warn``.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from snowid.lease import open_lease, static
from tests.web.test_serve import running_serve

WARNING = "has no state_dir"


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "snowid.lease" and r.levelno == logging.WARNING
    ]


def test_the_first_static_claim_warns_once_per_process(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(static, "_warned", set())
    monkeypatch.setenv("SNOWID_LANG", "en")
    caplog.set_level(logging.WARNING, "snowid.lease")
    for machine in (2, 3):
        with open_lease(f"static://1/{machine}") as lease:
            lease.acquire(0)
            lease.acquire(0)
    (message,) = _warnings(caplog)
    assert "datacenter 1, machine 2 has no state_dir" in message
    assert "duplicate ids" in message
    if sys.platform.startswith("linux"):  # where the guard holds it (test_static_guard.py)
        assert "a second process on this host (in the same network namespace) is refused" in message
        assert "another host, or in a container with its own network" in message


def test_the_warning_is_vietnamese_under_snowid_lang_vi(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(static, "_warned", set())
    monkeypatch.setenv("SNOWID_LANG", "vi")
    caplog.set_level(logging.WARNING, "snowid.lease")
    with open_lease("static:?worker=33") as lease:
        lease.acquire(0)
    (message,) = _warnings(caplog)
    assert "danh tính cố định (trung tâm dữ liệu 1, máy 1) không có state_dir" in message


def test_a_static_identity_with_state_dir_does_not_warn(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(static, "_warned", set())
    caplog.set_level(logging.WARNING, "snowid.lease")
    with open_lease(f"static://7/4?state_dir={tmp_path}") as lease:  # held 0.3 s: ours only
        lease.acquire(0)
    assert _warnings(caplog) == []


def _generate(lease: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "snowid", "generate", "--count", "3", "--lease", lease],
        capture_output=True,
        text=True,
        env={**os.environ, "SNOWID_LANG": "en"},
        check=False,
        timeout=60,
    )


def test_the_cli_prints_it_on_stderr_once(tmp_path: Path) -> None:
    done = _generate("static://7/5")  # a process of its own: an identity no other test takes
    assert done.returncode == 0
    assert len(done.stdout.splitlines()) == 3
    (line,) = done.stderr.splitlines()
    assert WARNING in line
    guarded = _generate(f"static://7/5?state_dir={tmp_path}")
    assert (guarded.returncode, guarded.stderr) == (0, "")


@pytest.mark.slow
def test_the_service_log_has_it_once(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    with running_serve(["--lease", "static://4/5"], log) as url:
        for _ in range(3):
            assert httpx.post(f"{url}/api/ids?count=2").status_code == 200
    assert log.read_text().count(WARNING) == 1
