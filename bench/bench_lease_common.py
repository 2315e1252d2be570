"""What the store columns of ``bench_lease.py`` share (PostgreSQL, Redis, MySQL).

Each store runs on a server the benchmark starts itself (the classes the tests start their
own servers with, tests/support/servers.py), and ``StorePart`` measures every store
the same way; a store's module only says how to start its server, how to write held
identities straight into it, and which counters stand for its writes.

- one renewal: the lease's own ``_renew_now`` on an idle lease (the CAS round trip);
- claim latency when 1, 64, 512 and 1000 of the 1024 identities are held (written
  straight into the store: another owner, expiring far ahead, a ceiling ``span`` ahead as
  a live holder's is); timed: the clock-skew check and the claim's round trip, not the
  wait for the clock to pass the old ceiling (that is ``span``, not the store); each claim
  is released again, untimed;
- 64 claimers at once: 64 leases with their own connections, released by one barrier;
- the store's load from renewals of 1,000 holders at the default TTL (10 s, a renewal
  every 3.33 s: 300 a second), simulated through a shared pool of 8 connections, each
  renewing its share of the 1,000 (owner, epoch) pairs on schedule: renewals/s, the
  store's own write counters per second and the CPU of its processes (/proc).
"""

from __future__ import annotations

import os
import statistics
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from time import perf_counter
from typing import Any

from snowid import Generator
from snowid.lease import init_lease, open_lease
from snowid.lease._store import Claimed

# The store modules import tests.support.servers: run as a script, only bench/ is on
# the path, so the repository root is put there first.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

HELD = (1, 64, 512, 1000)
HOLDERS, POOL, CROWD = 1000, 8, 64
TTL_S = 10.0  # the default
RATE = HOLDERS / (TTL_S / 3)  # renewals due per second


def p99(samples: list[float]) -> float:
    samples = sorted(samples)
    return samples[min(len(samples) - 1, int(len(samples) * 0.99))]


def percentiles(samples: list[float]) -> str:
    median, worst = statistics.median(samples) * 1e3, p99(samples) * 1e3
    return f"median {median:7.3f} ms   p99 {worst:7.3f} ms  (n={len(samples)})"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def cpu_s(pid: int, *, reaped: bool = False) -> float:
    """CPU seconds of process ``pid`` (user + system); with ``reaped``, also those of its
    children that exited and were waited for (how a postmaster's closed backends count)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    ticks = int(fields[11]) + int(fields[12])
    if reaped:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rpartition(")")[2].split()
        except OSError:  # exited meanwhile
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


class StorePart:
    """One store's column: its server, an idle lease for the ``next_id()`` comparison,
    and the measurements of the module docstring. Subclasses fill in the hooks."""

    name = ""  # as printed: "redis"
    renew_what = ""  # what one renewal is, as printed
    process = ""  # whose CPU the load line gives

    def __init__(self) -> None:
        self.server: Any = self.start()
        url = self.url("bench_idle")
        init_lease(url, first_deployment=True)
        self.idle: Any = open_lease(url)

    # --- hooks --------------------------------------------------------------------------

    def start(self) -> Any:
        """Start the store's server (a tests.support.servers.OwnServer)."""
        raise NotImplementedError

    def cpu(self) -> float:
        """CPU seconds used so far by the store's server processes."""
        return cpu_s(self.server.pid)

    def url(self, name: str, query: str = "") -> str:
        """The lease URL of the store's table or key ``name``."""
        raise NotImplementedError

    def hold(self, lease: Any, name: str, held: int) -> None:
        """Mark workers 0..held-1 of ``name`` as held by live others."""
        raise NotImplementedError

    def connect(self, lease: Any) -> None:
        """Open the lease's connection now, so that what follows reuses it."""
        raise NotImplementedError

    def counters(self) -> dict[str, int]:
        """The store's cumulative write counters, by what they count."""
        raise NotImplementedError

    def settle(self) -> None:
        """Wait until closed connections are gone from the server (when it matters)."""

    # The store's part of a claim, a renewal and a release: StoreLease's own methods.

    def check_skew(self, lease: Any) -> None:
        lease._check_skew()

    def claim(self, lease: Any, owner: str) -> Claimed | None:
        claimed: Claimed | None = lease._store_claim(owner, now_ms(), "bench")
        return claimed

    def renew(self, lease: Any, owner: str, held: Claimed) -> bool:
        return bool(lease._store_renew(held.worker, owner, held.epoch, now_ms(), 0).status == "ok")

    def release(self, lease: Any, owner: str, held: Claimed) -> None:
        lease._store_release(held.worker, owner, held.epoch)

    # --- the measurements -----------------------------------------------------------------

    def contenders(self) -> dict[str, Callable[[], int]]:
        """The lease's generator for the next_id() comparison."""
        return {self.name: Generator(fence=self.idle).next_id}

    def run(self, *, quick: bool) -> None:
        if self.server is None:
            return
        try:
            n = 100 if quick else 500
            renewals = []
            for _ in range(n):
                with self.idle._lock:
                    start = perf_counter()
                    self.idle._renew_now()
                    renewals.append(perf_counter() - start)
            self.idle.close()
            self.row(f"renew {self.renew_what}", percentiles(renewals))
            for held in HELD:
                self.row(f"claim, {held:4d}/1024 held", percentiles(self.claims(held, n)))
            times, distinct = self.crowd()
            self.row(
                f"claim, {CROWD} claimers at once", f"{percentiles(times)}  distinct: {distinct}"
            )
            self.load(seconds=3.0 if quick else 10.0)
        finally:
            self.stop()

    def row(self, what: str, figures: str) -> None:
        print(f"  {f'{self.name} {what}':42s} {figures}")

    def stop(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            server.stop()
            server.close()

    def claims(self, held: int, n: int) -> list[float]:
        name = f"bench_{held}"
        url = self.url(name)
        init_lease(url, first_deployment=True)
        lease = open_lease(url)
        self.hold(lease, name, held)
        self.connect(lease)
        times = []
        for _ in range(n):
            owner = str(uuid.uuid4())
            start = perf_counter()
            self.check_skew(lease)
            got = self.claim(lease, owner)
            times.append(perf_counter() - start)
            assert got is not None
            self.release(lease, owner, got)
        lease.close()
        return times

    def crowd(self) -> tuple[list[float], int]:
        url = self.url("bench_crowd")
        init_lease(url, first_deployment=True)
        leases = [open_lease(url) for _ in range(CROWD)]
        for lease in leases:
            self.connect(lease)  # connected before the barrier: the claims are what is timed
        barrier = threading.Barrier(CROWD)
        times: list[float] = []

        def claim(lease: Any) -> None:
            barrier.wait()
            start = perf_counter()
            lease.acquire(0)
            times.append(perf_counter() - start)

        threads = [threading.Thread(target=claim, args=(lease,)) for lease in leases]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        distinct = len({lease.worker for lease in leases})
        for lease in leases:
            lease.close()
        return times, distinct

    def load(self, *, seconds: float) -> None:
        """1,000 holders at the default TTL renew 300 times a second, through 8 connections."""
        url = self.url("bench_load", f"ttl={TTL_S:g}")
        init_lease(url, first_deployment=True)
        claimer = open_lease(url)
        holders = []
        for _ in range(HOLDERS):  # claimed through one connection; owner and epoch kept
            owner = str(uuid.uuid4())
            got = self.claim(claimer, owner)
            assert got is not None
            holders.append((owner, got))
        claimer.close()
        self.settle()
        pool: list[Any] = [open_lease(url) for _ in range(POOL)]
        for lease in pool:
            lease.incarnation = holders[0][1].incarnation
            self.connect(lease)
        before = self.counters()
        cpu_before, start = self.cpu(), time.monotonic()
        done = [0] * POOL

        def renew(i: int) -> None:
            mine, interval = holders[i::POOL], POOL / RATE
            due = time.monotonic()
            while time.monotonic() - start < seconds:
                owner, held = mine[done[i] % len(mine)]
                assert self.renew(pool[i], owner, held)
                done[i] += 1
                due += interval
                time.sleep(max(0.0, due - time.monotonic()))

        threads = [threading.Thread(target=renew, args=(i,)) for i in range(POOL)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - start
        cpu = (self.cpu() - cpu_before) / elapsed
        for lease in pool:
            lease.close()
        self.settle()
        after = self.counters()
        counted = "".join(
            f", {(after[what] - before[what]) / elapsed:6.1f} {what}/s" for what in after
        )
        print(
            f"  {self.name} load, {HOLDERS} holders, ttl {TTL_S:g} s  {sum(done) / elapsed:6.1f}"
            f" renewals/s (due {RATE:.0f}){counted}, {self.process} CPU {cpu * 100:4.1f}%"
            " of one core"
        )
