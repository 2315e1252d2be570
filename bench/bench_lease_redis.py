"""The Redis column of ``bench_lease.py`` (run that script; ``--no-redis`` skips it).

A redis-server of the benchmark's own: a free loopback port, ``appendonly yes``,
``appendfsync always`` (every write on disk before it is acknowledged), ``maxclients
4096``, data in a temporary directory; the shared Redis on 6379 allows about 100-150
connections and keeps nothing on disk. Held identities are written straight into the
lease's hashes; the load counts the renew scripts run (``EVALSHA``) and the hash writes
they make (``HSET``). The measurements are bench_lease_common's.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from typing import Any

from bench_lease_common import StorePart, cpu_s, free_port


class RedisServer:
    """A durable redis-server of the benchmark's own on a free loopback port."""

    def __init__(self) -> None:
        import redis

        self.dir = tempfile.mkdtemp(prefix="snowid-bench-redis-")
        self.port = free_port()
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
             "--appendonly", "yes", "--appendfsync", "always", "--save", "",
             "--maxclients", "4096", "--logfile", f"{self.dir}/redis.log"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        self.client = redis.Redis(port=self.port, decode_responses=True)
        for _ in range(500):
            try:
                self.client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.01)
        self.stop()
        raise RuntimeError("redis-server did not start")

    def cpu_s(self) -> float:
        return cpu_s(self.proc.pid)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


class RedisPart(StorePart):
    name = "redis"
    renew_what = "(CAS script)"
    process = "redis-server"

    def start(self) -> RedisServer:
        return RedisServer()

    def url(self, name: str, query: str = "") -> str:
        return f"redis://127.0.0.1:{self.server.port}/0?key={name}" + (f"&{query}" if query else "")

    def hold(self, lease: Any, name: str, held: int) -> None:
        keys = lease.keys.all
        far = 2**50
        self.server.client.hset(keys[1], mapping={w: f"someone:{far}" for w in range(held)})
        self.server.client.hset(keys[3], mapping=dict.fromkeys(range(held), 1))

    def connect(self, lease: Any) -> None:
        lease._client()

    def counters(self) -> dict[str, int]:
        stats = self.server.client.info("commandstats")

        def calls(command: str) -> int:
            return int(stats.get(f"cmdstat_{command}", {}).get("calls", 0))

        return {"scripts (EVALSHA)": calls("evalsha"), "writes (HSET)": calls("hset")}
