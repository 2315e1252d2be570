"""The state directory of file slots, apart from claiming: where it is, how its entries
are named, how its OS errors are reported, and who holds which slot (``lease status``).

Read-only here: claiming and writing marks is ``file.py``'s business.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from snowid._exceptions import (
    SlotEntryError,
    SlotQuarantinedError,
    StateDirUnusableError,
    detached,
)
from snowid.ids import TWITTER
from snowid.lease._base import IdentityStatus
from snowid.lease._fs import open_slot
from snowid.lease._hwm import HwmFile, HwmRecord

__all__ = ["SLOT_PREFIX", "default_state_dir", "file_status", "slot_path", "state_dir_errors"]

SLOT_PREFIX = "slot-"


@contextlib.contextmanager
def state_dir_errors(state_dir: str | os.PathLike[str], url: str | None = None) -> Iterator[None]:
    """Turn an OSError from preparing, scanning or writing ``state_dir`` into a
    :class:`StateDirUnusableError` naming the lease, the directory and the OS reason."""
    with detached():  # the OSError is not kept: its reason and class name are
        try:
            yield
        except OSError as error:
            raise StateDirUnusableError(
                field="lease",
                value=url or f"file://{state_dir}",
                path=str(state_dir),
                reason=_os_reason(error),
                driver_class=type(error).__name__,
                driver_message=_os_reason(error),
            ) from None


def _os_reason(error: OSError) -> str:
    name = errno.errorcode.get(error.errno or 0)
    text = error.strerror or type(error).__name__
    return f"{text} ({name})" if name else text


def default_state_dir() -> Path:
    """``$XDG_STATE_HOME/snowid``, else ``~/.local/state/snowid``."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "snowid"


def slot_path(state_dir: str | os.PathLike[str], worker: int) -> Path:
    return Path(state_dir) / f"{SLOT_PREFIX}{worker:04d}"


def _flock_holders() -> dict[tuple[int, int, int], int]:
    """(major, minor, inode) -> pid of FLOCK write locks, from /proc/locks."""
    holders: dict[tuple[int, int, int], int] = {}
    try:
        text = Path("/proc/locks").read_text()
    except OSError:
        return holders
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 6 or fields[1] != "FLOCK" or fields[3] != "WRITE":
            continue
        try:
            major, minor, inode = fields[5].split(":")
            holders[(int(major, 16), int(minor, 16), int(inode))] = int(fields[4])
        except ValueError:
            continue
    return holders


def file_status(
    state_dir: str | os.PathLike[str], *, url: str | None = None
) -> list[IdentityStatus]:
    """Every slot file in ``state_dir``: held or not (from /proc/locks), holder, mark.

    No rows when the directory does not exist yet; StateDirUnusableError when it cannot
    be listed (a file, no permission).
    """
    holders = _flock_holders()
    with state_dir_errors(state_dir, url):
        try:
            entries = sorted(os.scandir(state_dir), key=lambda e: e.name)
        except FileNotFoundError:
            return []
        return _status_rows(entries, holders)


def _status_rows(
    entries: list[os.DirEntry[str]], holders: dict[tuple[int, int, int], int]
) -> list[IdentityStatus]:
    rows: list[IdentityStatus] = []
    for entry in entries:
        name = entry.name
        if not name.startswith(SLOT_PREFIX) or not name[len(SLOT_PREFIX) :].isdigit():
            continue
        worker = int(name[len(SLOT_PREFIX) :])
        if worker > TWITTER.max_worker:
            continue
        try:
            fd = open_slot(entry.path, create=False)
        except (OSError, SlotEntryError):  # not a slot file: nothing to report on
            continue
        try:
            st = os.fstat(fd)
            hwm = HwmFile(fd, entry.path)
            try:
                record, quarantined = hwm.load(), False
            except (SlotQuarantinedError, SlotEntryError):  # no valid record: mark unknown
                record, quarantined = HwmRecord(0, 0, 0), True
            info = hwm.read_info()
        finally:
            os.close(fd)
        pid = holders.get((os.major(st.st_dev), os.minor(st.st_dev), st.st_ino))
        since = info.get("since_ms")
        datacenter, machine = TWITTER.split_worker(worker)
        holder = f"{info.get('host', '?')} pid {pid if pid is not None else info.get('pid', '?')}"
        rows.append(
            IdentityStatus(
                worker=worker,
                datacenter=datacenter,
                machine=machine,
                held=pid is not None,
                holder="QUARANTINED" if quarantined else holder,
                epoch=record.epoch,
                ceiling_ms=record.hwm_ms,
                since_ms=since if isinstance(since, int) else None,
            )
        )
    return rows
