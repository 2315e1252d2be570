"""Benchmark: snowid.Generator against PyPI Snowflake generators, in one process and one run.

    python bench/bench_generator.py            # about 20 s
    python bench/bench_generator.py --quick    # about 8 s, noisier

Contenders (single thread, ``next id`` in a tight loop, same harness for all):

* snowid ``Generator.next_id``;
* a minimal correct generator with ``threading.Lock``, written below (the reference);
* snowflake-id 1.0.2 (no lock; returns None when a millisecond's sequence runs out);
* flakeid 0.1.1; snowflake-tool 2.0.3 (``gen_id``);
* sonyflake-turbo 1.0.1 (C extension) with 160 machine ids: 160 x 256 ids per 10 ms
  = 4,096,000 ids/s, the same budget as one Twitter worker.

Then snowid with 4 threads (aggregate, every id checked unique), and ``next_ids(n)``
sustained for at least 2 s against the layout's limit of 4,096,000 ids/s. Rounds of
the single-thread contenders are interleaved and the median is reported, so a slow
moment of the machine hits every contender alike. Targets are printed as PASS/FAIL.
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import statistics
import sys
import threading
import time
import warnings
from collections.abc import Callable
from itertools import repeat
from time import perf_counter
from typing import Any

from snowid import Generator

EPOCH = 1288834974657
LAYOUT_LIMIT = 4_096_000


class MinimalLocked:
    """The reference: the smallest correct locked generator (waits by spinning, like most)."""

    def __init__(self, worker: int) -> None:
        self.lock = threading.Lock()
        self.last = -1
        self.seq = 0
        self.worker = worker << 12

    def next_id(self) -> int:
        with self.lock:
            t = time.time_ns() // 1_000_000
            if t == self.last:
                self.seq = (self.seq + 1) & 4095
                if self.seq == 0:
                    while t <= self.last:
                        t = time.time_ns() // 1_000_000
            elif t < self.last:
                raise RuntimeError("clock moved backwards")
            else:
                self.seq = 0
            self.last = t
            return ((t - EPOCH) << 22) | self.worker | self.seq


def _import_snowflake_tool() -> Any:
    # snowflake-tool 2.0.3 imports warnings.deprecated (Python 3.13+) for a method we do not
    # call; on older Pythons give it a no-op decorator so the package imports at all.
    if not hasattr(warnings, "deprecated"):
        warnings.deprecated = lambda message: lambda function: function  # type: ignore[attr-defined]
    import snowflake_tool  # type: ignore[import-untyped]

    return snowflake_tool


def contenders() -> dict[str, Callable[[], object]]:
    import flakeid
    import snowflake  # type: ignore[import-untyped]
    import sonyflake_turbo

    snowflake_tool = _import_snowflake_tool()

    return {
        "snowid next_id": Generator(1, 1).next_id,
        "minimal locked (reference)": MinimalLocked(33).next_id,
        "snowflake-id 1.0.2": snowflake.SnowflakeGenerator(33).__next__,
        "flakeid 0.1.1": flakeid.make_generator(
            flakeid.PRESET_TWITTER, datacenter_id=1, machine_id=1
        ).next_id,
        "snowflake-tool 2.0.3": snowflake_tool.SnowflakeGenerator(machine_id=33).gen_id,
        "sonyflake-turbo 1.0.1 (C)": sonyflake_turbo.SonyFlake(*range(160)).__next__,
    }


def one_round(call: Callable[[], object], n: int) -> float:
    start = perf_counter()
    for _ in repeat(None, n):
        call()
    return n / (perf_counter() - start)


def threaded(generator: Generator, threads: int, per_thread: int) -> tuple[float, bool]:
    """Aggregate ids/s of ``threads`` threads calling next_id; and whether all were unique."""
    results: list[list[int]] = [[] for _ in range(threads)]
    barrier = threading.Barrier(threads + 1)

    def work(slot: int) -> None:
        next_id = generator.next_id
        barrier.wait()
        results[slot] = [next_id() for _ in repeat(None, per_thread)]

    pool = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    barrier.wait()
    start = perf_counter()
    for thread in pool:
        thread.join()
    rate = threads * per_thread / (perf_counter() - start)
    ids = list(itertools.chain.from_iterable(results))
    ordered = all(all(a < b for a, b in itertools.pairwise(r)) for r in results)
    return rate, ordered and len(set(ids)) == len(ids)


def sustained(batch: Callable[[int], list[int]], seconds: float, chunk: int) -> float:
    """ids/s of back-to-back batch calls. The batches are kept until the end so that
    freeing millions of ints (the consumer's work, ~10 ns each) is not timed."""
    kept: list[list[int]] = []
    batch(chunk)  # settle into the millisecond rhythm
    start = perf_counter()
    while (elapsed := perf_counter() - start) < seconds:
        kept.append(batch(chunk))
    total = sum(map(len, kept))
    del kept
    return total / elapsed


def fmt(rate: float) -> str:
    return f"{rate / 1e6:6.2f}M/s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter rounds")
    args = parser.parse_args()
    rounds, n = (7, 60_000) if args.quick else (25, 100_000)
    batch_seconds = 2.0 if args.quick else 2.5

    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    print(f"{rounds} interleaved rounds of {n:,} calls: median and best round per contender\n")

    calls = contenders()
    for call in calls.values():  # warm up, and let every clock-based generator start
        one_round(call, 20_000)
    rates: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            rates[name].append(one_round(call, n))
    median = {name: statistics.median(values) for name, values in rates.items()}

    best = {name: max(values) for name, values in rates.items()}
    ours = median["snowid next_id"]
    print(
        f"{'single thread':30} {'median':>10} {'snowid / it':>12} {'best round':>11} {'ratio':>6}"
    )
    for name, rate in median.items():
        ratio = best["snowid next_id"] / best[name]
        print(f"{name:30} {fmt(rate):>10} {ours / rate:11.2f}x {fmt(best[name]):>11} {ratio:5.2f}x")

    # Threads: the same generator type, 1 thread vs 4 threads, both collecting their ids.
    per_thread = 150_000 if args.quick else 300_000
    one = statistics.median(threaded(Generator(2, 2), 1, per_thread)[0] for _ in range(5))
    runs = [threaded(Generator(2, 3), 4, per_thread) for _ in range(5)]
    four = statistics.median(rate for rate, _ in runs)
    unique = all(ok for _, ok in runs)
    print(f"\n{'threads (collecting ids)':30} {'ids/s':>10}")
    print(f"{'snowid next_id, 1 thread':30} {fmt(one):>10}")
    print(f"{'snowid next_id, 4 threads':30} {fmt(four):>10}   all unique: {unique}")
    print(f"(4 threads / the tight-loop single-thread median above: {four / ours:.2f}x)")

    # Batches, sustained.
    import sonyflake_turbo

    ours_batch = sustained(Generator(3, 3).next_ids, batch_seconds, 100_000)
    sony_batch = sustained(sonyflake_turbo.SonyFlake(*range(160)), 1.0, 100_000)
    print(f"\n{'batches (sustained)':30} {'ids/s':>10} {'of 4,096,000':>12}")
    print(
        f"{f'snowid next_ids, {batch_seconds:g} s':30} {fmt(ours_batch):>10}"
        f" {ours_batch / LAYOUT_LIMIT:11.1%}"
    )
    print(
        f"{'sonyflake-turbo sf(n), 1 s':30} {fmt(sony_batch):>10} {sony_batch / LAYOUT_LIMIT:11.1%}"
    )

    checks = [
        ("next_id >= 1.6x flakeid", ours / median["flakeid 0.1.1"], 1.6),
        ("next_id >= 0.75x snowflake-id", ours / median["snowflake-id 1.0.2"], 0.75),
        ("4 threads >= 0.6x 1 thread (same harness)", four / one, 0.6),
        ("next_ids >= 95% of 4,096,000/s", ours_batch / LAYOUT_LIMIT, 0.95),
    ]
    print(f"\n{'target':42} {'measured':>9}  result")
    failed = 0
    for label, value, goal in checks:
        ok = value >= goal
        failed += not ok
        shown = f"{value:.1%}" if "%" in label else f"{value:.2f}x"
        print(f"{label:42} {shown:>9}  {'PASS' if ok else 'FAIL'}")
    if not unique:
        print("DUPLICATE OR UNORDERED IDS WITH 4 THREADS")
        failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
