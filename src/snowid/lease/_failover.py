"""A store that failed over or went back in time (docs/leases.md, "A store that failed over").

A store with replicas or backups has a *history identity* that a promotion or a restore
changes and nothing else does: PostgreSQL's system identifier and timeline, Redis's
replication id. The store records the one it last granted under (``history`` in its meta
record) and a holder the one it claimed under; every claim and renewal compares them with
the server's, in the same statement or script, so no grant is ever made on a history it
was not checked against. What passes between the protocol (``_store.StoreLease``) and a
backend for it is here:

- ``HistoryChanged``: a claim met a store whose recorded history is not the server's;
  the protocol asks the backend to quarantine it (``_store_quarantine``) and claims again;
- ``Quarantine``: what a quarantine did, or what the store says of the last one (for
  ``snowid lease status``): the history before and after, when, and until when every
  ceiling was raised.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from snowid._isotime import iso_ms

__all__ = ["HistoryChanged", "Quarantine", "describe", "from_row", "quarantined"]


class HistoryChanged(Exception):  # noqa: N818 - a signal between the protocol and backends
    """Raised by a claim that found the store's recorded history (``seen``) is not the
    server's (``found``), before it claimed anything."""

    def __init__(self, seen: str, found: str) -> None:
        super().__init__(f"{seen} -> {found}")
        self.seen, self.found = seen, found


@dataclass(frozen=True, slots=True)
class Quarantine:
    """The store's last failover or rollback, as recorded in it: the history identity
    before (``seen``) and after (``found``), when it was detected (``at_ms``, the store's
    clock) and the time every ceiling was raised to (``until_ms``): no claim starts before
    it. ``done_here``: this call raised the ceilings (another process may have first)."""

    seen: str
    found: str
    at_ms: int
    until_ms: int
    done_here: bool = False


def describe(quarantine: Quarantine, now_ms: int) -> str:
    """One line for logs and ``snowid lease status``."""
    at, until = iso_ms(quarantine.at_ms) or "?", iso_ms(quarantine.until_ms) or "?"
    ends = "ended" if now_ms >= quarantine.until_ms else "ends"
    return (
        f"the store failed over or went back in time at {at} (history {quarantine.seen} ->"
        f" {quarantine.found}); every ceiling was raised to {quarantine.until_ms}: the"
        f" quarantine {ends} at {until}"
    )


def from_row(row: Sequence[Any], *, done_here: bool = False) -> Quarantine:
    """A Quarantine from a SQL store's row of (seen, found, at_ms, until_ms)."""
    seen, found, at_ms, until_ms = row
    return Quarantine(str(seen), str(found), int(at_ms), int(until_ms), done_here)


def quarantined(
    row: Sequence[Any] | None, last: Callable[[], Quarantine | None], seen: str, found: str
) -> Quarantine:
    """What a SQL store's quarantine statement answered: its ``row`` when it raised the
    ceilings (None or a NULL ``seen``: another process did first), else the store's
    ``last()`` quarantine; HistoryChanged(``seen``, ``found``) again if none is recorded
    (cannot be: the history differed, and nobody recorded a change)."""
    if row is not None and row[0] is not None:
        return from_row(row, done_here=True)
    done = last()
    if done is None:
        raise HistoryChanged(seen, found)
    return done
