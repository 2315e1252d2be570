"""A slot file tampered with while held never lets two processes issue the same id
(issue 8 item 2; docs/leases.md case 10), and what is not a slot file is never used.

The black-box tests run ``snowid generate`` as the issue's repro does: process A holds the
only slot of its range and streams ids; the slot file is deleted, replaced by an older
copy of itself, or overwritten in place with that copy; then process B claims the slot.
A notices only at its next mark write, so until then both may issue: B must start above
everything A can still issue. Each run checks that no id is in both outputs and that
B's first millisecond is above A's last (so no (worker, millisecond) pair has two
writers). Against the code before the fix these runs found 10^5 duplicates and more.
"""

from __future__ import annotations

import bisect
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from snowid.errors import (
    InvalidLeaseUrlError,
    LeaseLostError,
    NoFreeIdentityError,
    OutOfRangeError,
    SlotEntryError,
)
from snowid.ids._layout import TWITTER
from snowid.lease import FileLease, lease_status, open_lease
from snowid.lease._hwm import HORIZON_MS
from snowid.lease.file import slot_path
from snowid.testing import FakeClock

pytestmark = pytest.mark.timeout(120)

NOW = 1_700_000_000_000
ROOT = Path(__file__).resolve().parents[2]
SNOWID = (sys.executable, "-m", "snowid")
LONG = 10_000_000  # the most one `snowid generate` issues: the first process never gets there
LINE = 20  # every id of this century has 19 digits: a line of `snowid generate` is 20 bytes


# --- helpers: run `snowid generate`, read what it wrote ------------------------------


def _generate(url: str, out: Path, count: int) -> subprocess.Popen[bytes]:
    with out.open("wb") as sink:
        return subprocess.Popen(
            [*SNOWID, "--lang", "en", "generate", "--count", str(count), "--lease", url],
            stdout=sink,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )


def _finish(proc: subprocess.Popen[bytes], timeout: float = 60) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return proc.returncode, err.decode()


def _wait_for_output(out: Path, proc: subprocess.Popen[bytes], size: int = 65_536 * LINE) -> None:
    """Until ``proc`` has written ``size`` bytes of ids (it holds the slot and issues)."""
    deadline = time.monotonic() + 30
    while not out.exists() or out.stat().st_size < size:
        assert proc.poll() is None, _finish(proc)
        assert time.monotonic() < deadline, "the first process issued nothing"
        time.sleep(0.01)


def _right_after_a_mark_write(slot: Path) -> None:
    """Until the holder writes its next mark: then it holds a full write-ahead of ceiling
    (1 s before the fix), the widest window for a second process to overlap it."""
    before = slot.read_bytes()[:128]
    deadline = time.monotonic() + 10
    while slot.read_bytes()[:128] == before:
        assert time.monotonic() < deadline, "the holder wrote no mark"
        time.sleep(0.0005)


class Ids:
    """The increasing ids one run wrote, indexed without parsing millions of lines."""

    def __init__(self, path: Path) -> None:
        data = path.read_bytes()
        self.data = data[: len(data) - len(data) % LINE]  # a last line cut short by a kill
        self.count = len(self.data) // LINE
        assert self.data[LINE - 1 :: LINE] == b"\n" * self.count, "not 19-digit lines"

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: int) -> int:
        index %= self.count
        return int(self.data[index * LINE : index * LINE + LINE - 1])

    def between(self, low: int, high: int) -> list[int]:
        """The ids in ``low..high`` (a binary search: the ids increase)."""
        first = bisect.bisect_left(range(self.count), low, key=self.__getitem__)
        last = bisect.bisect_right(range(self.count), high, key=self.__getitem__)
        return [self[i] for i in range(first, last)]


def _duplicates(a: Ids, b: Ids) -> int:
    """How many ids are in both runs (only the overlap of their ranges can hold any)."""
    return len(set(a.between(b[0], b[-1])) & set(b.between(a[0], a[-1])))


def _check_disjoint(a: Ids, b: Ids) -> None:
    assert len(a) > 0
    assert len(b) > 0
    assert _duplicates(a, b) == 0
    assert {TWITTER.worker_of(a[0]), TWITTER.worker_of(b[-1])} == {0}
    # Stronger: B starts above every millisecond A issued in, not just other sequences.
    assert TWITTER.timestamp_of(b[0]) > TWITTER.timestamp_of(a[-1])


# --- the two scenarios, black-box ----------------------------------------------


def test_slot_file_deleted_while_held_gives_no_duplicate(tmp_path: Path) -> None:
    """rm of the held slot file, then a second process on the same one-slot range."""
    state = tmp_path / "state"
    url = f"file://{state}?range=0-0"
    first = _generate(url, tmp_path / "A", LONG)
    _wait_for_output(tmp_path / "A", first)
    _right_after_a_mark_write(slot_path(state, 0))
    os.unlink(slot_path(state, 0))
    second = _generate(url, tmp_path / "B", 1_000_000)
    assert _finish(second) == (0, "")
    code, err = _finish(first)
    assert code == 1  # stopped at its next mark write, never reaching its count
    assert "removed or replaced while held" in err
    _check_disjoint(Ids(tmp_path / "A"), Ids(tmp_path / "B"))


def test_slot_file_replaced_by_an_older_copy_while_held_gives_no_duplicate(
    tmp_path: Path,
) -> None:
    """A backup restored over the held slot file (a new file with an older, lower mark)."""
    state = tmp_path / "state"
    url = f"file://{state}?range=0-0"
    first = _generate(url, tmp_path / "A", LONG)
    _wait_for_output(tmp_path / "A", first)
    slot = slot_path(state, 0)
    shutil.copyfile(slot, tmp_path / "backup")
    time.sleep(1.2)  # the holder's mark moves on, past what the copy says
    shutil.copyfile(tmp_path / "backup", state / "restore")
    _right_after_a_mark_write(slot)
    os.replace(state / "restore", slot)
    second = _generate(url, tmp_path / "B", 1_000_000)
    assert _finish(second) == (0, "")
    code, err = _finish(first)
    assert code == 1
    assert "removed or replaced while held" in err
    _check_disjoint(Ids(tmp_path / "A"), Ids(tmp_path / "B"))


def test_older_copy_written_over_the_held_file_in_place_gives_no_duplicate(
    tmp_path: Path,
) -> None:
    """`cp backup slot-0000` keeps the inode: the lock stays with its holder, so a second
    process is refused; once the holder is killed, the successor starts above it although
    the file's mark is older than the holder's last."""
    state = tmp_path / "state"
    url = f"file://{state}?range=0-0"
    first = _generate(url, tmp_path / "A", LONG)
    _wait_for_output(tmp_path / "A", first)
    slot = slot_path(state, 0)
    backup = slot.read_bytes()
    time.sleep(0.6)
    with slot.open("r+b") as file:  # as cp does: truncate and write, same inode
        file.truncate(0)
        file.write(backup)
    refused = _generate(url, tmp_path / "refused", 1000)
    code, err = _finish(refused)
    assert (code, (tmp_path / "refused").read_bytes()) == (1, b"")
    assert "all are held" in err
    first.send_signal(signal.SIGKILL)
    _finish(first)
    second = _generate(url, tmp_path / "B", 300_000)
    assert _finish(second) == (0, "")
    _check_disjoint(Ids(tmp_path / "A"), Ids(tmp_path / "B"))


# --- the holder's order: clock, write, path check, and only then the new ceiling --------


class _PausingClock(FakeClock):
    """A FakeClock that runs ``pause`` once, at the next reading, before taking it: the
    holder is descheduled there while another process acts."""

    __slots__ = ("pause",)

    def __init__(self, start_ms: int) -> None:
        super().__init__(start_ms)
        self.pause: list[object] = []

    def time_ms(self) -> int:
        if self.pause:
            action = self.pause.pop()  # from the end: the first listed runs last
            assert callable(action)
            action()
        return super().time_ms()


def test_holder_paused_during_an_extension_never_uses_a_ceiling_a_claimant_is_above(
    tmp_path: Path,
) -> None:
    """The slot file is replaced and claimed while the holder is paused inside an
    extension, before it reads its clock; it resumes 100 ms later. Checking the path
    before that reading (as the code once did) would publish a ceiling above the new
    claimant's start; checking it after the write refuses."""
    clock = _PausingClock(NOW)
    holder = open_lease(f"file://{tmp_path}?range=0-0", clock=clock)
    holder.acquire(clock.time_ms())
    claimed: list[int] = []

    def replace_and_claim() -> None:
        path = slot_path(tmp_path, 0)
        shutil.copyfile(path, tmp_path / "copy")
        os.replace(tmp_path / "copy", path)
        claimant = open_lease(f"file://{tmp_path}?range=0-0", clock=clock)
        claimed.append(claimant.acquire(clock.time_ms()).start_ms)
        clock.advance(100)  # the holder stays descheduled a little longer

    clock.advance(HORIZON_MS + 1)  # past the holder's ceiling: the next id needs a new mark
    needed = clock.time_ms()
    clock.pause.append(replace_and_claim)
    with pytest.raises(LeaseLostError):
        holder.acquire(needed)
    assert holder.ceiling_ms == -1
    assert max(e.ceiling_ms for e in holder.events) < claimed[0]
    holder.close()


def test_claimant_whose_file_is_replaced_during_its_claim_does_not_get_the_slot(
    tmp_path: Path,
) -> None:
    """A claimant has locked the slot file and is paused before reading its clock; the
    file is replaced and a third process claims the new one. The first must not end up
    holding the same worker on the file that is no longer at the path: its claim checks
    the path again after writing its first mark."""
    clock = _PausingClock(NOW)
    url = f"file://{tmp_path}?range=0-0"
    third: list[FileLease] = []

    def replace_and_claim() -> None:
        path = slot_path(tmp_path, 0)
        shutil.copyfile(path, tmp_path / "copy")
        os.replace(tmp_path / "copy", path)
        lease = open_lease(url, clock=clock)
        assert isinstance(lease, FileLease)
        lease.acquire(NOW)
        third.append(lease)

    claimant = open_lease(url, clock=clock)
    # The claim reads the clock once for the host regression check and once to order
    # the slots; the third reading is the one taken after the file is locked.
    clock.pause[:] = [replace_and_claim, lambda: None, lambda: None]
    with pytest.raises(NoFreeIdentityError):
        claimant.acquire(NOW)
    assert claimant.state == "unclaimed"
    assert third[0].state == "held"
    third[0].close()
    claimant.close()


# --- the horizon is one number: no lease can write further ahead than a claim waits ------


def test_delta_above_the_horizon_is_refused_in_the_url(tmp_path: Path) -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(f"file://{tmp_path}?delta=1")
    assert caught.value.reason == "range"
    assert "delta=1 is out of range 0.001..0.25" in str(caught.value)
    assert "delta=1 nằm ngoài phạm vi cho phép 0.001..0.25" in caught.value.message("vi")
    assert open_lease(f"file://{tmp_path}?delta=0.25").delta_ms == HORIZON_MS  # type: ignore[attr-defined]


def test_delta_above_the_horizon_is_refused_by_the_constructor(tmp_path: Path) -> None:
    with pytest.raises(OutOfRangeError) as caught:
        FileLease(tmp_path, delta_ms=HORIZON_MS + 1)
    assert (caught.value.field, caught.value.value) == ("delta_ms", HORIZON_MS + 1)
    assert f"1..{HORIZON_MS}" in str(caught.value)


# --- what is not a slot file sits at a slot path: named, never used -------------------


def _claim(state: Path, spec: str = "range=0-0") -> FileLease:
    lease = open_lease(f"file://{state}?{spec}")
    assert isinstance(lease, FileLease)
    lease.acquire(0)
    return lease


def _refusal(state: Path) -> SlotEntryError:
    with pytest.raises(SlotEntryError) as caught:
        _claim(state).close()
    assert caught.value.path == str(slot_path(state, 0))
    return caught.value


def test_symlinked_slot_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_bytes(b"precious")
    state = tmp_path / "state"
    state.mkdir()
    slot_path(state, 0).symlink_to(target)
    error = _refusal(state)
    assert error.kind == "symlink"
    assert str(error).startswith(f"{slot_path(state, 0)} is a symbolic link")
    assert "liên kết tượng trưng" in error.message("vi")
    assert target.read_bytes() == b"precious"


def test_dangling_symlinked_slot_is_refused_and_nothing_created(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    slot_path(state, 0).symlink_to(tmp_path / "elsewhere")
    assert _refusal(state).kind == "symlink"
    assert not (tmp_path / "elsewhere").exists()


def test_directory_at_a_slot_path_is_named(tmp_path: Path) -> None:
    state = tmp_path / "state"
    slot_path(state, 0).mkdir(parents=True)
    error = _refusal(state)
    assert error.kind == "directory"
    assert error.code == "slot_entry"
    assert str(error) == (
        f"{slot_path(state, 0)} is a directory where a slot file should be: move it out of"
        " the state directory"
    )
    assert "là một thư mục" in error.message("vi")


def test_fifo_and_socket_at_a_slot_path_are_named_without_hanging(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    os.mkfifo(slot_path(state, 0))
    assert _refusal(state).kind == "special"
    assert lease_status(f"file://{state}") == []  # listed without blocking on the FIFO
    os.unlink(slot_path(state, 0))
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(slot_path(state, 0)))
        assert _refusal(state).kind == "special"


def test_foreign_file_at_a_slot_path_is_named_and_never_written(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    slot_path(state, 0).write_bytes(b"notes of the operator\n" * 10)
    error = _refusal(state)
    assert error.kind == "foreign"
    assert "is not a snowid slot file" in str(error)
    assert slot_path(state, 0).read_bytes() == b"notes of the operator\n" * 10


def test_a_bad_entry_is_skipped_when_another_slot_is_free(tmp_path: Path) -> None:
    state = tmp_path / "state"
    slot_path(state, 0).mkdir(parents=True)
    with _claim(state, "range=0-1") as lease:
        assert lease.worker == 1


def test_cli_names_the_symlink_in_english_and_vietnamese(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    slot_path(state, 0).symlink_to(tmp_path / "elsewhere")
    url = f"file://{state}?range=0-0"
    for lang, words in (("en", "is a symbolic link"), ("vi", "là một liên kết tượng trưng")):
        run = subprocess.run(
            [*SNOWID, "--lang", lang, "generate", "--count", "1", "--lease", url],
            check=False,
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
        assert (run.returncode, run.stdout) == (1, "")
        assert str(slot_path(state, 0)) in run.stderr
        assert words in run.stderr
        assert "Traceback" not in run.stderr
    assert not (tmp_path / "elsewhere").exists()
