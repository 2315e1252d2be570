"""The PostgreSQL column of ``bench_lease.py`` (run that script; ``--no-postgres`` skips it).

A cluster of the benchmark's own (tests/support/servers.PgCluster): ``initdb`` into a
temporary directory (ext4 here, so the commit's WAL flush is real; run as the ``postgres``
user when we are root, since the server refuses root), a free loopback port, ``fsync`` and
``synchronous_commit`` on, ``max_connections = 300``, ``shared_buffers = 32MB``. Its own cluster rather than the shared server on 5432, so the
64 claimers and the pool take no connections others need (that one allows 100) and the
CPU figure is the lease's alone: the whole cluster's, i.e. the postmaster and every
process under it (backends, WAL writer, checkpointer, autovacuum), live ones from /proc
and exited ones from the postmaster's reaped-children times.

The load counts committed transactions (``xact_commit``) and rows updated (``tup_upd``)
of the database, and WAL fsyncs (``pg_stat_wal.wal_sync``). A backend reports its
counters only now and then (at most once a second) and when it exits, so they are read
after the pool's connections have closed and their backends are gone.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

from bench_lease_common import StorePart, children, cpu_s, now_ms


class PostgresPart(StorePart):
    name = "postgresql"
    renew_what = "(CAS UPDATE)"
    process = "cluster"

    def start(self) -> Any:
        import psycopg

        # Imported here: bench_lease_common has put the repository root on the path by now.
        from tests.support.servers import PgCluster, binary

        initdb = binary("initdb")
        if initdb is None:
            raise RuntimeError(
                "initdb not found (PATH or /usr/lib/postgresql/*/bin): --no-postgres"
            )
        cluster = PgCluster(
            Path(initdb).resolve().parent, {"max_connections": "300", "shared_buffers": "32MB"}
        )
        try:
            cluster.start()
            self.conn: Any = psycopg.connect(cluster.url(), autocommit=True)
        except BaseException:
            cluster.close()
            raise
        return cluster

    def sql(self, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
        cur = self.conn.execute(statement, params)
        return list(cur.fetchall()) if cur.description else []

    def stop(self) -> None:
        if self.server is not None:
            self.conn.close()
        super().stop()

    def cpu(self) -> float:
        """The whole cluster's: the postmaster, its live children and those it reaped."""
        pid = self.server.pid
        total = cpu_s(pid, reaped=True)
        for child in children(pid):
            with contextlib.suppress(OSError):  # exited: counted once the postmaster reaps it
                total += cpu_s(child)
        return total

    def url(self, name: str, query: str = "") -> str:
        return self.server.url(f"table={name}" + (f"&{query}" if query else ""))

    def hold(self, lease: Any, name: str, held: int) -> None:
        del lease
        self.sql(
            f"UPDATE {name} SET owner = gen_random_uuid(), epoch = 1,"
            " expires_at = clock_timestamp() + interval '30 days', ceiling_ms = %s"
            " WHERE worker < %s",
            (now_ms() + 10_000, held),
        )

    def connect(self, lease: Any) -> None:
        lease._connect()

    def counters(self) -> dict[str, int]:
        ((commits, updated),) = self.sql(
            "SELECT xact_commit, tup_updated FROM pg_stat_database WHERE datname = current_database()"
        )
        ((syncs,),) = self.sql("SELECT wal_sync FROM pg_stat_wal")
        return {"rows written": updated, "commits": commits, "WAL fsyncs": syncs}

    def settle(self) -> None:
        """Wait until the leases' backends are gone (and so have reported their counters)."""
        give_up = time.monotonic() + 10
        while time.monotonic() < give_up:
            ((left,),) = self.sql(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'snowid-lease'"
            )
            if left == 0:
                break
            time.sleep(0.02)
        time.sleep(0.1)  # the counters are flushed at exit, not necessarily before the row goes
