"""Benchmark: the hot path of two checkouts of snowid, side by side, in one invocation.

    python bench/bench_before_after.py BEFORE_SRC AFTER_SRC   # e.g. /work/main/src src
    python bench/bench_before_after.py BEFORE_SRC AFTER_SRC --runs 5 --n 1000000

Each run is a fresh interpreter importing snowid from one ``src`` folder (PYTHONPATH
first on the path, so an installed snowid does not interfere) and timing, in a tight
loop, ``Generator(…).next_id`` (ints), ``snowid.next_id`` (the process-wide generator
on a static identity: a SnowId per call, the path the fast constructor serves) and
``Generator.next_ids(256)`` (one ``take`` per call: the core's keyword seam), and, when
pydantic is installed, a SnowId field's validation of a decimal string. The loops
are timed in CPU time of the thread (``time.thread_time``), so the waits for the next
millisecond do not count, and each run keeps the best of 10 chunks, so a chunk that
another process disturbed (cache, a shared core) does not either. Runs alternate before, after, before, … so that a slow
moment of the machine hits both alike; the median of each side is printed with the
after/before ratio (issue 17: within 3 %).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

_RUN = """
import json, sys, time
from itertools import repeat
import snowid

n = int(sys.argv[1])
dc, machine = int(sys.argv[2]), int(sys.argv[3])


CHUNKS = 10  # the best of 10 chunks: a chunk another process disturbed does not count


def rate(call, n):
    for _ in repeat(None, 10_000):  # warm up: first id, first grant
        call()
    best, size = 0.0, n // CHUNKS
    for _ in range(CHUNKS):
        start = time.thread_time()
        for _ in repeat(None, size):
            call()
        best = max(best, size / (time.thread_time() - start))
    return best


def batch_rate(batch, k, n):
    batch(k)
    best, calls = 0.0, n // k // CHUNKS
    for _ in range(CHUNKS):
        start = time.thread_time()
        for _ in repeat(None, calls):
            batch(k)
        best = max(best, calls * k / (time.thread_time() - start))
    return best


generator = snowid.Generator(dc, machine)
snowid.configure(lease=f"static://{dc}/{(machine + 1) % 32}")
result = {
    "file": snowid.__file__,
    "Generator.next_id": rate(generator.next_id, n),
    "snowid.next_id": rate(snowid.next_id, n),
    "Generator.next_ids(256)": batch_rate(snowid.Generator(dc, (machine + 2) % 32).next_ids, 256, n),
}
try:
    from pydantic import TypeAdapter
except ImportError:
    pass
else:
    validate = TypeAdapter(snowid.SnowId).validate_python
    result["pydantic SnowId from str"] = rate(lambda: validate("4194439168"), n // 4)
print(json.dumps(result))
"""


def run(src: Path, n: int) -> dict[str, float | str]:
    # A random identity: a static one is refused while another process of this host holds it.
    dc, machine = random.randrange(32), random.randrange(32)
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("SNOWID_LEASE", None)
    done = subprocess.run(
        [sys.executable, "-c", _RUN, str(n), str(dc), str(machine)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    result: dict[str, float | str] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--n", type=int, default=1_000_000)
    args = parser.parse_args()
    sides: dict[str, list[dict[str, float | str]]] = {"before": [], "after": []}
    for _ in range(args.runs):
        for side in ("before", "after"):
            sides[side].append(run(getattr(args, side).resolve(), args.n))
    for side, results in sides.items():
        print(f"{side}: {results[0]['file']}")
    print(
        f"{'ids per CPU s, median of ' + str(args.runs):<28}{'before':>14}{'after':>14}{'after/before':>14}"
    )
    keys = [key for key in sides["before"][0] if key != "file" and key in sides["after"][0]]
    for key in keys:
        before = statistics.median(float(r[key]) for r in sides["before"])
        after = statistics.median(float(r[key]) for r in sides["after"])
        print(f"{key:<28}{before:>14,.0f}{after:>14,.0f}{after / before:>14.3f}")


if __name__ == "__main__":
    main()
