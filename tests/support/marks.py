"""A slot file's high-water mark: read as the lease persisted it, or written as a bad clock,
a restored backup or a tamperer leaves it."""

from __future__ import annotations

import os
from pathlib import Path

from snowid.lease._hwm import HwmFile
from snowid.lease.file import slot_path


def write_mark(state_dir: Path, worker: int, mark_ms: int) -> None:
    """Give ``worker``'s slot file in ``state_dir`` the high-water mark ``mark_ms``."""
    state_dir.mkdir(exist_ok=True)
    path = slot_path(state_dir, worker)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        hwm = HwmFile(fd, str(path))
        hwm.load()
        hwm.write(mark_ms, 1)
    finally:
        os.close(fd)


def read_mark(state_dir: Path, worker: int) -> int:
    """The high-water mark persisted in ``worker``'s slot file in ``state_dir``."""
    fd = os.open(slot_path(state_dir, worker), os.O_RDONLY)
    try:
        return HwmFile(fd, "").load().hwm_ms
    finally:
        os.close(fd)
