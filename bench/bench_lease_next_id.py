"""Benchmark: ``next_id()`` on a lease of any store against the bare generator, side by side.

    python bench/bench_lease_next_id.py                    # a 3-member etcd cluster of its own
    python bench/bench_lease_next_id.py --members 1        # one etcd member of its own
    python bench/bench_lease_next_id.py --url URL          # any lease URL: etcd://, zookeeper://…

The bare generator (``Generator(1, 1)``) and ``Generator(fence=open_lease(URL))`` (its lease
renewing in the background at the URL's TTL) take turns in one process: each round times
each side for ``--seconds`` in a tight single-threaded loop, the side that goes first
alternating from round to round; the medians of ``--rounds`` (at least 5) rounds and their
ratio are printed, with the issue's target (>= 0.9x). The claim happens before the first
round, outside the timing.

A store named with ``--url`` is used as it is: set it up first (``snowid lease init URL``),
or the first claim quarantines it (and waits). A cluster of the benchmark's own runs on
free loopback ports (tests/support/etcd.py; its clients reach it through the proxies the
fault tests use) and is set up as a first deployment.
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


def measure(url: str, rounds: int, seconds: float) -> dict[str, list[float]]:
    """ids/s of each side, one sample per round."""
    lease = open_lease(url)
    sides = {"bare Generator(1, 1)": Generator(1, 1).next_id}
    sides[f"{url.split(':', 1)[0]} lease"] = Generator(fence=lease).next_id
    for next_id in sides.values():
        next_id()  # the claim, outside the timing
    results: dict[str, list[float]] = {name: [] for name in sides}
    try:
        for index in range(rounds):
            order = list(sides) if index % 2 == 0 else list(reversed(sides))
            for name in order:
                results[name].append(rate(sides[name], seconds))
    finally:
        lease.close()
    return results


def report(results: dict[str, list[float]], rounds: int) -> None:
    bare_name, lease_name = list(results)
    bare = statistics.median(results[bare_name])
    print(f"next_id(), single thread, median of {rounds} alternating rounds")
    for name, values in results.items():
        median = statistics.median(values)
        spread = f"{min(values) / 1e6:.3f}-{max(values) / 1e6:.3f}"
        print(f"  {name:22s} {median / 1e6:6.3f} M ids/s  (rounds {spread})")
    ratio = statistics.median(results[lease_name]) / bare
    print(f"  {'ratio':22s} {ratio:6.3f}x  target >= 0.9: {'PASS' if ratio >= 0.9 else 'FAIL'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a lease URL (default: an etcd cluster of its own)")
    parser.add_argument("--members", type=int, default=3, help="members of its own cluster")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds (>= 5)")
    parser.add_argument("--seconds", type=float, default=1.0, help="time per side per round")
    args = parser.parse_args()
    if args.rounds < 5:
        parser.error(f"--rounds {args.rounds}: at least 5 (a median of fewer says little)")
    if args.url:
        report(measure(args.url, args.rounds, args.seconds), args.rounds)
        return 0
    from tests.support.cleanup import Cleanup
    from tests.support.etcd import etcd_cluster

    with Cleanup() as cleanup:
        cluster = etcd_cluster(args.members, cleanup)
        hosts = ",".join(f"127.0.0.1:{cluster.port(i)}" for i in range(args.members))
        url = f"etcd://{hosts}/bench?range=0-1023"
        init_lease(url, first_deployment=True)
        print(f"etcd: {args.members} member(s) of the benchmark's own, default ttl (10 s)")
        report(measure(url, args.rounds, args.seconds), args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
