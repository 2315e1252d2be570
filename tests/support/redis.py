"""Redis helpers for the lease tests: a redis-server of the test's own (``redis_server``,
servers.RedisServer; durable by default) and a fresh key prefix on it; a primary with its
replicas (``redis_replicas``, a cluster.Cluster).

The shared Redis on 127.0.0.1:6379 keeps nothing on disk (``appendonly no``), so the
lease's strict mode refuses it; and tests that crash, restart or wipe a store must not
touch a server others use.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support.cleanup import Cleanup
from tests.support.cluster import Cluster, Net
from tests.support.need import unavailable
from tests.support.servers import RedisServer, binary, new_name

if TYPE_CHECKING:
    from snowid.lease.redis import RedisLease

SHARED = "redis://127.0.0.1:6379/0"


@contextlib.contextmanager
def redis_server(
    root: Path | None = None, settings: Mapping[str, str] | None = None
) -> Iterator[RedisServer]:
    """A started redis-server of the test's own (in ``root``, else a temporary directory),
    ended after; ``settings`` are added to its durable config."""
    found = binary("redis-server")
    if found is None:  # scripts/test installs it
        unavailable("redis-server is not installed")
    server = RedisServer(found, settings, root)
    try:
        server.start()
        yield server
    finally:
        server.close()


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

    url = server.url(f"key={new_name()}")
    init_lease(url, first_deployment=True)
    return url


def redis_replicas(
    size: int, cleanup: Cleanup, settings: Mapping[str, str] | None = None
) -> Cluster[RedisServer]:
    """A started cluster of ``size`` durable redis-servers: member 0 the primary, the rest
    its replicas, each replicating through the primary's proxy (so a partition cuts the
    link); closed by ``cleanup``. ``settings`` are added to every member's config."""
    found = binary("redis-server")
    if found is None:  # scripts/test installs it
        unavailable("redis-server is not installed")

    def make(index: int, net: Net) -> RedisServer:
        # The primary's full sync starts at once (by default it waits 5 s for more replicas).
        extra = {"repl-diskless-sync-delay": "0", **(settings or {})}
        if index > 0:
            extra["replicaof"] = f"127.0.0.1 {net.port(0)}"
        return RedisServer(found, extra)

    return Cluster(size, make, cleanup)
