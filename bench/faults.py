"""The fault harness: one random, bounded fault schedule against any lease store, on servers
it starts itself on free loopback ports, while holder PROCESSES issue real ids.

    python -m bench.faults --store STORE --minutes N [--seed S] [--holders H]
    python -m bench.faults --list

Run from the checkout's root with ``PYTHONPATH=src:.`` and the ``test`` extra installed (it
uses tests/support/); stores: file, postgres, redis, mysql (these three: a primary and its
replica), etcd, etcd-cluster, zookeeper, zookeeper-cluster. It prints one table (Markdown),
the machine and the exact command above it:

    store | ids | faults by kind | duplicates | longest stall | identities recovered

and exits 1 if any id was issued twice (2 if the harness itself failed: it stops the schedule
there, says why, and the table counts what ran).

What it does
------------
``H`` holder processes (``tests/support/worker.py``), each pinned to one identity of its own
(``range=w-w``), issue ids as fast as a shared machine lets them, each into a file of its
own; every claim, renewal and error goes to a side log. Every process the harness starts
(holders, their replacements, intruders, claimants) runs under libfaketime with a clock
file of its own, so a fault can step that process's wall clock as NTP or an operator would,
the boot clock left alone. Then, until ``--minutes`` have passed or ``--max-faults`` were
applied, it picks a fault at random from those the store supports, applies it, heals it, and
waits 1-3 s:

- ``holder_kill``: a holder SIGKILLed; a replacement pinned to the same identity starts at once
  (it gets it back when the store lets it: after the TTL, at once for file slots).
- ``holder_stop``: a holder that has claimed SIGSTOPped past its TTL while an intruder pinned to
  its identity claims it; resumed once the intruder claimed (or 10 s later).
- ``clock_step``: a holder's wall clock stepped -5 s, +5 s or -50 ms for 2 s, then back.
- ``store_crash``: the store's server killed at once (SIGKILL, PostgreSQL's immediate stop),
  down 0.2-4 s (often past the TTL), started again on its data.
- ``record_loss``: lease records deleted under live holders, the meta record kept (one of the
  store's ``REMOVALS`` in tests/support/stores.py: a row, the whole table, a hash, ...; file
  slots: a held slot file unlinked). The store must quarantine what it lost.
- ``failover`` (PostgreSQL, Redis, MariaDB): replication cut, the holders issuing on for 0-3 s, the
  primary killed, the replica promoted, a fresh claimant pinned to a holder's identity with its
  clock up to ``max_skew`` behind reaching the promoted store first, then the clients' proxy
  (the virtual IP) moved to it; afterwards the old primary is replaced by a new replica.
- ``rollback`` (PostgreSQL, Redis, MariaDB): the store put back 1-4 s (PostgreSQL: the lease
  tables copied, then restored into another cluster the clients are moved to; MariaDB: the
  database dumped, then loaded into another server the clients are moved to; Redis:
  restarted on an older copy of its append-only files).
- ``leader_kill``, ``member_cut``, ``quorum_loss`` (``etcd-cluster``, ``zookeeper-cluster``:
  three members): the leader killed, one member cut off from the others and from clients,
  two members killed.

A holder that fails closed for good (``FATAL``) is restarted, as a process manager would.

Counted at the end, from the files:

- **ids**: every id written by every process the harness started;
- **duplicates**: ids seen more than once over ALL those streams (``count_duplicates``);
- **longest stall**: the longest time in which no process wrote any id (the id files' sizes,
  polled every 50 ms), with the fault that was last applied when it began;
- **identities recovered**: of the identities faults took from their holders (a killed or
  stopped holder's, a deleted record's, every held one at a store crash or failover), how many
  were claimed (or, after a crash, renewed) again afterwards, by whoever.

Everything it started is registered with one ``tests.support.cleanup.Cleanup`` and stopped at
the end, also on Ctrl-C, SIGTERM or an error.

Adding a store
--------------
A store is a function registered with ``@store("name")`` that takes the run's ``Cleanup``
and returns a ``Target``. A store on one server of ``tests/support/servers.py``'s face
(``start``, ``crash``, ``close``, ``running``) with a ``tests.support.stores.Store`` for it
(``stores.store_on`` knows it) is three lines, as ``zookeeper`` is::

    @store("zookeeper")
    def _zookeeper(cleanup: Cleanup) -> Target:
        server = ZkServer(_need_zookeeper())
        return ServerTarget(cleanup, server, after_start=server.wait_ready)

``ServerTarget`` starts the server, makes a fresh store on it, and gives ``store_crash`` and
``record_loss``; ``after_start`` is for a server that answers late (``wait_ready``).
A replica pair (tests/support with ``primary``, ``replica``, ``cut``, ``kill_primary``,
``promote``, ``move_clients``, ``next_round`` and a ``vip``) is a ``PairTarget`` subclass
that makes the pair and writes ``rollback`` (``MariaPairTarget``: ten lines); it gets
``failover`` from the harness. A consensus cluster of three (a tests/support/cluster.Cluster
whose members have ``wait_ready``) is a ``ClusterTarget`` subclass that makes the cluster and
its store and says which member leads; it gets ``leader_kill``, ``member_cut`` and
``quorum_loss``. Any other fault of a store's own is a method ``fault_NAME(run, fault)``
named in ``kinds``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import json
import logging
import os
import platform
import random
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.cleanup import Cleanup
from tests.support.faketime import LIBFAKETIME, faketime_env
from tests.support.procs import read_ids, read_log, start_worker
from tests.support.servers import binary

TTL_S, RENEW_S, SPAN_S, MAX_SKEW_S = 2.0, 0.5, 2.0, 1.0
TIMINGS = f"ttl={TTL_S:g}&renew={RENEW_S:g}&span={SPAN_S:g}&max_skew={MAX_SKEW_S:g}&timeout=1"
"""Scaled-down lease timings (a store's round trip may take 1 s: a harness margin)."""

FATAL = {"store_regressed"}
"""Error codes after which a holder refuses every claim for good: its supervisor restarts it."""
TAIL_S = TTL_S + SPAN_S + 2 * MAX_SKEW_S + 4.0
"""After the last fault: a quarantine's length and some, with no fault."""
WAIT_S = 30.0  # the longest the harness waits for a process or a store (a margin)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


# --- what the harness starts and records ---------------------------------------------------


@dataclass
class Writer:
    """One process the harness started: its id file, its log, its clock file."""

    name: str
    role: str  # holder, intruder, claimant
    worker: int
    ids: Path
    log: Path
    clock: Path
    until: Path
    proc: subprocess.Popen[bytes]

    def claimed(self) -> bool:
        return any(r["kind"] == "claim" for r in read_log(self.log))


@dataclass
class Fault:
    kind: str
    start_ms: int
    heal_ms: int = 0
    identities: tuple[int, ...] = ()  # taken from their holders
    detail: str = ""


@dataclass
class Result:
    store: str
    ids: int
    faults: Counter[str]
    duplicates: int
    stall_s: float
    stall_after: str
    taken: int
    recovered: int
    codes: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    restarts: int = 0
    error: str = ""


# --- the stores ----------------------------------------------------------------------------


class Target:
    """A store the harness runs against: the holders' URL and the faults it supports."""

    name = ""
    kinds: tuple[str, ...] = ("holder_kill", "holder_stop", "clock_step", "record_loss")
    intrudes = True  # an intruder claims a stopped holder's identity after its TTL

    def url(self, worker: int, port: int | None = None) -> str:
        """A lease URL pinned to identity ``worker`` (through ``port`` if given)."""
        raise NotImplementedError

    def lose_records(self, rng: random.Random, held: list[int]) -> tuple[tuple[int, ...], str]:
        """Delete lease records under live holders; the identities lost, and how."""
        raise NotImplementedError

    def crash_restart(self, down_s: float) -> None:
        raise NotImplementedError


StoreFactory = Callable[[Cleanup], Target]
STORES: dict[str, StoreFactory] = {}


def store(name: str) -> Callable[[StoreFactory], StoreFactory]:
    """Register a store factory under ``name`` (see the module docstring)."""

    def register(factory: StoreFactory) -> StoreFactory:
        STORES[name] = factory
        return factory

    return register


class FileTarget(Target):
    """File slots in a state directory of the run's own (one host)."""

    name = "file"
    intrudes = False  # a stopped process keeps its flock: no one can claim its slot

    def __init__(self, cleanup: Cleanup) -> None:
        import shutil

        self.dir = Path(tempfile.mkdtemp(prefix="snowid-faults-slots-"))
        cleanup.add(lambda: shutil.rmtree(self.dir, ignore_errors=True), "the slot directory")

    def url(self, worker: int, port: int | None = None) -> str:
        del port
        return f"file://{self.dir}?range={worker}-{worker}"

    def lose_records(self, rng: random.Random, held: list[int]) -> tuple[tuple[int, ...], str]:
        from snowid.lease._slotdir import slot_path

        worker = rng.choice(held)
        with contextlib.suppress(FileNotFoundError):
            slot_path(self.dir, worker).unlink()
        return (worker,), "slot file unlinked"


class ServerTarget(Target):
    """A store on one server of tests/support/servers.py's face, with a fresh
    ``tests.support.stores.Store`` on it (a table or key prefix of the run's own)."""

    kinds = (*Target.kinds, "store_crash")

    def __init__(
        self,
        cleanup: Cleanup,
        server: Any,
        timings: str = TIMINGS,
        after_start: Callable[[], None] | None = None,
    ) -> None:
        from tests.support.stores import store_on

        self.server = server
        self.name = server.name
        self.timings = timings
        self.after_start = after_start or (lambda: None)
        cleanup.add(server.close, f"the {self.name} server")
        server.start()
        self.after_start()
        self.store = store_on(server)
        _close_at_end(cleanup, self.store)

    def url(self, worker: int, port: int | None = None) -> str:
        url: str = self.store.url(f"range={worker}-{worker}&{self.timings}", port)
        return url

    def lose_records(self, rng: random.Random, held: list[int]) -> tuple[tuple[int, ...], str]:
        how = rng.choice(self.store.REMOVALS)
        worker = rng.choice(held)
        self.store.remove(worker, how)
        one = how in ("delete_row", "hdel_ceiling", "delete_record")
        return ((worker,) if one else tuple(held)), how

    def crash_restart(self, down_s: float) -> None:
        self.server.crash()
        time.sleep(down_s)
        self.server.start()
        self.after_start()


class PairTarget(ServerTarget):
    """A primary and its replica (a pair of tests/support/failover.py or failover_mariadb.py:
    ``primary``, ``cut``, ``kill_primary``, ``promote``, ``move_clients``, ``next_round``,
    ``vip``); holders through the virtual IP, records and crashes on the current primary.
    A subclass makes the pair and says where the promoted server is (``promoted``)."""

    kinds = (*ServerTarget.kinds, "failover", "rollback")

    def __init__(self, pair: Any, name: str, timings: str) -> None:
        from tests.support.stores import store_on

        self.pair = pair
        self.name, self.timings = name, timings
        self.after_start = lambda: None
        self.store = store_on(self.pair.primary)

    @property
    def server(self) -> Any:  # the current primary: faults and records go to it
        return self.pair.primary

    @property
    def promoted(self) -> Any:
        """The server a failover promotes."""
        return self.pair.replica

    def url(self, worker: int, port: int | None = None) -> str:
        self.store.server = self.pair.primary
        return super().url(worker, port or self.pair.vip.port)

    def lose_records(self, rng: random.Random, held: list[int]) -> tuple[tuple[int, ...], str]:
        self.store.server = self.pair.primary
        return super().lose_records(rng, held)

    def promoted_url(self, worker: int) -> str:
        self.store.server = self.promoted
        return super().url(worker, self.promoted.port)

    def rollback(self, rng: random.Random) -> str:
        """The store put back 1-4 s; how far."""
        raise NotImplementedError


class PgPairTarget(PairTarget):
    """PostgreSQL: a primary and its streaming standby (tests/support/failover.PgPair)."""

    def __init__(self, cleanup: Cleanup, timings: str) -> None:
        from tests.support.failover import PgPair

        super().__init__(PgPair(cleanup), "postgres", timings)
        self._replayed()

    @property
    def promoted(self) -> Any:
        return self.pair.standby

    def _replayed(self) -> None:
        from tests.support.failover import wait_for

        lsn = self.pair.primary.sql("SELECT pg_current_wal_lsn()::text")[0][0]
        wait_for(
            "the standby to replay",
            lambda: self.pair.standby.sql("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (lsn,))[
                0
            ][0],
        )

    def rollback(self, rng: random.Random) -> str:
        """The lease tables copied now, restored into another cluster 1-4 s later, the
        primary killed and the clients moved there (another system identifier)."""
        from tests.support.stores import SqlStore

        from snowid.lease import init_lease

        assert isinstance(self.store, SqlStore)
        table, pair = self.store.table, self.pair
        backup = pair.new_cluster()  # before the copy: initdb takes seconds
        init_lease(backup.url(f"table={table}"), first_deployment=True)
        tables = (table, f"{table}_meta")
        saved = {name: _pg_copy_out(pair.primary, name) for name in tables}
        behind = rng.uniform(1.0, 4.0)
        time.sleep(behind)  # grants and ids the copy does not have
        for name, data in saved.items():
            _pg_copy_in(backup, name, data)
        pair.kill_primary()
        pair.replace(backup)
        self.store.server = backup
        return f"{behind:.1f} s back"

    def crash_restart(self, down_s: float) -> None:
        super().crash_restart(down_s)
        self.pair.relay.set_mode("pass")


class RedisPairTarget(PairTarget):
    """Redis: a durable primary and its replica (tests/support/failover.RedisPair)."""

    def __init__(self, cleanup: Cleanup, timings: str) -> None:
        from tests.support.failover import RedisPair

        super().__init__(RedisPair(cleanup), "redis", timings)

    def rollback(self, rng: random.Random) -> str:
        """The primary's append-only files copied now, the primary killed 1-4 s later and
        started again on the copy (a new replication id, as at every restart)."""
        import shutil

        from tests.support.failover import wait_for

        primary = self.pair.primary
        aof = primary.root / "appendonlydir"
        with tempfile.TemporaryDirectory(prefix="snowid-faults-aof-") as saved:
            shutil.copytree(aof, Path(saved) / "aof")
            behind = rng.uniform(1.0, 4.0)
            time.sleep(behind)  # grants and ids the copy does not have
            primary.crash()
            shutil.rmtree(aof)
            shutil.copytree(Path(saved) / "aof", aof)
        primary.start()
        try:
            wait_for("the replica to sync", self.pair.synced, 15)
        except RuntimeError:
            # Seen under load: the replica's reconnection hangs in its handshake until
            # repl-timeout (60 s). A new REPLICAOF makes it connect afresh.
            self.pair.replica.client().execute_command("REPLICAOF", "NO", "ONE")
            self.pair.attach()
        return f"{behind:.1f} s back"


class MariaPairTarget(PairTarget):
    """MariaDB: a primary and its binlog replica (tests/support/failover_mariadb.MariaPair)."""

    def __init__(self, cleanup: Cleanup, timings: str) -> None:
        from tests.support.failover_mariadb import MariaPair

        super().__init__(MariaPair(cleanup), "mysql", timings)

    def rollback(self, rng: random.Random) -> str:
        """The database dumped now, loaded 1-4 s later into another server (another
        ``server_id``), the primary killed and the clients moved there."""
        pair = self.pair
        backup = pair.new_server()  # before the dump: a start takes seconds
        saved = pair.dump(pair.primary)
        behind = rng.uniform(1.0, 4.0)
        time.sleep(behind)  # grants and ids the dump does not have
        pair.load(backup, saved)
        pair.kill_primary()
        pair.replace(backup)
        self.store.server = backup
        return f"{behind:.1f} s back"


class ClusterTarget(Target):
    """A consensus store on three members on loopback (a tests/support/cluster.Cluster),
    every byte through the cluster's proxies; holders name every member, records are lost
    on member 0. Its own faults: the leader killed, a member cut off from the others and
    from clients, two members killed (the quorum lost), each for 0.2-4 s. A subclass makes
    the cluster and its store and says which member leads (``leader``)."""

    kinds = (*Target.kinds, "leader_kill", "member_cut", "quorum_loss")
    scheme = ""  # the lease URL's

    def __init__(self, cleanup: Cleanup, cluster: Any, store: Any) -> None:
        from snowid.lease import init_lease

        self.cluster, self.store = cluster, store
        _close_at_end(cleanup, store)
        self.hosts = ",".join(f"127.0.0.1:{cluster.port(i)}" for i in range(len(cluster)))
        init_lease(self.url(0).partition("?")[0], first_deployment=True)

    def url(self, worker: int, port: int | None = None) -> str:
        del port
        prefix = self.store.prefix
        return f"{self.scheme}://{self.hosts}/{prefix}?range={worker}-{worker}&{TIMINGS}"

    lose_records = ServerTarget.lose_records

    def leader(self) -> int:
        """The leader's index (AssertionError or OSError: none known now)."""
        raise NotImplementedError

    def _leader(self) -> int:
        """The leader's index, waited for while an election runs (up to WAIT_S)."""
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                return self.leader()
            except (AssertionError, OSError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def _down(self, members: list[int], down_s: float) -> str:
        for index in members:
            self.cluster.kill(index)
        time.sleep(down_s)
        for index in members:
            self.cluster.start(index)
        for index in members:
            self.cluster[index].wait_ready()
        return f"member {','.join(map(str, members))} down {down_s:.1f} s"

    def fault_leader_kill(self, run: Harness, fault: Fault) -> None:
        fault.detail = self._down([self._leader()], run.rng.uniform(0.2, 4.0))

    def fault_quorum_loss(self, run: Harness, fault: Fault) -> None:
        members = run.rng.sample(range(3), 2)
        fault.identities = tuple(run._held())
        fault.detail = self._down(members, run.rng.uniform(0.2, 4.0))

    def fault_member_cut(self, run: Harness, fault: Fault) -> None:
        index = run.rng.randrange(3)
        self.cluster.partition(index)
        time.sleep(run.rng.uniform(0.2, 4.0))
        self.cluster.heal()
        fault.detail = f"member {index}"


class EtcdClusterTarget(ClusterTarget):
    """etcd: three members (tests/support/etcd.etcd_cluster), a key prefix of the run's own."""

    name, scheme = "etcd-cluster", "etcd"

    def __init__(self, cleanup: Cleanup) -> None:
        from tests.support.etcd import etcd_cluster
        from tests.support.servers import new_name
        from tests.support.stores import EtcdStore

        cluster = etcd_cluster(3, cleanup)
        super().__init__(cleanup, cluster, EtcdStore(cluster.members[0], new_name()))

    def leader(self) -> int:
        from tests.support.etcd import leader_of

        return leader_of(self.cluster)


class ZkClusterTarget(ClusterTarget):
    """ZooKeeper: an ensemble of three servers (tests/support/zookeeper.zookeeper_ensemble),
    a path of the run's own."""

    name, scheme = "zookeeper-cluster", "zookeeper"

    def __init__(self, cleanup: Cleanup) -> None:
        from tests.support.servers import new_name
        from tests.support.stores import ZookeeperStore
        from tests.support.zookeeper import zookeeper_ensemble

        cluster = zookeeper_ensemble(3, cleanup)
        super().__init__(cleanup, cluster, ZookeeperStore(cluster.members[0], new_name()))

    def leader(self) -> int:
        from tests.support.zookeeper import leader_of

        return leader_of(self.cluster)


def _close_at_end(cleanup: Cleanup, store: Any) -> None:
    """A store with a client of its own (ZooKeeper's kazoo session) closes it at the end."""
    close = getattr(store, "close", None)
    if close is not None:
        cleanup.add(close, f"the {store.name} store's client")


def _pg_copy_out(server: Any, table: str) -> bytes:
    import psycopg

    with (
        psycopg.connect(server.url(), autocommit=True, connect_timeout=3) as conn,
        conn.cursor().copy(f"COPY {table} TO STDOUT") as copy,
    ):
        return b"".join(bytes(block) for block in copy)


def _pg_copy_in(server: Any, table: str, data: bytes) -> None:
    import psycopg

    with psycopg.connect(server.url(), autocommit=True, connect_timeout=3) as conn:
        conn.execute(f"TRUNCATE {table}")
        with conn.cursor().copy(f"COPY {table} FROM STDIN") as copy:
            copy.write(data)


def _need(name: str) -> str:
    found = binary(name)
    if found is None:
        raise SystemExit(f"bench.faults: {name} is not installed (scripts/test installs it)")
    return found


@store("file")
def _file(cleanup: Cleanup) -> Target:
    return FileTarget(cleanup)


@store("postgres")
def _postgres(cleanup: Cleanup) -> Target:
    _need("initdb")
    return PgPairTarget(cleanup, f"{TIMINGS}&connect_timeout=1")


@store("redis")
def _redis(cleanup: Cleanup) -> Target:
    _need("redis-server")
    return RedisPairTarget(cleanup, f"{TIMINGS}&connect_timeout=1")


@store("mysql")
def _mysql(cleanup: Cleanup) -> Target:
    for name in ("mariadbd", "mariadb-install-db", "mariadb-dump", "mariadb"):
        _need(name)
    return MariaPairTarget(cleanup, f"{TIMINGS}&connect_timeout=1")


@store("etcd")
def _etcd(cleanup: Cleanup) -> Target:
    from tests.support.etcd import EtcdServer

    server = EtcdServer(_need("etcd"))
    return ServerTarget(cleanup, server, after_start=server.wait_ready)


@store("etcd-cluster")
def _etcd_cluster(cleanup: Cleanup) -> Target:
    _need("etcd")
    return EtcdClusterTarget(cleanup)


def _need_zookeeper() -> str:
    """Java, with Debian's ZooKeeper jar (tests/support/zookeeper.py runs it)."""
    from tests.support.zookeeper import JAR

    if not os.path.exists(JAR):
        raise SystemExit(f"bench.faults: ZooKeeper is not installed ({JAR} is missing)")
    return _need("java")


@store("zookeeper")
def _zookeeper(cleanup: Cleanup) -> Target:
    from tests.support.zookeeper import ZkServer

    server = ZkServer(_need_zookeeper())
    return ServerTarget(cleanup, server, after_start=server.wait_ready)


@store("zookeeper-cluster")
def _zookeeper_cluster(cleanup: Cleanup) -> Target:
    _need_zookeeper()
    return ZkClusterTarget(cleanup)


# --- the run -------------------------------------------------------------------------------


class Harness:
    def __init__(
        self,
        target: Target,
        cleanup: Cleanup,
        workdir: Path,
        *,
        holders: int,
        seed: int,
        seconds: float,
        max_faults: int,
        kinds: tuple[str, ...] = (),
    ) -> None:
        if not LIBFAKETIME:
            raise SystemExit("bench.faults: libfaketime is missing (apt-get install faketime)")
        self.target, self.cleanup, self.dir = target, cleanup, workdir
        self.rng = random.Random(seed)
        self.seconds, self.max_faults = seconds, max_faults
        self.kinds = kinds or target.kinds
        unknown = sorted(set(self.kinds) - set(target.kinds))
        if unknown:
            raise SystemExit(
                f"bench.faults: --faults {','.join(unknown)}: not a fault of {target.name}"
                f" (it has {', '.join(target.kinds)})"
            )
        self.writers: list[Writer] = []
        self.holders: dict[int, Writer] = {}  # identity -> its current holder
        self.faults: list[Fault] = []
        self.count = self.restarts = 0
        self.error = ""  # the harness's own failure that ended the schedule early
        self.stall = Stall(self)
        for worker in range(holders):
            self.holders[worker] = self.spawn("holder", worker)

    # --- processes ---

    def spawn(self, role: str, worker: int, *, url: str | None = None, clock_ms: int = 0) -> Writer:
        self.count += 1
        name = f"{role}{self.count}-w{worker}"
        ids, log = self.dir / f"{name}.ids", self.dir / f"{name}.log"
        clock, until = self.dir / f"{name}.clock", self.dir / f"{name}.until"
        _set_clock(clock, clock_ms)
        env = faketime_env(clock)
        proc = start_worker(
            url or self.target.url(worker),
            ids,
            "--seconds",
            str(self.seconds + 600),
            "--idle",
            "0.0002",
            "--until",
            str(until),
            log=log,
            env=env,
            stderr=self.dir / f"{name}.err",
        )
        self.cleanup.process(proc)
        writer = Writer(name, role, worker, ids, log, clock, until, proc)
        self.writers.append(writer)
        return writer

    def supervise(self) -> None:
        """What a process manager does: a holder that exited, or failed closed for good
        (its store broke its promises: FATAL), is started again."""
        for worker, holder in list(self.holders.items()):
            record = _last_record(holder.log)
            if holder.proc.poll() is not None or (
                record.get("kind") == "error" and record.get("code") in FATAL
            ):
                holder.proc.kill()
                holder.proc.wait()
                self.holders[worker] = self.spawn("holder", worker)
                self.restarts += 1

    def claimed_holders(self) -> list[Writer]:
        return [w for w in self.holders.values() if w.proc.poll() is None and w.claimed()]

    def wait(self, check: Callable[[], bool], seconds: float = WAIT_S) -> bool:
        deadline = time.monotonic() + seconds
        while not check():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    # --- faults ---

    def execute(self) -> None:
        self.stall.start()
        # Every holder claimed before the first fault (interpreters start slowly when busy);
        # the schedule's time counts from there.
        self.wait(lambda: all(w.claimed() for w in self.holders.values()), 120)
        start = time.monotonic()
        while time.monotonic() - start < self.seconds and len(self.faults) < self.max_faults:
            self.supervise()
            kind = self.rng.choice(self.kinds)
            fault = Fault(kind, now_ms())
            self.stall.fault = kind
            apply = getattr(self, f"fault_{kind}", None)
            try:
                if apply is None:
                    getattr(self.target, f"fault_{kind}")(self, fault)
                elif not apply(fault):
                    continue  # nothing to do it to now (no holder has claimed yet)
            except Exception as error:  # the harness's own failure: stop, count what ran
                traceback.print_exc()
                self.error = f"{kind}: {type(error).__name__}: {error}"
                break
            fault.heal_ms = fault.heal_ms or now_ms()
            self.faults.append(fault)
            with (self.dir / "faults.jsonl").open("a") as log:
                log.write(json.dumps(dataclasses.asdict(fault)) + "\n")
            time.sleep(self.rng.uniform(1.0, 3.0))
        self.supervise()
        time.sleep(min(TAIL_S, self.seconds / 3))  # no fault: time for the last to heal
        self.finish()

    def fault_holder_kill(self, fault: Fault) -> bool:
        victim = self.rng.choice(list(self.holders.values()))
        victim.proc.kill()
        victim.proc.wait()
        self.holders[victim.worker] = self.spawn("holder", victim.worker)
        fault.identities = (victim.worker,)
        return True

    def fault_holder_stop(self, fault: Fault) -> bool:
        candidates = self.claimed_holders()
        if not candidates:
            return False
        paused = self.rng.choice(candidates)
        paused.proc.send_signal(signal.SIGSTOP)
        if not self.target.intrudes:
            time.sleep(TTL_S * 1.5)
            paused.proc.send_signal(signal.SIGCONT)
            return True
        try:
            intruder = self.spawn("intruder", paused.worker)
            time.sleep(TTL_S * 1.5)
            self.wait(intruder.claimed, 10)
        finally:
            paused.proc.send_signal(signal.SIGCONT)
        fault.heal_ms = now_ms()
        self.wait(lambda: _has_written(intruder), 5)
        intruder.until.touch()  # it releases the identity; the holder claims it again
        fault.identities = (paused.worker,)
        return True

    def fault_clock_step(self, fault: Fault) -> bool:
        holder = self.rng.choice(list(self.holders.values()))
        step = self.rng.choice((-5000, 5000, -50))
        _set_clock(holder.clock, step)
        time.sleep(2.0)
        _set_clock(holder.clock, 0)
        fault.detail = f"{step:+d} ms"
        return True

    def fault_store_crash(self, fault: Fault) -> bool:
        held = self._held()
        self.target.crash_restart(self.rng.uniform(0.2, 4.0))
        fault.identities = tuple(held)
        return True

    def fault_record_loss(self, fault: Fault) -> bool:
        held = self._held()
        if not held:
            return False
        fault.identities, fault.detail = self.target.lose_records(self.rng, held)
        return True

    def fault_failover(self, fault: Fault) -> bool:
        target = self.target
        assert isinstance(target, PairTarget)
        pair = target.pair
        held = self._held()
        worker = self.rng.choice(list(self.holders))
        pair.cut()
        lag = self.rng.uniform(0.0, 3.0)
        time.sleep(lag)  # renewals and ids the replica never gets
        pair.kill_primary()
        pair.promote()
        behind = -int(self.rng.uniform(0.0, MAX_SKEW_S) * 1000)
        claimant = self.spawn("claimant", worker, url=target.promoted_url(worker), clock_ms=behind)
        self.wait(claimant.claimed, 60)  # the quarantine, and a slow start
        pair.move_clients()
        self.wait(lambda: _has_written(claimant), 5)
        claimant.until.touch()
        fault.heal_ms = now_ms()
        pair.next_round()  # a new replica for the next round
        fault.identities = tuple(held)
        fault.detail = f"lag {lag:.1f} s, claimant {behind} ms"
        return True

    def fault_rollback(self, fault: Fault) -> bool:
        held = self._held()
        assert isinstance(self.target, PairTarget)
        fault.detail = self.target.rollback(self.rng)
        fault.heal_ms = now_ms()
        fault.identities = tuple(held)
        return True

    def _held(self) -> list[int]:
        return sorted(w.worker for w in self.claimed_holders())

    # --- the end ---

    def finish(self) -> None:
        """Every process asked to stop (its lease released), then ended; bounded."""
        if self.stall.is_alive():
            self.stall.stop()
        for writer in self.writers:
            writer.until.touch()
            if writer.proc.poll() is None:
                writer.proc.send_signal(signal.SIGCONT)
        deadline = time.monotonic() + 20
        for writer in self.writers:
            with contextlib.suppress(subprocess.TimeoutExpired):
                writer.proc.wait(max(0.1, deadline - time.monotonic()))
        for writer in self.writers:
            if writer.proc.poll() is None:
                writer.proc.terminate()

    def result(self, seconds: float) -> Result:
        streams = [read_ids(w.ids) for w in self.writers]
        logs = {w.name: read_log(w.log) for w in self.writers}
        codes: Counter[str] = Counter()
        for records in logs.values():
            codes.update(str(r["code"]) for r in records if r["kind"] == "error")
            codes.update(str(r["kind"]) for r in records if r["kind"] == "lost")
        last: dict[tuple[str, object], int] = {}  # (kind, worker) -> when it was last logged
        for records in logs.values():
            for r in records:
                if r["kind"] in ("claim", "extend"):
                    key = (str(r["kind"]), r["worker"])
                    last[key] = max(last.get(key, 0), int(str(r["at"])))
        taken = recovered = 0
        for fault in self.faults:
            for worker in fault.identities:
                taken += 1
                recovered += (
                    last.get(("claim", worker), 0) > fault.start_ms
                    or last.get(("extend", worker), 0) > fault.heal_ms
                )
        return Result(
            store=self.target.name,
            ids=sum(len(s) for s in streams),
            faults=Counter(f.kind for f in self.faults),
            duplicates=count_duplicates(streams),
            stall_s=self.stall.longest_s,
            stall_after=self.stall.longest_after,
            taken=taken,
            recovered=recovered,
            codes=codes,
            seconds=seconds,
            restarts=self.restarts,
            error=self.error,
        )


class Stall(threading.Thread):
    """Polls the id files' total size every 50 ms: the longest time nothing was written."""

    def __init__(self, harness: Harness) -> None:
        super().__init__(name="stall", daemon=True)
        self.harness = harness
        self.halt = threading.Event()
        self.fault = "start"  # the fault applied last
        self.longest_s, self.longest_after = 0.0, ""

    def run(self) -> None:
        size, since, after = -1, time.monotonic(), self.fault
        while not self.halt.wait(0.05):
            total = 0
            for writer in list(self.harness.writers):
                with contextlib.suppress(OSError):
                    total += writer.ids.stat().st_size
            now = time.monotonic()
            if total != size:
                self._gap(size, now - since, after)
                size, since, after = total, now, self.fault
        self._gap(size, time.monotonic() - since, after)  # one still open at the end

    def _gap(self, size: int, seconds: float, after: str) -> None:
        if size > 0 and seconds > self.longest_s:  # not before the first id
            self.longest_s, self.longest_after = seconds, after

    def stop(self) -> None:
        self.halt.set()
        self.join(5)


def count_duplicates(streams: Iterable[Iterable[int]]) -> int:
    """How many ids repeat an id seen before, over every stream together (an id issued three
    times counts twice; the same id twice in one stream counts too)."""
    seen: set[int] = set()
    total = 0
    for stream in streams:
        for value in stream:
            seen.add(value)
            total += 1
    return total - len(seen)


def _last_record(path: Path) -> dict[str, object]:
    """The last line of a worker's log ({} if none yet)."""
    try:
        with path.open("rb") as log:
            log.seek(max(0, log.seek(0, os.SEEK_END) - 4096))
            lines = log.read().splitlines()
    except OSError:
        return {}
    with contextlib.suppress(ValueError, IndexError):
        found: dict[str, object] = json.loads(lines[-1])
        return found
    return {}


def _has_written(writer: Writer) -> bool:
    return writer.ids.exists() and writer.ids.stat().st_size > 0


def _set_clock(path: Path, offset_ms: int) -> None:
    """A libfaketime offset file (re-read at every clock read), replaced atomically."""
    staged = path.with_suffix(".next")
    staged.write_text(f"{offset_ms / 1000:+.3f}\n")
    os.replace(staged, path)


# --- the table -----------------------------------------------------------------------------

HEADER = "| store | ids | faults by kind | duplicates | longest stall | identities recovered |"


def table(results: list[Result]) -> str:
    lines = [HEADER, "|---|---:|---|---:|---|---:|"]
    for r in results:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(r.faults.items()))
        stall = f"{r.stall_s:.1f} s (after {r.stall_after})"
        lines.append(
            f"| {r.store} | {r.ids:,} | {kinds} | {r.duplicates} | {stall} |"
            f" {r.recovered}/{r.taken} |"
        )
    return "\n".join(lines)


def machine() -> str:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}, load {load}"


def run(
    store_name: str,
    minutes: float,
    seed: int,
    *,
    holders: int = 3,
    max_faults: int = 1000,
    keep: Path | None = None,
    kinds: tuple[str, ...] = (),
) -> Result:
    """One run; ``keep``: a directory to leave the id files and logs in."""
    started = time.monotonic()
    with Cleanup() as cleanup:
        if keep is None:
            work = Path(cleanup.enter(tempfile.TemporaryDirectory(prefix="snowid-faults-")))
        else:
            work = keep
            work.mkdir(parents=True, exist_ok=True)
        target = STORES[store_name](cleanup)
        harness = Harness(
            target, cleanup, work,
            holders=holders, seed=seed, seconds=minutes * 60, max_faults=max_faults,
            kinds=kinds,
        )  # fmt: skip
        try:
            harness.execute()
        finally:
            harness.finish()
        return harness.result(time.monotonic() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.faults", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--store", choices=sorted(STORES))
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--holders", type=int, default=3)
    parser.add_argument("--max-faults", type=int, default=1000)
    parser.add_argument("--faults", default="", help="KIND,KIND: only these (default: all)")
    parser.add_argument("--keep", type=Path, default=None, help="leave id files and logs here")
    parser.add_argument("--list", action="store_true", help="the stores it knows")
    args = parser.parse_args(argv)
    if args.list:
        for name in sorted(STORES):
            print(name)
        return 0
    if args.store is None:
        parser.error("--store is required")
    if not 0 < args.minutes <= 24 * 60:
        parser.error(f"--minutes must be in (0, 1440], not {args.minutes}")
    if not 1 <= args.holders <= 64:
        parser.error(f"--holders must be in 1..64, not {args.holders}")
    if args.max_faults < 1:
        parser.error(f"--max-faults must be at least 1, not {args.max_faults}")
    kinds = tuple(k for k in args.faults.split(",") if k)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    # The harness's own ZooKeeper client (tests/support/zookeeper.ZkNodes, for record_loss)
    # loses its connection at every crash and reconnects: not worth a line each time.
    logging.getLogger("kazoo.client").setLevel(logging.ERROR)
    signal.signal(signal.SIGTERM, _interrupted)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # also when started with & (ignored)
    command = "python -m bench.faults " + shlex.join(
        ["--store", args.store, "--minutes", f"{args.minutes:g}", "--seed", str(seed)]
        + (["--holders", str(args.holders)] if args.holders != 3 else [])
        + (["--faults", args.faults] if args.faults else [])
    )
    print(f"# {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; {machine()}", flush=True)
    print(f"# {command}", flush=True)
    try:
        result = _run_args(args, seed, kinds)
    except KeyboardInterrupt:
        print("# interrupted: everything the harness started is stopped", flush=True)
        return 130
    print(
        f"# {result.seconds:.0f} s; load at the end {os.getloadavg()[0]:.2f}; fail-closed"
        f" events by code: {dict(sorted(result.codes.items()))}; holders restarted after"
        f" failing closed for good: {result.restarts}"
    )
    if result.error:
        print(f"# the schedule stopped early, the harness failed: {result.error}")
    print(table([result]))
    return 1 if result.duplicates else 2 if result.error else 0


def _run_args(args: argparse.Namespace, seed: int, kinds: tuple[str, ...]) -> Result:
    return run(
        args.store,
        args.minutes,
        seed,
        holders=args.holders,
        max_faults=args.max_faults,
        keep=args.keep,
        kinds=kinds,
    )


def _interrupted(signum: int, frame: object) -> None:
    del frame
    raise KeyboardInterrupt(f"signal {signum}")


if __name__ == "__main__":
    sys.exit(main())
