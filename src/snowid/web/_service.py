"""The id source of one server process: a generator bound to a lease, made lazily.

``snowid serve --workers N`` starts N processes that each build the app; nothing is
claimed at import, so each process claims its own identity on startup (or on first
use when the store was unreachable then). A process that finds itself forked
(another pid) drops what it inherited and builds anew.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from snowid import Generator, GeneratorStats, Grant
from snowid._exceptions import GeneratorError, LeaseError, SnowIdError
from snowid.lease import StaticLease

if TYPE_CHECKING:
    from snowid.lease import Lease

__all__ = ["Factory", "IdService", "Snapshot"]

_NO_STATS = GeneratorStats(0, 0, 0, 0, 0, 0, 0)


Factory = Callable[[], "tuple[Generator, Lease | None]"]
"""Builds this process's generator and the lease behind it (None for a fixed identity)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What /healthz and /metrics report about this process."""

    ready: bool
    lease_url: str
    lease_state: str
    grant: Grant | None
    ceiling_ms: int | None
    datacenter: int | None = None
    machine: int | None = None
    stats: GeneratorStats = _NO_STATS
    last_error: str = ""
    pid: int = field(default_factory=os.getpid)
    clock_offset_ms: int | None = None
    """This host's clock minus the lease store's (None: no store clock, or not measured)."""
    max_skew_ms: int | None = None
    """The lease's tolerance for that offset (None: no store clock)."""
    renewals: int | None = None
    """Acknowledged claims and renewals of a store lease (None: not a store lease)."""
    renew_failures: int | None = None
    """Renewals of a store lease that got no answer (None: not a store lease)."""
    failovers: int | None = None
    """Failovers and rollbacks of the store detected (None: not a store lease)."""
    quarantine_until_ms: int | None = None
    """The end of the last failover quarantine met, Unix ms, 0: none (None: not a store lease)."""


def default_factory(lease_url: str | None, clock_back: str | None = None) -> Factory:
    """Generator(fence=open_lease(url), clock_back=...): the lease decides the identity."""

    def build() -> tuple[Generator, Lease | None]:
        from snowid.lease import open_lease

        lease = open_lease(lease_url)
        try:
            return Generator(fence=lease, clock_back=clock_back), lease
        except BaseException:
            lease.close()
            raise

    return build


class IdService:
    """Holds this process's generator and lease; builds them on first need.

    ``factory`` returns a ``snowid.Generator`` and the ``snowid.lease.Lease`` it issues
    under (None for a fixed identity). Pass one to ``create_app(service=IdService(...))``
    to serve a generator of your own, as the tests do.
    """

    def __init__(self, factory: Factory) -> None:
        self._factory = factory
        self._lock = threading.Lock()
        self._pid = -1
        self._source: Generator | None = None
        self._lease: Lease | None = None
        self._last_error: SnowIdError | None = None
        self.draining = False
        self.release_error: LeaseError | None = None
        """Set when the process starts to stop (``snowid.web._drain``): not ready any more,
        while ids are still issued to the requests that keep coming until the socket closes."""

    def _ensure(self) -> Generator:
        source = self._source
        if source is not None and self._pid == os.getpid():
            return source
        with self._lock:
            if self._source is None or self._pid != os.getpid():
                # A forked child must not touch the parent's lease: just forget it.
                self._source, self._lease = self._factory()
                self._pid = os.getpid()
            return self._source

    async def ids(self, count: int) -> list[int]:
        """``count`` fresh ids; raises GeneratorError/LeaseError when it cannot issue safely."""
        try:
            ids = await self._ensure().anext_ids(count)
        except SnowIdError as error:
            self._last_error = error
            raise
        if self._last_error is not None:
            self._last_error = None
        return ids

    async def start(self) -> Snapshot:
        """Claim an identity now (one id is drawn and dropped) so the start log names it."""
        # Not ready is not fatal: readiness says so, and /api/ids retries and answers 503.
        with contextlib.suppress(LeaseError, GeneratorError):
            await self.ids(1)
        return self.snapshot()

    def snapshot(self) -> Snapshot:
        source, lease = self._source, self._lease
        grant = lease.grant if lease is not None else None
        if lease is None:
            ready = source is not None and self._last_error is None
            state = "static" if source is not None else "unclaimed"
            url, ceiling = "", None
        else:
            ready = lease.state == "held"
            # An identity the operator chose is held for good: say so, not "held".
            state = "static" if ready and isinstance(lease, StaticLease) else lease.state
            url, ceiling = lease.url, lease.ceiling_ms
        ready = ready and not self.draining
        datacenter: int | None
        machine: int | None
        if grant is not None:
            datacenter, machine = grant.datacenter, grant.machine
        else:  # a fixed identity: the generator knows it
            datacenter = source.datacenter if source is not None else None
            machine = source.machine if source is not None else None
        error = self._last_error
        counts = lease.renewal_counts if lease is not None else None
        # getattr: a lease-like fence of the application's own may not have it
        failover: tuple[int, int] | None = getattr(lease, "failover_state", None)
        return Snapshot(
            ready=ready,
            lease_url=url,
            lease_state=state,
            grant=grant,
            ceiling_ms=ceiling,
            datacenter=datacenter,
            machine=machine,
            stats=source.stats if source is not None else _NO_STATS,
            last_error=error.code if error is not None else "",
            clock_offset_ms=lease.clock_offset_ms if lease is not None else None,
            max_skew_ms=lease.clock_tolerance_ms if lease is not None else None,
            renewals=counts[0] if counts is not None else None,
            renew_failures=counts[1] if counts is not None else None,
            failovers=failover[0] if failover is not None else None,
            quarantine_until_ms=failover[1] if failover is not None else None,
        )

    def close(self) -> None:
        """Give the identity back; ``release_error`` then says if the store did not take it."""
        lease, self._lease, self._source = self._lease, None, None
        if lease is not None and self._pid == os.getpid():
            lease.close()
            self.release_error = lease.release_error
