"""/metrics for every worker process of one server, whichever process answers.

With ``snowid serve --workers N`` the kernel hands each connection to any of the N
processes, so a scrape reaches one of them at random. Each process therefore writes its
snapshot to a file of its own in a directory they share (``Settings.metrics_dir``)
once a second, and the one that answers /metrics adds the others' files to its own,
live snapshot. Every series carries the process's ``pid`` label, so one scrape shows
all workers and none of them flaps in and out. A file whose process is gone, or that
has not been rewritten for a while, is left out (and removed).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snowid import GeneratorStats, Grant
from snowid.web._exceptions import MetricsDirError
from snowid.web._service import Snapshot

if TYPE_CHECKING:
    from snowid.web._service import IdService

__all__ = ["PUBLISH_INTERVAL_S", "MetricsShare"]

PUBLISH_INTERVAL_S = 1.0
_STALE_AFTER_S = 10.0  # several missed writes: the process hangs or is gone


def _encode(snapshot: Snapshot) -> bytes:
    return json.dumps(asdict(snapshot)).encode()


def _decode(data: bytes) -> Snapshot:
    raw: dict[str, Any] = json.loads(data)
    grant = raw.pop("grant")
    stats = raw.pop("stats")
    return Snapshot(
        grant=Grant(**grant) if grant is not None else None,
        stats=GeneratorStats(**stats),
        **raw,
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


class _Publisher:
    def __init__(self, share: MetricsShare, service: IdService) -> None:
        self._share = share
        self._service = service
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            # A full disk or a removed directory must not stop this process serving.
            with contextlib.suppress(OSError):
                self._share.publish(self._service.snapshot())
            await asyncio.sleep(PUBLISH_INTERVAL_S)

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._share.withdraw()


class MetricsShare:
    """The shared directory: one ``<pid>.json`` per live worker process."""

    def __init__(self, directory: str) -> None:
        self.directory = Path(directory)

    def _own(self) -> Path:
        return self.directory / f"{os.getpid()}.json"

    def prepare(self) -> None:
        """Create the directory if missing and write a file in it, once: MetricsDirError
        naming it when that fails (a file, /dev/null, under /proc, read-only, a full disk)."""
        probe = self.directory / f".probe-{os.getpid()}"
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as error:
            if self.directory.exists() and not self.directory.is_dir():
                reason = os.strerror(errno.ENOTDIR)  # mkdir's "File exists" would mislead
            else:
                reason = error.strerror or str(error)
            raise MetricsDirError(value=str(self.directory), reason=reason) from None

    def start(self, service: IdService) -> _Publisher:
        """Publish ``service``'s snapshot now and every second until ``stop()``."""
        self.prepare()
        return _Publisher(self, service)

    def publish(self, snapshot: Snapshot) -> None:
        own = self._own()
        partial = own.with_suffix(".tmp")
        partial.write_bytes(_encode(snapshot))
        partial.replace(own)  # readers see the old file or the new one, never half

    def withdraw(self) -> None:
        with contextlib.suppress(OSError):
            self._own().unlink()

    def others(self) -> list[Snapshot]:
        """The snapshots of the other live worker processes, by pid."""
        found: list[Snapshot] = []
        me = os.getpid()
        now = time.time()
        try:
            entries = sorted(self.directory.glob("*.json"))
        except OSError:
            return found
        for path in entries:
            if not path.stem.isdigit() or int(path.stem) == me:
                continue
            try:
                fresh = now - path.stat().st_mtime < _STALE_AFTER_S
                if not (fresh and _alive(int(path.stem))):
                    path.unlink()
                    continue
                found.append(_decode(path.read_bytes()))
            except (OSError, ValueError, TypeError, KeyError):
                continue  # being replaced, removed, or not ours: skip it this time
        return sorted(found, key=lambda snapshot: snapshot.pid)
