"""``snowid serve --workers N`` never puts the lease password on a command line: not its
own (the URL comes from SNOWID_LEASE, or names a password_file) and not its workers'
(the URL reaches them through the environment). Every local user can read
``/proc/PID/cmdline``; only the process's own user can read ``/proc/PID/environ``.

The third case gives the password as ``--lease`` (what the docs never show) to prove the
check sees it there, and that even then no worker's command line repeats it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from snowid.lease import init_lease
from tests.support.redis import redis_server
from tests.support.secrets import MARKER
from tests.support.servers import RedisServer, new_name
from tests.support.web import free_port

STARTED = re.compile(r"process (\d+) on http://\S+ holds datacenter \d+, machine \d+")
WORKERS = 2


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rpartition(")")[2].split()[1]) == pid:  # field 4, after the name
            found.append(int(entry.name))
    return found


def _tree(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo.extend(_children(current))
    return out


def _cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@contextmanager
def _serving(args: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``snowid serve`` with ``WORKERS`` workers, until each logged the identity it holds."""
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "snowid", "serve", "--workers", str(WORKERS), *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        deadline = time.monotonic() + 60
        while len(STARTED.findall(log.read_text())) < WORKERS:
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of the test's own that asks for the password MARKER."""
    with redis_server(tmp_path / "redis", {"requirepass": MARKER}) as srv:
        yield srv


@pytest.mark.slow
@pytest.mark.parametrize("given", ["SNOWID_LEASE", "password_file", "argument"])
def test_no_command_line_of_the_server_or_its_workers_holds_the_password(
    store: RedisServer, tmp_path: Path, given: str
) -> None:
    port = free_port()
    base = f"127.0.0.1:{store.port}/0?key={new_name()}&range=0-7&ttl=2"
    with_password = f"redis://:{MARKER}@{base}"
    init_lease(with_password, first_deployment=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNOWID_")}
    env["SNOWID_LANG"] = "en"
    env["SNOWID_DRAIN_SECONDS"] = "0"  # stop at once: the drain has its own tests
    args = ["--port", str(port)]
    if given == "SNOWID_LEASE":
        env["SNOWID_LEASE"] = with_password
    elif given == "argument":  # what the docs must never show: the check sees it
        args += ["--lease", with_password]
    else:
        secret = tmp_path / "redis-password"
        secret.write_text(MARKER + "\n")
        args += ["--lease", f"redis://{base}&password_file={secret}"]
    log = tmp_path / "serve.log"
    with _serving(args, env, log) as process:
        tree = _tree(process.pid)
        workers = {int(pid) for pid in STARTED.findall(log.read_text())}
        assert workers <= set(tree)  # the workers are the server's descendants
        assert len(workers) == WORKERS
        lines = {pid: _cmdline(pid) for pid in tree}
        showing = {pid for pid, line in lines.items() if MARKER in line}
        # given as an argument, only the server's own command line shows it
        assert showing == ({process.pid} if given == "argument" else set()), lines
        response = httpx.post(f"http://127.0.0.1:{port}/api/ids?count=2", timeout=10)
        assert response.status_code == 200, response.text
    assert MARKER not in log.read_text()
