"""Host slots (``file:``): one lock file per worker identity in a local state directory.

A process claims a free slot in its range by a non-blocking ``flock`` on the slot's
file and keeps the descriptor for its life; the kernel drops the lock when the process
dies. ``fcntl.lockf`` is never used: POSIX record locks belong to (process, inode) and
vanish when the process closes *any* descriptor of the file. Slot files are never
deleted, and never opened through a symbolic link (see ``_fs.open_slot``); after
locking, the (device, inode) of the descriptor and of the path must match, and they
are checked again after every high-water-mark write, before the new ceiling is used.

The high-water mark (see ``_hwm``) is the local ceiling: it is persisted before any
id timestamp above it is issued, so a successor on the slot - or this host restarted
with its clock set back - starts above every id ever issued under it.

A slot file deleted or replaced while held (a tmp cleaner, a restored backup, an
operator) loses that mark, and its holder only notices at its next mark write. So a
claim never trusts the file alone: it starts above ``now + HORIZON_MS`` too. Every
ceiling a holder uses is a clock reading taken *before* it last saw the path still
naming its own file, plus at most ``HORIZON_MS``; a claimant can only open another file
at that path *after* that moment, and reads its clock after opening it. So the
claimant's start is above every ceiling the old holder can still use, whatever the
file it found says (missing, empty, an older copy). The old holder's next write then
finds the path changed, and it stops before using the mark it just wrote.

Forward-jump guard: a mark is written ahead as ``now + delta``, so a wall clock stepped
hours ahead (a bad NTP step) would persist a mark hours ahead and lock the slot - and,
through the host clock-regression check, the host - out after the correction. Before
each extension the wall clock's progress since the last one is compared with the boot
clock's; ahead by more than ``forward_guard_ms`` and nothing is written: the ceiling
stays (the generator waits at it, then raises CeilingReachedError) until the clock
comes back or the new time has held for ``forward_confirm_ms`` (see ``_forward``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import socket
from collections.abc import Callable
from pathlib import Path

from snowid._exceptions import (
    CeilingAheadError,
    LeaseError,
    LeaseLostError,
    NoFreeIdentityError,
    OutOfRangeError,
    SlotEntryError,
    SlotQuarantinedError,
)
from snowid.generate import Grant
from snowid.ids import TWITTER, Clock
from snowid.lease._base import IdentityStatus, Lease
from snowid.lease._forward import ForwardJumpGuard
from snowid.lease._fs import check_state_dir, open_slot, same_file
from snowid.lease._hwm import HORIZON_MS, HwmFile, HwmRecord
from snowid.lease._slotdir import (
    SLOT_PREFIX,
    default_state_dir,
    file_status,
    slot_path,
    state_dir_errors,
)
from snowid.lease._staticguard import StaticGuard
from snowid.lease._url import LeaseUrl, given

__all__ = ["FileLease", "default_state_dir", "file_status", "slot_path", "state_dir_errors"]


class FileLease(Lease):
    """A slot in ``[first, last]`` under ``state_dir``, held by an exclusive flock."""

    object_options = ("before_sync", "mountinfo")
    tuning = (
        "delta", "max_wait", "max_regression", "forward_guard", "forward_confirm",
        "allow_volatile",
    )  # fmt: skip
    """The URL options of the slot files themselves (``static:?state_dir=`` takes them too)."""

    retires_at_stop = False
    """Kept until exit: the kernel drops the slot's lock when the process dies (SIGKILL
    too), and giving it back at stop would end the drain within the write-ahead ``delta``."""

    def __init__(
        self,
        state_dir: str | os.PathLike[str] | None = None,
        *,
        first: int = 0,
        last: int = TWITTER.max_worker,
        delta_ms: int = HORIZON_MS,
        max_wait_ms: int = 3000,
        max_regression_ms: int = 10_000,
        forward_guard_ms: int = 5000,
        forward_confirm_ms: int = 30_000,
        allow_volatile: bool = False,
        url: str | None = None,
        clock: Clock | None = None,
        before_sync: Callable[[HwmRecord], None] | None = None,
        mountinfo: str | None = None,
    ) -> None:
        directory = Path(state_dir) if state_dir is not None else default_state_dir()
        super().__init__(url or f"file://{directory}?range={first}-{last}", clock)
        TWITTER.check_worker(first)
        TWITTER.check_worker(last)
        if not 1 <= delta_ms <= HORIZON_MS:  # a longer write-ahead would outrun claimants
            raise OutOfRangeError(field="delta_ms", value=delta_ms, min=1, max=HORIZON_MS)
        self.state_dir = directory
        self.first, self.last = first, last
        self.delta_ms = delta_ms
        self.max_wait_ms = max_wait_ms
        self.max_regression_ms = max_regression_ms
        self.forward_guard = ForwardJumpGuard(forward_guard_ms, forward_confirm_ms)
        self.allow_volatile = allow_volatile
        self.before_sync = before_sync
        self._mountinfo = mountinfo
        self._fd = -1
        self._hwm: HwmFile | None = None
        self._inode: tuple[int, int] = (0, 0)
        self._issued: dict[int, int] = {}  # worker -> highest ceiling this process persisted
        self.guard: StaticGuard | None = None
        """Set for ``static:?state_dir=``: taken before the slot, so a second process of
        this network namespace is refused whatever its state_dir (see ``_staticguard``)."""

    @classmethod
    def from_url(cls, url: LeaseUrl, *, clock: Clock | None = None) -> FileLease:
        """``file:[//localhost]/dir?range=A-B`` (or ``datacenter=N``) and the tuning options."""
        url.check_known(("range", "datacenter", *cls.tuning))
        if url.netloc not in ("", "localhost"):
            raise url.fail("file_host", host=url.netloc.rpartition("@")[2])
        first, last = url.worker_range() or (None, None)
        return cls._from_options(url, url.local_path(url.path) or None, first, last, clock)

    @classmethod
    def for_slot(
        cls, url: LeaseUrl, state_dir: str, worker: int, clock: Clock | None = None
    ) -> FileLease:
        """The one slot ``worker`` in ``state_dir``, tuned by ``url``'s options (static:)."""
        return cls._from_options(url, url.local_path(state_dir), worker, worker, clock)

    @classmethod
    def _from_options(
        cls,
        url: LeaseUrl,
        state_dir: str | None,
        first: int | None,
        last: int | None,
        clock: Clock | None,
    ) -> FileLease:
        def ms(name: str, minimum: float = 0.0, maximum: float | None = None) -> int | None:
            seconds = url.seconds(name, minimum, maximum)
            return None if seconds is None else round(seconds * 1000)

        options = given(
            first=first,
            last=last,
            delta_ms=ms("delta", 0.001, HORIZON_MS / 1000),
            max_wait_ms=ms("max_wait"),
            max_regression_ms=ms("max_regression"),
            forward_guard_ms=ms("forward_guard"),
            forward_confirm_ms=ms("forward_confirm"),
            allow_volatile=url.flag("allow_volatile"),
            before_sync=url.objects.get("before_sync"),
            mountinfo=url.objects.get("mountinfo"),
        )
        return cls(state_dir, url=url.shown, clock=clock, **options)

    @property
    def max_lead_ms(self) -> int:
        """``delta``: the mark is written that far ahead of the clock, so no id under it
        needs to lead the clock by more (and only the wall clock extends it)."""
        return self.delta_ms

    # --- claim ---------------------------------------------------------------

    def _claim(self, needed_ms: int) -> Grant:
        if self.guard is not None:
            self.guard.take(self._clock)
        try:
            with state_dir_errors(self.state_dir, self.url):
                return self._claim_slot(needed_ms)
        except BaseException:
            if self.guard is not None:
                self.guard.release()
            raise

    def _claim_slot(self, needed_ms: int) -> Grant:
        self.prepare()
        marks = self._check_host_regression()
        now = self._clock.time_ms()

        # Every claim waits for now + HORIZON_MS; slots whose mark is below that cost
        # nothing more and go first, in random order to spread claimants; then the
        # others, lowest mark first (the shortest wait).
        def preference(worker: int) -> tuple[bool, int, float]:
            mark = marks.get(worker, 0)
            late = mark > now + HORIZON_MS
            return (late, mark if late else 0, random.random())

        order = sorted(range(self.first, self.last + 1), key=preference)
        refused: list[LeaseError] = []  # quarantined slots, things that are not slot files
        for worker in order:
            grant = self._try_slot(worker, needed_ms, refused)
            if grant is not None:
                return grant
        if refused:
            raise refused[0]
        raise NoFreeIdentityError(first=self.first, last=self.last, store=str(self.state_dir))

    def prepare(self, *, first_deployment: bool = False) -> dict[str, object]:
        """Create the state directory if missing and check its file system (its type in
        ``fstype``); a first deployment changes nothing for slot files.

        StateDirUnusableError when it cannot be a directory (a file, under /proc, no
        permission), UnsupportedFileSystemError on a network or RAM file system.
        """
        del first_deployment
        with state_dir_errors(self.state_dir, self.url):
            self.state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            fstype = check_state_dir(
                self.state_dir, allow_volatile=self.allow_volatile, mountinfo=self._mountinfo
            )
        return {"url": self.url, "state_dir": str(self.state_dir), "fstype": fstype}

    def check(self) -> None:
        """The state directory is created (as a claim would) and its file system checked."""
        self.prepare()

    def status(self) -> list[IdentityStatus]:
        rows = file_status(self.state_dir, url=self.url)
        return [row for row in rows if self.first <= row.worker <= self.last]

    def _try_slot(self, worker: int, needed_ms: int, refused: list[LeaseError]) -> Grant | None:
        path = str(slot_path(self.state_dir, worker))
        try:
            fd = open_slot(path)
        except SlotEntryError as error:  # a link, a directory, ...: never used, reported
            refused.append(error)
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        try:
            held = os.fstat(fd)
            identity = (held.st_dev, held.st_ino)
            if not same_file(path, identity):
                os.close(fd)  # replaced between open and lock: not ours to use
                return None
            if held.st_size == 0:
                _fsync_dir(self.state_dir)
            hwm = HwmFile(fd, path, self.before_sync)
            try:
                record = hwm.load()
            except (SlotQuarantinedError, SlotEntryError) as error:
                refused.append(error)
                os.close(fd)
                return None
            # The clock is read only now, after the path was seen naming this file: a
            # holder of a file that was at this path before saw it there earlier still,
            # so all it can issue is below now + HORIZON_MS (module docstring).
            now = self._clock.time_ms()
            marked = max(record.hwm_ms, self._issued.get(worker, 0))
            start = max(marked, now + HORIZON_MS) + 1
            now = self._wait_until(start, worker, marked)
            ceiling = max(now, needed_ms, start) + self.delta_ms
            record = hwm.write(ceiling, record.epoch + 1)
            if not same_file(path, identity):
                os.close(fd)  # replaced while we waited or wrote: that mark is not used
                return None
            hwm.write_info(_holder_info(self._clock.time_ms()))
        except BaseException:
            os.close(fd)
            raise
        self._fd, self._hwm, self._inode = fd, hwm, identity
        self._issued[worker] = ceiling
        self.forward_guard.reset(ceiling - self.delta_ms, self._clock.monotonic_ns())
        datacenter, machine = TWITTER.split_worker(worker)
        return self._set_held(Grant(datacenter, machine, start, ceiling, record.epoch))

    def _wait_until(self, start_ms: int, worker: int, mark_ms: int) -> int:
        """Wait until the clock reaches ``start_ms``; the clock reading.

        Bounded by the horizon (every claim waits that long) plus ``max_wait_ms``, the
        time allowed for a clock behind the slot's mark ``mark_ms`` to catch up with it.
        """
        clock = self._clock
        deadline = clock.monotonic_ns() + (HORIZON_MS + self.max_wait_ms) * 1_000_000
        now = clock.time_ms()
        if start_ms - now <= HORIZON_MS + self.max_wait_ms:
            self._say_long_wait(worker, start_ms - now)
        while now < start_ms:
            left_ns = deadline - clock.monotonic_ns()
            if left_ns <= 0:
                raise CeilingAheadError(
                    worker=worker,
                    ceiling=mark_ms,
                    ahead_ms=mark_ms + 1 - now,
                    max_ms=self.max_wait_ms,
                )
            clock.sleep(min((start_ms - now) / 1000, left_ns / 1e9))
            now = clock.time_ms()
        return now

    def _check_host_regression(self) -> dict[int, int]:
        """Refuse when this host's clock is far behind the marks its slots persisted.

        Returns the mark of every readable slot file (worker -> ms).
        """
        marks: dict[int, int] = {}
        for entry in list(os.scandir(self.state_dir)):  # unreadable: refused by the caller
            digits = entry.name[len(SLOT_PREFIX) :]
            if entry.name.startswith(SLOT_PREFIX) and digits.isdigit():
                record = _peek(entry.path)
                if record is not None:
                    marks[int(digits)] = record.hwm_ms
        worker = max(marks, key=lambda w: marks[w], default=0)
        ahead = marks.get(worker, 0) - self._clock.time_ms()
        if ahead - HORIZON_MS > self.max_regression_ms:
            raise CeilingAheadError(
                worker=worker, ceiling=marks[worker], ahead_ms=ahead, max_ms=self.max_regression_ms
            )
        return marks

    # --- extend / release ------------------------------------------------------

    def _extend(self, grant: Grant, needed_ms: int) -> Grant:
        hwm = self._hwm
        assert hwm is not None
        # First the clock, then the write, then the path check, and only then the new
        # ceiling: a holder paused anywhere in between gets a ceiling no later than a
        # claimant that opened a new file at the path must start above (docstring).
        wall = max(self._clock.time_ms(), needed_ms)
        if not self.forward_guard.allows(grant, wall, self._clock.monotonic_ns(), self._event):
            self._check_inode(grant)
            self.ceiling_ms = grant.ceiling_ms
            return grant  # paused: nothing persisted, the ceiling stays where it was
        ceiling = wall + self.delta_ms
        with state_dir_errors(self.state_dir, self.url):  # the old ceiling stays in force
            hwm.write(ceiling, grant.epoch)
        self._check_inode(grant)
        self.forward_guard.reset(wall, self._clock.monotonic_ns())
        self._issued[TWITTER.worker(grant.datacenter, grant.machine)] = ceiling
        return self._raise_ceiling(ceiling)

    def _check_inode(self, grant: Grant) -> None:
        hwm = self._hwm
        assert hwm is not None
        if not same_file(hwm.path, self._inode):
            self._set_unheld("lost", "lost", "slot file replaced or removed")
            self._close_fd()
            raise LeaseLostError(
                worker=TWITTER.worker(grant.datacenter, grant.machine),
                reason=f"the slot file {hwm.path} was removed or replaced while held",
            )

    def _release(self, grant: Grant) -> None:
        del grant
        self._close_fd()
        if self.guard is not None:
            self.guard.release()

    def _close_fd(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # the kernel drops the flock with the last descriptor
        self._fd, self._hwm = -1, None

    def _drop_inherited(self) -> None:
        # Closing the child's copy leaves the parent's lock in place (same open file description).
        self._close_fd()
        self.forward_guard.forget()

    def _close_resources(self) -> None:
        self._close_fd()
        if self.guard is not None:
            self.guard.release()


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _peek(path: str) -> HwmRecord | None:
    """The newest valid record of a slot file, read without its lock (None if none)."""
    try:
        fd = open_slot(path, create=False)
    except (OSError, SlotEntryError):
        return None
    try:
        hwm = HwmFile(fd, path)
        return hwm.load()
    except (SlotQuarantinedError, SlotEntryError):
        return None
    finally:
        os.close(fd)


def _holder_info(now_ms: int) -> dict[str, object]:
    info: dict[str, object] = {"pid": os.getpid(), "host": socket.gethostname(), "since_ms": now_ms}
    with contextlib.suppress(OSError):
        info["boot_id"] = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    return info
