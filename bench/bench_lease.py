"""Benchmark: what a lease costs the generator, and what each lease store costs.

    python bench/bench_lease.py                  # a few minutes
    python bench/bench_lease.py --quick          # about 1 min, noisier
    python bench/bench_lease.py --no-postgres    # no PostgreSQL (also --no-redis, --no-mysql)

1. ``next_id()`` throughput (single thread, tight loop) of the bare generator
   (``Generator(1, 1)``) against ``Generator(fence=lease)`` for file slots and for a
   PostgreSQL, a Redis and a MySQL lease (each renewing in the background). Rounds are
   interleaved and the median of each is reported; target: ratio to the bare generator
   >= 0.9x.
2. File slots: latency (median and p99) of one high-water-mark write (pwrite + fdatasync)
   and of one claim + release; then the claim start-up wait (median and p99): how long a
   new process's first ``next_id()`` takes, claim included, on a slot never used and on a
   slot its previous holder released a moment ago (after issuing for a random 0-1 s, so
   its mark is at a random point of its write-ahead). Every claim waits out the
   write-ahead horizon (a slot file deleted or replaced under its holder must not let a
   claimant undercut it); the target is that this wait stays bounded: p99 <= horizon + 50 ms.
3. PostgreSQL, Redis and MySQL / MariaDB, each on a server the script starts itself
   (bench_lease_postgres.py, bench_lease_redis.py, bench_lease_mysql.py), measured alike
   (bench_lease_common.py): one renewal; claim latency when 1, 64, 512 and 1000 of the
   1024 identities are held; 64 claimers at once; the store's load from renewals of 1,000
   holders at the default TTL, simulated through a shared pool of 8 connections: renewals/s,
   the store's write counters per second and the CPU of its server processes.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
from collections.abc import Callable
from time import perf_counter, sleep

from bench_lease_common import StorePart, p99, percentiles
from bench_lease_mysql import MysqlPart
from bench_lease_postgres import PostgresPart
from bench_lease_redis import RedisPart
from snowid import Generator
from snowid.lease import open_lease


def rate(next_id: Callable[[], int], seconds: float) -> float:
    n, start = 0, perf_counter()
    while True:
        for _ in range(20_000):
            next_id()
        n += 20_000
        elapsed = perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-redis", action="store_true")
    parser.add_argument("--no-mysql", action="store_true")
    args = parser.parse_args()
    parts: list[StorePart] = []
    try:
        for kind, skip in ((PostgresPart, args.no_postgres), (RedisPart, args.no_redis),
                           (MysqlPart, args.no_mysql)):  # fmt: skip
            if not skip:
                parts.append(kind())
        with tempfile.TemporaryDirectory(prefix="snowid-bench-") as state:
            bench(parts, state, quick=args.quick)
    finally:
        for part in parts:  # each part stops its server when it has run; this is for errors
            part.stop()


def bench(parts: list[StorePart], state: str, *, quick: bool) -> None:
    seconds, rounds = (0.3, 3) if quick else (1.0, 5)
    contenders: dict[str, Callable[[], int]] = {"bare Generator(1, 1)": Generator(1, 1).next_id}
    file_lease = open_lease(f"file://{state}?range=0-1023")
    contenders["file slots"] = Generator(fence=file_lease).next_id
    for part in parts:
        contenders.update(part.contenders())
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
    for _ in range(50 if quick else 200):
        start = perf_counter()
        hwm.write(grant.ceiling_ms, grant.epoch)
        writes.append(perf_counter() - start)
    print(f"  file HWM write (pwrite+fdatasync)  {percentiles(writes)}")
    claims = []
    for _ in range(10 if quick else 40):  # each claim waits out the horizon
        lease = open_lease(f"file://{state}?range=0-1023")
        start = perf_counter()
        lease.acquire(0)
        lease.release()
        claims.append(perf_counter() - start)
        lease.close()
    print(f"  file claim + release               {percentiles(claims)}")
    file_lease.close()
    bench_file_startup(state, 10 if quick else 40)
    print()
    print("lease stores (each on a server of the benchmark's own)")
    for part in parts:
        part.run(quick=quick)


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
        worst = max(p99(fresh), p99(restart)) * 1e3
        verdict = "PASS" if worst <= horizon_ms + 50 else "FAIL"
        print(f"  p99 <= horizon + 50 ms             {worst:7.1f} ms  {verdict}")


def _horizon_ms() -> int | None:
    """The write-ahead horizon of this snowid (None before there was one)."""
    try:
        from snowid.lease._hwm import HORIZON_MS
    except ImportError:
        return None
    return HORIZON_MS


if __name__ == "__main__":
    main()
