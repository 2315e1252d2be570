"""The PostgreSQL column of ``bench_lease.py`` (run that script; ``--no-postgres`` skips it).

A cluster of the benchmark's own: ``initdb`` into a temporary directory (ext4 here, so the
commit's WAL flush is real; run as the ``postgres`` user when we are root, since the
server refuses root), a free loopback port, ``fsync`` and ``synchronous_commit`` on,
``max_connections = 300``. Its own cluster rather than the shared server on 5432, so the
64 claimers and the pool take no connections others need (that one allows 100) and the
CPU figure is the lease's alone: the whole cluster's, i.e. the postmaster and every
process under it (backends, WAL writer, checkpointer, autovacuum), live ones from /proc
and exited ones from the postmaster's reaped-children times.

The load counts committed transactions (``xact_commit``) and rows updated (``tup_upd``)
of the database, and WAL fsyncs (``pg_stat_wal.wal_sync``). A backend reports its
counters only now and then (at most once a second) and when it exits, so they are read
after the pool's connections have closed and their backends are gone.

PostgresLease keeps its SQL in ``lease.sql`` but has no per-operation store methods
(it predates the common store interface), so the claim, renewal and release below run
its statements with the parameters ``PostgresLease`` gives them.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_lease_common import StorePart, children, cpu_s, free_port, now_ms
from snowid.lease._store import Claimed


def _bindir() -> Path:
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not candidates:
        raise RuntimeError("initdb not found (PATH or /usr/lib/postgresql/*/bin): --no-postgres")
    return Path(candidates[-1]).parent


class PgCluster:
    """A durable PostgreSQL cluster of the benchmark's own on a free loopback port."""

    def __init__(self) -> None:
        import psycopg

        self.bindir = _bindir()
        self.root = Path(tempfile.mkdtemp(prefix="snowid-bench-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        self.env["LC_ALL"] = "C"
        self.started = False
        self.conn: Any = None
        try:
            self.tool(
                "initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                "--locale=C", "--no-sync",
            )  # fmt: skip
            with (self.data / "postgresql.conf").open("a") as conf:
                conf.write(
                    f"listen_addresses = '127.0.0.1'\nport = {self.port}\n"
                    f"unix_socket_directories = '{self.root}'\n"
                    "fsync = on\nsynchronous_commit = on\n"
                    "max_connections = 300\nshared_buffers = 32MB\n"
                )
            log = str(self.root / "server.log")
            self.tool("pg_ctl", "-D", str(self.data), "-l", log, "-w", "-t", "60", "start")
            self.started = True
            self.pid = int((self.data / "postmaster.pid").read_text().split()[0])
            self.conn = psycopg.connect(self.dsn, autocommit=True)
        except BaseException:
            self.stop()
            raise

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def tool(self, name: str, *args: str) -> None:
        proc = subprocess.run(
            [*self.prefix, str(self.bindir / name), *args],
            cwd=self.root,  # the postgres user may not be able to enter ours
            env=self.env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip
        if proc.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{name} failed:\n{proc.stdout}{proc.stderr}\n{tail}")

    def sql(self, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
        cur = self.conn.execute(statement, params)
        return list(cur.fetchall()) if cur.description else []

    def cpu_s(self) -> float:
        total = cpu_s(self.pid, reaped=True)
        for child in children(self.pid):
            with contextlib.suppress(OSError):  # exited: counted once the postmaster reaps it
                total += cpu_s(child)
        return total

    def stop(self) -> None:
        if self.conn is not None:
            self.conn.close()
        if self.started:
            self.started = False
            self.tool("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


class PostgresPart(StorePart):
    name = "postgresql"
    renew_what = "(CAS UPDATE)"
    process = "cluster"

    def start(self) -> PgCluster:
        return PgCluster()

    def url(self, name: str, query: str = "") -> str:
        return f"{self.server.dsn}?table={name}" + (f"&{query}" if query else "")

    def hold(self, lease: Any, name: str, held: int) -> None:
        del lease
        self.server.sql(
            f"UPDATE {name} SET owner = gen_random_uuid(), epoch = 1,"
            " expires_at = clock_timestamp() + interval '30 days', ceiling_ms = %s"
            " WHERE worker < %s",
            (now_ms() + 10_000, held),
        )

    def connect(self, lease: Any) -> None:
        lease._connect()

    def counters(self) -> dict[str, int]:
        ((commits, updated),) = self.server.sql(
            "SELECT xact_commit, tup_updated FROM pg_stat_database WHERE datname = current_database()"
        )
        ((syncs,),) = self.server.sql("SELECT wal_sync FROM pg_stat_wal")
        return {"rows written": updated, "commits": commits, "WAL fsyncs": syncs}

    def settle(self) -> None:
        """Wait until the leases' backends are gone (and so have reported their counters)."""
        give_up = time.monotonic() + 10
        while time.monotonic() < give_up:
            ((left,),) = self.server.sql(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'snowid-lease'"
            )
            if left == 0:
                break
            time.sleep(0.02)
        time.sleep(0.1)  # the counters are flushed at exit, not necessarily before the row goes

    # The statements of PostgresLease._claim_once, _renew_now and _release, as it runs them.

    def check_skew(self, lease: Any) -> None:
        lease._run(lease.sql.now)

    def claim(self, lease: Any, owner: str) -> Claimed | None:
        params = {
            "first": lease.first, "last": lease.last, "owner": owner,
            "ttl": lease.ttl_ms / 1000, "holder": f"bench pid {os.getpid()}",
            "caller_ms": now_ms(), "max_skew": lease.max_skew_ms, "span": lease.span_ms,
        }  # fmt: skip
        rows = lease._run(lease.sql.claim, params)
        if not rows:
            return None
        worker, old_ceiling, ceiling, epoch, _store_ms, incarnation = rows[0]
        return Claimed(worker, old_ceiling, ceiling, epoch, incarnation)

    def renew(self, lease: Any, owner: str, held: Claimed) -> bool:
        params = {
            "worker": held.worker, "owner": owner, "epoch": held.epoch,
            "ttl": lease.ttl_ms / 1000, "caller_ms": now_ms(), "span": lease.span_ms,
            "max_skew": lease.max_skew_ms, "incarnation": held.incarnation,
        }  # fmt: skip
        return bool(lease._run(lease.sql.renew, params))

    def release(self, lease: Any, owner: str, held: Claimed) -> None:
        params = {"worker": held.worker, "owner": owner, "epoch": held.epoch}
        lease._run(lease.sql.release, params)
