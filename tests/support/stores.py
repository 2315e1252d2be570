"""One face for every networked lease store, so a fault test runs on each backend.

A ``Store`` is a freshly set-up lease store (a PostgreSQL table, a MySQL/MariaDB table,
a key prefix on a redis-server or on an etcd member, a path on a ZooKeeper server) on a
``server`` (servers.PgDb, MariaDb, RedisServer, or
one of the test's own it may crash: servers.OwnServer), and the few things the tests do to
it from outside: build a lease URL (optionally through a proxy port), read the store's
clock and what it holds, and the faults of docs/leases.md: expire a worker early, move a
ceiling (cases 19, 20, 23), give a lease to another owner, replace the incarnation, delete
the meta record or everything (case 22), delete lease records with the meta record kept
(case 28).

``store`` is the fixture, parametrised over the backends (PostgreSQL and MariaDB: the
shared servers; Redis: a server of the test's own, as the shared one keeps nothing on
disk; etcd and ZooKeeper: one server per test session, tests/support/etcd.py and
zookeeper.py); a test module imports it (``from tests.support.stores import store``).
``store_on(server)`` makes a fresh store on a server of the test's own.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snowid.lease import Lease, init_lease, open_lease
from snowid.lease._redis_lua import Keys
from tests.support import mysql, pg
from tests.support.etcd import EtcdKv, EtcdServer, shared_etcd
from tests.support.redis import redis_server
from tests.support.servers import MariaDb, OwnServer, PgDb, RedisServer, new_name
from tests.support.zookeeper import ZkNodes, ZkServer, shared_zookeeper


class Store:
    """What a fault test needs from a lease store (see the module docstring)."""

    name = "store"
    host = "127.0.0.1"
    port = 0
    server: Any

    def url(self, query: str = "", port: int | None = None) -> str:
        raise NotImplementedError

    def open(self, query: str = "", port: int | None = None, **options: Any) -> Any:
        lease = open_lease(self.url(query, port), **options)
        assert isinstance(lease, Lease)
        return lease

    # --- reading it ---------------------------------------------------------------------

    def now_ms(self) -> int:
        raise NotImplementedError

    def held(self) -> list[int]:
        """The workers whose lease has not expired."""
        raise NotImplementedError

    def incarnation(self) -> str | None:
        raise NotImplementedError

    def row(self, worker: int) -> tuple[str, int, int]:
        """``worker``'s stored (owner, epoch, ceiling_ms)."""
        raise NotImplementedError

    # --- faults done to it ----------------------------------------------------------------

    def expire(self, worker: int) -> None:
        """Make ``worker``'s lease expire now (premature expiry: an operator, a clock jump)."""
        raise NotImplementedError

    def set_ceiling(self, worker: int, ceiling_ms: int) -> None:
        raise NotImplementedError

    def push_ceiling(self, worker: int, ahead_ms: int) -> None:
        """Set ``worker``'s ceiling to the store's now + ``ahead_ms`` (its next claim waits)."""
        self.set_ceiling(worker, self.now_ms() + ahead_ms)

    def give_away(self, worker: int) -> None:
        """Another owner takes ``worker``'s lease (its holder's next renewal fails)."""
        raise NotImplementedError

    def new_incarnation(self) -> None:
        """The store recreated under its holders: a new incarnation, the leases kept."""
        raise NotImplementedError

    def wipe(self) -> None:
        """Everything the lease keeps in the store deleted (tables dropped, keys deleted)."""
        raise NotImplementedError

    REMOVALS: tuple[str, ...] = ()
    """The ways ``remove`` can delete lease records, the meta record kept (case 28)."""

    def remove(self, worker: int, how: str) -> None:
        """Delete lease records under their holders, the meta record kept, ``how`` one of
        REMOVALS: ``worker``'s alone, or every worker's."""
        raise NotImplementedError

    def remove_all(self) -> None:
        """Every worker's lease record deleted, the meta record kept (SQL: TRUNCATE of the
        lease table; Redis: DEL of the lease and ceiling hashes)."""
        self.remove(0, self.REMOVALS[-1])

    def forget_format(self) -> None:
        """Make the store look set up before store formats were recorded."""
        raise NotImplementedError


class SqlStore(Store):
    """A lease table and its ``_meta`` table; subclasses give their SQL dialect's words."""

    NOW_MS = ""  # the server's clock in ms, an integer
    EXPIRES = ""  # the expiry column
    NOW = ""  # the server's clock in the expiry column's unit
    SECOND = ""  # one second in that unit
    NEW_UUID = ""

    def __init__(self, server: Any, table: str) -> None:
        self.server, self.table, self.port = server, table, server.port

    def url(self, query: str = "", port: int | None = None) -> str:
        return self.server.url(f"table={self.table}" + (f"&{query}" if query else ""), port)

    def sql(self, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = self.server.sql(statement, params)
        return rows

    def now_ms(self) -> int:
        return int(self.sql(f"SELECT {self.NOW_MS}")[0][0])

    def held(self) -> list[int]:
        rows = self.sql(
            f"SELECT worker FROM {self.table} WHERE {self.EXPIRES} > {self.NOW} ORDER BY worker"
        )
        return [row[0] for row in rows]

    def incarnation(self) -> str | None:
        rows = self.sql(f"SELECT incarnation FROM {self.table}_meta")
        return str(rows[0][0]) if rows else None

    def row(self, worker: int) -> tuple[str, int, int]:
        ((owner, epoch, ceiling),) = self.sql(
            f"SELECT owner, epoch, ceiling_ms FROM {self.table} WHERE worker = %s", (worker,)
        )
        return str(owner), int(epoch), int(ceiling)

    def expire(self, worker: int) -> None:
        self.sql(
            f"UPDATE {self.table} SET {self.EXPIRES} = {self.NOW} - {self.SECOND} WHERE worker = %s",
            (worker,),
        )

    def set_ceiling(self, worker: int, ceiling_ms: int) -> None:
        self.sql(f"UPDATE {self.table} SET ceiling_ms = %s WHERE worker = %s", (ceiling_ms, worker))

    def give_away(self, worker: int) -> None:
        self.sql(f"UPDATE {self.table} SET owner = {self.NEW_UUID} WHERE worker = %s", (worker,))

    def new_incarnation(self) -> None:
        self.sql(f"UPDATE {self.table}_meta SET incarnation = {self.NEW_UUID}")

    def drop_meta(self) -> None:
        """The meta row deleted, the lease rows kept."""
        self.sql(f"DELETE FROM {self.table}_meta")

    def wipe(self) -> None:
        self.sql(f"DROP TABLE {self.table}, {self.table}_meta")

    REMOVALS = ("delete_row", "truncate")

    def remove(self, worker: int, how: str) -> None:
        if how == "delete_row":
            self.sql(f"DELETE FROM {self.table} WHERE worker = %s", (worker,))
        else:
            assert how == "truncate"
            self.sql(f"TRUNCATE TABLE {self.table}")

    def forget_format(self) -> None:
        self.sql(f"ALTER TABLE {self.table}_meta DROP COLUMN format")


class PgStore(SqlStore):
    name = "postgres"
    NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
    EXPIRES, NOW, SECOND = "expires_at", "clock_timestamp()", "interval '1 second'"
    NEW_UUID = "gen_random_uuid()"


class MysqlStore(SqlStore):
    name = "mysql"
    NOW_MS = "CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED)"
    EXPIRES, NOW, SECOND = "expires_ms", NOW_MS, "1000"
    NEW_UUID = "UUID()"


class RedisStore(Store):
    name = "redis"

    def __init__(self, server: RedisServer, prefix: str) -> None:
        self.server, self.port, self.prefix = server, server.port, prefix
        self.keys = Keys(prefix)

    def url(self, query: str = "", port: int | None = None) -> str:
        base = self.server.url(f"key={self.prefix}", port)
        return f"{base}&{query}" if query else base

    def now_ms(self) -> int:
        seconds, micros = self.server.client().time()
        return int(seconds) * 1000 + int(micros) // 1000

    def held(self) -> list[int]:
        now = self.now_ms()
        leases = self.server.client().hgetall(self.keys.all[1])
        return sorted(int(w) for w, v in leases.items() if int(v.rpartition(":")[2]) >= now)

    def incarnation(self) -> str | None:
        value = self.server.client().hget(self.keys.all[0], "incarnation")
        return None if value is None else str(value)

    def row(self, worker: int) -> tuple[str, int, int]:
        client = self.server.client()
        _meta, lease, ceiling, epoch, _info = self.keys.all
        owner = (client.hget(lease, worker) or "").rpartition(":")[0]
        return owner, int(client.hget(epoch, worker)), int(client.hget(ceiling, worker))

    def expire(self, worker: int) -> None:
        client = self.server.client()
        value = client.hget(self.keys.all[1], worker)
        if value:
            owner = value.rpartition(":")[0]
            client.hset(self.keys.all[1], worker, f"{owner}:{self.now_ms() - 1000}")

    def set_ceiling(self, worker: int, ceiling_ms: int) -> None:
        self.server.client().hset(self.keys.all[2], worker, ceiling_ms)

    def give_away(self, worker: int) -> None:
        self.server.client().hset(self.keys.all[1], worker, "someone-else:99999999999999")

    def new_incarnation(self) -> None:
        self.server.client().hset(self.keys.all[0], "incarnation", str(uuid.uuid4()))

    def wipe(self) -> None:
        self.server.client().delete(*self.keys.all)

    REMOVALS = ("hdel_ceiling", "del_lease", "del_lease_and_ceiling")

    def remove(self, worker: int, how: str) -> None:
        _meta, lease, ceiling, _epoch, _info = self.keys.all
        client = self.server.client()
        if how == "hdel_ceiling":
            client.hdel(ceiling, worker)
        elif how == "del_lease":
            client.delete(lease)
        else:
            assert how == "del_lease_and_ceiling"
            client.delete(lease, ceiling)

    def forget_format(self) -> None:
        """As a first deployment set up before formats left it: no format, and only the
        workers ever claimed have entries."""
        client = self.server.client()
        meta, lease, ceiling, epoch, _info = self.keys.all
        client.hdel(meta, "format")
        unused = [w for w, count in client.hgetall(epoch).items() if int(count) == 0]
        for key in (lease, ceiling, epoch):
            client.hdel(key, *unused)


class EtcdStore(Store):
    """Keys under a prefix of their own on an etcd member (tests/support/etcd.py)."""

    name = "etcd"

    def __init__(self, server: EtcdServer, prefix: str) -> None:
        self.server, self.port, self.prefix = server, server.port, prefix
        self.kv: EtcdKv | ZkNodes = EtcdKv(server.port)

    def url(self, query: str = "", port: int | None = None) -> str:
        return self.server.url(self.prefix + (f"?{query}" if query else ""), port)

    def _ceiling(self, worker: int) -> str:
        return f"{self.prefix}/ceiling/{worker:04d}"

    def _record(self, worker: int) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.kv.get(self._ceiling(worker)) or "null")
        return found

    def _write(self, worker: int, **changes: Any) -> None:
        self.kv.put(self._ceiling(worker), json.dumps({**self._record(worker), **changes}))

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000  # etcd has no clock of its own; same host

    def held(self) -> list[int]:
        return sorted(int(k[-4:]) for k in self.kv.range(f"{self.prefix}/held/", "prefix"))

    def _meta(self) -> dict[str, Any] | None:
        found: dict[str, Any] | None = json.loads(self.kv.get(f"{self.prefix}/meta") or "null")
        return found

    def incarnation(self) -> str | None:
        meta = self._meta()
        return None if meta is None else str(meta["incarnation"])

    def row(self, worker: int) -> tuple[str, int, int]:
        record = self._record(worker)
        return str(record["owner"]), int(record["epoch"]), int(record["ceiling"])

    def expire(self, worker: int) -> None:
        self.kv.delete(f"{self.prefix}/held/{worker:04d}")

    def set_ceiling(self, worker: int, ceiling_ms: int) -> None:
        self._write(worker, ceiling=ceiling_ms)

    def give_away(self, worker: int) -> None:
        self._write(worker, owner=str(uuid.uuid4()))

    def new_incarnation(self) -> None:
        meta = self._meta()
        assert meta is not None
        self.kv.put(f"{self.prefix}/meta", json.dumps({**meta, "incarnation": str(uuid.uuid4())}))

    def wipe(self) -> None:
        self.kv.delete(f"{self.prefix}/", prefix=True)

    REMOVALS = ("delete_record", "delete_records")

    def remove(self, worker: int, how: str) -> None:
        if how == "delete_record":
            self.kv.delete(self._ceiling(worker))
        else:
            assert how == "delete_records"
            self.kv.delete(f"{self.prefix}/ceiling/", prefix=True)

    def format(self) -> int | None:
        """The store format in the meta record (None: none)."""
        meta = self._meta()
        return None if meta is None or "format" not in meta else int(meta["format"])

    def drop_format(self) -> None:
        """The meta record without its format (every record kept)."""
        meta = self._meta()
        assert meta is not None
        del meta["format"]
        self.kv.put(f"{self.prefix}/meta", json.dumps(meta))

    def forget_format(self) -> None:
        """As a first deployment set up before formats: no format, and only the workers
        ever claimed have records."""
        self.drop_format()
        for key, value in self.kv.range(f"{self.prefix}/ceiling/", "prefix").items():
            if json.loads(value)["epoch"] == 0:
                self.kv.delete(key)


class ZookeeperStore(EtcdStore):
    """Nodes under a path of their own on a ZooKeeper server (tests/support/zookeeper.py):
    the etcd store's records and faults, on nodes (``/P/ceiling/WWWW``, ``/P/held/WWWW``)."""

    name = "zookeeper"

    def __init__(self, server: ZkServer, prefix: str) -> None:  # not super's: another kv
        self.server, self.port, self.prefix = server, server.port, prefix
        self.kv = ZkNodes(server.port)

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000  # the leader's clock: the same host

    def wipe(self) -> None:
        self.kv.delete(self.prefix, prefix=True)

    def remove(self, worker: int, how: str) -> None:
        if how == "delete_records":  # at once, the parent kept
            assert isinstance(self.kv, ZkNodes)
            keys = ["/" + key for key in self.kv.range(f"{self.prefix}/ceiling/", "prefix")]
            assert self.kv.delete_many(keys)
        else:
            super().remove(worker, how)

    def forget_format(self) -> None:
        """As a first deployment set up before formats: no format, and only the workers
        ever claimed have records (the others deleted at once)."""
        assert isinstance(self.kv, ZkNodes)
        self.drop_format()
        records = self.kv.range(f"{self.prefix}/ceiling/", "prefix").items()
        unused = ["/" + key for key, value in records if json.loads(value)["epoch"] == 0]
        assert self.kv.delete_many(unused)

    def close(self) -> None:
        assert isinstance(self.kv, ZkNodes)
        self.kv.close()


def store_on(server: OwnServer | PgDb | MariaDb) -> Store:
    """A fresh store (a new table or key prefix) on ``server``, set up as a first
    deployment (no quarantine)."""
    store: Store
    if isinstance(server, PgDb):
        store = PgStore(server, new_name())
    elif isinstance(server, MariaDb):
        store = MysqlStore(server, new_name())
    elif isinstance(server, EtcdServer):
        store = EtcdStore(server, new_name())
    elif isinstance(server, ZkServer):
        store = ZookeeperStore(server, new_name())
    else:
        assert isinstance(server, RedisServer)
        store = RedisStore(server, new_name())
    init_lease(store.url(), first_deployment=True)
    return store


# Every backend is a server: a test using this fixture is slow (tests/support/slow.py).
@pytest.fixture(
    params=[
        pytest.param(name, marks=pytest.mark.slow)
        for name in ("postgres", "redis", "mysql", "etcd", "zookeeper")
    ]
)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A fresh lease store of each backend (first deployment: no quarantine)."""
    if request.param == "postgres":
        with pg.fresh_table() as table:
            yield PgStore(pg.SHARED, table)
    elif request.param == "mysql":
        with mysql.fresh_table() as table:
            yield MysqlStore(mysql.SHARED_DB, table)
    elif request.param == "etcd":
        server = shared_etcd(request.getfixturevalue("session_cleanup"))
        store = store_on(server)
        try:
            yield store
        finally:
            store.wipe()
    elif request.param == "zookeeper":
        zk = store_on(shared_zookeeper(request.getfixturevalue("session_cleanup")))
        assert isinstance(zk, ZookeeperStore)
        try:
            yield zk
        finally:
            zk.wipe()
            zk.close()
    else:
        with redis_server(tmp_path / "redis") as server:
            yield store_on(server)


WITHOUT_ETCD = ("postgres", "redis", "mysql")
"""The stores of the slowest chaos-style tests: etcd runs every other contract test, and
its own cluster faults (tests/lease/test_etcd_cluster.py), within the gate's budget.
ZooKeeper is left out too: see WITHOUT_ZOOKEEPER."""

WITHOUT_ZOOKEEPER = (*WITHOUT_ETCD, "etcd")
"""The stores of the fault tests that ZooKeeper runs on its own ensemble instead, on real
servers (tests/lease/test_zookeeper_cluster.py: a holder SIGKILLed, a holder cut off), or
that cost it most (a slow network: kazoo's heartbeats ride it, the session is 1.5 x the
TTL): within the gate's budget. ZooKeeper runs every other contract test; like etcd it
sits out the chaos runs and the removed-records rounds (WITHOUT_ETCD)."""

WITH_MARKS = (*WITHOUT_ETCD, "etcd", "zookeeper")
"""The stores that keep a clean hand-over's release mark: every networked store."""


def wait_for_claim(lease: Any, seconds: float) -> Any:
    """``lease.acquire(0)`` until a worker frees up (NoFreeIdentity meanwhile); the grant.

    A claim that met a store round trip slower than its ``timeout`` (StoreUnreachable: the
    claim is given up) is tried again too, within the same wait: a harness margin, as one
    renewal during a claim's wait for its start ran past 1.5 s under ``--busy``."""
    from snowid.errors import NoFreeIdentityError, StoreUnreachableError

    deadline = time.monotonic() + seconds
    while True:
        try:
            return lease.acquire(0)
        except (NoFreeIdentityError, StoreUnreachableError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


SET_UP_TIMEOUT_S = 30
"""A set-up step's store timeout (a harness margin: on a busy machine a cluster whose
members reach each other through this process's proxies, or a server creating tables, can
take seconds); the holders a test watches keep their own, short, timeouts."""


def with_option(url: str, name: str, value: object) -> str:
    """``url`` (or a bare query) with option ``name`` set to ``value``, replacing it if set."""
    base, _, query = url.partition("?") if "://" in url else ("", "", url)
    pairs = [pair for pair in query.split("&") if pair and pair.split("=")[0] != name]
    text = "&".join([*pairs, f"{name}={value}"])
    return f"{base}?{text}" if base else text


def set_up(url: str) -> str:
    """Set a fresh store at ``url`` up as a first deployment (no quarantine to wait out),
    with ``SET_UP_TIMEOUT_S``; returns ``url`` as given."""
    init_lease(with_option(url, "timeout", SET_UP_TIMEOUT_S), first_deployment=True)
    return url
