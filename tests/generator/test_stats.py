"""GeneratorStats' two figures for /metrics (issue 20 §3): the largest backward step of the
wall clock seen, and the time spent with the sequence run out. Driven by FakeClock: no
test sleeps, and every figure is exact."""

from __future__ import annotations

import os

import pytest

from snowid import Generator
from snowid.errors import ClockMovedBackwards
from snowid.testing import FakeClock

T = 1_700_000_000_000


def test_the_largest_step_back_is_kept_not_the_last() -> None:
    clock = FakeClock(T)
    generator = Generator(1, 1, clock=clock)
    generator.next_id()
    assert generator.stats.clock_backward_max_ms == 0
    clock.step(-3)  # ridden out (max_backward_ms 5)
    generator.next_id()
    assert generator.stats.clock_backward_max_ms == 3
    clock.advance(10)
    generator.next_id()
    clock.step(-2)  # a smaller step later: the largest stays
    generator.next_id()
    assert generator.stats.clock_backward_max_ms == 3
    assert generator.stats.clock_backward_events == 2


def test_a_step_too_large_to_ride_out_is_measured_too() -> None:
    clock = FakeClock(T)
    generator = Generator(1, 1, clock=clock)
    generator.next_id()
    clock.step(-250)
    with pytest.raises(ClockMovedBackwards):
        generator.next_id()
    assert generator.stats.clock_backward_max_ms == 250


def test_a_clock_that_only_moves_forward_has_no_step_back() -> None:
    clock = FakeClock(T)
    generator = Generator(1, 1, clock=clock)
    for _ in range(5):
        generator.next_ids(100)
        clock.advance(1)
    assert generator.stats.clock_backward_max_ms == 0


def test_sequence_wait_time_is_the_rest_of_each_exhausted_millisecond() -> None:
    clock = FakeClock(T)  # time_ms() reads whole milliseconds: each wait is one whole ms
    generator = Generator(1, 1, clock=clock)
    ids = generator.next_ids(3 * 4096)  # three milliseconds: two waits for the next one
    assert len(set(ids)) == 3 * 4096
    stats = generator.stats
    assert stats.sequence_waits == 2
    assert stats.sequence_wait_ns == 2_000_000
    assert clock.time_ms() == T + 2


def test_no_sequence_wait_time_while_the_sequence_lasts() -> None:
    clock = FakeClock(T)
    generator = Generator(1, 1, clock=clock)
    generator.next_ids(4096)  # exactly one millisecond's worth: nothing waited
    clock.advance(1)
    generator.next_id()
    assert (generator.stats.sequence_waits, generator.stats.sequence_wait_ns) == (0, 0)


def test_the_figures_start_again_in_a_forked_child() -> None:
    clock = FakeClock(T)
    generator = Generator(1, 1, clock=clock)
    generator.next_id()
    clock.step(-4)
    generator.next_ids(4096 * 2)
    parent = generator.stats
    assert parent.clock_backward_max_ms == 4
    assert parent.sequence_wait_ns > 0
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        stats = generator.stats
        os.write(write, f"{stats.clock_backward_max_ms} {stats.sequence_wait_ns}".encode())
        os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert os.read(read, 100).decode() == "0 0"
    os.close(read)
