"""The MySQL / MariaDB part of ``bench_lease.py`` (run that script; ``--no-mysql`` skips it).

Everything runs on a mariadbd the benchmark starts itself: a data directory made by
``mariadb-install-db`` under the system's temporary directory (ext4 here, so the
commit ``fsync`` is real), a free loopback port, ``innodb_flush_log_at_trx_commit=1``
(what strict mode requires), no binary log, ``max_connections=2000``. Its own server,
not the shared one on 3306, so that the CPU figure is the lease's alone and the 64
claimers do not eat into a connection limit others need.

- claim latency when 1, 64, 512 and 1000 of the 1024 identities are held: the held rows
  are written straight into the table (another owner, expiring far in the future, a
  ceiling ``span`` ahead as a live holder's is); timed: the clock-skew check and the
  claim's round trip, then a release (not timed);
- 64 claimers at once: 64 leases with their own connections, released by one barrier;
- one renewal (the CAS round trip);
- the store's load from renewals of 1,000 holders at the default TTL (10 s, a renewal
  every 3.33 s: 300 a second), simulated through a pool of 8 connections, each renewing
  its share of the 1,000 (owner, epoch) pairs on schedule: renewals/s, rows written/s
  (``Handler_update``), commits/s (each one flushes the redo log) and the CPU of the
  mariadbd process (/proc).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from time import perf_counter
from typing import Any

from snowid import Generator
from snowid.lease import init_lease, open_lease


class MariaServer:
    """A durable mariadbd of the benchmark's own on a free loopback port."""

    def __init__(self) -> None:
        import pymysql

        self.dir = Path(tempfile.mkdtemp(prefix="snowid-bench-maria-"))
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        install = shutil.which("mariadb-install-db") or "/usr/bin/mariadb-install-db"
        server = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
        data = self.dir / "data"
        subprocess.run(
            [install, "--no-defaults", f"--datadir={data}", "--user=root",
             "--auth-root-authentication-method=normal", "--skip-test-db"],
            check=True, capture_output=True,
        )  # fmt: skip
        self.proc = subprocess.Popen(
            [server, "--no-defaults", f"--datadir={data}", f"--port={self.port}",
             "--bind-address=127.0.0.1", f"--socket={self.dir / 'sock'}", "--user=root",
             f"--pid-file={self.dir / 'pid'}", f"--log-error={self.dir / 'err.log'}",
             "--skip-name-resolve", "--innodb-flush-log-at-trx-commit=1",
             "--innodb-buffer-pool-size=64M", "--innodb-log-file-size=32M",
             "--max-connections=2000"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        for _ in range(600):
            try:
                self.conn = pymysql.connect(
                    host="127.0.0.1", port=self.port, user="root", autocommit=True,
                    ssl_disabled=True,
                )  # fmt: skip
                break
            except pymysql.err.OperationalError:
                time.sleep(0.05)
        else:
            raise RuntimeError("mariadbd did not start")
        self.sql("CREATE DATABASE IF NOT EXISTS bench")
        self.sql("USE bench")

    def url(self, query: str) -> str:
        return f"mysql://root@127.0.0.1:{self.port}/bench?{query}"

    def sql(self, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
        with self.conn.cursor() as cur:
            cur.execute(statement, params)
            return list(cur.fetchall())

    def status(self, *names: str) -> dict[str, int]:
        rows = self.sql("SHOW GLOBAL STATUS WHERE Variable_name IN %s", (names,))
        return {name: int(value) for name, value in rows}

    def cpu_s(self) -> float:
        with open(f"/proc/{self.proc.pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.conn.close()
        self.proc.terminate()
        self.proc.wait(30)
        shutil.rmtree(self.dir, ignore_errors=True)


class MysqlPart:
    """The MySQL column of bench_lease.py: a server and an idle lease (when enabled)."""

    def __init__(self, *, enabled: bool) -> None:
        self.server = MariaServer() if enabled else None
        self.lease: Any = None
        if self.server is not None:
            init_lease(self.server.url("table=bench_idle"), first_deployment=True)
            self.lease = open_lease(self.server.url("table=bench_idle"))

    def contenders(self) -> dict[str, Callable[[], int]]:
        """The lease's generator for the next_id() comparison (none when disabled)."""
        if self.lease is None:
            return {}
        return {"mysql": Generator(fence=self.lease).next_id}

    def run(self, *, quick: bool, percentiles: Callable[[list[float]], str]) -> None:
        if self.server is None:
            return
        try:
            bench_mysql(self.server, self.lease, quick=quick, percentiles=percentiles)
        finally:
            self.server.stop()


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def bench_mysql(server: MariaServer, idle_lease: object, *, quick: bool, percentiles: Any) -> None:
    from snowid.lease.mysql import MysqlLease

    assert isinstance(idle_lease, MysqlLease)
    n = 100 if quick else 500
    renewals = []
    for _ in range(n):
        with idle_lease._lock:
            start = perf_counter()
            idle_lease._renew_now()
            renewals.append(perf_counter() - start)
    print(f"  mysql renew (CAS round trip)       {percentiles(renewals)}")
    idle_lease.close()
    for held in (1, 64, 512, 1000):
        table = f"bench_{held}"
        url = server.url(f"table={table}")
        init_lease(url, first_deployment=True)
        server.sql(
            f"UPDATE {table} SET owner = 'someone', epoch = 1, expires_ms = %s,"
            " ceiling_ms = %s WHERE worker < %s",
            (2**50, _now_ms() + 10_000, held),
        )
        lease = open_lease(url)
        assert isinstance(lease, MysqlLease)
        lease._connect()  # connect once: claims below reuse the connection
        claims = []
        for i in range(n):
            # The store's part of a claim: the skew check and the claim round trip. Not the
            # wait for the clock to pass the old ceiling, which is span, not the store.
            start = perf_counter()
            lease._check_skew()
            got = lease._store_claim(f"bench-{i}", _now_ms(), "bench")
            claims.append(perf_counter() - start)
            assert got is not None
            lease._store_release(got.worker, f"bench-{i}", got.epoch)
        lease.close()
        print(f"  mysql claim, {held:4d}/1024 held       {percentiles(claims)}")
    crowd(server, percentiles)
    renewal_load(server, seconds=3.0 if quick else 10.0)


def crowd(server: MariaServer, percentiles: Any) -> None:
    from snowid.lease.mysql import MysqlLease

    url = server.url("table=bench_crowd")
    init_lease(url, first_deployment=True)
    leases = [open_lease(url) for _ in range(64)]
    for lease in leases:
        assert isinstance(lease, MysqlLease)
        lease._connect()  # connected before the barrier: the claims are what is timed
    barrier = threading.Barrier(64)
    times: list[float] = []

    def claim(lease: MysqlLease) -> None:
        barrier.wait()
        start = perf_counter()
        lease.acquire(0)
        times.append(perf_counter() - start)

    threads = [threading.Thread(target=claim, args=(lease,)) for lease in leases]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    workers = {lease.worker for lease in leases}
    for lease in leases:
        lease.close()
    print(f"  mysql claim, 64 claimers at once   {percentiles(times)}  distinct: {len(workers)}")


def renewal_load(server: MariaServer, *, seconds: float) -> None:
    """1,000 holders at the default TTL renew 300 times a second; through 8 connections."""
    from snowid.lease.mysql import MysqlLease

    url = server.url("table=bench_load&ttl=10")
    init_lease(url, first_deployment=True)
    claimer = open_lease(url)
    assert isinstance(claimer, MysqlLease)
    holders = []
    for i in range(1000):  # claimed through one connection; owner and epoch kept per holder
        grant = claimer._store_claim(f"owner-{i}", _now_ms(), "bench")
        assert grant is not None
        holders.append((f"owner-{i}", grant))
    claimer.close()
    pool = [open_lease(url) for _ in range(8)]
    for lease in pool:
        assert isinstance(lease, MysqlLease)
        lease.incarnation = holders[0][1].incarnation
    rate = 1000 / (10 / 3)
    counters = ("Handler_update", "Com_commit")
    before = server.status(*counters)
    cpu_before, start = server.cpu_s(), time.monotonic()
    done = [0] * 8

    def renew(i: int) -> None:
        lease = pool[i]
        assert isinstance(lease, MysqlLease)
        mine = holders[i::8]
        interval = 8 / rate
        due = time.monotonic()
        while time.monotonic() - start < seconds:
            owner, held = mine[done[i] % len(mine)]
            answer = lease._store_renew(held.worker, owner, held.epoch, _now_ms(), 0)
            assert answer.status == "ok"
            done[i] += 1
            due += interval
            time.sleep(max(0.0, due - time.monotonic()))

    threads = [threading.Thread(target=renew, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start
    cpu = (server.cpu_s() - cpu_before) / elapsed
    after = server.status(*counters)
    for lease in pool:
        lease.close()

    def per_s(name: str) -> float:
        return (after.get(name, 0) - before.get(name, 0)) / elapsed

    print(
        f"  mysql load, 1000 holders, ttl 10 s  {sum(done) / elapsed:6.1f} renewals/s"
        f" (due {rate:.0f}), {per_s('Handler_update'):6.1f} rows written/s,"
        f" {per_s('Com_commit'):6.1f} commits/s, mariadbd CPU {cpu * 100:4.1f}% of one core"
    )
