"""Clean hand-over: seal every generator on a lease, then say where the next holder starts.

A lease that is closed cleanly knows the last millisecond issued under its grant, once
nothing can issue any more. ``Sealers`` keeps the seal of every generator attached to a
lease (``Lease.attach_generator``); ``seal_all`` stops them for good, each under its own
lock, and returns the highest millisecond any of them may have embedded. ``mark_of``
turns that into the *release mark* a store records in the release's own compare-and-set:
never below the grant's start - 1 (the previous holder's ceiling), never above the
grant's ceiling. The next claim of that worker then starts at mark + 1 instead of the
ceiling + 1, while the store's record is still that grant's release (docs/leases.md,
"Clean hand-over").

A mark is only given when the lease knows every issuer: at least one attached generator
and no grant ever handed out through the public ``acquire`` (code of its own issuing
under the grant, which no seal can stop). Otherwise the release carries no mark and the
next holder waits out the grant, as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from snowid.generate import Grant

__all__ = ["Sealers", "mark_of"]

Seal = Callable[[float], "int | None"]
"""``seal(timeout)`` stops one generator for good; the highest millisecond it may have
embedded (-1: none), or None when its lock was not had within ``timeout`` s."""


class Sealers:
    """The seals of the generators attached to one lease, and whether the lease can vouch
    for every id issued under its grants."""

    def __init__(self) -> None:
        self._seals: list[Seal] = []
        self._guard = threading.Lock()  # never held while a seal runs
        self.sealed = False
        """Set once, before the first seal runs: no grant is handed out afterwards."""
        self.foreign = False
        """A grant was handed out through the public ``acquire``: no mark, ever."""

    def attach(self, seal: Seal) -> bool:
        """Keep ``seal``; False (and it is sealed at once) when the lease is sealed already."""
        with self._guard:
            if not self.sealed:
                self._seals.append(seal)
                return True
        seal(-1)
        return False

    def seal_all(self, timeout: float = -1) -> int | None:
        """Seal every attached generator (permanent); the highest millisecond any of them
        may have embedded, or None when no mark may be given (see the module, and: a
        generator whose lock was not had within ``timeout`` s, -1 waiting as long as it
        takes; a signal handler may have interrupted its holder)."""
        with self._guard:
            self.sealed = True
            seals = list(self._seals)
        lasts = [seal(timeout) for seal in seals]
        if self.foreign or not lasts or None in lasts:
            return None
        return max(last for last in lasts if last is not None)


def mark_of(grant: Grant, last_ms: int | None) -> int | None:
    """The release mark of ``grant`` when its generators' highest millisecond is
    ``last_ms``: clamped to [start - 1, ceiling]; None when there is none to give."""
    if last_ms is None:
        return None
    return max(grant.start_ms - 1, min(grant.ceiling_ms, last_ms))
