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
import logging
import os
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Literal

from snowid._clock import SYSTEM_CLOCK, Clock, wall_lead_ms
from snowid._fence import Grant
from snowid._layout import TWITTER
from snowid.errors import LeaseLostError
from snowid.lease._protocol import LeaseState

__all__ = ["BaseLease", "ForwardJumpGuard", "ForwardVerdict", "IdentityStatus", "LeaseEvent"]

log = logging.getLogger("snowid.lease")

_NS_PER_MS = 1_000_000


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

    kind: str  # "claim", "extend", "lost", "release", "expired", "fork", "forward_jump",
    # "forward_accept", "forward_clear" (see ForwardJumpGuard)
    worker: int
    epoch: int
    start_ms: int
    ceiling_ms: int
    detail: str = ""


ForwardVerdict = Literal["ok", "jump", "moved", "hold", "accept", "clear"]
"""What :meth:`ForwardJumpGuard.check` says about persisting a mark for a wall time:
``ok`` persist; ``jump`` a forward jump starts an episode (do not persist); ``moved`` the
clock moved again within the episode (do not persist, confirm anew); ``hold`` still
waiting for confirmation (do not persist); ``accept`` the new time held for the
confirmation period (persist); ``clear`` the clock came back (persist)."""


@dataclass(slots=True)
class ForwardJumpGuard:
    """Keeps a bad forward step of the wall clock out of a persisted ceiling.

    A mark written ahead as ``now + delta`` with a wall clock hours ahead locks the
    identity out (and, through the host clock-regression check, the whole host) until
    real time catches up. So each accepted extension records a reference (wall ms,
    boot-clock ns), and before the next one the wall clock's progress since then is
    compared with the boot clock's (``Clock.monotonic_ns``: never steps, counts
    suspend where the OS allows). Wall progress ahead by more than ``guard_ms`` (plus
    1 ms per second of boot progress, for NTP slewing) is a jump: nothing is
    persisted, so the ceiling stays where it was, until either the clock comes back or
    the new wall-minus-boot offset has stayed within ``guard_ms`` of itself for
    ``confirm_ms`` of boot-clock time. A backward step is not this guard's business
    (the generator and the regression check handle it). ``guard_ms <= 0`` turns it off.

    Clock bookkeeping only: no I/O, no locking (the lease's lock covers it).
    """

    guard_ms: int = 5000
    confirm_ms: int = 30_000
    ref_ms: int = -1
    """Wall time of the last accepted extension; -1 before the first (nothing to compare)."""
    ref_ns: int = 0
    """Boot-clock reading at the last accepted extension."""
    since_ns: int = -1
    """Boot-clock reading since which the episode's offset held; -1 outside an episode."""
    offset_ms: int = 0
    """Wall minus boot clock (ms) of the episode."""

    @property
    def paused(self) -> bool:
        return self.since_ns >= 0

    def reset(self, wall_ms: int, mono_ns: int) -> None:
        """A mark for ``wall_ms`` was accepted at boot-clock ``mono_ns``: the new reference."""
        self.ref_ms, self.ref_ns = wall_ms, mono_ns
        self.since_ns = -1

    def forget(self) -> None:
        """No reference (a new identity, a forked child): the next extension is not checked."""
        self.ref_ms, self.since_ns = -1, -1

    def check(self, wall_ms: int, mono_ns: int) -> tuple[ForwardVerdict, int]:
        """The verdict on persisting a mark for wall time ``wall_ms``, and the jump in ms
        (wall progress minus boot progress since the reference, beyond slewing)."""
        if self.guard_ms <= 0 or self.ref_ms < 0:
            return "ok", 0
        jump_ms = wall_lead_ms(self.ref_ms, self.ref_ns, wall_ms, mono_ns)
        if jump_ms <= self.guard_ms:
            verdict: ForwardVerdict = "clear" if self.paused else "ok"
            self.since_ns = -1
            return verdict, jump_ms
        offset = wall_ms - mono_ns // _NS_PER_MS
        if not self.paused:
            self.since_ns, self.offset_ms = mono_ns, offset
            return "jump", jump_ms
        if abs(offset - self.offset_ms) > self.guard_ms:
            self.since_ns, self.offset_ms = mono_ns, offset
            return "moved", jump_ms
        if mono_ns - self.since_ns >= self.confirm_ms * _NS_PER_MS:
            self.since_ns = -1
            return "accept", jump_ms
        return "hold", jump_ms


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

    def _forward_allows(self, guard: ForwardJumpGuard, grant: Grant, wall_ms: int) -> bool:
        """Whether a mark for ``wall_ms`` may be persisted now (see ForwardJumpGuard).

        Records a ``forward_jump`` event (and logs a warning) when an episode starts, an
        event when the clock moves again within it, ``forward_accept`` when the new time
        is confirmed and ``forward_clear`` when the clock came back. On True the caller
        persists and then calls ``guard.reset``.
        """
        verdict, jump_ms = guard.check(wall_ms, self._clock.monotonic_ns())
        if verdict == "ok":
            return True
        from snowid.i18n import translate  # only on this rare path, as errors.py does

        worker = TWITTER.worker(grant.datacenter, grant.machine)
        params = {
            "worker": worker,
            "jump_ms": jump_ms,
            "ceiling": grant.ceiling_ms,
            "guard_ms": guard.guard_ms,
            "confirm_ms": guard.confirm_ms,
        }
        if verdict in ("jump", "moved"):
            detail = translate("lease.forward_jump", **params)
            self._event("forward_jump", grant, detail)
            if verdict == "jump":  # once per episode
                log.warning("snowid: %s", detail)
            return False
        if verdict == "hold":
            return False
        code = "lease.forward_accept" if verdict == "accept" else "lease.forward_clear"
        detail = translate(code, **params)
        self._event(f"forward_{verdict}", grant, detail)
        (log.warning if verdict == "accept" else log.info)("snowid: %s", detail)
        return True

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
