"""Host slots in one process: claim, high-water mark, clock regression, inode and lock checks.

docs/leases.md cases covered here at unit level: 8 (restart with the clock set back, injected
clock), 10 (slot file unlinked or replaced while held), 11 (lockf regression), 12 (the
same static id twice with a shared state dir), 13 (unsupported file system via a fake
mountinfo), plus fork handling of the lease object.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest

from snowid import TWITTER, Generator
from snowid.errors import (
    CeilingAheadError,
    ForkedGeneratorError,
    LeaseError,
    LeaseLostError,
    NoFreeIdentityError,
    SlotQuarantinedError,
    StaticIdentityInUseError,
    UnsupportedFileSystemError,
)
from snowid.lease import FileLease, lease_status, open_lease
from snowid.lease._hwm import HORIZON_MS, RECORD_SIZE
from snowid.lease.file import slot_path
from snowid.testing import FakeClock

NOW = 1_700_000_000_000


def _lease(
    tmp_path: Path, clock: FakeClock, spec: str = "range=0-3", **options: object
) -> FileLease:
    lease = open_lease(f"file://{tmp_path}?{spec}", clock=clock, **options)
    assert isinstance(lease, FileLease)
    return lease


def test_first_claim_starts_above_now_plus_the_horizon_and_ceiling_is_start_plus_delta(
    tmp_path: Path,
) -> None:
    """Even a slot never used before: a missing file may be one deleted under its holder."""
    clock = FakeClock(NOW)
    with _lease(tmp_path, clock) as lease:
        grant = lease.acquire(NOW)
        assert 0 <= lease.worker <= 3  # type: ignore[operator]
        start = NOW + HORIZON_MS + 1
        assert (grant.start_ms, grant.ceiling_ms, grant.epoch) == (start, start + HORIZON_MS, 1)
        assert clock.time_ms() == start  # the claim waited out the horizon
        assert lease.ceiling_ms == start + HORIZON_MS
        assert lease.state == "held"


def test_extending_persists_before_publishing(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    with _lease(tmp_path, clock) as lease:
        grant = lease.acquire(NOW)
        clock.advance(1500)
        now = clock.time_ms()
        extended = lease.acquire(now)
        assert extended.ceiling_ms == now + HORIZON_MS
        assert (extended.start_ms, extended.epoch) == (grant.start_ms, grant.epoch)
        row = lease_status(f"file://{tmp_path}")[0]
        assert row.ceiling_ms == now + HORIZON_MS
        assert row.held


def test_successor_on_a_slot_starts_above_every_mark_and_the_horizon(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    first = _lease(tmp_path, clock, "range=5-5")
    grant = first.acquire(NOW)
    first.close()
    clock.advance(100)  # a quick restart: the mark is still ahead of the clock
    now = clock.time_ms()
    assert now < grant.ceiling_ms
    with _lease(tmp_path, clock, "range=5-5") as second:
        next_grant = second.acquire(now)
        assert next_grant.start_ms == max(grant.ceiling_ms, now + HORIZON_MS) + 1
        assert next_grant.epoch == grant.epoch + 1


def test_range_exhausted_raises_no_free_identity(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    leases = [_lease(tmp_path, clock, "range=0-1") for _ in range(2)]
    workers = {lease.acquire(NOW).machine for lease in leases}
    assert workers == {0, 1}
    extra = _lease(tmp_path, clock, "range=0-1")
    with pytest.raises(NoFreeIdentityError) as caught:
        extra.acquire(NOW)
    assert (caught.value.first, caught.value.last, caught.value.store) == (0, 1, str(tmp_path))
    leases[0].release()
    assert extra.acquire(NOW).machine in {0, 1}  # a released slot is free at once
    for lease in [*leases, extra]:
        lease.close()


@pytest.mark.parametrize("back_ms", [100, 1000])
def test_restart_with_clock_back_waits(tmp_path: Path, back_ms: int) -> None:
    """Case 8: the successor's clock is 100 ms (within the horizon every claim waits out
    anyway) or 1 s behind the mark: it waits, then starts above it."""
    clock = FakeClock(NOW)
    first = _lease(tmp_path, clock, "range=0-0")
    ceiling = first.acquire(NOW).ceiling_ms
    first.close()
    clock.set(ceiling - back_ms)
    slept = sum(clock.sleeps)
    with _lease(tmp_path, clock, "range=0-0") as second:
        grant = second.acquire(clock.time_ms())
        assert grant.start_ms == max(ceiling, ceiling - back_ms + HORIZON_MS) + 1
        assert grant.start_ms > ceiling
        assert clock.time_ms() >= grant.start_ms
        assert sum(clock.sleeps) - slept >= max(back_ms, HORIZON_MS) / 1000


def test_restart_with_clock_back_1h_is_refused(tmp_path: Path) -> None:
    """Case 8: an hour behind the host's highest mark: the regression check refuses."""
    clock = FakeClock(NOW)
    first = _lease(tmp_path, clock, "range=0-3")
    first.acquire(NOW)
    first.close()
    clock.set(NOW - 3_600_000)
    with _lease(tmp_path, clock, "range=0-3") as second:
        with pytest.raises(CeilingAheadError) as caught:
            second.acquire(clock.time_ms())
        assert caught.value.ahead_ms >= 3_590_000
        assert second.state == "unclaimed"


def test_clock_behind_mark_beyond_max_wait_is_refused(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    first = _lease(tmp_path, clock, "range=0-0")
    ceiling = first.acquire(NOW).ceiling_ms
    first.close()
    clock.set(ceiling - 5000)  # within the regression tolerance, beyond max_wait
    with _lease(tmp_path, clock, "range=0-0&max_wait=1") as second:
        clock.auto_advance_ms = 0
        with pytest.raises(CeilingAheadError):
            # the fake clock's sleep moves both clocks: time passes, but 1 s is not enough
            second.acquire(clock.time_ms())


def test_unlinked_slot_file_stops_issuance(tmp_path: Path) -> None:
    """Case 10: the slot file is removed while held: the next mark write refuses."""
    clock = FakeClock(NOW)
    with _lease(tmp_path, clock, "range=2-2") as lease:
        lease.acquire(NOW)
        os.unlink(slot_path(tmp_path, 2))
        clock.advance(2000)
        with pytest.raises(LeaseLostError):
            lease.acquire(NOW + 2000)
        assert lease.ceiling_ms == -1
        assert lease.state == "lost"


def test_replaced_slot_file_stops_issuance(tmp_path: Path) -> None:
    """Case 10: the slot file is replaced by another inode while held."""
    clock = FakeClock(NOW)
    with _lease(tmp_path, clock, "range=2-2") as lease:
        grant = lease.acquire(NOW)
        path = slot_path(tmp_path, 2)
        path.with_suffix(".new").write_bytes(b"")
        os.replace(path.with_suffix(".new"), path)
        clock.advance(2000)
        with pytest.raises(LeaseLostError):
            lease.acquire(NOW + 2000)
        # Re-claiming the replaced slot still starts above what this process issued.
        again = lease.acquire(NOW + 2000)
        assert again.start_ms > grant.ceiling_ms


def test_other_code_closing_a_slot_fd_keeps_the_lock(tmp_path: Path) -> None:
    """Case 11: lockf would lose the lock here; flock on our own descriptor does not."""
    clock = FakeClock(NOW)
    with _lease(tmp_path, clock, "range=1-1") as lease:
        lease.acquire(NOW)
        path = slot_path(tmp_path, 1)
        fd = os.open(path, os.O_RDONLY)
        os.close(fd)  # other code in the holder opens and closes the slot file
        probe = os.open(path, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(probe)
        with pytest.raises(NoFreeIdentityError):
            _lease(tmp_path, clock, "range=1-1").acquire(NOW)


def test_same_static_id_twice_with_shared_state_dir(tmp_path: Path) -> None:
    """Case 12: a second holder of static://1/2 on this host refuses.

    Changed on purpose (issue 16): the host's guard now refuses it first, with
    StaticIdentityInUseError naming the holder; the slot lock still refuses a claimant
    that the guard cannot see (another network namespace sharing the directory), which
    the one-slot file: lease below stands for.
    """
    clock = FakeClock(NOW)
    first = open_lease(f"static://1/2?state_dir={tmp_path}", clock=clock)
    second = open_lease(f"static://1/2?state_dir={tmp_path}", clock=clock)
    same_slot = open_lease(f"file://{tmp_path}?range=34-34", clock=clock)
    try:
        grant = first.acquire(NOW)
        assert (grant.datacenter, grant.machine) == (1, 2)
        with pytest.raises(StaticIdentityInUseError) as in_use:
            second.acquire(NOW)
        assert (in_use.value.datacenter, in_use.value.machine) == (1, 2)
        assert in_use.value.pid == os.getpid()
        with pytest.raises(NoFreeIdentityError) as caught:
            same_slot.acquire(NOW)
        assert caught.value.first == caught.value.last == 34
    finally:
        first.close()
        second.close()
        same_slot.close()


def test_static_without_state_dir_refuses_in_a_forked_child() -> None:
    lease = open_lease("static://1/2")
    lease.acquire(NOW)
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            lease.acquire(NOW)
        except ForkedGeneratorError:
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert lease.acquire(NOW).machine == 2  # the parent keeps it


def test_unsupported_file_system_is_refused(tmp_path: Path) -> None:
    """Case 13: a state dir on NFS (fake mountinfo) is refused with its type."""
    mountinfo = f"27 1 254:0 / {tmp_path} rw - nfs4 server:/x rw\n"
    lease = open_lease(f"file://{tmp_path}", mountinfo=mountinfo)
    with pytest.raises(UnsupportedFileSystemError) as caught:
        lease.acquire(NOW)
    assert caught.value.fstype == "nfs4"


def test_quarantined_slot_is_skipped_and_reported(tmp_path: Path) -> None:
    """Case 9: both records corrupt: never reused; the only slot left raises SlotQuarantined."""
    clock = FakeClock(NOW)
    first = _lease(tmp_path, clock, "range=0-0")
    first.acquire(NOW)
    clock.advance(1500)
    first.acquire(NOW + 1500)
    first.close()
    path = slot_path(tmp_path, 0)
    fd = os.open(path, os.O_RDWR)
    os.pwrite(fd, b"\x55", 20)
    os.pwrite(fd, b"\x55", RECORD_SIZE + 20)
    os.close(fd)
    with pytest.raises(SlotQuarantinedError):
        _lease(tmp_path, clock, "range=0-0").acquire(clock.time_ms())
    with _lease(tmp_path, clock, "range=0-1") as other:
        assert other.acquire(clock.time_ms()).machine == 1
    rows = lease_status(f"file://{tmp_path}")
    assert [r.holder for r in rows if r.worker == 0] == ["QUARANTINED"]


def test_fork_child_drops_the_inherited_slot_and_claims_its_own(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    lease = _lease(tmp_path, clock, "range=0-1")
    parent_worker = lease.acquire(NOW).machine
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            assert lease.state == "unclaimed"
            assert lease.ceiling_ms == -1
            os.write(write, bytes([lease.acquire(NOW).machine]))
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    child_worker = os.read(read, 1)[0]
    assert {parent_worker, child_worker} == {0, 1}
    # The child's exit released its slot; the parent's lock survived the child closing its copy.
    with pytest.raises(NoFreeIdentityError):
        _lease(tmp_path, clock, f"range={parent_worker}-{parent_worker}").acquire(NOW)
    lease.close()


def test_closed_lease_refuses(tmp_path: Path) -> None:
    lease = _lease(tmp_path, FakeClock(NOW))
    lease.close()
    with pytest.raises(LeaseLostError):
        lease.acquire(NOW)
    assert lease.state == "closed"


# --- regression tests from the first wave's reviews (each failed before its fix) ---


# Adversarial review, finding 2: the file lease's state dir replaced by a file -> HTTP 500 forever (failed before its fix).
def test_state_dir_replaced_by_a_file_while_held_is_a_lease_error(tmp_path: Path) -> None:
    state = tmp_path / "slots"
    clock = FakeClock(NOW)
    lease = open_lease(f"file://{state}?range=2-2", clock=clock)
    assert isinstance(lease, FileLease)
    try:
        lease.acquire(NOW)
        shutil.rmtree(state)
        state.write_text("not a directory")
        clock.advance(2000)
        with pytest.raises(LeaseError) as caught:
            lease.acquire(NOW + 2000)
        assert isinstance(caught.value, LeaseLostError)
        assert lease.state == "lost"
        assert lease.ceiling_ms == -1
    finally:
        lease.close()


# Correctness review, finding 3. a claim that waited for its start makes the generator raise anyway (failed before its fix).
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
