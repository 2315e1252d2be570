"""One face for every networked lease store, so a fault test runs on each backend.

A ``Store`` is a freshly set-up lease store (a PostgreSQL table, a MySQL/MariaDB table,
or a key prefix on a redis-server of the test's own) and the few things the tests do to
it from outside: build a lease URL (optionally through a proxy port), expire a worker
early, move a ceiling, read the store's clock. ``store`` is the fixture, parametrised over the
backends; a test module imports it (``from tests.lease_support.stores import store``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snowid.lease import Lease, init_lease, open_lease
from tests.lease_support import mysql
from tests.lease_support.pg import fresh_table, sql
from tests.lease_support.redis import RedisServer, new_prefix, redis_server


class Store:
    """What a fault test needs from a lease store (see the module docstring)."""

    name = "store"
    host = "127.0.0.1"
    port = 0

    def url(self, query: str = "", port: int | None = None) -> str:
        raise NotImplementedError

    def open(self, query: str = "", port: int | None = None, **options: Any) -> Any:
        lease = open_lease(self.url(query, port), **options)
        assert isinstance(lease, Lease)
        return lease

    def expire(self, worker: int) -> None:
        """Make ``worker``'s lease expire now (premature expiry: an operator, a clock jump)."""
        raise NotImplementedError

    def held(self) -> list[int]:
        """The workers whose lease has not expired."""
        raise NotImplementedError

    def push_ceiling(self, worker: int, ahead_ms: int) -> None:
        """Set ``worker``'s ceiling to the store's now + ``ahead_ms`` (its next claim waits)."""
        raise NotImplementedError

    def now_ms(self) -> int:
        raise NotImplementedError


class PgStore(Store):
    name = "postgres"
    port = 5432

    def __init__(self, table: str) -> None:
        self.table = table

    def url(self, query: str = "", port: int | None = None) -> str:
        base = f"postgresql://postgres@127.0.0.1:{port or self.port}/test?table={self.table}"
        return f"{base}&{query}" if query else base

    def expire(self, worker: int) -> None:
        sql(
            f"UPDATE {self.table} SET expires_at = clock_timestamp() - interval '1 second'"
            " WHERE worker = %s",
            (worker,),
        )

    def held(self) -> list[int]:
        rows = sql(
            f"SELECT worker FROM {self.table} WHERE expires_at > clock_timestamp() ORDER BY worker"
        )
        return [row[0] for row in rows]

    def push_ceiling(self, worker: int, ahead_ms: int) -> None:
        sql(
            f"UPDATE {self.table} SET ceiling_ms ="
            " (extract(epoch FROM clock_timestamp()) * 1000)::bigint + %s WHERE worker = %s",
            (ahead_ms, worker),
        )

    def now_ms(self) -> int:
        return int(sql("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint")[0][0])


class RedisStore(Store):
    name = "redis"

    def __init__(self, server: RedisServer) -> None:
        self.server = server
        self.port = server.port
        self.prefix = new_prefix()
        init_lease(self.url(), first_deployment=True)

    def url(self, query: str = "", port: int | None = None) -> str:
        base = self.server.url(f"key={self.prefix}", port)
        return f"{base}&{query}" if query else base

    def key(self, name: str) -> str:
        return f"{{{self.prefix}}}:{name}"

    def expire(self, worker: int) -> None:
        client = self.server.client()
        value = client.hget(self.key("lease"), worker)
        if value:
            owner = value.rpartition(":")[0]
            client.hset(self.key("lease"), worker, f"{owner}:{self.now_ms() - 1000}")

    def held(self) -> list[int]:
        now = self.now_ms()
        leases = self.server.client().hgetall(self.key("lease"))
        return sorted(int(w) for w, v in leases.items() if int(v.rpartition(":")[2]) >= now)

    def push_ceiling(self, worker: int, ahead_ms: int) -> None:
        self.server.client().hset(self.key("ceiling"), worker, self.now_ms() + ahead_ms)

    def now_ms(self) -> int:
        seconds, micros = self.server.client().time()
        return int(seconds) * 1000 + int(micros) // 1000


class MysqlStore(Store):
    name = "mysql"
    port = 3306

    def __init__(self, table: str) -> None:
        self.table = table

    def url(self, query: str = "", port: int | None = None) -> str:
        base = f"mysql://root@127.0.0.1:{port or self.port}/test?table={self.table}"
        return f"{base}&{query}" if query else base

    def expire(self, worker: int) -> None:
        mysql.sql(
            f"UPDATE {self.table} SET expires_ms = {self._now} - 1000 WHERE worker = %s",
            (worker,),
        )

    def held(self) -> list[int]:
        rows = mysql.sql(
            f"SELECT worker FROM {self.table} WHERE expires_ms > {self._now} ORDER BY worker"
        )
        return [row[0] for row in rows]

    def push_ceiling(self, worker: int, ahead_ms: int) -> None:
        mysql.sql(
            f"UPDATE {self.table} SET ceiling_ms = {self._now} + %s WHERE worker = %s",
            (ahead_ms, worker),
        )

    def now_ms(self) -> int:
        return int(mysql.sql(f"SELECT {self._now}")[0][0])

    _now = "CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED)"


@pytest.fixture(params=["postgres", "redis", "mysql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A fresh lease store of each backend (first deployment: no quarantine)."""
    if request.param == "postgres":
        with fresh_table() as table:
            yield PgStore(table)
    elif request.param == "mysql":
        with mysql.fresh_table() as table:
            yield MysqlStore(table)
    else:
        with redis_server(tmp_path / "redis") as server:
            yield RedisStore(server)


def wait_for_claim(lease: Any, seconds: float) -> Any:
    """``lease.acquire(0)`` until a worker frees up (NoFreeIdentity meanwhile); the grant."""
    from snowid.errors import NoFreeIdentityError

    deadline = time.monotonic() + seconds
    while True:
        try:
            return lease.acquire(0)
        except NoFreeIdentityError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
