"""Starting worker processes and reading what they wrote."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
import weakref
from array import array
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

STARTED: weakref.WeakSet[subprocess.Popen[bytes]] = weakref.WeakSet()
"""Every worker started (tests/support/leftovers.py ends those a test left running)."""


def start_worker(
    lease: str,
    out: Path,
    *extra: str,
    log: Path | None = None,
    env: Mapping[str, str] | None = None,
    stderr: Path | None = None,
) -> subprocess.Popen[bytes]:
    """A worker process (tests/support/worker.py); ``env`` is added to its environment
    (bench/faults.py preloads libfaketime through it); ``stderr``: a file for its stderr
    (its lease's warnings), else ours."""
    argv = [sys.executable, "-m", "tests.support.worker", "--lease", lease, "--out", str(out)]
    if log is not None:
        argv += ["--log", str(log)]
    environ = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}", **(env or {})}
    with contextlib.ExitStack() as files:
        err = files.enter_context(stderr.open("ab")) if stderr is not None else None
        proc = subprocess.Popen([*argv, *extra], cwd=ROOT, env=environ, stderr=err)
    STARTED.add(proc)
    return proc


def wait_all(procs: Sequence[subprocess.Popen[bytes]], timeout: float = 60) -> list[int]:
    deadline = time.monotonic() + timeout
    codes = []
    for proc in procs:
        try:
            codes.append(proc.wait(max(0.1, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            proc.kill()
            codes.append(proc.wait())
    return codes


def wait_for_file(path: Path, timeout: float = 60) -> None:
    """Wait for a worker's --ready file (a harness margin: a fresh interpreter importing
    snowid and claiming can take many seconds on a busy machine)."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(str(path))
        time.sleep(0.01)


def read_ids(path: Path) -> list[int]:
    data = path.read_bytes() if path.exists() else b""
    values = array("Q")
    values.frombytes(data[: len(data) - len(data) % 8])
    if sys.byteorder == "little":
        values.byteswap()
    return values.tolist()


def read_log(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
