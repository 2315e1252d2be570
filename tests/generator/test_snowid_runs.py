"""Issue 28 §3: the SnowIds behind ``snowid.next_id`` come from runs, handed out without a
lock per id; the rules of the core's hot path still hold (none of these tests is timed)."""

from __future__ import annotations

import asyncio
import itertools
import os
import threading
import time

import pytest

from snowid import Generator, SnowId
from snowid.errors import ForkedGeneratorError
from snowid.generate._gencore import MAX_RUN
from snowid.testing import FakeClock
from tests.support.process_wide import run_in_child

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def test_threads_get_unique_increasing_ids_mixed_with_batches() -> None:
    """Four threads, each mixing single SnowIds with batches: every id once, and each
    thread's ids strictly increasing (a batch drops the run taken before it)."""
    generator = Generator(1, 1)
    results: list[list[int]] = [[] for _ in range(4)]
    barrier = threading.Barrier(4)

    def work(slot: int) -> None:
        one = generator._next_snowid
        out = results[slot]
        barrier.wait()
        for round_ in range(40):
            out.extend(int(one()) for _ in range(2_000))
            if round_ % 3 == slot % 3:
                out.extend(generator.next_ids(3))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    everything = [value for ids in results for value in ids]
    assert len(set(everything)) == len(everything) > 4 * 40 * 2_000
    for ids in results:
        assert all(a < b for a, b in itertools.pairwise(ids))


def test_an_id_carries_the_millisecond_the_clock_read_during_the_call() -> None:
    """A run's ids are handed out only while the clock reads its millisecond."""
    generator = Generator(1, 1)
    one = generator._next_snowid
    for round_ in range(30):
        for _ in range(500 if round_ % 2 else 3):
            before = time.time_ns() // 1_000_000
            sid = one()
            after = time.time_ns() // 1_000_000
            assert type(sid) is SnowId
            assert before <= sid.timestamp <= after
        time.sleep(0.002)  # leaves the rest of a run behind


def test_a_caller_taking_one_id_per_millisecond_makes_few_spare_ids() -> None:
    """Runs shrink when left over: one id now and then costs about one SnowId, not a run."""
    generator = Generator(1, 1)
    for _ in range(5_000):  # grow the runs to their longest
        generator._next_snowid()
    issued = generator.stats.issued
    for _ in range(40):
        time.sleep(0.002)
        generator._next_snowid()
    spare = generator.stats.issued - issued - 40
    assert spare <= MAX_RUN + 2 * 40


def test_asyncio_and_batches_stay_above_earlier_snowids() -> None:
    generator = Generator(1, 1)

    async def main() -> list[int]:
        out: list[int] = []
        for _ in range(200):
            out.extend(int(generator._next_snowid()) for _ in range(50))
            out.append(await generator.anext_id())
            out.extend(await generator.anext_ids(2))
        return out

    ids = asyncio.run(main())
    assert all(a < b for a, b in itertools.pairwise(ids))


@needs_fork
def test_a_forked_child_never_hands_out_its_parents_run() -> None:
    generator = Generator(1, 1)
    for _ in range(5_000):
        generator._next_snowid()  # a run is live now

    def child() -> str:
        try:
            generator._next_snowid()
        except ForkedGeneratorError as error:
            return type(error).__name__
        return "issued"

    assert run_in_child(child) == "ForkedGeneratorError"


def test_a_clock_of_ones_own_makes_each_snowid_from_next_id() -> None:
    clock = FakeClock(start_ms=1_700_000_000_000)
    generator = Generator(1, 1, clock=clock)
    ids = [generator._next_snowid() for _ in range(10)]
    assert [sid.sequence for sid in ids] == list(range(10))
    assert all(sid.timestamp == 1_700_000_000_000 for sid in ids)
