"""The generator bounded by a real lease fence (docs/leases.md cases 1, 2 and 4 with a lease).

The bare generator is tested in test_generator*.py; here the fence is a FileLease whose
ceiling is a persisted high-water mark, kept small so the generator meets it often.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from pathlib import Path

import pytest

from snowid import TWITTER, Generator
from snowid.errors import ClockMovedBackwards
from snowid.lease import FileLease, open_lease
from snowid.lease._hwm import HORIZON_MS
from snowid.testing import FakeClock
from tests.support.marks import read_mark

NOW = 1_700_000_000_000


def test_4096_ids_in_one_ms_wait_for_the_next_and_never_pass_the_ceiling(tmp_path: Path) -> None:
    """Case 1: the 4097th id of a millisecond waits; no id is above the persisted mark."""
    clock = FakeClock(NOW)
    lease = open_lease(f"file://{tmp_path}?range=7-7&delta=0.002", clock=clock)
    generator = Generator(fence=lease, clock=clock)
    ids = []
    for _ in range(3 * 4096 + 5):
        value = generator.next_id()
        assert TWITTER.timestamp_of(value) <= lease.ceiling_ms
        ids.append(value)
    assert ids == sorted(set(ids))
    stamps = [TWITTER.timestamp_of(v) for v in ids]
    start = NOW + HORIZON_MS + 1  # every claim starts above now + the write-ahead horizon
    assert stamps[0] == stamps[4095] == start
    assert stamps[4096] == start + 1  # the fake clock was made to pass by the generator's wait
    assert max(stamps) <= read_mark(tmp_path, 7)
    assert generator.stats.sequence_waits >= 3
    lease.close()


def test_ceiling_is_written_ahead_as_time_passes(tmp_path: Path) -> None:
    clock = FakeClock(NOW, auto_advance_ms=1)
    lease = open_lease(f"file://{tmp_path}?range=3-3&delta=0.005", clock=clock)
    generator = Generator(fence=lease, clock=clock)
    marks = set()
    for _ in range(2000):
        value = generator.next_id()
        mark = read_mark(tmp_path, 3)
        assert TWITTER.timestamp_of(value) <= mark
        marks.add(mark)
    assert len(marks) > 10  # the mark was raised many times, always ahead of use
    lease.close()


def test_clock_steps_back_with_a_lease(tmp_path: Path) -> None:
    """Case 2: back 2 ms is ridden out; back 10 s raises; nothing <= the last id is issued."""
    clock = FakeClock(NOW)
    lease = open_lease(f"file://{tmp_path}?range=0-0&delta=0.05", clock=clock)
    generator = Generator(fence=lease, clock=clock, max_backward_ms=5)
    clock.advance(10)
    last = generator.next_id()
    clock.step(-2)
    for _ in range(10_000):
        value = generator.next_id()
        assert value > last
        last = value
    clock.step(-10_000)
    with pytest.raises(ClockMovedBackwards):
        generator.next_id()
    clock.step(10_000 + 100)
    after = generator.next_id()
    assert after > last
    assert TWITTER.timestamp_of(after) <= lease.ceiling_ms
    lease.close()


def test_16_threads_50k_each_through_a_lease(tmp_path: Path) -> None:
    """Case 4: 800k ids from 16 threads, fence re-extended often: unique, increasing per thread."""
    lease = open_lease(f"file://{tmp_path}?range=0-1023&delta=0.01")
    generator = Generator(fence=lease)
    results: list[list[int]] = [[] for _ in range(16)]
    barrier = threading.Barrier(16)

    def run(out: list[int]) -> None:
        barrier.wait()
        next_id = generator.next_id
        out.extend(next_id() for _ in range(50_000))

    threads = [threading.Thread(target=run, args=(out,)) for out in results]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for out in results:
        assert len(out) == 50_000
        assert all(a < b for a, b in itertools.pairwise(out))
    every = [v for out in results for v in out]
    assert len(set(every)) == 800_000
    assert isinstance(lease, FileLease)
    worker = lease.worker
    assert worker is not None
    assert max(TWITTER.timestamp_of(v) for v in every) <= read_mark(tmp_path, worker)
    assert sum(e.kind == "extend" for e in lease.events) > 1
    lease.close()


def test_asyncio_generator_with_a_lease(tmp_path: Path) -> None:
    lease = open_lease(f"file://{tmp_path}?range=0-1&delta=0.01")
    generator = Generator(fence=lease)

    async def run() -> list[int]:
        return [await generator.anext_id() for _ in range(5000)] + await generator.anext_ids(5000)

    ids = asyncio.run(run())
    assert ids == sorted(set(ids))
    assert len(ids) == 10_000
    lease.close()
