"""Claim and renew latency of the ZooKeeper lease store with 1,000 of 1,024 identities held.

    python bench/bench_lease_zookeeper.py [--claims 200] [--renewals 500]

One standalone ZooKeeper 3.8 of the benchmark's own (tests/support/zookeeper.py: free
loopback ports, data on disk with ZooKeeper's forceSync, a 64 MB heap). 1,000 identities
are held by creating their ``held`` nodes, ephemeral, from one kazoo session of the
benchmark's, so every claim lists the range and finds 24 free; each claim is released at
once (its held node deleted), with ``span=0.01`` so that the next claim of that worker need
not wait for the released grant. A claim is: the clock node written (the skew check),
the meta node read, the ``ceiling`` and ``held`` children listed, the records of 3 free
workers drawn at random read side by side (every free one only if none of those can start
at once), one multi-op transaction. A renewal is one multi-op transaction. Prints p50/p99
in ms.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--renewals", type=int, default=500)
    args = parser.parse_args()

    from kazoo.client import KazooClient
    from tests.support.zookeeper import zookeeper_server

    from bench_lease_common import percentiles
    from snowid.lease import init_lease, open_lease
    from snowid.lease._store import StoreLease
    from snowid.lease.zookeeper import ZookeeperLease

    with zookeeper_server() as server:
        url = server.url("bench?ttl=30&span=0.01")  # a released grant runs out at once
        init_lease(url, first_deployment=True)
        holder = KazooClient(f"127.0.0.1:{server.port}", timeout=60)
        holder.start(timeout=30)
        transaction = holder.transaction()
        for worker in range(1000):
            value = json.dumps({"owner": "x"}).encode()
            transaction.create(f"/bench/held/{worker:04d}", value, ephemeral=True)
        assert not any(isinstance(r, Exception) for r in transaction.commit())
        claims, sessions = [], []
        for _ in range(args.claims):
            lease = open_lease(url)
            assert isinstance(lease, ZookeeperLease)
            opened = time.perf_counter()
            assert lease._zk().client.connected  # the session, timed apart from the claim
            sessions.append((time.perf_counter() - opened) * 1000)
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
        holder.stop()
        holder.close()
    for name, values in (("session", sessions), ("claim", claims), ("renew", renewals)):
        print(f"zookeeper {name} with 1000/1024 held: {percentiles([v / 1000 for v in values])}")


if __name__ == "__main__":
    main()
