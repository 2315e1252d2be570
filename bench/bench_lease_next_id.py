"""Benchmark: ``next_id()`` on a lease of any store against the bare generator, side by side.

    python bench/bench_lease_next_id.py                    # a 3-member etcd cluster and a
                                                           # 3-server ZooKeeper ensemble of its own
    python bench/bench_lease_next_id.py --engines zookeeper --members 1  # one ZooKeeper
    python bench/bench_lease_next_id.py --url URL [--url URL2]  # lease URLs: etcd://, zookeeper://…

The bare generator (``Generator(1, 1)``) and ``Generator(fence=open_lease(URL))`` for each
lease (each renewing in the background at the URL's TTL) take turns in one process: each
round times each side for ``--seconds`` in a tight single-threaded loop, the order turned
by one from round to round, so each side goes first as often; the medians of ``--rounds``
(at least 5) rounds and each lease's ratio to the bare side are printed, with the issue's
target (>= 0.9x). The claims happen before the first round, outside the timing.

A store named with ``--url`` is used as it is: set it up first (``snowid lease init URL``),
or the first claim quarantines it (and waits). A cluster of the benchmark's own runs on
free loopback ports (tests/support/etcd.py, tests/support/zookeeper.py; the members reach each
other through the fault tests' proxies, which run in this process, the lease's client reaches
them on their own ports) and is set up as a first deployment.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from bench_lease import rate
from snowid import Generator
from snowid.lease import init_lease, open_lease

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def measure(urls: list[str], rounds: int, seconds: float) -> dict[str, list[float]]:
    """ids/s of each side (the bare generator, then one per lease URL), one sample per
    round; each round runs the sides in a turned order, so each goes first as often."""
    leases = [open_lease(url) for url in urls]
    sides = {"bare Generator(1, 1)": Generator(1, 1).next_id}
    for url, lease in zip(urls, leases, strict=True):
        sides[f"{url.split(':', 1)[0]} lease"] = Generator(fence=lease).next_id
    for next_id in sides.values():
        next_id()  # the claims, outside the timing
    results: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    try:
        for index in range(rounds):
            turn = index % len(names)
            for name in names[turn:] + names[:turn]:
                results[name].append(rate(sides[name], seconds))
    finally:
        for lease in leases:
            lease.close()
    return results


def report(results: dict[str, list[float]], rounds: int) -> bool:
    """Print the medians and each lease's ratio to the bare side; True if all are >= 0.9."""
    bare_name, *lease_names = list(results)
    bare = statistics.median(results[bare_name])
    print(f"next_id(), single thread, median of {rounds} alternating rounds")
    for name, values in results.items():
        median = statistics.median(values)
        spread = f"{min(values) / 1e6:.3f}-{max(values) / 1e6:.3f}"
        print(f"  {name:22s} {median / 1e6:6.3f} M ids/s  (rounds {spread})")
    passed = True
    for name in lease_names:
        ratio = statistics.median(results[name]) / bare
        # each round's own ratio (the two sides timed seconds apart): a load that swings
        # from round to round moves both sides of it alike
        paired = statistics.median(
            lease / plain for lease, plain in zip(results[name], results[bare_name], strict=True)
        )
        passed = passed and ratio >= 0.9
        verdict = "PASS" if ratio >= 0.9 else "FAIL"
        print(
            f"  {name + ' / bare':22s} {ratio:6.3f}x  target >= 0.9: {verdict}"
            f"  (median of the rounds' own ratios {paired:.3f}x)"
        )
    return passed


ENGINES = ("etcd", "zookeeper")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--url",
        action="append",
        default=[],
        help="a lease URL (repeatable); default: clusters of its own",
    )
    parser.add_argument(
        "--engines", default=",".join(ENGINES), help="clusters of its own to run: etcd,zookeeper"
    )
    parser.add_argument("--members", type=int, default=3, help="members of each own cluster")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds (>= 5)")
    parser.add_argument("--seconds", type=float, default=1.0, help="time per side per round")
    args = parser.parse_args()
    if args.rounds < 5:
        parser.error(f"--rounds {args.rounds}: at least 5 (a median of fewer says little)")
    engines = [name for name in args.engines.split(",") if name]
    unknown = sorted(set(engines) - set(ENGINES))
    if unknown:
        parser.error(f"--engines {args.engines}: unknown {', '.join(unknown)} (etcd, zookeeper)")
    if args.url:
        report(measure(args.url, args.rounds, args.seconds), args.rounds)
        return 0
    from tests.support.cleanup import Cleanup
    from tests.support.etcd import etcd_cluster
    from tests.support.zookeeper import zookeeper_ensemble

    with Cleanup() as cleanup:
        urls = []
        for engine in engines:
            start = etcd_cluster if engine == "etcd" else zookeeper_ensemble
            cluster = start(args.members, cleanup)
            # the members' own client ports: the proxies run in this process, and client
            # traffic through them would take its time from the timed loop
            hosts = ",".join(f"127.0.0.1:{member.port}" for member in cluster.members)
            urls.append(f"{engine}://{hosts}/bench?range=0-1023")
            init_lease(urls[-1], first_deployment=True)
        print(
            f"{', '.join(engines)}: {args.members} member(s) each, the benchmark's own, default ttl (10 s)"
        )
        report(measure(urls, args.rounds, args.seconds), args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
