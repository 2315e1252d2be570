"""Slot files with a chosen high-water mark, as a bad clock, a restored backup or a tamperer
leaves them."""

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
