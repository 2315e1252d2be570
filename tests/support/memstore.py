"""A lease store in memory, with a clock of its own: the store protocol of
``snowid.lease._store.StoreLease`` without a server, for tests that need a store lease's
figures (renewals, the clock offset) fast. One worker (0); ``down`` makes every operation
raise StoreUnreachableError; ``store_has_clock`` False answers renewals without the
store's time, as a store without a clock would."""

from __future__ import annotations

import time

from snowid import Generator
from snowid.errors import StoreUnreachableError
from snowid.lease._store import Claimed, Initialised, Renewed, StoreLease
from snowid.testing import FakeClock
from snowid.web import IdService

__all__ = ["MemoryStoreLease", "memory_store_service", "scraped_metric_names"]


class MemoryStoreLease(StoreLease):
    """Worker 0 leased from a dict; the store's clock is ``store_clock``."""

    def __init__(self, *, clock: FakeClock, store_clock: FakeClock, max_skew: float = 2.0) -> None:
        super().__init__(first=0, last=0, url="memory://test", clock=clock, max_skew=max_skew)
        self.store_clock = store_clock
        self.down = False
        self.store_has_clock = True
        self.record: dict[str, int | str] = {"owner": "", "epoch": 0, "ceiling": 0}

    def _check_up(self) -> None:
        if self.down:
            raise StoreUnreachableError(store=self.url, reason="down for the test")

    def _store_now_ms(self) -> int:
        self._check_up()
        return self.store_clock.time_ms()

    def _store_claim(self, owner: str, caller_ms: int, holder: str) -> Claimed | None:
        del holder
        self._check_up()
        old = int(self.record["ceiling"])
        epoch = int(self.record["epoch"]) + 1
        ceiling = max(old, caller_ms + self.span_ms)
        self.record = {"owner": owner, "epoch": epoch, "ceiling": ceiling}
        return Claimed(0, old, ceiling, epoch, "memory")

    def _store_renew(
        self, worker: int, owner: str, epoch: int, caller_ms: int, acked_ms: int
    ) -> Renewed:
        del worker, acked_ms
        self._check_up()
        if (self.record["owner"], self.record["epoch"]) != (owner, epoch):
            return Renewed("lost")
        old = int(self.record["ceiling"])
        ceiling = max(old, caller_ms + self.span_ms)
        self.record["ceiling"] = ceiling
        store_ms = self.store_clock.time_ms() if self.store_has_clock else None
        return Renewed("ok", old, ceiling, store_ms=store_ms)

    def _store_release(self, worker: int, owner: str, epoch: int) -> None:
        del worker, owner, epoch

    def _store_incarnation(self) -> str | None:
        return "memory"

    def _store_init(self, quarantine_ms: int | None) -> Initialised:
        del quarantine_ms
        return Initialised("memory", created=False)


def memory_store_service(host_ahead_ms: int = 250) -> IdService:
    """An IdService whose generator issues under a MemoryStoreLease, this host's clock
    ``host_ahead_ms`` ahead of the store's (both FakeClocks, started at the real time so
    that the ids' timestamps are plausible)."""
    now = time.time_ns() // 1_000_000

    def build() -> tuple[Generator, MemoryStoreLease]:
        clock = FakeClock(now + host_ahead_ms)
        lease = MemoryStoreLease(clock=clock, store_clock=FakeClock(now))
        return Generator(fence=lease, clock=clock), lease

    return IdService(build)


def scraped_metric_names(text: str) -> set[str]:
    """The metric names a /metrics answer declares (its ``# TYPE`` lines)."""
    return {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}
