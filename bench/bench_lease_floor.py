"""Benchmark: how fast could 1,024 claimants at once be, on this machine, through the
client snowid uses? (issue 27 §2 asks for < 5 s.)

    PYTHONPATH=src:. python bench/bench_lease_floor.py --engine zookeeper   # 3 rounds each, alternated
    PYTHONPATH=src:. python bench/bench_lease_floor.py --engine etcd --processes 8

One 3-member cluster of its own (the crowd benchmark's; ZooKeeper's JVM as it runs in
production, ``--jvm throughput`` there). Rounds alternate between two crowds of
``--processes`` x 1,024/``--processes`` threads, released together:

- **floor**: each thread does only what any lease of that engine with a self-expiring hold
  and a compare-and-set ceiling must, on a worker it is given (so it never reads, never
  collides, never retries). ZooKeeper (kazoo, with snowid's ``poll()`` handler): open a
  session, write the clock node once (the leader's clock), commit one multi-op
  transaction (a version check, the record rewritten, an ephemeral node created). etcd
  (snowid's gateway client): grant an etcd lease, commit one transaction (the hold
  created if absent, bound to that lease, and the record written);
- **claim**: snowid's own claim (``tests/support/crowd.py``, as ``bench_lease_crowd.py``).

It prints each round's time and the CPU seconds of the claimants (counted from their
start) and of the cluster's members, and the medians: the floor is what no claim through
that client on this machine can beat, whatever it reads.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "src"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

PREFIX = "/floor"


def zookeeper_floor(hosts: str, threads: int) -> tuple[list[Any], Callable[[Any, str], None]]:
    """``threads`` kazoo clients, and one floor claim on one of them."""
    from kazoo.client import KazooClient

    from snowid.lease._zkconn import _handler

    clients = [KazooClient(hosts=hosts, timeout=90, handler=_handler()) for _ in range(threads)]

    def claim(client: Any, worker: str) -> None:
        client.start(timeout=120)
        client.set(f"{PREFIX}/clock", b"")
        txn = client.transaction()
        txn.check(f"{PREFIX}/meta", 0)
        txn.set_data(f"{PREFIX}/ceiling/{worker}", b"r" * 200, -1)
        txn.create(f"{PREFIX}/held/{worker}", b"h" * 60, ephemeral=True)
        results = txn.commit()
        assert not any(isinstance(item, Exception) for item in results), results

    return clients, claim


def etcd_floor(hosts: str, threads: int) -> tuple[list[Any], Callable[[Any, str], None]]:
    """``threads`` of snowid's etcd gateway clients, and one floor claim on one of them."""
    from snowid.lease._etcdgw import Gateway
    from snowid.lease._etcdkv import absent, put

    endpoints = [
        (host, int(port)) for host, _, port in (h.rpartition(":") for h in hosts.split(","))
    ]
    clients = [
        Gateway(endpoints, timeout=60, connect_timeout=30, store="floor") for _ in range(threads)
    ]

    def claim(client: Any, worker: str) -> None:
        lease = int(client.post("lease/grant", {"TTL": 60, "ID": 0})["ID"])
        held = f"{PREFIX[1:]}/held/{worker}-{os.getpid()}"  # the last round's may live on
        answer = client.post(
            "kv/txn",
            {
                "compare": [absent(held)],
                "success": [
                    put(held, "h" * 60, lease),
                    put(f"{PREFIX[1:]}/ceiling/{worker}", "r" * 200),
                ],
            },
        )
        assert answer.get("succeeded"), answer

    return clients, claim


def child(engine: str, hosts: str, first: int, threads: int, *, go: Path, out: Path) -> int:
    """One floor process: ``threads`` clients, each on worker ``first + index``."""
    from tests.support.crowd import released_together, write_whole

    make = zookeeper_floor if engine == "zookeeper" else etcd_floor
    clients, floor_claim = make(hosts, threads)
    done: list[float] = []
    lock = threading.Lock()

    def claim(index: int) -> None:
        floor_claim(clients[index], f"{first + index:04d}")
        with lock:
            done.append(time.time())

    released_together(claim, threads, go, out)
    write_whole(out, "".join(json.dumps({"at": at}) + "\n" for at in done))
    while not Path(f"{go}.release").exists():
        time.sleep(0.01)
    for client in clients:
        if engine == "zookeeper":
            client.stop()
        client.close()
    return 0


def floor_round(engine: str, hosts: str, processes: int, tmp: Path) -> float:
    """One floor crowd (``run_crowd``'s, with this script's processes): seconds from the
    release to the last transaction."""
    from tests.support.crowd import run_crowd

    threads = 1024 // processes

    def command(index: int, go: Path, out: Path) -> list[str]:
        first = str(index * threads)
        return [
            sys.executable,
            __file__,
            "--child",
            engine,
            hosts,
            first,
            str(threads),
            str(go),
            str(out),
        ]

    results = run_crowd(
        "", tmp, lambda proc: proc, processes=processes, threads=threads, command=command
    )
    assert len(results) == 1024, f"{1024 - len(results)} floor claims failed"
    return max(r["at"] for r in results) - results[0]["go"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--engine", choices=("etcd", "zookeeper"), default="zookeeper")
    parser.add_argument(
        "--child", nargs=6, metavar=("ENGINE", "HOSTS", "FIRST", "THREADS", "GO", "OUT")
    )
    args = parser.parse_args()
    if args.child:
        engine, hosts, first, threads, go, out = args.child
        return child(engine, hosts, int(first), int(threads), go=Path(go), out=Path(out))
    from bench.bench_lease_crowd import cpu_seconds
    from tests.support.cleanup import Cleanup
    from tests.support.cluster import Cluster
    from tests.support.crowd import crowd_url, run_crowd
    from tests.support.etcd import etcd_cluster
    from tests.support.zookeeper import THROUGHPUT, ZkNodes, zookeeper_ensemble

    took: dict[str, list[float]] = {"floor": [], "claim": []}
    with Cleanup() as cleanup:
        cluster: Cluster[Any]
        if args.engine == "zookeeper":
            cluster = zookeeper_ensemble(3, cleanup, THROUGHPUT)
            nodes = ZkNodes(cluster.members[0].port)
            cleanup.add(nodes.close, "the set-up client")
            for name in ("meta", "clock", "ceiling", "held"):
                nodes.client.ensure_path(f"{PREFIX}/{name}")
            for worker in range(1024):
                nodes.client.create(f"{PREFIX}/ceiling/{worker:04d}", b"r" * 200)
        else:
            cluster = etcd_cluster(3, cleanup)
        hosts = [f"127.0.0.1:{member.port}" for member in cluster.members]
        servers = [member.proc.pid for member in cluster.members if member.proc is not None]
        for round_ in range(args.rounds):
            for kind in ("floor", "claim"):
                before_servers = cpu_seconds(servers)
                used = resource.getrusage(resource.RUSAGE_CHILDREN)
                before = used.ru_utime + used.ru_stime
                with tempfile.TemporaryDirectory(prefix="snowid-floor-") as tmp:
                    if kind == "floor":
                        seconds = floor_round(
                            args.engine, ",".join(hosts), args.processes, Path(tmp)
                        )
                    else:
                        url = crowd_url(
                            args.engine, hosts, f"claim{round_}",
                            "ttl=60&timeout=30&range=0-1023",
                        )  # fmt: skip
                        results = run_crowd(
                            url, Path(tmp), lambda proc: proc, processes=args.processes,
                            threads=1024 // args.processes,
                        )  # fmt: skip
                        assert len({r["worker"] for r in results if "worker" in r}) == 1024
                        seconds = max(r["at"] for r in results) - results[0]["go"]
                used = resource.getrusage(resource.RUSAGE_CHILDREN)
                took[kind].append(seconds)
                print(
                    f"round {round_ + 1} {kind}: {seconds:.2f} s; CPU: claimants"
                    f" {used.ru_utime + used.ru_stime - before:.1f} s, servers"
                    f" {cpu_seconds(servers) - before_servers:.1f} s",
                    flush=True,
                )
    floor, claim = statistics.median(took["floor"]), statistics.median(took["claim"])
    print(f"medians: floor {floor:.2f} s, snowid's claim {claim:.2f} s ({claim / floor:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
