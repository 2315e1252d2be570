"""A MariaDB that fails over, on loopback, for the failover tests and benchmarks.

``MariaPair``: a MariaDB primary and a binlog replica of the test's own (``mariadbd`` on
data directories made by ``mariadb-install-db`` in temporary directories, on free loopback
ports), the replica reading the primary's binary log by GTID through a relay
(``TcpProxy``) that ``cut()`` stops, so the replica lags by whatever the primary wrote
since; ``kill_primary()`` (SIGKILL), ``promote()`` (the relay log already received
applied, then ``STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = 0``, as a failover
tool does), and the clients' way to the primary: a proxy playing the virtual IP (``url``;
``move_clients()`` points it at the replica and drops its connections).
``next_round()`` makes the promoted replica the primary and a new replica from a dump of
it, so one pair serves several rounds (bench/faults.py); ``new_server()``, ``dump()``,
``load()`` and ``replace()`` restore an older copy of the database into another server and
move the clients there (the harness's rollback).

Both servers are durable as snowid's strict mode asks (``innodb_flush_log_at_trx_commit =
1``, ``sync_binlog = 1``), log in the default MIXED binary log format, and have distinct
``server_id``s (1 and 2, then 3, 4, ... for the servers made later), as replication
requires. With ``semi_sync=True`` the primary
waits for the replica's acknowledgement at the ``AFTER_SYNC`` point
(``rpl_semi_sync_master_*``; it falls back to asynchronous after
``semi_sync_timeout_ms`` without one, as MariaDB does).

``user(name)`` makes an unprivileged account (no SUPER, no REPLICATION, no PROCESS: only
what the lease tables need on the database), replicated to the replica like any write.

Everything is closed by the ``Cleanup`` given (pass or fail). Nothing here needs pytest.
"""

from __future__ import annotations

import contextlib
import itertools
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tests.support.cleanup import Cleanup
from tests.support.failover import wait_for
from tests.support.proxy import TcpProxy
from tests.support.servers import MariaServer, binary

__all__ = ["MariaPair"]

_DURABLE_BINLOG = {"log-bin": "binlog", "sync-binlog": "1", "log-slave-updates": "1"}


class MariaPair:
    """A primary, its binlog replica, the replication relay and the clients' proxy."""

    def __init__(
        self, cleanup: Cleanup, *, semi_sync: bool = False, semi_sync_timeout_ms: int = 1000
    ) -> None:
        server, install = binary("mariadbd"), binary("mariadb-install-db")
        if server is None or install is None:
            raise RuntimeError("mariadbd or mariadb-install-db is not installed")
        self._parts: list[Any] = []
        self._pristine: Path | None = None
        cleanup.add(self.close, "the MariaDB primary and replica")
        semi = (
            {
                "rpl-semi-sync-master-enabled": "ON",
                "rpl-semi-sync-master-wait-point": "AFTER_SYNC",
                "rpl-semi-sync-master-timeout": str(semi_sync_timeout_ms),
                "rpl-semi-sync-slave-enabled": "ON",
            }
            if semi_sync
            else {}
        )
        self._binaries, self._options = (server, install), {**_DURABLE_BINLOG, **semi}
        self._ids = itertools.count(1)  # server_id: distinct for every server of the pair
        self.primary = self._server()
        self.replica = self._server(read_only=True)
        self._pristine = _install_once(self.primary, self.replica)
        self.primary.start()
        self.replica.start()
        self.vip = self._own(TcpProxy("127.0.0.1", self.primary.port))
        self.relay = self._own(TcpProxy("127.0.0.1", self.primary.port))
        self._replicate()

    def _server(self, *, read_only: bool = False) -> MariaServer:
        """A server of the pair (not started), with the next ``server_id``."""
        options = {**self._options, "server-id": str(next(self._ids))}
        if read_only:
            options["read-only"] = "1"
        server: MariaServer = self._own(MariaServer(*self._binaries, options))
        return server

    def _own(self, part: Any) -> Any:
        self._parts.append(part)
        return part

    def _replicate(self, *, seeded: bool = False) -> None:
        """The replica follows the primary by GTID: from the primary's position now (each
        server made its own database at start: nothing before it to replay), or, when
        ``seeded``, from where the dump loaded into it left off (``load`` set it)."""
        if not seeded:
            ((position,),) = self.primary.sql("SELECT @@global.gtid_binlog_pos")
            self.replica.sql("SET GLOBAL gtid_slave_pos = %s", (position,))
        self.replica.sql(
            f"CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = {self.relay.port},"
            " MASTER_USER = 'root', MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1"
        )
        self.replica.sql("START SLAVE")
        wait_for("the replica to connect", self.streaming)

    def streaming(self) -> bool:
        status = self._slave_status()
        return status.get("Slave_IO_Running") == "Yes" and status.get("Slave_SQL_Running") == "Yes"

    def _slave_status(self) -> dict[str, Any]:
        conn = self.replica.connect()
        try:
            with conn.cursor() as cur:
                cur.execute("SHOW SLAVE STATUS")
                row = cur.fetchone()
                names = [d[0] for d in cur.description or ()]
        finally:
            conn.close()
        return dict(zip(names, row, strict=True)) if row else {}

    def caught_up(self) -> None:
        """Wait until the replica has applied everything the primary wrote so far."""
        ((position,),) = self.primary.sql("SELECT @@global.gtid_binlog_pos")
        ((done,),) = self.replica.sql("SELECT MASTER_GTID_WAIT(%s, 60)", (position,))
        if int(done) != 0:
            raise RuntimeError(f"the replica did not reach {position}")

    def url(self, query: str = "", *, user: str = "root") -> str:
        """A lease URL through the virtual IP (the clients' proxy)."""
        return _as(self.primary.url(query, port=self.vip.port), user)

    def replica_url(self, query: str = "", *, user: str = "root") -> str:
        """A lease URL on the replica directly."""
        return _as(self.replica.url(query), user)

    def user(self, name: str) -> None:
        """An account ``name`` (password ``name``) with the lease tables' privileges on the
        database alone; made on the primary, replicated."""
        database = self.primary.database
        self.primary.sql(f"CREATE USER '{name}'@'127.0.0.1' IDENTIFIED BY '{name}'")
        self.primary.sql(
            f"GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, ALTER, INDEX ON {database}.*"
            f" TO '{name}'@'127.0.0.1'"
        )

    def cut(self) -> None:
        """Stop replication: the relay drops its connections and refuses new ones."""
        self.relay.set_mode("reset")

    def kill_primary(self) -> None:
        self.primary.crash()

    def promote(self) -> None:
        """What the replica received is applied; then it stops replicating and takes writes."""
        received = str(self._slave_status().get("Gtid_IO_Pos") or "")
        if received:
            self.replica.sql("SELECT MASTER_GTID_WAIT(%s, 60)", (received,))
        self.replica.sql("STOP SLAVE")
        self.replica.sql("RESET SLAVE ALL")
        self.replica.sql("SET GLOBAL read_only = 0")
        self.replica.options.pop("read-only", None)  # a primary now, also after a restart

    def move_clients(self) -> None:
        """The virtual IP now reaches the promoted replica; its open connections drop."""
        self.vip.target = ("127.0.0.1", self.replica.port)
        self.vip.set_mode("reset")
        self.vip.set_mode("pass")

    def next_round(self) -> None:
        """After a failover: the promoted replica is the primary (the clients already moved
        to it), with a new replica seeded from a consistent dump of it."""
        self.primary.close()  # its data directory too
        self.relay.close()
        self.primary = self.replica
        self.vip.target = ("127.0.0.1", self.primary.port)
        self._new_replica()

    def _new_replica(self) -> None:
        self.relay = self._own(TcpProxy("127.0.0.1", self.primary.port))
        self.replica = self.new_server(read_only=True)
        self.load(self.replica, self.dump(self.primary, gtid=True))
        self._replicate(seeded=True)

    def new_server(self, *, read_only: bool = False) -> MariaServer:
        """Another server (a new ``server_id``) on a copy of the pristine data, started."""
        assert self._pristine is not None
        server = self._server(read_only=read_only)
        shutil.copytree(self._pristine, server.data)
        server.start()
        return server

    def dump(self, server: MariaServer, *, gtid: bool = False) -> bytes:
        """The database's tables and rows, consistent (one transaction); with ``gtid``,
        also the statement that sets a replica's ``gtid_slave_pos`` to the dump's point."""
        position = ["--master-data=1", "--gtid"] if gtid else []
        dumped = subprocess.run(
            [
                _client("mariadb-dump"), "--no-defaults", "--protocol=tcp", "-h", "127.0.0.1",
                "-P", str(server.port), "-u", "root", "--single-transaction", *position,
                server.database,
            ],
            capture_output=True, timeout=60, check=True,
        )  # fmt: skip
        return dumped.stdout

    def load(self, server: MariaServer, dumped: bytes) -> None:
        """A dump run on ``server``, kept out of its binary log (its own GTIDs would make
        the replica's history differ from its primary's)."""
        subprocess.run(
            [
                _client("mariadb"), "--no-defaults", "--protocol=tcp", "-h", "127.0.0.1",
                "-P", str(server.port), "-u", "root", "--init-command=SET sql_log_bin = 0",
                server.database,
            ],
            input=dumped, capture_output=True, timeout=60, check=True,
        )  # fmt: skip

    def replace(self, server: MariaServer) -> None:
        """The clients moved to ``server`` (a dump restored into another server); the old
        primary and replica closed, a new replica made from it."""
        old = (self.primary, self.replica, self.relay)
        self.primary = server
        self.vip.target = ("127.0.0.1", server.port)
        self.vip.set_mode("reset")
        self.vip.set_mode("pass")
        for part in old:
            part.close()
        self._new_replica()

    def close(self) -> None:
        for part in reversed(self._parts):
            with contextlib.suppress(Exception):
                part.close()
        if self._pristine is not None:
            shutil.rmtree(self._pristine.parent, ignore_errors=True)


def _as(url: str, user: str) -> str:
    return url if user == "root" else url.replace("root@", f"{user}:{user}@", 1)


def _install_once(first: MariaServer, second: MariaServer) -> Path:
    """One ``mariadb-install-db`` for both servers: the second gets a copy of the first's
    fresh data directory (nothing in it names a server; it saves a few seconds), and so
    do servers made later, from a pristine copy in a directory of its own (returned)."""
    first.install_data()
    shutil.copytree(first.data, second.data)
    pristine = Path(tempfile.mkdtemp(prefix="snowid-maria-pristine-")) / "data"
    shutil.copytree(first.data, pristine)
    return pristine


def _client(name: str) -> str:
    found = binary(name)
    if found is None:
        raise RuntimeError(f"{name} is not installed")
    return found
