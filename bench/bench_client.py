"""snowid.client benchmark: ids per second through one client process, and the time to the
first id, against a local ``snowid serve``.

The server is one worker with a fixed identity (``--lease static://1/1``); with ``--pin`` it
runs on CPU 0 and this process, the client (its caller thread and its refill thread), on
CPU 1. Unpinned by default: on a shared machine a pinned side waits behind whatever else
runs on its CPU. Each round:

1. time to first id: a new ``Client`` (a new TCP connection) until its first ``next_id()``
   returns, ``--firsts`` times; the round's median;
2. ``Client(batch=4096)``: ``next_id()`` called one id at a time for ``--duration`` s from
   one thread, ids per second (the refill thread fetches the next batch meanwhile);
3. the same with ``AsyncClient`` (``await next_id()``).

The figures are the medians over ``--rounds``, with the spread; the ratio is to the
layout's physical limit for one worker identity, 4,096 ids per ms = 4,096,000 ids/s.

Usage::

    python bench/bench_client.py [--duration 3] [--rounds 5] [--firsts 21] [--pin]
    python bench/bench_client.py --quick     # 1 s runs, one round: does it work?

Target (issue 20 §5): >= 1M ids/s with batches of 4,096.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time

from snowid.client import AsyncClient, Client

HOST = "127.0.0.1"
BATCH = 4096
LIMIT = 4_096_000
TARGET = 1_000_000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(port: int, pin: bool = False) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "snowid", "serve", "--host", HOST, "--port", str(port)]
    command += ["--lease", "static://1/1", "--max-count", str(BATCH)]
    if pin:
        command = ["taskset", "-c", "0", *command]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return server
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise RuntimeError(f"snowid serve did not start: {server.stderr}") from None
            time.sleep(0.05)


def first_id_ms(url: str, times: int) -> float:
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        with Client(url, batch=BATCH) as client:
            client.next_id()
            samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def sync_rate(url: str, duration: float, max_age_ms: int | None = None) -> float:
    with Client(url, batch=BATCH, max_age_ms=max_age_ms) as client:
        take = client.next_id
        for _ in range(2 * BATCH):  # warm: the connection is up, the refill has started
            take()
        count = 0
        started = time.perf_counter()
        deadline = started + duration
        while True:
            for _ in range(BATCH):
                take()
            count += BATCH
            now = time.perf_counter()
            if now >= deadline:
                return count / (now - started)


def async_rate(url: str, duration: float) -> float:
    async def run() -> float:
        async with AsyncClient(url, batch=BATCH) as client:
            take = client.next_id
            for _ in range(2 * BATCH):
                await take()
            count = 0
            started = time.perf_counter()
            deadline = started + duration
            while True:
                for _ in range(BATCH):
                    await take()
                count += BATCH
                now = time.perf_counter()
                if now >= deadline:
                    return count / (now - started)

    return asyncio.run(run())


def spread(values: list[float]) -> str:
    return f"[{min(values):,.0f}-{max(values):,.0f}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--firsts", type=int, default=21)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--pin", action="store_true", help="server on CPU 0, client on CPU 1")
    parser.add_argument(
        "--max-age-ms",
        type=int,
        default=None,
        help="also Client(max_age_ms=N): time-bounded batches (issue 28)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.duration, args.rounds, args.firsts = 1.0, 1, 5
    if args.pin:
        os.sched_setaffinity(0, {1})
    port = free_port()
    server = start_server(port, args.pin)
    url = f"http://{HOST}:{port}"
    firsts: list[float] = []
    rates: list[float] = []
    async_rates: list[float] = []
    aged: list[float] = []
    try:
        for _ in range(args.rounds):
            firsts.append(first_id_ms(url, args.firsts))
            rates.append(sync_rate(url, args.duration))
            async_rates.append(async_rate(url, args.duration))
            if args.max_age_ms is not None:
                aged.append(sync_rate(url, args.duration, args.max_age_ms))
    finally:
        server.terminate()
        server.wait(20)
    first, rate, arate = (statistics.median(v) for v in (firsts, rates, async_rates))
    pinned = "pinned" if args.pin else "unpinned"
    print(f"snowid serve (1 worker, static://1/1, {pinned}); batch {BATCH}; rounds {args.rounds}")
    print(
        f"time to first id (new Client): median {first:.2f} ms  [{min(firsts):.2f}-{max(firsts):.2f}]"
    )
    rows = [("Client", rate, rates), ("AsyncClient", arate, async_rates)]
    if aged:
        rows.append((f"Client(max_age_ms={args.max_age_ms})", statistics.median(aged), aged))
    for name, value, values in rows:
        verdict = "met" if value >= TARGET else "NOT met"
        print(
            f"{name:12} {value:>12,.0f} ids/s {spread(values)} = {value / LIMIT:.1%} of"
            f" {LIMIT:,}; target >= {TARGET:,}: {verdict}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
