"""The Redis column of ``bench_lease.py`` (run that script; ``--no-redis`` skips it).

A redis-server of the benchmark's own (tests/support/servers.RedisServer): a free
loopback port, ``appendonly yes``,
``appendfsync always`` (every write on disk before it is acknowledged), ``maxclients
4096``, data in a temporary directory; the shared Redis on 6379 allows about 100-150
connections and keeps nothing on disk. Held identities are written straight into the
lease's hashes; the load counts the renew scripts run (``EVALSHA``) and the hash writes
they make (``HSET``). The measurements are bench_lease_common's.
"""

from __future__ import annotations

from typing import Any

from bench_lease_common import StorePart


class RedisPart(StorePart):
    name = "redis"
    renew_what = "(CAS script)"
    process = "redis-server"

    def start(self) -> Any:
        # Imported here: bench_lease_common has put the repository root on the path by now.
        from tests.support.servers import RedisServer, binary

        found = binary("redis-server")
        if found is None:
            raise RuntimeError("redis-server not found: --no-redis")
        server = RedisServer(found, {"maxclients": "4096"})
        try:
            server.start()
        except BaseException:
            server.close()
            raise
        self.client: Any = server.client()
        return server

    def url(self, name: str, query: str = "") -> str:
        return f"redis://127.0.0.1:{self.server.port}/0?key={name}" + (f"&{query}" if query else "")

    def hold(self, lease: Any, name: str, held: int) -> None:
        keys = lease.keys.all
        far = 2**50
        self.client.hset(keys[1], mapping={w: f"someone:{far}" for w in range(held)})
        self.client.hset(keys[3], mapping=dict.fromkeys(range(held), 1))

    def connect(self, lease: Any) -> None:
        lease._client()

    def counters(self) -> dict[str, int]:
        stats = self.client.info("commandstats")

        def calls(command: str) -> int:
            return int(stats.get(f"cmdstat_{command}", {}).get("calls", 0))

        return {"scripts (EVALSHA)": calls("evalsha"), "writes (HSET)": calls("hset")}
