"""Benchmark: the process-wide ``snowid.next_id()`` / ``next_ids(n)`` against ``Generator``.

    python bench/bench_default.py              # about 30 s
    python bench/bench_default.py --rounds 5   # fewer alternating rounds

Both sides run on a lease of the same kind (file slots in a temporary directory), in one
process, in alternating rounds; the medians and their ratio are printed. ``next_ids(n)``
is reported two ways: wall-clock ids/s of back-to-back calls (both are capped by the
layout's 4,096 ids per ms) and CPU ns per id (what making the SnowIds costs).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from itertools import repeat

import snowid
from snowid import Generator
from snowid.lease import open_lease


def singles(call: Callable[[], object], n: int) -> float:
    start = time.perf_counter()
    for _ in repeat(None, n):
        call()
    return n / (time.perf_counter() - start)


def batches(call: Callable[[int], list[object]], size: int, seconds: float) -> tuple[float, float]:
    """(ids/s wall, CPU ns per id) of back-to-back ``call(size)`` for ``seconds``. Each
    batch is dropped at once, as a program would (kept, millions of SnowIds would time
    the garbage collector's passes over them)."""
    total = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        total += len(call(size))
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    return total / wall, used / total * 1e9


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds (>= 5)")
    parser.add_argument("--n", type=int, default=300_000, help="next_id calls per round")
    parser.add_argument("--size", type=int, default=256, help="next_ids batch size")
    parser.add_argument("--seconds", type=float, default=1.0, help="next_ids time per round")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        snowid.configure(lease=f"file://{tmp}/slots")
        snowid.warm_up()
        generator = Generator(fence=open_lease(f"file://{tmp}/slots"))
        generator.next_id()
        one: dict[str, list[float]] = {"Generator.next_id": [], "snowid.next_id": []}
        many: dict[str, list[tuple[float, float]]] = {
            "Generator.next_ids": [],
            "snowid.next_ids": [],
        }
        for _ in range(args.rounds):
            one["Generator.next_id"].append(singles(generator.next_id, args.n))
            one["snowid.next_id"].append(singles(snowid.next_id, args.n))
            many["Generator.next_ids"].append(batches(generator.next_ids, args.size, args.seconds))
            many["snowid.next_ids"].append(batches(snowid.next_ids, args.size, args.seconds))
        snowid.close()
    med = {name: statistics.median(rates) for name, rates in one.items()}
    for name, rate in med.items():
        print(f"{name:22} {rate / 1e6:6.2f}M ids/s  (median of {args.rounds})")
    ratio = med["snowid.next_id"] / med["Generator.next_id"]
    print(f"{'ratio':22} {ratio:6.3f}  target >= 0.9: {'PASS' if ratio >= 0.9 else 'FAIL'}")
    walls = {name: statistics.median(r[0] for r in rows) for name, rows in many.items()}
    cpus = {name: statistics.median(r[1] for r in rows) for name, rows in many.items()}
    for name in many:
        print(
            f"{name + f'({args.size})':22} {walls[name] / 1e6:6.2f}M ids/s wall, "
            f"{cpus[name]:6.1f} CPU ns/id"
        )
    ratio = walls["snowid.next_ids"] / walls["Generator.next_ids"]
    cpu_ratio = cpus["Generator.next_ids"] / cpus["snowid.next_ids"]
    print(f"{'ratio (wall)':22} {ratio:6.3f}  target >= 0.9: {'PASS' if ratio >= 0.9 else 'FAIL'}")
    print(f"{'ratio (CPU per id)':22} {cpu_ratio:6.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
