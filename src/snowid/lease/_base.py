"""What every lease backend shares: state, locking, fork handling, the context manager.

A backend implements ``_claim`` (get a new identity), ``_extend`` (raise the ceiling of
the one held), ``_release`` (give it back) and ``_drop_inherited`` (a forked child
forgets what it inherited without touching it). This class turns them into the Fence
contract: ``ceiling_ms`` is the hot-path bound, -1 whenever no grant is usable.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from snowid._clock import SYSTEM_CLOCK, Clock
from snowid._fence import Grant
from snowid._layout import TWITTER
from snowid.errors import LeaseLostError
from snowid.lease._protocol import LeaseState

__all__ = ["BaseLease", "IdentityStatus", "LeaseEvent"]


@dataclass(frozen=True, slots=True)
class IdentityStatus:
    """One row of ``snowid lease status``: who holds (or last held) a worker identity."""

    worker: int
    datacenter: int
    machine: int
    held: bool
    holder: str
    epoch: int
    ceiling_ms: int
    since_ms: int | None = None
    expires_ms: int | None = None


@dataclass(frozen=True, slots=True)
class LeaseEvent:
    """A change of state, kept for logs and tests (``lease.events``)."""

    kind: str  # "claim", "extend", "lost", "release", "expired", "fork"
    worker: int
    epoch: int
    start_ms: int
    ceiling_ms: int
    detail: str = ""


_LIVE: weakref.WeakSet[BaseLease] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for lease in list(_LIVE):
        lease._forked()


def _at_exit() -> None:
    for lease in list(_LIVE):
        with contextlib.suppress(Exception):  # best effort at interpreter exit
            lease.close()


os.register_at_fork(after_in_child=_after_fork_in_child)
atexit.register(_at_exit)


class BaseLease:
    """Lease state machine: unclaimed -> held -> (lost -> held ...) -> closed."""

    kind: ClassVar[str] = "base"
    max_events: ClassVar[int] = 1000

    def __init__(self, url: str, clock: Clock | None = None) -> None:
        self.ceiling_ms: int = -1
        self._url = url
        self._clock: Clock = clock or SYSTEM_CLOCK
        self._lock = threading.RLock()
        self._grant: Grant | None = None
        self._state: LeaseState = "unclaimed"
        self._pid = os.getpid()
        self.events: list[LeaseEvent] = []
        self.listeners: list[Callable[[LeaseEvent], None]] = []
        """Called with every event, before the change it records takes effect."""
        _LIVE.add(self)

    # --- the Lease protocol ----------------------------------------------------

    @property
    def url(self) -> str:
        return self._url

    @property
    def state(self) -> LeaseState:
        return self._state

    @property
    def grant(self) -> Grant | None:
        return self._grant if self._state == "held" else None

    @property
    def worker(self) -> int | None:
        grant = self.grant
        return None if grant is None else TWITTER.worker(grant.datacenter, grant.machine)

    def acquire(self, needed_ms: int) -> Grant:
        with self._lock:
            if self._state == "closed":
                raise LeaseLostError(worker=self._worker_text(), reason="the lease is closed")
            grant = self._grant
            if self._state == "held" and grant is not None:
                if needed_ms <= self.ceiling_ms:
                    return grant
                return self._extend(grant, needed_ms)
            return self._claim(needed_ms)

    async def aacquire(self, needed_ms: int) -> Grant:
        grant = self._grant
        if self._state == "held" and grant is not None and needed_ms <= self.ceiling_ms:
            return grant
        return await asyncio.to_thread(self.acquire, needed_ms)

    def release(self) -> None:
        with self._lock:
            grant = self._grant
            self.ceiling_ms = -1
            if self._state == "held" and grant is not None:
                try:
                    self._release(grant)
                finally:
                    self._set_unheld("unclaimed", "release", "")

    def close(self) -> None:
        with self._lock:
            if self._state == "closed":
                return
            try:
                self.release()
            finally:
                self._state = "closed"
                self._close_resources()
                _LIVE.discard(self)

    def __enter__(self) -> BaseLease:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._url} {self._state} grant={self.grant}>"

    # --- for backends ----------------------------------------------------------

    def _claim(self, needed_ms: int) -> Grant:
        raise NotImplementedError

    def _extend(self, grant: Grant, needed_ms: int) -> Grant:
        raise NotImplementedError

    def _release(self, grant: Grant) -> None:
        raise NotImplementedError

    def _drop_inherited(self) -> None:
        """In a forked child: forget fds, connections and threads without using them."""

    def _close_resources(self) -> None:
        """After the final release: close files, connections, threads."""

    def _set_held(self, grant: Grant, kind: str = "claim", detail: str = "") -> Grant:
        self._grant = grant
        self._state = "held"
        self._event(kind, grant, detail)
        self.ceiling_ms = grant.ceiling_ms
        return grant

    def _raise_ceiling(self, ceiling_ms: int) -> Grant:
        grant = self._grant
        assert grant is not None
        if ceiling_ms > grant.ceiling_ms:
            grant = Grant(grant.datacenter, grant.machine, grant.start_ms, ceiling_ms, grant.epoch)
            self._grant = grant
            self._event("extend", grant)  # logged before the new ceiling is published
        self.ceiling_ms = grant.ceiling_ms
        return grant

    def _set_unheld(self, state: LeaseState, kind: str, detail: str) -> None:
        self.ceiling_ms = -1
        grant = self._grant
        if grant is not None:
            self._event(kind, grant, detail)
        self._grant = None
        self._state = state

    def _event(self, kind: str, grant: Grant, detail: str = "") -> None:
        worker = TWITTER.worker(grant.datacenter, grant.machine)
        event = LeaseEvent(kind, worker, grant.epoch, grant.start_ms, grant.ceiling_ms, detail)
        if len(self.events) >= self.max_events:
            del self.events[: self.max_events // 2]
        self.events.append(event)
        for listener in self.listeners:
            listener(event)

    def _worker_text(self) -> str:
        grant = self._grant
        return "?" if grant is None else str(TWITTER.worker(grant.datacenter, grant.machine))

    def _forked(self) -> None:
        # Locks may have been held by a parent thread at fork time: start with new ones.
        self._lock = threading.RLock()
        self._pid = os.getpid()
        self.ceiling_ms = -1
        self._drop_inherited()
        if self._state != "closed":
            self._grant = None
            self._state = "unclaimed"
