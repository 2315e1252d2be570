"""Benchmark: the cold start of ``snowid decode`` against a bare ``python -c pass``.

    python bench/bench_cli.py                        # 21 rounds, about 5 s
    python bench/bench_cli.py --snowid /other/venv/bin/snowid   # another install (before/after)

Each round starts, in turn, a bare interpreter (``python -c pass``), the ``snowid decode
4194439168`` console script and ``python -c "import snowid"``, each a fresh process, and
times it from spawn to exit. The ratio of a round is its snowid time over its bare time, so
a slow moment of a shared machine hits both sides; the median of the rounds is reported
against the target: at most 7x (5x, the stricter one, once ``import snowid`` is lazy too).
The interpreter is the one the console script names on its first line, so both sides run
the same Python with the same site-packages. The children write and read their bytecode in
a private cache (``PYTHONPYCACHEPREFIX``, a temporary directory), as an installed package
has its ``.pyc`` files: with ``PYTHONDONTWRITEBYTECODE`` set every run would compile
snowid's sources again, and the source tree is left untouched. ``--as-is`` keeps the
environment's bytecode settings instead (issue 17 measured with PYTHONDONTWRITEBYTECODE=1,
where every start compiles snowid's modules).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 7.0
STRICT_TARGET = 5.0
ID = "4194439168"


def _interpreter(script: Path) -> str:
    """The Python a console script runs with (its ``#!`` line), else this one."""
    first = script.read_text(errors="replace").splitlines()[0]
    return first[2:].strip() if first.startswith("#!") else sys.executable


def _seconds(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env
    )
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = Path(sys.executable).with_name("snowid")
    parser.add_argument("--snowid", type=Path, default=default, help="the console script")
    parser.add_argument("--rounds", type=int, default=21, help="alternating rounds (21)")
    parser.add_argument(
        "--as-is", action="store_true", help="keep the environment's bytecode settings"
    )
    args = parser.parse_args()
    python = _interpreter(args.snowid)
    commands = {
        "python -c pass": [python, "-c", "pass"],
        f"snowid decode {ID}": [str(args.snowid), "decode", ID],
        "python -c 'import snowid'": [python, "-c", "import snowid"],
    }
    with tempfile.TemporaryDirectory(prefix="snowid-bench-pyc-") as cache:
        env = dict(os.environ)
        if not args.as_is:
            env["PYTHONPYCACHEPREFIX"] = cache
            env.pop("PYTHONDONTWRITEBYTECODE", None)
        for command in commands.values():  # once each, untimed: page cache and .pyc files
            _seconds(command, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, command in commands.items():
                times[name].append(_seconds(command, env))
    print(f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs")
    mode = "as the environment says" if args.as_is else "cached in a private directory"
    print(f"snowid: {args.snowid}; bytecode {mode}")
    for name, values in times.items():
        print(f"  {name:<28} median {statistics.median(values) * 1000:6.1f} ms")
    bare, decode_times, import_times = times.values()
    decode = statistics.median(d / b for d, b in zip(decode_times, bare, strict=True))
    imported = statistics.median(i / b for i, b in zip(import_times, bare, strict=True))
    verdict = "PASS" if decode <= TARGET else "FAIL"
    strict = "PASS" if decode <= STRICT_TARGET else "not met"
    print(f"import snowid / bare, median of {args.rounds} rounds: {imported:.2f}x")
    print(
        f"snowid decode {ID} / bare, median of {args.rounds} rounds: {decode:.2f}x"
        f" (target <= {TARGET:g}x: {verdict}; <= {STRICT_TARGET:g}x: {strict})"
    )
    return 0 if decode <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
