"""How long a restarted process waits for its first id on a PostgreSQL lease, by range size.

N processes (``--processes``, default 2) hold identities of a fresh table of the shared
server (127.0.0.1:5432, db ``test``), issue ids for a few seconds, and are stopped with
SIGTERM at once; then N new processes start at once and each reports the seconds from its
start to its first ``snowid.next_id()`` (connecting and claiming included). That is done on a
range of N identities (sized to the processes), N + 1, and 2N, ``--rounds`` times each.
The lease's defaults (ttl 10 s, span 10 s) are used, as a deploy would.

    python bench/bench_restart.py [--processes 2] [--rounds 3]

``--serve`` measures ``snowid serve --workers N`` instead (issue 26 §4): a server on
``range=100-(100+N-1)`` is stopped with SIGTERM (its drain, then the clean hand-over) and
started again, and the seconds from the new server's start to its first answer of
``POST /api/ids`` are taken; the same restart on a range with N spare identities
(``range=100-(100+2N-1)``) alternates with it in the same run, round by round.

    python bench/bench_restart.py --serve [--processes 2] [--rounds 5]

docs/process.md ("Restarting: the wait for the old grant") has what this shows.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(url: str, port: int, workers: int) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNOWID_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    argv = [sys.executable, "-m", "snowid", "serve", "--port", str(port)]
    argv += ["--workers", str(workers), "--lease", url, "--drain-seconds", "0"]
    return subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _first_answer(port: int, limit_s: float = 60.0) -> float:
    """Seconds until ``POST /api/ids`` answers 200 (polled every 20 ms)."""
    started = time.monotonic()
    while time.monotonic() - started < limit_s:
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/ids", method="POST")
        try:
            with urllib.request.urlopen(request, timeout=5) as answer:
                if answer.status == 200:
                    return time.monotonic() - started
        except (OSError, urllib.error.HTTPError):
            pass
        time.sleep(0.02)
    raise RuntimeError(f"snowid serve on port {port} did not answer within {limit_s} s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def serve_restart(identities: int, workers: int, hold_s: float) -> float:
    """Seconds from a restarted ``snowid serve --workers N`` to its first answer."""
    with fresh_table() as table:
        url = f"{PG}?table={table}&range=100-{100 + identities - 1}"
        port = _free_port()
        first = _serve(url, port, workers)
        try:
            _first_answer(port)
            deadline = time.monotonic() + hold_s
            while time.monotonic() < deadline:  # every worker draws ids meanwhile
                _first_answer(port)
        finally:
            _stop(first)
        second = _serve(url, port, workers)
        try:
            return _first_answer(port)
        finally:
            _stop(second)


def serve_main(workers: int, rounds: int) -> None:
    sized, spare = workers, 2 * workers
    rows: dict[int, list[float]] = {sized: [], spare: []}
    for r in range(rounds):
        for identities in (sized, spare) if r % 2 == 0 else (spare, sized):
            rows[identities].append(serve_restart(identities, workers, hold_s=2.0))
    print(f"| snowid serve --workers {workers}, range | first answer after restart (s) | median |")
    print("|---|---|---:|")
    for identities, label in ((sized, "sized to the workers"), (spare, f"{workers} spare")):
        shown = ", ".join(f"{s:.2f}" for s in rows[identities])
        print(
            f"| 100-{99 + identities} ({label}) | {shown} | {statistics.median(rows[identities]):.2f} |"
        )
    gap = statistics.median(rows[sized]) - statistics.median(rows[spare])
    print(f"\nmedian difference (sized - spare): {gap:+.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--serve", action="store_true", help="restart snowid serve --workers N")
    args = parser.parse_args()
    n = args.processes
    if args.serve:
        serve_main(n, args.rounds)
        return
    print(f"| identities for {n} processes | first id after (s), each round | median |")
    print("|---|---|---:|")
    for identities, label in ((n, "sized to them"), (n + 1, "one spare"), (2 * n, "twice")):
        rounds = [restart(identities, n, hold_s=2.0 + r) for r in range(args.rounds)]
        flat = [s for one in rounds for s in one]
        shown = "; ".join(", ".join(f"{s:.2f}" for s in one) for one in rounds)
        print(f"| {identities} ({label}) | {shown} | {statistics.median(flat):.2f} |")


if __name__ == "__main__":
    main()
