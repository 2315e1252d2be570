"""Stores that fail over, on loopback, for the failover tests and benchmarks.

- ``PgPair``: a PostgreSQL primary and an asynchronous streaming standby made from it by
  ``pg_basebackup -R``, the standby replicating through a relay (``TcpProxy``) that
  ``cut()`` stops (PostgreSQL replays every WAL record it received before it promotes, so
  only a cut link makes a promoted standby lag); ``kill_primary()`` (``pg_ctl stop -m
  immediate``), ``promote()``, and the clients' way to the primary: a proxy playing the
  virtual IP (``url``; ``move_clients()`` points it at the standby and drops its
  connections) or libpq's multi-host list with ``target_session_attrs=read-write``
  (``multihost_url``). ``next_round()`` makes the promoted standby the primary and a new
  standby from it, so one pair serves several rounds.
- ``RedisPair``: a Redis primary and its replica (``redis_replicas``), the link cut,
  the primary killed, the replica promoted with ``REPLICAOF NO ONE``, clients moved
  through the cluster's proxy of the primary; ``next_round()`` starts the old primary
  again as the promoted one's replica (the two swap roles), so one pair serves several
  rounds (bench/faults.py).

Everything is closed by the ``Cleanup`` given (pass or fail). Nothing here needs pytest.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from pathlib import Path
from typing import Any

from tests.support.cleanup import Cleanup
from tests.support.proxy import TcpProxy
from tests.support.servers import PgCluster, RedisServer, binary

__all__ = ["PgPair", "PgStandby", "RedisPair"]

_PRIMARY = {"wal_level": "replica", "max_wal_senders": "4", "wal_keep_size": "64MB"}


def wait_for(what: str, check: Any, seconds: float = 60.0) -> None:
    """Poll ``check()`` until true; RuntimeError after ``seconds`` (a harness wait: long)."""
    deadline = time.monotonic() + seconds
    while True:
        with contextlib.suppress(Exception):
            if check():
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.05)


class PgStandby(PgCluster):
    """A standby made by ``pg_basebackup -R`` from the primary on ``source_port`` (a
    relay's), with our settings appended (its own port and socket directory)."""

    def __init__(self, bindir: Path, source_port: int) -> None:
        super().__init__(bindir, _PRIMARY)
        self.source_port = source_port

    def start(self) -> None:
        if not (self.data / "PG_VERSION").exists():
            self._tool(
                "pg_basebackup", "-h", "127.0.0.1", "-p", str(self.source_port), "-U",
                "postgres", "-D", str(self.data), "-R", "-X", "stream", "--no-sync",
                "-c", "fast",
            )  # fmt: skip
            with (self.data / "postgresql.conf").open("a") as conf:
                conf.writelines(f"{key} = {value}\n" for key, value in self.settings.items())
        super().start()

    def promote(self) -> None:
        self._tool("pg_ctl", "-D", str(self.data), "-w", "-t", "60", "promote")


class PgPair:
    """A primary, its standby, the replication relay and the clients' proxy (see above)."""

    def __init__(self, cleanup: Cleanup) -> None:
        initdb = binary("initdb")
        if initdb is None:
            raise RuntimeError("PostgreSQL's initdb is not installed")
        self.bindir = Path(initdb).resolve().parent
        self._parts: list[Any] = []
        self.promoted = False
        cleanup.add(self.close, "the PostgreSQL primary and standby")
        self.primary: PgCluster = self._own(PgCluster(self.bindir, _PRIMARY))
        self.primary.start()
        self.vip = self._own(TcpProxy("127.0.0.1", self.primary.port))
        self.standby, self.relay = self._new_standby()

    def _own(self, part: Any) -> Any:
        self._parts.append(part)
        return part

    def _new_standby(self) -> tuple[PgStandby, TcpProxy]:
        relay = self._own(TcpProxy("127.0.0.1", self.primary.port))
        standby = self._own(PgStandby(self.bindir, relay.port))
        standby.start()
        wait_for("the standby to stream", self.streaming)
        return standby, relay

    def streaming(self) -> bool:
        rows = self.primary.sql(
            "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"
        )
        return int(rows[0][0]) >= 1

    def url(self, query: str = "") -> str:
        """A lease URL through the virtual IP (the clients' proxy)."""
        return self.primary.url(query, port=self.vip.port)

    def multihost_url(self, query: str = "") -> str:
        """A lease URL naming both servers; libpq picks the one that takes writes."""
        hosts = f"127.0.0.1:{self.primary.port},127.0.0.1:{self.standby.port}"
        tail = "target_session_attrs=read-write" + (f"&{query}" if query else "")
        return f"postgresql://postgres@{hosts}/postgres?{tail}"

    def cut(self) -> None:
        """Stop replication: the relay drops its connections and refuses new ones."""
        self.relay.set_mode("reset")

    def kill_primary(self) -> None:
        self.primary.crash()  # pg_ctl stop -m immediate

    def promote(self) -> None:
        self.promoted = True
        self.standby.promote()
        wait_for(
            "the standby to take writes",
            lambda: not self.standby.sql("SELECT pg_is_in_recovery()")[0][0],
        )

    def move_clients(self) -> None:
        """The virtual IP now reaches the promoted standby; its open connections drop."""
        self.vip.target = ("127.0.0.1", self.standby.port)
        self.vip.set_mode("reset")
        self.vip.set_mode("pass")

    def ready(self) -> None:
        """A primary and a streaming standby: after a failover, ``next_round``."""
        if self.promoted or not self.primary.running:
            self.next_round()
        self.relay.set_mode("pass")

    def next_round(self) -> None:
        """After a failover: the promoted standby is the primary, with a new standby."""
        old = self.primary
        old.close()
        self.relay.close()
        self.primary, self.promoted = self.standby, False
        self.standby, self.relay = self._new_standby()
        self.vip.target = ("127.0.0.1", self.primary.port)  # not the new standby's
        self.vip.set_mode("reset")
        self.vip.set_mode("pass")
        shutil.rmtree(old.root, ignore_errors=True)

    def new_cluster(self) -> PgCluster:
        """Another cluster, started (a restore's target: another system identifier)."""
        cluster: PgCluster = self._own(PgCluster(self.bindir, _PRIMARY))
        cluster.start()
        return cluster

    def replace(self, cluster: PgCluster) -> None:
        """The clients moved to ``cluster`` (a backup restored into another cluster); the
        old primary and standby closed, a new standby made from it."""
        old = (self.primary, self.standby, self.relay)
        self.primary, self.promoted = cluster, False
        self.vip.target = ("127.0.0.1", cluster.port)
        self.vip.set_mode("reset")
        self.vip.set_mode("pass")
        for part in old:
            part.close()
        self.standby, self.relay = self._new_standby()

    def close(self) -> None:
        for part in reversed(self._parts):
            with contextlib.suppress(Exception):
                part.close()


class RedisPair:
    """A durable Redis primary and its replica, replicating through a proxy of the
    primary (``redis_replicas``); clients through ``proxy`` (the virtual IP)."""

    def __init__(self, cleanup: Cleanup) -> None:
        from tests.support.redis import redis_replicas

        self.cluster = redis_replicas(2, cleanup)
        self.primary: RedisServer = self.cluster.members[0]
        self.replica: RedisServer = self.cluster.members[1]
        self.vip = TcpProxy("127.0.0.1", self.primary.port)
        cleanup.add(self.vip.close, "the Redis clients' proxy")
        wait_for("the replica to sync", self.synced)

    def synced(self) -> bool:
        info = self.replica.client().info("replication")
        return bool(info.get("master_link_status") == "up")

    def url(self, query: str = "") -> str:
        return self.primary.url(query, port=self.vip.port)

    def detach(self) -> None:
        """The replica stops replicating (a holder that connects now counts no replica,
        so its writes are not confirmed by WAIT: a replica attached later lags unseen).
        Returns once the primary no longer counts it: a holder that connected before then
        would count it and have every write refused by WAIT (seen once on a busy gate)."""
        self.replica.client().execute_command("REPLICAOF", "NO", "ONE")
        wait_for("the primary to let the replica go", self._alone)

    def _alone(self) -> bool:
        info = self.primary.client().info("replication")
        return int(info.get("connected_slaves", 0)) == 0

    def _index(self, member: RedisServer) -> int:
        return self.cluster.members.index(member)

    def attach(self) -> None:
        primary = str(self.cluster.port(self._index(self.primary)))
        self.replica.client().execute_command("REPLICAOF", "127.0.0.1", primary)
        wait_for("the replica to sync", self.synced)

    def cut(self) -> None:
        self.cluster.partition(self._index(self.replica), clients=False)

    def kill_primary(self) -> None:
        self.primary.crash()

    def promote(self) -> None:
        self.replica.client().execute_command("REPLICAOF", "NO", "ONE")

    def move_clients(self) -> None:
        self.vip.target = ("127.0.0.1", self.replica.port)
        self.vip.set_mode("reset")
        self.vip.set_mode("pass")

    def next_round(self) -> None:
        """After a failover: the old primary, started again on its data, replicates from the
        promoted replica; the two swap roles (each keeps its role across a restart)."""
        old, new = self.primary, self.replica
        self.cluster.heal()
        new.settings.pop("replicaof", None)
        old.settings["replicaof"] = f"127.0.0.1 {self.cluster.port(self._index(new))}"
        self.primary, self.replica = new, old
        if old.running:
            self.attach()
        else:
            old.start()
            wait_for("the replica to sync", self.synced)
