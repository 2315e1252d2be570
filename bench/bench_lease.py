"""Benchmark: what a lease costs the generator, and lease-store latency.

    python bench/bench_lease.py                  # about 25 s
    python bench/bench_lease.py --quick          # about 8 s, noisier
    python bench/bench_lease.py --no-postgres    # file slots only

1. ``next_id()`` throughput (single thread, tight loop) of the bare generator
   (``Generator(1, 1)``) against ``Generator(fence=lease)`` for file slots and for a
   PostgreSQL lease (renewing in the background). Rounds are interleaved and the median
   of each is reported; target: ratio to the bare generator >= 0.9x.
2. Latency (median and p99) of one claim + release, of one renewal (a CAS UPDATE) on
   the local PostgreSQL (127.0.0.1:5432, database test, a throwaway table), and of one
   high-water-mark write (pwrite + fdatasync) for file slots.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import uuid
from collections.abc import Callable
from time import perf_counter

from snowid import Generator
from snowid.lease import open_lease

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
    samples = sorted(samples)
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    return f"median {statistics.median(samples) * 1e3:7.3f} ms   p99 {p99 * 1e3:7.3f} ms  (n={len(samples)})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-postgres", action="store_true")
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
        from snowid.lease import init_lease

        init_lease(pg_url, first_deployment=True)
        pg_lease = open_lease(pg_url)
        contenders["postgresql"] = Generator(fence=pg_lease).next_id
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
    for _ in range(50 if args.quick else 200):
        lease = open_lease(f"file://{state}?range=0-1023")
        start = perf_counter()
        lease.acquire(0)
        lease.release()
        claims.append(perf_counter() - start)
        lease.close()
    print(f"  file claim + release               {percentiles(claims)}")
    file_lease.close()
    if pg_lease is not None:
        bench_postgres(pg_lease, pg_url, table, 100 if args.quick else 500)


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


if __name__ == "__main__":
    main()
