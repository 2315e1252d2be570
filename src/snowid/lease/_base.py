"""The one lease type: what every backend shares, and the hooks each one fills in.

:class:`Lease` is the generator's Fence (``ceiling_ms``, ``acquire``) plus a worker
identity claimed lazily on the first ``acquire``. A backend is one module with one
subclass that implements:

- ``from_url`` (classmethod): read its options from a parsed :class:`LeaseUrl`, check
  them, and call its constructor, where its defaults live (only there);
- ``_claim`` (get a new identity), ``_extend`` (raise the ceiling of the one held),
  ``_release`` (give it back), and optionally ``_drop_inherited`` (a forked child
  forgets what it inherited without touching it) and ``_close_resources``;
- ``prepare`` (``snowid lease init``), ``status`` (``snowid lease status``) and
  ``check`` (the early check of ``snowid serve``) where the defaults do not fit.

This class turns the hooks into the Fence contract: ``ceiling_ms`` is the hot-path
bound, -1 whenever no grant is usable. Backends are found by scheme in ``_registry``.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import threading
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from snowid._exceptions import LeaseError, LeaseLostError
from snowid.generate import Grant, on_final_stop, on_stop
from snowid.ids import SYSTEM_CLOCK, TWITTER, Clock
from snowid.lease._handover import Sealers, mark_of

if TYPE_CHECKING:
    from snowid.lease._failover import Quarantine
    from snowid.lease._url import LeaseUrl

__all__ = ["IdentityStatus", "Lease", "LeaseEvent", "LeaseState"]

LeaseState = Literal["unclaimed", "held", "lost", "closed"]


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

    kind: str  # "claim", "extend", "lost", "release", "expired", "forward_jump",
    # "forward_accept", "forward_clear" (the last three: file slots, see ForwardJumpGuard)
    worker: int
    epoch: int
    start_ms: int
    ceiling_ms: int
    detail: str = ""


log = logging.getLogger("snowid.lease")

LONG_WAIT_MS = 1000
"""A claim that must wait longer than this says so in the log (once per claim)."""

_LIVE: weakref.WeakSet[Lease] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for lease in list(_LIVE):
        lease._forked()


def _retire_all() -> None:
    for lease in list(_LIVE):
        with contextlib.suppress(Exception):  # the process is stopping: best effort
            lease.retire()


SEAL_WAIT_S = 1.0
"""At exit or a final signal, how long sealing waits for each generator's lock (the holder
may be the thread the signal interrupted): past it, the release carries no mark."""


def _at_exit() -> None:
    for lease in list(_LIVE):
        with contextlib.suppress(Exception):  # best effort at interpreter exit
            lease._close(SEAL_WAIT_S)


os.register_at_fork(after_in_child=_after_fork_in_child)
atexit.register(_at_exit)
on_stop(_retire_all)  # the first SIGTERM/SIGINT, or snowid serve's drain (generate._stop)
on_final_stop(_at_exit)  # SIGTERM's default action follows: seal and hand over, as at exit


class Lease:
    """A worker identity behind a Fence: unclaimed -> held -> (lost -> held ...) -> closed.

    Open one with ``snowid.lease.open_lease(url)``; use it as a generator's fence and
    close it (or use it as a context manager) to give the identity back.
    """

    max_events: ClassVar[int] = 1000
    object_options: ClassVar[tuple[str, ...]] = ()
    """Keyword options of ``open_lease`` passed to ``from_url`` as objects, not as text."""

    def __init__(self, url: str, clock: Clock | None = None) -> None:
        self.ceiling_ms: int = -1
        self._url = url
        self._clock: Clock = clock or SYSTEM_CLOCK
        self._lock = threading.RLock()
        self._grant: Grant | None = None
        self._state: LeaseState = "unclaimed"
        self._pid = os.getpid()
        self._retired = False
        """Given back at stop (``retire``): issuing inside the grant held, never beyond."""
        self._sealers = Sealers()
        """The generators on this lease, sealed by ``close`` (docs/leases.md, "Clean hand-over")."""
        self.events: list[LeaseEvent] = []
        self.listeners: list[Callable[[LeaseEvent], None]] = []
        """Called with every event, before the change it records takes effect."""
        _LIVE.add(self)

    @classmethod
    def from_url(cls, url: LeaseUrl, *, clock: Clock | None = None) -> Lease:
        """The lease a parsed URL describes (options checked here; nothing claimed yet)."""
        raise NotImplementedError

    # --- what the CLI and the service ask of any backend -----------------------

    def prepare(self, *, first_deployment: bool = False) -> dict[str, object]:
        """Create what the store needs if it is missing (idempotent); what was found.

        ``first_deployment`` vouches that no holder of an earlier store can be alive
        (stores that quarantine a newly created table skip it). Always has ``url``.
        """
        del first_deployment
        return {"url": self.url}

    def status(self) -> list[IdentityStatus]:
        """Who holds (or last held) each identity of this lease's range, by worker."""
        return []

    def last_quarantine(self) -> Quarantine | None:
        """The last failover or rollback the store recorded, with its quarantine (stores
        with a history identity; None for the others)."""
        return None

    def missing(self) -> list[int]:
        """The workers of this lease's range whose record was deleted from the store and
        not yet written again (networked stores; others keep no such records)."""
        return []

    def check(self) -> None:
        """Refuse early what can be told without the store (``snowid serve`` calls it
        once before starting workers); a store that is down is not an error here."""

    # --- the lease ---------------------------------------------------------------

    @property
    def url(self) -> str:
        """Where the lease lives, without any password."""
        return self._url

    @property
    def state(self) -> LeaseState:
        return self._state

    @property
    def max_lead_ms(self) -> int | None:
        """How far ahead of the wall clock a ``logical`` clock-back policy may issue under
        this lease; None: refused, as nothing here keeps a high-water mark across a
        restart (see ``snowid.ClockBack``)."""
        return None

    @property
    def grant(self) -> Grant | None:
        """The grant held now, or None while unclaimed, lost or closed."""
        return self._grant if self._state == "held" else None

    @property
    def clock_offset_ms(self) -> int | None:
        """This host's clock minus the lease store's, in ms (positive: this host is ahead),
        as measured at the last claim or renewal; None where the store has no clock (file
        slots, ``static:``, ``k8s:``) or nothing was measured yet."""
        return None

    @property
    def clock_tolerance_ms(self) -> int | None:
        """The largest clock offset a claim accepts (the store's ``max_skew``), in ms; None
        where the store has no clock."""
        return None

    @property
    def renewal_counts(self) -> tuple[int, int] | None:
        """(acknowledged claims and renewals, renewals that got no answer) since the lease
        was opened; None for leases that are not renewed with a store."""
        return None

    @property
    def failover_state(self) -> tuple[int, int] | None:
        """(failovers and rollbacks of the store this process detected, the end of the
        last failover quarantine it met in Unix ms or 0); None for leases without a
        replicated store."""
        return None

    @property
    def worker(self) -> int | None:
        grant = self.grant
        return None if grant is None else TWITTER.worker(grant.datacenter, grant.machine)

    def attach_generator(
        self, seal: Callable[[float], int | None]
    ) -> tuple[Callable[[int], Grant], Callable[[int], Awaitable[Grant]]]:
        """Called by ``snowid.Generator(fence=lease)``: keep the generator's ``seal`` for
        ``close``; its own (acquire, aacquire), which do not count as a foreign issuer."""
        self._sealers.attach(seal)
        return self._acquire, self._aacquire

    def acquire(self, needed_ms: int) -> Grant:
        """The Fence's slow path. Called by anything but an attached generator, it means
        ids may be issued where ``close`` cannot seal them: no release mark from then on."""
        self._sealers.foreign = True
        return self._acquire(needed_ms)

    def _acquire(self, needed_ms: int) -> Grant:
        with self._lock:
            if self._sealers.sealed:
                raise LeaseLostError(worker=self._worker_text(), reason="the lease is closed")
            if self._state == "closed":
                raise LeaseLostError(worker=self._worker_text(), reason="the lease is closed")
            grant = self._grant
            if self._state == "held" and grant is not None:
                if needed_ms <= self.ceiling_ms:
                    return grant
                if self._retired:
                    raise LeaseLostError(
                        worker=self._worker_text(),
                        reason="the identity was given back as the process stops, and the"
                        " time it was granted until has passed",
                    )
                return self._extend(grant, needed_ms)
            return self._claim(needed_ms)

    def warm_up(self) -> Grant:
        """Claim the identity now (if not held) rather than at the first id: the grant."""
        return self._acquire(self._clock.time_ms())

    async def aacquire(self, needed_ms: int) -> Grant:
        self._sealers.foreign = True
        return await self._aacquire(needed_ms)

    async def _aacquire(self, needed_ms: int) -> Grant:
        grant = self._grant
        if self._state == "held" and grant is not None and needed_ms <= self.ceiling_ms:
            return grant
        return await asyncio.to_thread(self._acquire, needed_ms)

    def release(self) -> None:
        """Give the identity back (its ceiling stays); the next acquire claims again."""
        with self._lock:
            grant = self._grant
            self.ceiling_ms = -1
            if self._state == "held" and grant is not None:
                try:
                    if not self._retired:
                        self._release(grant)
                finally:
                    self._retired = False
                    self._set_unheld("unclaimed", "release", "")

    release_error: LeaseError | None = None
    """Why the last release did not reach the store (None: it did, or nothing to reach).
    The release itself never raises; the identity then stays held until its TTL runs out,
    and ``snowid serve`` says so at its stop (exit 1)."""

    retires_at_stop: ClassVar[bool] = True
    """Whether ``retire`` gives the identity back early (False: kept until exit)."""

    def retire(self) -> None:
        """Give the identity back now, as the process stops, and keep issuing inside the
        grant already held: never beyond it (no extension, no renewal).

        Safe because every later holder of this identity starts above the ceiling this
        one was granted (docs/leases.md, "Release"). Requests still in flight during a
        server's graceful shutdown get ids until the grant's ceiling, then
        ``LeaseLostError``. Called once per process on the first SIGTERM/SIGINT (see
        ``snowid.generate._stop``); a backend that must keep its identity until exit
        (file slots, whose lock the kernel drops when the process dies; a static
        identity's guard, which has no ceiling to fence a successor) sets
        ``retires_at_stop = False``. Idempotent.
        """
        if not self.retires_at_stop:
            return
        with self._lock:
            grant = self._grant
            if self._state != "held" or grant is None or self._retired:
                return
            self._retired = True
            self._stop_renewing()
            try:
                self._release(grant)
            finally:
                self._event("release", grant, "at stop: issuing inside the grant until it ends")

    def close(self) -> None:
        """Seal every generator on the lease, release and stop any background renewal;
        acquire then raises.

        The seal comes first and is permanent (a sealed generator raises
        ``GeneratorSealedError``); the release then carries the last millisecond issued
        under the grant, so the next holder may start right after it (see
        ``_release_marked``). Sealing runs before this lease's lock is taken: a generator
        asking for a grant holds its own lock while it waits for this one.
        """
        self._close(-1)

    def _close(self, seal_timeout: float) -> None:
        last = self._sealers.seal_all(seal_timeout)  # idempotent: sealed is for good
        self.ceiling_ms = -1
        with self._lock:
            if self._state == "closed":
                return
            try:
                grant = self._grant
                mark = mark_of(grant, last) if grant is not None else None
                if self._state == "held" and grant is not None and mark is not None:
                    self._release_marked(grant, mark)
                    self._retired = True  # given back: release() below skips the store
                self.release()
            finally:
                self._state = "closed"
                self._close_resources()
                _LIVE.discard(self)

    def __enter__(self) -> Lease:
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

    def _release_marked(self, grant: Grant, mark_ms: int) -> None:
        """Give the identity back with its release mark ``mark_ms`` (every generator on the
        lease is sealed: no id above it was issued under ``grant``). Backends that cannot
        record a mark give it back as ``_release`` does (after ``retire``: not again)."""
        del mark_ms
        if not self._retired:
            self._release(grant)

    def _drop_inherited(self) -> None:
        """In a forked child: forget fds, connections and threads without using them."""

    def _close_resources(self) -> None:
        """After the final release: close files, connections, threads."""

    def _stop_renewing(self) -> None:
        """Before ``retire`` releases: no background renewal may raise the ceiling again."""

    def _say_long_wait(self, worker: int, wait_ms: int) -> None:
        """Log, before waiting, why a claim of ``worker`` waits ``wait_ms`` and what helps."""
        if wait_ms <= LONG_WAIT_MS:
            return
        log.warning(
            "snowid lease %s: claiming worker %d waits %.1f s before its first id: the"
            " identity's last granted time is still ahead (a store created without"
            " --first-deployment quarantines every identity, as does a store repaired after"
            " lost records; a holder that just stopped also leaves its grant to run out)."
            " Remedy: initialise a new store once with `snowid lease init URL"
            " --first-deployment` when no earlier holder can be alive, and claim at"
            " start-up with snowid.warm_up() so that no request waits",
            self.url,
            worker,
            wait_ms / 1000,
        )

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
        self._retired = False
        self._drop_inherited()
        if self._state != "closed":
            self._grant = None
            self._state = "unclaimed"
