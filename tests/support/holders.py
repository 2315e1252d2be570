"""What several lease tests share: a thread issuing ids on a lease, and the checks on it."""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Iterable

import pytest

from snowid import TWITTER, Generator
from snowid.errors import SnowIdError
from snowid.lease import LeaseEvent
from snowid.lease._store import StoreLease

FAIL_CLOSED_CODES = {"store_unreachable", "ceiling_reached"}
"""The error codes of a holder that stops issuing at its ceiling or deadline (fails closed)."""


RUNNING: weakref.WeakSet[Issuer] = weakref.WeakSet()
"""Every Issuer started (tests/support/leftovers.py halts those a test left running)."""


def worker_ms(ids: Iterable[int]) -> set[tuple[int, int]]:
    """(worker, ms) of every id: the unit two writers must never share."""
    return {(TWITTER.worker_of(value), TWITTER.timestamp_of(value)) for value in ids}


def assert_unique(*streams: list[int]) -> None:
    """No id twice, and no (worker, ms) issued by two of the ``streams`` (two writers)."""
    every = [v for stream in streams for v in stream]
    assert len(every) == len(set(every)), "duplicate ids"
    seen: set[tuple[int, int]] = set()
    for stream in streams:
        mine = worker_ms(stream)
        assert not (mine & seen), "two writers shared a worker millisecond"
        seen |= mine


def wait_until(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {seconds} s waiting for {what}")
        time.sleep(0.01)


class Issuer(threading.Thread):
    """Issues small batches on a lease until halted; keeps batches, errors and events.

    Each batch is kept with the number of events seen when it returned: a ceiling is
    logged before it is published, so the ceilings in that prefix are the ones the
    holder had acknowledged when it issued the batch.
    """

    def __init__(self, lease: StoreLease) -> None:
        super().__init__(name="issuer", daemon=True)
        self.lease = lease
        self.generator = Generator(fence=lease, max_wait_ms=100)
        self.batches: list[tuple[list[int], int, float]] = []
        self.errors: list[tuple[float, str]] = []
        self.events: list[LeaseEvent] = []
        self.last_ok = 0.0
        self.crash: BaseException | None = None
        self.halt = threading.Event()
        lease.listeners.append(self.events.append)

    def start(self) -> None:
        RUNNING.add(self)
        super().start()

    def run(self) -> None:
        try:
            while not self.halt.is_set():
                try:
                    batch = self.generator.next_ids(20)
                except SnowIdError as error:
                    self.errors.append((time.monotonic(), error.code))
                    time.sleep(0.02)
                    continue
                self.last_ok = time.monotonic()
                self.batches.append((batch, len(self.events), self.last_ok))
                time.sleep(0.002)
        except BaseException as error:  # re-raised by finish(), not lost in the thread
            self.crash = error

    def finish(self) -> None:
        self.halt.set()
        self.join(15)
        assert not self.is_alive()
        if self.crash is not None:
            raise self.crash

    @property
    def ids(self) -> list[int]:
        return [v for batch, _, _ in self.batches for v in batch]

    def acked_ceiling(self, worker: int, events: int | None = None) -> int:
        """The highest ceiling acknowledged for ``worker`` within the first ``events``."""
        return max(
            (
                e.ceiling_ms
                for e in self.events[:events]
                if e.worker == worker and e.kind in ("claim", "extend")
            ),
            default=-1,
        )

    def assert_within_acked_ceilings(self) -> None:
        """Every id's timestamp <= the ceiling its holder had acknowledged when issuing it."""
        for batch, seen, _ in self.batches:
            for worker, ms in worker_ms(batch):
                assert ms <= self.acked_ceiling(worker, seen), (worker, ms, seen)
