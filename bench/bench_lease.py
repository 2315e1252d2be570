"""Benchmark: what a lease costs the generator, and lease-store latency.

    python bench/bench_lease.py                  # about 70 s (45 s of it file-slot claims)
    python bench/bench_lease.py --quick          # about 20 s, noisier
    python bench/bench_lease.py --no-postgres    # no PostgreSQL
    python bench/bench_lease.py --no-redis       # no Redis
    python bench/bench_lease.py --no-mysql       # no MySQL / MariaDB

1. ``next_id()`` throughput (single thread, tight loop) of the bare generator
   (``Generator(1, 1)``) against ``Generator(fence=lease)`` for file slots and for a
   PostgreSQL lease (renewing in the background). Rounds are interleaved and the median
   of each is reported; target: ratio to the bare generator >= 0.9x.
2. Latency (median and p99) of one claim + release, of one renewal (a CAS UPDATE) on
   the local PostgreSQL (127.0.0.1:5432, database test, a throwaway table), and of one
   high-water-mark write (pwrite + fdatasync) for file slots.
3. Redis, on a redis-server the script starts itself (free loopback port, appendonly yes,
   appendfsync always, maxclients 4096, data in a temporary directory): claim latency when
   1, 64, 512 and 1000 of the 1024 identities are already held (the held ones are written
   straight into the keys), 64 claimers at once (64 leases, 64 connections, one barrier),
   one renewal, and the store's load from renewals of 1,000 holders at the default TTL
   (10 s, renew every 3.33 s: 300 renew scripts/s), simulated through a shared pool of 8
   connections: commands/s and CPU of the redis-server process (from /proc).
5. MySQL / MariaDB, on a mariadbd the script starts itself (bench_lease_mysql.py): the
   same figures as for Redis in 3, the load as rows written/s, commits/s and mariadbd CPU.
4. Claim start-up wait of file slots (median and p99): how long a new process's first
   ``next_id()`` takes, claim included, on a slot never used and on a slot its previous
   holder released a moment ago (after issuing for a random 0-1 s, so its mark is at a
   random point of its write-ahead). Every claim waits out the write-ahead horizon (a
   slot file deleted or replaced under its holder must not let a claimant undercut it);
   the target is that this wait stays bounded: p99 <= horizon + 50 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import uuid
from collections.abc import Callable
from time import perf_counter, sleep

from bench_lease_mysql import MysqlPart
from snowid import Generator
from snowid.lease import init_lease, open_lease

PG = "postgresql://postgres@127.0.0.1:5432/test"


def rate(next_id: Callable[[], int], seconds: float) -> float:
    n, start = 0, perf_counter()
    while True:
        for _ in range(20_000):
            next_id()
        n += 20_000
        elapsed = perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


def percentiles(samples: list[float]) -> str:
    p99 = _p99(samples)
    return f"median {statistics.median(samples) * 1e3:7.3f} ms   p99 {p99 * 1e3:7.3f} ms  (n={len(samples)})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-redis", action="store_true")
    parser.add_argument("--no-mysql", action="store_true")
    args = parser.parse_args()
    seconds, rounds = (0.3, 3) if args.quick else (1.0, 5)
    state = tempfile.mkdtemp(prefix="snowid-bench-")
    table = f"bench_{uuid.uuid4().hex[:8]}"
    pg_url = f"{PG}?table={table}&ttl=10"
    contenders: dict[str, Callable[[], int]] = {"bare Generator(1, 1)": Generator(1, 1).next_id}
    file_lease = open_lease(f"file://{state}?range=0-1023")
    contenders["file slots"] = Generator(fence=file_lease).next_id
    pg_lease = None
    if not args.no_postgres:
        init_lease(pg_url, first_deployment=True)
        pg_lease = open_lease(pg_url)
        contenders["postgresql"] = Generator(fence=pg_lease).next_id
    redis = None if args.no_redis else RedisServer()
    redis_lease = None
    if redis is not None:
        init_lease(redis.url("key=bench_idle"), first_deployment=True)
        redis_lease = open_lease(redis.url("key=bench_idle"))
        contenders["redis"] = Generator(fence=redis_lease).next_id
    mysql = MysqlPart(enabled=not args.no_mysql)
    contenders.update(mysql.contenders())
    for next_id in contenders.values():
        next_id()  # claim outside the timed loop
    results: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, next_id in contenders.items():
            results[name].append(rate(next_id, seconds))
    bare = statistics.median(results["bare Generator(1, 1)"])
    print("next_id() throughput, single thread (median of rounds)")
    for name, values in results.items():
        median = statistics.median(values)
        ratio = median / bare
        verdict = "" if name.startswith("bare") else ("  PASS" if ratio >= 0.9 else "  FAIL")
        print(f"  {name:22s} {median / 1e6:6.3f} M ids/s   {ratio:5.3f}x{verdict}")
    print()
    print("latency")
    hwm = file_lease._hwm
    assert hwm is not None
    grant = file_lease.grant
    assert grant is not None
    writes = []
    for _ in range(50 if args.quick else 200):
        start = perf_counter()
        hwm.write(grant.ceiling_ms, grant.epoch)
        writes.append(perf_counter() - start)
    print(f"  file HWM write (pwrite+fdatasync)  {percentiles(writes)}")
    claims = []
    for _ in range(10 if args.quick else 40):  # each claim waits out the horizon
        lease = open_lease(f"file://{state}?range=0-1023")
        start = perf_counter()
        lease.acquire(0)
        lease.release()
        claims.append(perf_counter() - start)
        lease.close()
    print(f"  file claim + release               {percentiles(claims)}")
    file_lease.close()
    bench_file_startup(state, 10 if args.quick else 40)
    if pg_lease is not None:
        bench_postgres(pg_lease, pg_url, table, 100 if args.quick else 500)
    if redis is not None:
        assert redis_lease is not None
        try:
            bench_redis(redis, redis_lease, quick=args.quick)
        finally:
            redis.stop()
    mysql.run(quick=args.quick, percentiles=percentiles)


def bench_file_startup(state: str, n: int) -> None:
    """Claim start-up wait: a new lease's first ``next_id()``, the claim included."""
    horizon_ms = _horizon_ms()
    fresh, restart = [], []
    for i in range(n):
        start = perf_counter()
        lease = open_lease(f"file://{state}/fresh{i}?range=0-0")
        Generator(fence=lease).next_id()
        fresh.append(perf_counter() - start)
        lease.close()
    url = f"file://{state}/restart?range=0-0"
    rng = random.Random(2026)
    for _ in range(n):
        holder = open_lease(url)
        generator = Generator(fence=holder)
        generator.next_id()  # its own claim (it may wait for the previous holder's mark)
        until = perf_counter() + rng.uniform(0.0, 1.0)
        while perf_counter() < until:  # a live holder, its mark written ahead as it goes
            generator.next_id()
            sleep(0.01)
        holder.close()
        start = perf_counter()
        lease = open_lease(url)
        Generator(fence=lease).next_id()
        restart.append(perf_counter() - start)
        lease.close()
    print()
    label = "unknown" if horizon_ms is None else f"{horizon_ms} ms"
    print(f"claim start-up wait, file slots (first next_id of a new lease; horizon {label})")
    print(f"  slot never used                    {percentiles(fresh)}")
    print(f"  slot released a moment ago         {percentiles(restart)}")
    if horizon_ms is not None:
        worst = max(_p99(fresh), _p99(restart)) * 1e3
        verdict = "PASS" if worst <= horizon_ms + 50 else "FAIL"
        print(f"  p99 <= horizon + 50 ms             {worst:7.1f} ms  {verdict}")


def _p99(samples: list[float]) -> float:
    samples = sorted(samples)
    return samples[min(len(samples) - 1, int(len(samples) * 0.99))]


def _horizon_ms() -> int | None:
    """The write-ahead horizon of this snowid (None before there was one)."""
    try:
        from snowid.lease._hwm import HORIZON_MS
    except ImportError:
        return None
    return HORIZON_MS


def bench_postgres(pg_lease: object, pg_url: str, table: str, n: int) -> None:
    import psycopg

    from snowid.lease.postgres import PostgresLease

    assert isinstance(pg_lease, PostgresLease)
    renewals = []
    for _ in range(n):
        with pg_lease._lock:
            start = perf_counter()
            pg_lease._renew_now()
            renewals.append(perf_counter() - start)
    print(f"  postgresql renew (CAS UPDATE)      {percentiles(renewals)}")
    pg_lease.close()
    claims, releases = [], []
    lease = open_lease(pg_url)
    assert isinstance(lease, PostgresLease)
    lease.acquire(0)  # connect once: claims below reuse the connection
    lease.release()
    for _ in range(n):
        start = perf_counter()
        lease._claim_once(0)  # the skew check (one SELECT) and the claim UPDATE
        claims.append(perf_counter() - start)
        start = perf_counter()
        lease.release()
        releases.append(perf_counter() - start)
    lease.close()
    print(f"  postgresql claim (+ skew check)    {percentiles(claims)}")
    print(f"  postgresql release                 {percentiles(releases)}")
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f"DROP TABLE IF EXISTS {table}, {table}_meta")  # type: ignore[arg-type]


class RedisServer:
    """A durable redis-server of the benchmark's own on a free loopback port."""

    def __init__(self) -> None:
        import shutil
        import socket
        import subprocess
        import time

        import redis

        self.dir = tempfile.mkdtemp(prefix="snowid-bench-redis-")
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
             "--appendonly", "yes", "--appendfsync", "always", "--save", "",
             "--maxclients", "4096", "--logfile", f"{self.dir}/redis.log"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        self.client = redis.Redis(port=self.port, decode_responses=True)
        for _ in range(500):
            try:
                self.client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.01)
        raise RuntimeError("redis-server did not start")

    def url(self, query: str) -> str:
        return f"redis://127.0.0.1:{self.port}/0?{query}"

    def cpu_s(self) -> float:
        import os

        with open(f"/proc/{self.proc.pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        import shutil

        self.proc.terminate()
        self.proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


def bench_redis(server: RedisServer, idle_lease: object, *, quick: bool) -> None:
    import threading
    import time

    from snowid.lease.redis import RedisLease

    assert isinstance(idle_lease, RedisLease)
    n = 100 if quick else 500
    renewals = []
    for _ in range(n):
        with idle_lease._lock:
            start = perf_counter()
            idle_lease._renew_now()
            renewals.append(perf_counter() - start)
    print(f"  redis renew (CAS script)           {percentiles(renewals)}")
    idle_lease.close()
    for held in (1, 64, 512, 1000):
        url = server.url(f"key=bench_{held}")
        init_lease(url, first_deployment=True)
        lease = open_lease(url)
        assert isinstance(lease, RedisLease)
        keys = lease.keys.all
        far = 2**50
        server.client.hset(keys[1], mapping={w: f"someone:{far}" for w in range(held)})
        server.client.hset(keys[3], mapping=dict.fromkeys(range(held), 1))
        lease._client()  # connect once: claims below reuse the connection
        claims = []
        for i in range(n):
            # The store's part of a claim: the skew check (TIME) and the claim script. Not
            # the wait for the clock to pass the old ceiling, which is span, not the store.
            start = perf_counter()
            lease._check_skew()
            got = lease._store_claim(f"bench-{i}", int(time.time() * 1000), "bench")
            claims.append(perf_counter() - start)
            assert got is not None
            lease._store_release(got.worker, f"bench-{i}", got.epoch)
        lease.close()
        print(f"  redis claim, {held:4d}/1024 held       {percentiles(claims)}")
    url = server.url("key=bench_crowd")
    init_lease(url, first_deployment=True)
    leases = [open_lease(url) for _ in range(64)]
    for lease in leases:
        assert isinstance(lease, RedisLease)
        lease._client()  # connected before the barrier: the claims are what is timed
    barrier = threading.Barrier(64)
    crowd: list[float] = []

    def claim(lease: RedisLease) -> None:
        barrier.wait()
        start = perf_counter()
        lease.acquire(0)
        crowd.append(perf_counter() - start)

    threads = [threading.Thread(target=claim, args=(lease,)) for lease in leases]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    workers = {lease.worker for lease in leases}
    for lease in leases:
        lease.close()
    print(f"  redis claim, 64 claimers at once   {percentiles(crowd)}  distinct: {len(workers)}")
    renewal_load(server, seconds=3.0 if quick else 10.0)


def renewal_load(server: RedisServer, *, seconds: float) -> None:
    """1,000 holders at the default TTL renew 300 times a second; through 8 connections."""
    import threading
    import time

    from snowid.lease.redis import RedisLease

    url = server.url("key=bench_load&ttl=10")
    init_lease(url, first_deployment=True)
    holders = []
    claimer = open_lease(url)
    assert isinstance(claimer, RedisLease)
    for _ in range(1000):  # claimed through one connection; owner and epoch kept per holder
        grant = claimer._store_claim(f"owner-{len(holders)}", int(time.time() * 1000), "bench")
        assert grant is not None
        holders.append(grant)
    claimer._drop_connection()
    pool = [open_lease(url) for _ in range(8)]
    for lease in pool:
        assert isinstance(lease, RedisLease)
        lease.incarnation = holders[0].incarnation
    rate = 1000 / (10 / 3)
    stats_before = server.client.info("commandstats")
    cpu_before, start = server.cpu_s(), time.monotonic()

    def renew(i: int) -> None:
        lease = pool[i]
        assert isinstance(lease, RedisLease)
        mine = holders[i::8]
        interval = 8 / rate
        due = time.monotonic()
        k = 0
        while time.monotonic() - start < seconds:
            held = mine[k % len(mine)]
            answer = lease._store_renew(
                held.worker, f"owner-{holders.index(held)}", held.epoch,
                int(time.time() * 1000), 0,
            )  # fmt: skip
            assert answer.status == "ok"
            k += 1
            due += interval
            time.sleep(max(0.0, due - time.monotonic()))

    threads = [threading.Thread(target=renew, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start
    cpu = (server.cpu_s() - cpu_before) / elapsed
    stats = server.client.info("commandstats")

    def calls(name: str) -> int:
        return int(stats.get(f"cmdstat_{name}", {}).get("calls", 0)) - int(
            stats_before.get(f"cmdstat_{name}", {}).get("calls", 0)
        )

    for lease in pool:
        lease.close()
    print(
        f"  redis load, 1000 holders, ttl 10 s  {calls('evalsha') / elapsed:6.1f} renew scripts/s"
        f" (due {rate:.0f}), {calls('hset') / elapsed:6.1f} writes/s (HSET),"
        f" redis-server CPU {cpu * 100:4.1f}% of one core"
    )


if __name__ == "__main__":
    main()
