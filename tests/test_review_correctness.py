"""Regression tests from a correctness review of the generator state machine and the leases.

Each test failed before its fix: two let a generator issue another holder's ids (the
asyncio path kept a lost identity; a grandchild reused its grandparent's grant), one made
a correct wait for a grant's start end in a false ClockMovedBackwards.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from snowid import TWITTER, Generator, Grant
from snowid.errors import SnowIdError
from snowid.lease import FileLease, open_lease
from snowid.testing import FakeClock, FixedCeiling
from tests.lease_support.pg import PG, open_pg, sql

NOW = 1_700_000_000_000


class SwitchingFence:
    """A fence that grants worker 1 over [NOW, NOW+10]; after ``lose()`` it grants worker 2.

    This is what every lease does when its grant is lost and ``acquire`` claims again:
    ``ceiling_ms`` drops to -1, and the next grant may carry another identity.
    """

    def __init__(self) -> None:
        self.ceiling_ms = -1
        self.grant = Grant(0, 1, NOW, NOW + 10, 1)

    def acquire(self, needed_ms: int) -> Grant:
        del needed_ms
        self.ceiling_ms = self.grant.ceiling_ms
        return self.grant

    async def aacquire(self, needed_ms: int) -> Grant:
        return self.acquire(needed_ms)

    def lose(self) -> None:
        self.ceiling_ms = -1
        self.grant = Grant(0, 2, NOW, NOW + 1000, 1)


# --- 1. asyncio: a grant of a NEW identity is never applied by _agrab ----------------


def test_async_ids_after_a_reclaim_carry_the_new_identity() -> None:
    clock = FakeClock(NOW)
    fence = SwitchingFence()
    generator = Generator(fence=fence, clock=clock)

    async def two_ids() -> tuple[int, int]:
        first = await generator.anext_id()
        fence.lose()
        clock.advance(20)  # past the first grant's ceiling (NOW + 10)
        return first, await generator.anext_id()

    first, second = asyncio.run(two_ids())
    assert TWITTER.worker_of(first) == 1
    # NOW + 20 lies outside every grant of worker 1: it must be issued under worker 2.
    assert TWITTER.timestamp_of(second) == NOW + 20
    assert TWITTER.worker_of(second) == 2
    assert generator.machine == 2


@pytest.mark.postgres
@pytest.mark.timeout(60)
def test_async_holder_that_lost_its_pg_worker_never_duplicates_the_successor(
    table: str,
) -> None:
    clock = FakeClock(time.time_ns() // 1_000_000)  # near the store's clock (skew check)
    url = f"{PG}?table={table}&ttl=5&span=1"
    holder = open_pg(f"{url}&range=0-1", clock=clock)
    successor = None
    try:
        generator = Generator(fence=holder, clock=clock)
        asyncio.run(generator.anext_id())
        worker = holder.worker
        assert worker is not None
        old_ceiling = holder.ceiling_ms
        # The holder pauses longer than its TTL (GC, SIGSTOP): its row expires ...
        sql(
            f"UPDATE {table} SET expires_at = clock_timestamp() - interval '1 second'"
            " WHERE worker = %s",
            (worker,),
        )
        clock.advance(1500)  # ... and time passes its ceiling.
        # A successor claims the worker; its grant starts above the holder's ceiling.
        successor = open_pg(f"{url}&range={worker}-{worker}", clock=clock)
        theirs = Generator(fence=successor, clock=clock).next_id()
        assert successor.grant is not None
        assert successor.grant.start_ms > old_ceiling
        # The holder resumes: its renewal fails, it claims the other worker, issues.
        ours = asyncio.run(generator.anext_ids(1))[0]
        assert holder.worker != worker
        assert TWITTER.worker_of(ours) == holder.worker
        assert ours != theirs
    finally:
        holder.close()
        if successor is not None:
            successor.close()


# --- 2. fork twice: the grandchild reuses the grandparent's FixedCeiling grant -------


def _in_grandchild(generator: Generator) -> str:
    """Fork, fork again, and draw one id in the grandchild: the id or the error code."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - reports through the pipe
        try:
            grandchild = os.fork()
            if grandchild == 0:
                try:
                    message = str(generator.next_id())
                except SnowIdError as error:
                    message = type(error).__name__
                except BaseException as error:
                    message = f"unexpected {error!r}"
                os.write(write_end, message.encode())
                os._exit(0)
            os.waitpid(grandchild, 0)
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(pid, 0)
    try:
        return os.read(read_end, 200).decode()
    finally:
        os.close(read_end)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_grandchild_never_reissues_the_grandparents_fixed_ceiling_ids() -> None:
    clock = FakeClock(NOW)
    generator = Generator(fence=FixedCeiling(NOW + 100, start_ms=NOW), clock=clock)
    parents = generator.next_id()
    result = _in_grandchild(generator)
    assert result != str(parents)
    assert result == "ForkedGeneratorError"


# --- 3. a claim that waited for its start makes the generator raise anyway -----------


def test_reclaim_of_the_same_file_slot_after_release_issues_without_error(
    tmp_path: Path,
) -> None:
    clock = FakeClock(NOW)
    url = f"file://{tmp_path}?range=3-3&max_wait=10"
    lease = open_lease(url, clock=clock)
    assert isinstance(lease, FileLease)
    generator = Generator(fence=lease, clock=clock)  # max_wait_ms 1000
    try:
        first = generator.next_id()
        lease.release()
        # The write-ahead is at most 0.25 s, so for a wait longer than the generator's
        # 1 s the mark comes from a holder whose clock ran 5 s ahead of this one.
        # the URL itself: lease.url is only its display form (no options)
        ahead = open_lease(url, clock=FakeClock(clock.time_ms() + 5000))
        ahead.acquire(0)
        mark = ahead.ceiling_ms
        ahead.close()
        clock.advance(1)  # out of the current millisecond, so the next id needs a grant
        # The re-claim starts above the mark: the lease waits for the clock to reach
        # it (max_wait 10 s), then hands the grant over.
        waited_from = clock.time_ms()
        second = generator.next_id()
        assert clock.time_ms() - waited_from > 4000  # the claim waited for its start
        assert second > first
        assert TWITTER.timestamp_of(second) > mark
    finally:
        lease.close()


@pytest.mark.postgres
@pytest.mark.timeout(60)
def test_restart_on_a_released_pg_worker_issues_without_error(table: str) -> None:
    url = f"{PG}?table={table}&range=5-5&ttl=1.5&span=1.5"
    first = open_pg(url)
    try:
        before = Generator(fence=first).next_id()
    finally:
        first.close()  # released: expires now, its ceiling (about now + 1.5 s) stays
    second = open_pg(url)
    try:
        after = Generator(fence=second).next_id()  # the lease waits ~1.5 s for its start
        assert after > before
    finally:
        second.close()
