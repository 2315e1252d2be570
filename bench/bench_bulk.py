"""Benchmark: ids in bulk (issue 29 §1-§2), columns and the command line.

    python bench/bench_bulk.py                 # 10 M ids, 5 rounds, about 2 min
    python bench/bench_bulk.py --ids 2000000 --rounds 7 --lines 2000000

Columns: 10 M random Twitter-layout int64 ids (times 2010..2080) to the time and the three
fields, on one core (the process is pinned to one CPU; polars and Arrow get one thread).
Each round times, in turn, a plain copy of the arrays (the input copied into the four
output arrays: the memory-bandwidth floor), the bare numpy expression (shift, mask, add,
no checks), ``snowid.bulk.decode`` on the numpy array (validated), on an Arrow array and on
a polars Series; the per-id ``snowid.decode`` loop is timed on a 100,000-id sample and
scaled. The medians of the rounds are reported with the ratios the issue asks for:
validated >= 0.5x bare, >= 100x the loop, Arrow and polars within 2x of numpy.

The command line: ``snowid decode --file F`` to CSV on standard output (sent to
/dev/null), end to end (process start, reading, decoding, writing), with numpy, and the
pure-Python path (numpy hidden), and ``--format jsonl``, each in lines per second.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("POLARS_MAX_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

import snowid
import snowid.bulk

SRC = Path(__file__).resolve().parents[1] / "src"
EPOCH = snowid.TWITTER.epoch_ms


def _ids(count: int) -> Any:
    rng = np.random.default_rng(29)
    low = snowid.first_id_at(EPOCH)  # 2010-11-04
    high = snowid.last_id_at(3471292800000)  # 2080-01-01
    return rng.integers(low, high, count, dtype=np.int64)


def _copy(ids: Any) -> Any:
    return ids.copy(), ids.copy(), ids.copy(), ids.copy()


def _bare(ids: Any) -> Any:
    time_ms = (ids >> 22) + EPOCH
    return time_ms.view("M8[ms]"), (ids >> 17) & 31, (ids >> 12) & 31, ids & 4095


def _timed(function: Callable[[], object]) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def _loop_rate(ids: Any) -> float:
    sample = ids[:100_000].tolist()
    started = time.perf_counter()
    for value in sample:
        snowid.decode(value)
    return len(sample) / (time.perf_counter() - started)


def columns(count: int, rounds: int) -> dict[str, float]:
    import polars as pl
    import pyarrow as pa

    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    ids = _ids(count)
    arrow = pa.array(ids)
    series = pl.Series("id", ids)
    check = snowid.bulk.decode(ids[:1000])
    bare = _bare(ids[:1000])
    assert (check["time"] == bare[0]).all()
    assert (check["sequence"] == bare[3]).all()
    variants: dict[str, Callable[[], object]] = {
        "copy": lambda: _copy(ids),
        "bare": lambda: _bare(ids),
        "numpy": lambda: snowid.bulk.decode(ids),
        "arrow": lambda: snowid.bulk.decode(arrow),
        "polars": lambda: snowid.bulk.decode(series),
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    loops = []
    for round_ in range(rounds):
        for name, function in variants.items():
            times[name].append(_timed(function))
        loops.append(_loop_rate(ids))
        shown = ", ".join(f"{name} {count / t[-1] / 1e6:.1f}" for name, t in times.items())
        print(f"round {round_ + 1}: M ids/s: {shown}, loop {loops[-1] / 1e6:.3f}", flush=True)
    rates = {name: count / statistics.median(t) for name, t in times.items()}
    rates["loop"] = statistics.median(loops)
    return rates


def _lines_file(directory: Path, count: int) -> Path:
    path = directory / "ids.txt"
    data = "\n".join(map(str, _ids(count).tolist())) + "\n"
    path.write_text(data)
    return path


_NO_NUMPY = "import sys; sys.modules['numpy'] = None; from snowid.cli import main; sys.exit(main())"


def _cli(arguments: list[str], pure: bool) -> float:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-c", _NO_NUMPY] if pure else [sys.executable, "-m", "snowid"]
    with open(os.devnull, "wb") as sink:
        started = time.perf_counter()
        subprocess.run([*command, *arguments], stdout=sink, env=env, check=True)
        return time.perf_counter() - started


def command_line(lines: int, rounds: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as directory:
        big = _lines_file(Path(directory), lines)
        small = Path(directory) / "small.txt"
        small.write_text("".join(big.read_text().splitlines(keepends=True)[: lines // 20]))
        runs: dict[str, tuple[list[str], bool, int]] = {
            "csv (numpy)": (["decode", "--file", str(big)], False, lines),
            "csv (pure Python)": (["decode", "--file", str(small)], True, lines // 20),
            "jsonl": (["decode", "--file", str(small), "--format", "jsonl"], False, lines // 20),
        }
        times: dict[str, list[float]] = {name: [] for name in runs}
        for round_ in range(rounds):
            for name, (arguments, pure, _) in runs.items():
                times[name].append(_cli(arguments, pure))
            print(
                f"cli round {round_ + 1}: "
                + ", ".join(
                    f"{name} {runs[name][2] / t[-1] / 1e6:.3f} M lines/s"
                    for name, t in times.items()
                ),
                flush=True,
            )
        return {name: runs[name][2] / statistics.median(t) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ids", type=int, default=10_000_000)
    parser.add_argument("--lines", type=int, default=5_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-cli", action="store_true")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})  # one core
    rates = columns(args.ids, args.rounds)
    print(f"\n{args.ids:,} Twitter ids -> time + 3 fields, one core, median of {args.rounds}")
    for name, rate in rates.items():
        print(f"  {name:<8} {rate / 1e6:9.2f} M ids/s")
    print(f"  validated numpy / bare     {rates['numpy'] / rates['bare']:.2f}x  (target >= 0.5x)")
    print(f"  validated numpy / loop     {rates['numpy'] / rates['loop']:.0f}x  (target >= 100x)")
    print(f"  validated numpy / copy     {rates['numpy'] / rates['copy']:.2f}x")
    print(f"  numpy / arrow              {rates['numpy'] / rates['arrow']:.2f}x  (target <= 2x)")
    print(f"  numpy / polars             {rates['numpy'] / rates['polars']:.2f}x  (target <= 2x)")
    if not args.no_cli:
        cli = command_line(args.lines, args.rounds)
        print(f"\nsnowid decode --file (end to end, median of {args.rounds})")
        for name, rate in cli.items():
            print(f"  {name:<18} {rate / 1e6:7.3f} M lines/s")


if __name__ == "__main__":
    main()
