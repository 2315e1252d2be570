"""The forward-jump guard of file slots (docs/leases.md case 3).

The wall clock jumps forward hours, then back: the high-water mark must not follow it
(the slot, and through the host clock-regression check the host, would be locked out
after the correction). Every test uses a FakeClock: ``step`` moves the wall clock
alone (the NTP step), ``advance`` and the generator's waits move both clocks.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from snowid import TWITTER, Generator
from snowid.errors import CeilingReachedError, InvalidLeaseUrlError
from snowid.lease import FileLease, LeaseEvent, open_lease
from snowid.lease._forward import ForwardJumpGuard
from snowid.lease._hwm import HORIZON_MS
from snowid.testing import FakeClock
from tests.support.marks import read_mark

NOW = 1_700_000_000_000
HOUR_MS = 3_600_000
DELTA_MS = HORIZON_MS  # the default write-ahead (and its upper bound)
WAIT_MS = 1000  # the generator's bounded wait at its ceiling


def _lease(state_dir: Path, clock: FakeClock, spec: str = "", **options: object) -> FileLease:
    lease = open_lease(f"file://{state_dir}?range=5-5{spec}", clock=clock, **options)
    assert isinstance(lease, FileLease)
    return lease


def _kinds(lease: FileLease) -> list[str]:
    return [event.kind for event in lease.events if event.kind.startswith("forward_")]


def _warmed_up(tmp_path: Path) -> tuple[FakeClock, FileLease, Generator, list[int]]:
    """A generator that has issued across a few extensions of its ceiling."""
    clock = FakeClock(NOW)
    lease = _lease(tmp_path, clock)
    generator = Generator(fence=lease, clock=clock, max_wait_ms=WAIT_MS)
    ids = []
    for _ in range(5):
        ids.append(generator.next_id())
        clock.advance(700)
    ids.append(generator.next_id())
    return clock, lease, generator, ids


def test_a_2h_forward_jump_stops_at_the_ceiling_and_never_persists_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock, lease, generator, ids = _warmed_up(tmp_path)
    ceiling = lease.ceiling_ms
    assert read_mark(tmp_path, 5) == ceiling
    clock.step(2 * HOUR_MS)  # a bad NTP step
    slept = len(clock.sleeps)
    with caplog.at_level(logging.WARNING, logger="snowid.lease"):
        for _ in range(3):
            with pytest.raises(CeilingReachedError) as caught:
                generator.next_id()
            assert caught.value.ceiling == ceiling
    assert sum(clock.sleeps[slept:]) == pytest.approx(3 * WAIT_MS / 1000)  # bounded waits
    assert lease.ceiling_ms == ceiling
    assert read_mark(tmp_path, 5) <= ceiling + DELTA_MS  # the slot is not poisoned
    assert read_mark(tmp_path, 5) == ceiling
    jumps = [e for e in lease.events if e.kind == "forward_jump"]
    assert len(jumps) == 1
    assert jumps[0].ceiling_ms == ceiling
    assert "7200000 ms ahead" in jumps[0].detail
    warnings = [r for r in caplog.records if "ahead of the boot clock" in r.getMessage()]
    assert len(warnings) == 1  # once per episode, not once per poll
    assert max(TWITTER.timestamp_of(i) for i in ids) <= ceiling
    lease.close()


def test_a_listener_sees_the_jump_before_the_generator_gives_up(tmp_path: Path) -> None:
    clock, lease, generator, _ids = _warmed_up(tmp_path)
    seen: list[LeaseEvent] = []
    lease.listeners.append(seen.append)
    clock.step(2 * HOUR_MS)
    with pytest.raises(CeilingReachedError):
        generator.next_id()
    assert [e.kind for e in seen] == ["forward_jump"]


def test_clock_coming_back_resumes_at_once(tmp_path: Path) -> None:
    clock, lease, generator, ids = _warmed_up(tmp_path)
    ceiling = lease.ceiling_ms
    clock.step(2 * HOUR_MS)
    with pytest.raises(CeilingReachedError):
        generator.next_id()
    clock.step(-2 * HOUR_MS)  # corrected
    slept = len(clock.sleeps)
    for _ in range(20):
        ids.append(generator.next_id())
        clock.advance(150)
    assert clock.sleeps[slept:] == []  # no wait: the mark was never pushed ahead
    assert ids == sorted(set(ids))
    assert _kinds(lease) == ["forward_jump", "forward_clear"]
    mark = read_mark(tmp_path, 5)
    assert mark > ceiling  # extended again, at the corrected time
    assert mark <= clock.time_ms() + DELTA_MS
    assert max(TWITTER.timestamp_of(i) for i in ids) <= mark
    lease.close()


def test_clock_coming_back_while_the_generator_waits_is_no_error(tmp_path: Path) -> None:
    clock, lease, generator, ids = _warmed_up(tmp_path)

    def correct(event: LeaseEvent) -> None:
        if event.kind == "forward_jump":
            clock.step(-2 * HOUR_MS)

    lease.listeners.append(correct)
    clock.step(2 * HOUR_MS)
    value = generator.next_id()  # waits at the ceiling; the clock comes back meanwhile
    assert value > ids[-1]
    assert TWITTER.timestamp_of(value) < NOW + HOUR_MS
    assert read_mark(tmp_path, 5) < NOW + HOUR_MS
    lease.close()


def test_a_jump_that_holds_for_forward_confirm_is_accepted(tmp_path: Path) -> None:
    clock, lease, generator, ids = _warmed_up(tmp_path)
    clock.step(2 * HOUR_MS)
    with pytest.raises(CeilingReachedError):
        generator.next_id()
    clock.advance(20_000)  # not yet confirmed (30 s by default)
    with pytest.raises(CeilingReachedError):
        generator.next_id()
    clock.advance(10_000)
    value = generator.next_id()
    now = clock.time_ms()
    assert now > NOW + 2 * HOUR_MS
    assert now - 5 <= TWITTER.timestamp_of(value) <= now  # ids carry the new time
    assert value > ids[-1]
    assert read_mark(tmp_path, 5) == lease.ceiling_ms <= now + DELTA_MS
    assert _kinds(lease) == ["forward_jump", "forward_accept"]
    for _ in range(10):  # and the new time is the reference from now on
        clock.advance(600)
        generator.next_id()
    assert _kinds(lease) == ["forward_jump", "forward_accept"]
    lease.close()


def test_a_second_jump_within_the_episode_restarts_the_confirmation(tmp_path: Path) -> None:
    clock, lease, generator, _ids = _warmed_up(tmp_path)
    clock.step(2 * HOUR_MS)
    with pytest.raises(CeilingReachedError):
        generator.next_id()
    clock.advance(25_000)
    clock.step(HOUR_MS)  # moved again: 30 s of stability counts from here
    with pytest.raises(CeilingReachedError):
        generator.next_id()
    clock.advance(10_000)  # 35 s since the first step, 11 s since the second
    with pytest.raises(CeilingReachedError):
        generator.next_id()
    assert read_mark(tmp_path, 5) < NOW + HOUR_MS
    clock.advance(20_000)
    generator.next_id()
    assert _kinds(lease) == ["forward_jump", "forward_jump", "forward_accept"]
    assert read_mark(tmp_path, 5) > NOW + 3 * HOUR_MS
    lease.close()


def test_a_restart_after_the_correction_is_not_refused(tmp_path: Path) -> None:
    """Through the host clock-regression check a poisoned mark would refuse the whole host."""
    clock, lease, generator, ids = _warmed_up(tmp_path)
    clock.step(2 * HOUR_MS)
    with pytest.raises(CeilingReachedError):
        generator.next_id()
    lease.close()
    clock.step(-2 * HOUR_MS)
    successor = _lease(tmp_path, clock)
    value = Generator(fence=successor, clock=clock).next_id()
    assert value > ids[-1]
    successor.close()


def test_a_normal_run_never_trips_the_guard(tmp_path: Path) -> None:
    clock = FakeClock(NOW, auto_advance_ms=1)
    lease = _lease(tmp_path, clock)
    generator = Generator(fence=lease, clock=clock, max_wait_ms=WAIT_MS)
    ids = [generator.next_id() for _ in range(20_000)]  # 20 s of fake time, 20 deltas
    clock.advance(HOUR_MS)  # idle for an hour: both clocks moved
    clock.step(3000)  # a step below the 5 s guard is accepted
    ids += [generator.next_id() for _ in range(5000)]
    assert ids == sorted(set(ids))
    assert _kinds(lease) == []
    assert sum(1 for e in lease.events if e.kind == "extend") >= 20
    assert max(TWITTER.timestamp_of(i) for i in ids) <= read_mark(tmp_path, 5)
    lease.close()


def test_slewing_within_1000_ppm_is_not_a_jump() -> None:
    guard = ForwardJumpGuard(guard_ms=5000, confirm_ms=30_000)
    guard.reset(NOW, 0)
    day_ns = 86_400 * 1_000_000_000
    # a day allows 86.4 s of slewing; the lead reported is what is left beyond it
    assert guard.check(NOW + 86_400_000 + 80_000, day_ns) == ("ok", 80_000 - 86_400)
    assert guard.check(NOW + 86_400_000 + 86_400 + 5_000, day_ns) == ("ok", 5_000)
    assert guard.check(NOW + 86_400_000 + 86_400 + 5_001, day_ns) == ("jump", 5_001)


def test_forward_guard_zero_turns_the_guard_off(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    lease = _lease(tmp_path, clock, "&forward_guard=0")
    generator = Generator(fence=lease, clock=clock)
    generator.next_id()
    before = clock.time_ms()  # after the claim, which waited out the horizon
    clock.step(2 * HOUR_MS)
    value = generator.next_id()
    assert TWITTER.timestamp_of(value) == before + 2 * HOUR_MS
    assert read_mark(tmp_path, 5) == before + 2 * HOUR_MS + DELTA_MS
    assert _kinds(lease) == []
    lease.close()


def test_custom_guard_and_confirm(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    lease = _lease(tmp_path, clock, "&forward_guard=1&forward_confirm=2.5")
    generator = Generator(fence=lease, clock=clock, max_wait_ms=100)
    generator.next_id()
    clock.step(1500)  # above a 1 s guard
    with pytest.raises(CeilingReachedError):
        generator.next_id()
    clock.advance(2500)
    generator.next_id()
    assert _kinds(lease) == ["forward_jump", "forward_accept"]
    lease.close()


# --- options ------------------------------------------------------------------


def test_options_parse_with_defaults(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    default = _lease(tmp_path, clock)
    assert (default.forward_guard.guard_ms, default.forward_guard.confirm_ms) == (5000, 30_000)
    url = _lease(tmp_path, clock, "&forward_guard=0.5&forward_confirm=60")
    assert (url.forward_guard.guard_ms, url.forward_guard.confirm_ms) == (500, 60_000)
    keywords = _lease(tmp_path, clock, "&forward_guard=9", forward_guard=2, forward_confirm=0)
    assert (keywords.forward_guard.guard_ms, keywords.forward_guard.confirm_ms) == (2000, 0)
    static = open_lease(f"static://0/5?state_dir={tmp_path}&forward_guard=7", clock=clock)
    assert isinstance(static, FileLease)
    assert static.forward_guard.guard_ms == 7000


@pytest.mark.parametrize("option", ["forward_guard", "forward_confirm"])
@pytest.mark.parametrize("text", ["abc", "-1", "inf", "nan", "1e3", "", "5s"])
def test_bad_option_values_give_the_catalog_error(tmp_path: Path, option: str, text: str) -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(f"file://{tmp_path}?{option}={text}")
    error = caught.value
    assert (error.code, error.reason) == ("invalid_lease_url", "seconds")
    assert error.option == option
    assert f"{option}={text}" in str(error)
    assert "không phải là số giây hợp lệ" in error.message("vi")
