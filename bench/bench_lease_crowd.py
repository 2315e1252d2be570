"""Benchmark: many claimants at once on an etcd or ZooKeeper lease store (issue 27 §2:
1,024 in < 5 s).

    python bench/bench_lease_crowd.py                      # 4 x 256 on a 3-member etcd of its own
    python bench/bench_lease_crowd.py --processes 2 --threads 128 --rounds 3
    python bench/bench_lease_crowd.py --engine zookeeper   # a 3-server ZooKeeper ensemble
    python bench/bench_lease_crowd.py --members 1 --sequential 500   # one claim's client CPU

Each round sets up a fresh prefix (a first deployment) with 1,024 workers, starts
``--processes`` processes of ``--threads`` claimants each (tests/support/crowd.py: each
thread a lease with its own connection), releases them together and times until the
last claim is in; it prints the time, the distinct workers claimed and the errors, and
the CPU seconds the claimants' processes and the cluster's members took (from /proc).
The claimants reach the members on their own ports (not through the fault tests'
proxies).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of ``pids`` so far (0 for one that is gone)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--threads", type=int, default=256)
    parser.add_argument("--members", type=int, default=3)
    parser.add_argument("--engine", choices=("etcd", "zookeeper"), default="etcd")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--jvm",
        choices=("throughput", "quick-start"),
        default="throughput",
        help="ZooKeeper's JVM: as a production server runs (both compilers, a 512 MB heap),"
        " or the tests' (C1 only, 64 MB: it starts faster)",
    )
    parser.add_argument(
        "--sequential",
        type=int,
        default=0,
        metavar="N",
        help="instead of a crowd: N claims one after another in this process's one thread"
        " (each a lease of its own, kept until the end): one claim's client CPU",
    )
    args = parser.parse_args()
    from tests.support.cleanup import Cleanup
    from tests.support.cluster import Cluster
    from tests.support.crowd import crowd_url, one_more, run_crowd
    from tests.support.etcd import etcd_cluster
    from tests.support.zookeeper import QUICK_START, THROUGHPUT, zookeeper_ensemble

    claimants = args.processes * args.threads
    took = []
    with Cleanup() as cleanup:
        jvm = THROUGHPUT if args.jvm == "throughput" else QUICK_START
        cluster: Cluster[Any] = (
            etcd_cluster(args.members, cleanup)
            if args.engine == "etcd"
            else zookeeper_ensemble(args.members, cleanup, jvm)
        )
        hosts = [f"127.0.0.1:{member.port}" for member in cluster.members]
        if args.sequential:
            return sequential(args.engine, hosts, args.sequential)
        members = [member.proc.pid for member in cluster.members if member.proc is not None]
        for round_ in range(args.rounds):
            url = crowd_url(args.engine, hosts, f"crowd{round_}", "ttl=60&timeout=30&range=0-1023")
            etcd_before = cpu_seconds(members)
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            before = used.ru_utime + used.ru_stime
            refused: list[str] = []

            def extra(url: str = url, refused: list[str] = refused) -> None:
                refused.append(one_more(url))

            with tempfile.TemporaryDirectory(prefix="snowid-crowd-") as tmp:
                results = run_crowd(
                    url,
                    Path(tmp),
                    lambda proc: proc,
                    processes=args.processes,
                    threads=args.threads,
                    meanwhile=extra,
                )
            used = resource.getrusage(resource.RUSAGE_CHILDREN)  # the claimants, ended
            claimants_cpu = used.ru_utime + used.ru_stime - before
            seconds = max(r["at"] for r in results) - results[0]["go"]
            took.append(seconds)
            workers = {r["worker"] for r in results if "worker" in r}
            errors = Counter(r["code"] for r in results if "code" in r)
            for message, count in Counter(r["message"] for r in results if "code" in r).items():
                print(f"  {count} x {message}")
            print(
                f"round {round_ + 1}: {claimants} claimants ({args.processes} x {args.threads}):"
                f" {len(workers)} distinct workers in {seconds:.2f} s, errors {dict(errors)},"
                f" CPU: claimants {claimants_cpu:.1f} s, {args.engine} {cpu_seconds(members) - etcd_before:.1f} s;"
                f" one more claimant: {refused[0]}"
            )
    verdict = "PASS" if claimants >= 1024 and statistics.median(took) < 5 else "FAIL"
    print(f"median {statistics.median(took):.2f} s; target 1,024 in < 5 s: {verdict}")
    return 0


def sequential(engine: str, hosts: list[str], n: int) -> int:
    """``n`` claims one after another: wall-clock and this process's CPU per claim."""
    import time

    from tests.support.crowd import crowd_url

    from snowid.lease import open_lease

    url = crowd_url(engine, hosts, "sequential", "ttl=60&timeout=30&range=0-1023")
    leases = []
    start, cpu = time.perf_counter(), time.process_time()
    try:
        for _ in range(n):
            leases.append(open_lease(url))
            leases[-1].acquire(0)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    finally:
        for lease in leases:
            lease.close()
    print(
        f"{engine}: {n} claims one after another: {wall:.2f} s, {wall / n * 1000:.1f} ms"
        f" each; client CPU {cpu / n * 1000:.1f} ms a claim"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
