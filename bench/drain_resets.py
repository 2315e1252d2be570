"""Connection errors that kept-alive clients behind a balancer see when ``snowid serve`` drains.

Two ``snowid serve`` processes, A and B (file slots in temporary directories,
``--drain-seconds 2``), and a balancer in this process that does what a load balancer's
health check does: it polls A's ``/readyz`` every 0.1 s and sends no *new* connection to A
once it answers 503. ``--clients`` threads each keep one HTTP/1.1 connection (an
``httpx.Client``, whose pool reuses it) and post ``/api/ids?count=50`` back to back; a
client picks a target only when it opens a connection: after an answer that said
``Connection: close`` or after an error. A gets SIGTERM; the clients run until A has exited.
Counted from the signal on: the answers (A's and B's), the answers that said ``Connection:
close``, and every transport error (a reset, a connection closed under a request). With
the balancer taking A out, a client that is told to close moves to B during the drain; one
that keeps its connection to A meets the close of A's socket.

    python bench/drain_resets.py --runs 5 --clients 8

Not a test: the figures depend on timing; the tests that pin ``Connection: close`` are in
tests/web/test_drain.py.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

DRAIN_S = 2


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _serve(state: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNOWID_")}
    argv = [sys.executable, "-m", "snowid", "serve", "--port", str(port)]
    argv += ["--lease", f"file://{state}/slots", "--drain-seconds", str(DRAIN_S)]
    server = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError("snowid serve did not start")
            time.sleep(0.05)
        yield base, server
    finally:
        if server.poll() is None:
            server.kill()
        server.wait(5)


class Balancer:
    """The targets new connections may go to; A leaves when its /readyz says 503."""

    def __init__(self, a: str, b: str) -> None:
        self.a, self.b = a, b
        self.live = [a, b]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._check, daemon=True)
        self.thread.start()

    def _check(self) -> None:
        while not self.stop.is_set() and self.a in self.live:
            try:
                if httpx.get(self.a + "/readyz", timeout=2).status_code != 200:
                    self.live = [self.b]
            except httpx.TransportError:
                self.live = [self.b]
            time.sleep(0.1)

    def pick(self, n: int) -> str:
        live = self.live
        return live[n % len(live)]


_LOCK = threading.Lock()


def _count(seen: Counter[str], what: str) -> None:
    with _LOCK:
        seen[what] += 1


def _client(n: int, balancer: Balancer, stop: threading.Event, seen: Counter[str]) -> None:
    target = balancer.pick(n)
    client = httpx.Client(base_url=target, timeout=10)
    try:
        while not stop.is_set():
            name = "A" if target == balancer.a else "B"
            try:
                answer = client.post("/api/ids?count=50")
                _count(seen, f"{name} http {answer.status_code}")
                moved = answer.headers.get("connection") == "close"
                if moved:
                    _count(seen, f"{name} answers with Connection: close")
            except httpx.ConnectError:
                _count(seen, f"{name} refused")
                moved = True
            except httpx.TransportError as error:
                _count(seen, f"{name} error {type(error).__name__}")
                moved = True
            if moved:  # a new connection: the balancer chooses where it goes
                client.close()
                target = balancer.pick(n)
                client = httpx.Client(base_url=target, timeout=10)
    finally:
        client.close()


def one_run(clients: int) -> Counter[str]:
    with ExitStack() as stack:
        state_a = stack.enter_context(tempfile.TemporaryDirectory())
        state_b = stack.enter_context(tempfile.TemporaryDirectory())
        a, server_a = stack.enter_context(_serve(state_a))
        b, _ = stack.enter_context(_serve(state_b))
        balancer = Balancer(a, b)
        stop, seen = threading.Event(), Counter[str]()
        threads = [
            threading.Thread(target=_client, args=(n, balancer, stop, seen)) for n in range(clients)
        ]
        for thread in threads:
            thread.start()
        time.sleep(1.0)
        with _LOCK:
            seen.clear()  # counted from the signal on
        server_a.send_signal(signal.SIGTERM)
        server_a.wait(DRAIN_S + 20)
        time.sleep(0.5)
        stop.set()
        balancer.stop.set()
        for thread in threads:
            thread.join(15)
        return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()
    import snowid

    print(f"snowid from {Path(snowid.__file__).parent}, {args.clients} kept-alive clients")
    total: Counter[str] = Counter()
    for run in range(1, args.runs + 1):
        seen = one_run(args.clients)
        total += seen
        errors = sum(n for what, n in seen.items() if " error " in what)
        print(f"run {run}: transport errors {errors}: {dict(sorted(seen.items()))}")
    errors = sum(n for what, n in total.items() if " error " in what)
    print(f"all {args.runs} runs: transport errors {errors}: {dict(sorted(total.items()))}")


if __name__ == "__main__":
    main()
