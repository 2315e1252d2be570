"""libfaketime for a child process whose wall clock a test steps (the clock tests,
tests/support/lease_faults.py, bench/faults.py): the monotonic and boot clocks are left
alone, the wall clock offset by what a file says, re-read at every clock read."""

from __future__ import annotations

import glob
from pathlib import Path

import pytest

LIBFAKETIME = sorted(glob.glob("/usr/lib/*/faketime/libfaketime.so.1"))


def faketime_env(offset_file: Path) -> dict[str, str]:
    """What a child's environment adds to run under libfaketime, its wall clock offset by
    what ``offset_file`` says (``+5.000``). Fails the test when libfaketime is missing.

    libfaketime 0.9.10 with ``FAKETIME_DONT_FAKE_MONOTONIC=1`` fails Python's
    ``time.sleep`` (an absolute clock_nanosleep on the monotonic clock) with EINVAL: the
    child sleeps through ``select`` instead."""
    if not LIBFAKETIME:
        pytest.fail("libfaketime is missing: apt-get install faketime (scripts/test does)")
    return {
        "LD_PRELOAD": LIBFAKETIME[0],
        "FAKETIME_TIMESTAMP_FILE": str(offset_file),
        "FAKETIME_NO_CACHE": "1",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }
