"""Claim and renew latency of the etcd lease store with 1,000 of 1,024 identities held.

    python bench/bench_lease_etcd.py [--claims 200] [--renewals 500]

One etcd member of the benchmark's own (tests/support/etcd.py: a free loopback port, data
on disk, etcd's defaults otherwise). 1,000 identities are held by writing their ``held``
keys bound to one long etcd lease of the benchmark's, so every claim reads the whole range
and finds 24 free; each claim is released at once (revoke), with ``span=0.01`` so that the
next claim of that worker need not wait for the released grant. A renewal is one keep-alive
and one compare-and-set transaction. Prints p50/p99 in ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--renewals", type=int, default=500)
    args = parser.parse_args()

    from tests.support.etcd import EtcdKv, etcd_server

    from snowid.lease import init_lease, open_lease
    from snowid.lease._store import StoreLease

    with etcd_server() as server:
        url = server.url("bench?ttl=30&span=0.01")  # a released grant runs out at once
        init_lease(url, first_deployment=True)
        kv = EtcdKv(server.port)
        lease_id = kv.call("lease/grant", {"TTL": 3600})["ID"]
        for worker in range(1000):
            key = f"bench/held/{worker:04d}"
            body = {"key": _b64(key), "value": _b64(json.dumps({"owner": "x"})), "lease": lease_id}
            kv.call("kv/put", body)
        claims = []
        for _ in range(args.claims):
            lease = open_lease(url)
            assert isinstance(lease, StoreLease)
            started = time.perf_counter()
            lease.acquire(0)
            claims.append((time.perf_counter() - started) * 1000)
            lease.close()
        lease = open_lease(url)
        assert isinstance(lease, StoreLease)
        lease.acquire(0)
        renewals = []
        for _ in range(args.renewals):
            with lease._lock:
                started = time.perf_counter()
                lease._renew_now()
                renewals.append((time.perf_counter() - started) * 1000)
        lease.close()
    for name, values in (("claim", claims), ("renew", renewals)):
        print(
            f"etcd {name} with 1000/1024 held: p50 {statistics.median(values):.2f} ms,"
            f" p99 {_pct(values, 99):.2f} ms (n={len(values)})"
        )


def _b64(text: str) -> str:
    import base64

    return base64.b64encode(text.encode()).decode()


if __name__ == "__main__":
    main()
