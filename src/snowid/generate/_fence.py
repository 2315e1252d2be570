"""The contract between the generator and whatever bounds it (a fixed ceiling, a lease).

A *grant* lets a generator embed timestamps ``start_ms <= t <= ceiling_ms`` under one
worker identity. The generator checks ``t <= fence.ceiling_ms`` on its hot path (one
attribute read) and calls ``fence.acquire`` only when that fails: at first use, when
time reaches the ceiling, after a lease is lost (the lease layer sets ``ceiling_ms``
to -1) and in a forked child.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = ["Fence", "Grant"]


@dataclass(frozen=True, slots=True)
class Grant:
    """One grant of a worker identity over an interval of id timestamps (Unix ms, inclusive).

    ``epoch`` tells grants of the same identity apart: a generator that sees a grant
    with another (datacenter, machine, epoch) than its last starts afresh at
    ``start_ms``.
    """

    datacenter: int
    machine: int
    start_ms: int
    ceiling_ms: int
    epoch: int = 0


@runtime_checkable
class Fence(Protocol):
    """What bounds a generator. Implemented by fixed ceilings and by every lease backend."""

    ceiling_ms: int
    """Hot-path bound: the generator issues ``t`` only while ``t <= ceiling_ms``.
    Set to -1 to force the generator through ``acquire`` (lease lost, fork)."""

    def acquire(self, needed_ms: int) -> Grant:
        """Slow path, called under the generator's lock when ``needed_ms > ceiling_ms``.

        Returns the grant to issue under now: the same one, one with a higher ceiling
        (after an acknowledged renewal), or a new identity. It may block for a bounded
        time. If the returned ceiling is still below ``needed_ms``, the generator waits
        (bounded) or raises CeilingReachedError; it never issues past the ceiling.
        Raises a LeaseError when no grant can be had.
        """
        ...

    async def aacquire(self, needed_ms: int) -> Grant:
        """``acquire`` for asyncio callers; must not block the event loop for long."""
        ...


# Reprs, docs and pickles name the public path (snowid.Grant), however the class was
# reached: snowid/__init__ imports this module only on first use.
Grant.__module__ = Fence.__module__ = "snowid"
