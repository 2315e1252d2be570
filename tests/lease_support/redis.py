"""A redis-server of the test's own: free loopback port, its own config and data directory.

The shared Redis on 127.0.0.1:6379 keeps nothing on disk (``appendonly no``), so the
lease's strict mode refuses it; and tests that crash, restart or wipe a store must not
touch a server others use. ``RedisServer`` writes a config file (by default durable:
``appendonly yes``, ``appendfsync always``), starts ``redis-server`` on it, and can
stop it cleanly, SIGKILL it, pause it (SIGSTOP) and start it again on the same port and
data directory.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.support.web import free_port

if TYPE_CHECKING:
    from snowid.lease.redis import RedisLease

SHARED = "redis://127.0.0.1:6379/0"
DURABLE = {"appendonly": "yes", "appendfsync": "always", "maxmemory-policy": "noeviction"}


def redis_server_binary() -> str:
    found = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None
    )
    if found is None:
        if os.environ.get("CI"):  # scripts/test installs it: in CI its absence is a failure
            pytest.fail("redis-server is not installed")
        pytest.skip("redis-server is not installed")
    return found


class RedisServer:
    """One redis-server process on 127.0.0.1:``port`` with ``root`` as its directory."""

    def __init__(self, root: Path, settings: Mapping[str, str] | None = None) -> None:
        self.binary = redis_server_binary()
        self.root = root
        self.port = free_port()
        self.settings = {**DURABLE, **(settings or {})}
        self.proc: subprocess.Popen[bytes] | None = None
        root.mkdir(parents=True, exist_ok=True)

    def url(self, query: str = "", port: int | None = None) -> str:
        """A lease URL for this server (or a proxy in front of it on ``port``)."""
        base = f"redis://127.0.0.1:{port or self.port}/0"
        return f"{base}?{query}" if query else base

    def write_config(self) -> Path:
        lines = {
            "bind": "127.0.0.1",
            "port": str(self.port),
            "dir": str(self.root),
            "daemonize": "no",
            "save": '""',
            "logfile": str(self.root / "redis.log"),
            "appendfilename": "appendonly.aof",
            **self.settings,
        }
        config = self.root / "redis.conf"
        config.write_text("".join(f"{key} {value}\n" for key, value in lines.items()))
        return config

    def start(self) -> None:
        assert self.proc is None or self.proc.poll() is not None
        config = self.write_config()
        self.proc = subprocess.Popen(
            [self.binary, str(config)],
            cwd=self.root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(Exception):
                if self.client().ping():
                    return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                log = (self.root / "redis.log").read_text(errors="replace")[-2000:]
                pytest.fail(f"redis-server did not start on port {self.port}:\n{log}")
            time.sleep(0.02)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def client(self) -> Any:
        import redis

        password = self.settings.get("requirepass")
        return redis.Redis(
            port=self.port, password=password, socket_timeout=5, decode_responses=True
        )

    def kill(self) -> None:
        """SIGKILL: a crash; whatever reached the append-only file survives."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def wipe_disk(self) -> None:
        """With the server stopped: remove its data, as a restart on an empty volume."""
        assert not self.running
        for path in self.root.iterdir():
            if path.name not in ("redis.conf", "redis.log"):
                if path.is_dir():
                    shutil.rmtree(path)
                else:
                    path.unlink()


@contextlib.contextmanager
def redis_server(root: Path, settings: Mapping[str, str] | None = None) -> Iterator[RedisServer]:
    server = RedisServer(root, settings)
    server.start()
    try:
        yield server
    finally:
        server.kill()


def new_prefix() -> str:
    return f"t_{uuid.uuid4().hex[:12]}"


def open_redis(url: str, **options: object) -> RedisLease:
    """``open_lease`` for a redis:// URL, typed as the Redis backend."""
    from snowid.lease import open_lease
    from snowid.lease.redis import RedisLease

    lease = open_lease(url, **options)
    assert isinstance(lease, RedisLease)
    return lease


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    """A durable redis-server (appendonly yes, appendfsync always) for this test alone."""
    with redis_server(tmp_path / "redis") as started:
        yield started


@pytest.fixture
def rurl(server: RedisServer) -> str:
    """A lease URL on the test's own server, with a fresh key prefix, set up without
    quarantine (first deployment). Append options with ``&``."""
    from snowid.lease import init_lease

    url = server.url(f"key={new_prefix()}")
    init_lease(url, first_deployment=True)
    return url
