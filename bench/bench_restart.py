"""How long a restarted process waits for its first id on a PostgreSQL lease, by range size.

N processes (``--processes``, default 2) hold identities of a fresh table of the shared
server (127.0.0.1:5432, db ``test``), issue ids for a few seconds, and are stopped with
SIGTERM at once; then N new processes start at once and each reports the seconds from its
start to its first ``snowid.next_id()`` (connecting and claiming included). That is done on a
range of N identities (sized to the processes), N + 1, and 2N, ``--rounds`` times each.
The lease's defaults (ttl 10 s, span 10 s) are used, as a deploy would.

    python bench/bench_restart.py [--processes 2] [--rounds 3]

docs/process.md ("Restarting: the wait for the old grant") has what this shows.
"""

from __future__ import annotations

import argparse
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # tests.support makes and drops the table
    sys.path.insert(0, str(ROOT))

from tests.support.pg import PG, fresh_table  # noqa: E402

HOLD = """
import sys, time, snowid
snowid.configure(lease=sys.argv[1])
snowid.next_id()
print("ready", flush=True)
while True:
    snowid.next_id()
    time.sleep(0.05)
"""
FIRST = """
import sys, time
started = time.monotonic()
import snowid
snowid.configure(lease=sys.argv[1])
snowid.next_id()
print(f"{time.monotonic() - started:.2f}")
"""


def restart(identities: int, processes: int, hold_s: float) -> list[float]:
    """Seconds to the first id of each of ``processes`` restarted at once."""
    with fresh_table() as table:
        url = f"{PG}?table={table}&range=0-{identities - 1}"
        holders = [
            subprocess.Popen([sys.executable, "-c", HOLD, url], stdout=subprocess.PIPE, text=True)
            for _ in range(processes)
        ]
        try:
            for holder in holders:
                assert holder.stdout is not None
                assert holder.stdout.readline().strip() == "ready"
            time.sleep(hold_s)
        finally:
            for holder in holders:
                holder.send_signal(signal.SIGTERM)
            for holder in holders:
                holder.wait(30)
        successors = [
            subprocess.Popen(
                [sys.executable, "-c", FIRST, url],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            for _ in range(processes)
        ]
        return sorted(float(proc.communicate(timeout=60)[0]) for proc in successors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    n = args.processes
    print(f"| identities for {n} processes | first id after (s), each round | median |")
    print("|---|---|---:|")
    for identities, label in ((n, "sized to them"), (n + 1, "one spare"), (2 * n, "twice")):
        rounds = [restart(identities, n, hold_s=2.0 + r) for r in range(args.rounds)]
        flat = [s for one in rounds for s in one]
        shown = "; ".join(", ".join(f"{s:.2f}" for s in one) for one in rounds)
        print(f"| {identities} ({label}) | {shown} | {statistics.median(flat):.2f} |")


if __name__ == "__main__":
    main()
