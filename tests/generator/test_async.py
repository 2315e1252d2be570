"""The asyncio form: it waits with ``await`` and never blocks the event loop."""

from __future__ import annotations

import asyncio

from snowid import TWITTER, Generator, Grant
from snowid.testing import FakeClock

REVIEW_NOW = 1_700_000_000_000

T = 1_700_000_000_000


class GatedClock(FakeClock):
    """A FakeClock whose ``asleep`` waits until the test opens the gate; ``sleep`` is forbidden."""

    __slots__ = ("asleep_calls", "gate")

    def __init__(self, start_ms: int) -> None:
        super().__init__(start_ms)
        self.gate = asyncio.Event()
        self.asleep_calls = 0

    def sleep(self, seconds: float) -> None:
        raise AssertionError("the asyncio form must not block the loop with a sync sleep")

    async def asleep(self, seconds: float) -> None:
        self.asleep_calls += 1
        await self.gate.wait()
        self.gate.clear()
        self.advance(max(1, round(seconds * 1000)))


def test_anext_id_awaits_at_sequence_exhaustion_while_other_tasks_run() -> None:
    async def scenario() -> None:
        clock = GatedClock(T)
        generator = Generator(1, 1, clock=clock)
        await generator.anext_ids(4096)  # millisecond T is used up
        waiting = asyncio.create_task(generator.anext_id())
        ticks = 0
        for _ in range(5):
            await asyncio.sleep(0)
            ticks += 1
        assert not waiting.done()
        assert clock.asleep_calls == 1
        assert ticks == 5  # the loop kept running other work while the generator waited
        clock.gate.set()
        value = await waiting
        assert TWITTER.decompose(value) == (T + 1, 1, 1, 0)

    asyncio.run(scenario())


def test_anext_ids_spans_milliseconds_with_awaits() -> None:
    async def scenario() -> list[int]:
        clock = FakeClock(T)
        generator = Generator(1, 1, clock=clock)
        ids = await generator.anext_ids(9000)
        assert len(clock.sleeps) == 2
        return ids

    ids = asyncio.run(scenario())
    assert len(ids) == len(set(ids)) == 9000
    assert ids == sorted(ids)
    assert TWITTER.timestamp_of(ids[-1]) == T + 2


def test_async_for_and_anext_id_continue_one_sequence() -> None:
    async def scenario() -> list[int]:
        generator = Generator(1, 1, clock=FakeClock(T))
        ids = [await generator.anext_id()]
        async for value in generator:
            ids.append(value)
            if len(ids) == 10:
                break
        return ids

    ids = asyncio.run(scenario())
    assert [TWITTER.decompose(v).sequence for v in ids] == list(range(10))


class AsyncOnlyFence:
    """A fence whose sync acquire must not be called from the asyncio form."""

    def __init__(self) -> None:
        self.ceiling_ms = -1
        self.async_calls = 0

    def acquire(self, needed_ms: int) -> Grant:
        raise AssertionError("the asyncio form must use aacquire")

    async def aacquire(self, needed_ms: int) -> Grant:
        self.async_calls += 1
        await asyncio.sleep(0)
        self.ceiling_ms = T + 100
        return Grant(7, 8, T, T + 100, epoch=1)


def test_the_asyncio_form_asks_the_fence_with_aacquire() -> None:
    async def scenario() -> tuple[int, list[int]]:
        fence = AsyncOnlyFence()
        generator = Generator(fence=fence, clock=FakeClock(T))
        first = await generator.anext_id()
        rest = await generator.anext_ids(3)
        return fence.async_calls, [first, *rest]

    calls, ids = asyncio.run(scenario())
    assert calls == 1
    assert [TWITTER.decompose(v) for v in ids] == [(T, 7, 8, s) for s in range(4)]


# --- regression tests from the first wave's reviews (each failed before its fix) ---


class SwitchingFence:
    """A fence that grants worker 1 over [REVIEW_NOW, REVIEW_NOW+10]; after ``lose()`` it grants worker 2.

    This is what every lease does when its grant is lost and ``acquire`` claims again:
    ``ceiling_ms`` drops to -1, and the next grant may carry another identity.
    """

    def __init__(self) -> None:
        self.ceiling_ms = -1
        self.grant = Grant(0, 1, REVIEW_NOW, REVIEW_NOW + 10, 1)

    def acquire(self, needed_ms: int) -> Grant:
        del needed_ms
        self.ceiling_ms = self.grant.ceiling_ms
        return self.grant

    async def aacquire(self, needed_ms: int) -> Grant:
        return self.acquire(needed_ms)

    def lose(self) -> None:
        self.ceiling_ms = -1
        self.grant = Grant(0, 2, REVIEW_NOW, REVIEW_NOW + 1000, 1)


# Correctness review, finding 1. asyncio: a grant of a NEW identity is never applied by _agrab (failed before its fix).
def test_async_ids_after_a_reclaim_carry_the_new_identity() -> None:
    clock = FakeClock(REVIEW_NOW)
    fence = SwitchingFence()
    generator = Generator(fence=fence, clock=clock)

    async def two_ids() -> tuple[int, int]:
        first = await generator.anext_id()
        fence.lose()
        clock.advance(20)  # past the first grant's ceiling (REVIEW_NOW + 10)
        return first, await generator.anext_id()

    first, second = asyncio.run(two_ids())
    assert TWITTER.worker_of(first) == 1
    # REVIEW_NOW + 20 lies outside every grant of worker 1: it must be issued under worker 2.
    assert TWITTER.timestamp_of(second) == REVIEW_NOW + 20
    assert TWITTER.worker_of(second) == 2
    assert generator.machine == 2
