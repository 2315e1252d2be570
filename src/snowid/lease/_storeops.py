"""What passes between the store protocol (``_store.StoreLease``) and a backend's store
operations: the store format, the answers of a set-up, a claim and a renewal, the signals
of a store with no lease records and of a store of an older format, the protocol's options, a driver's message as one line,
the ``durability`` option of the stores that can be configured to lose acknowledged writes
(Redis, MySQL), and workers written as ranges."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from snowid._exceptions import StoreNotDurableError

__all__ = [
    "DURABILITY",
    "REPLICATION",
    "STORE_FORMAT",
    "Claimed",
    "Initialised",
    "LostHow",
    "Renewed",
    "StoreMissing",
    "StoreOptions",
    "StoreOutdated",
    "check_durability",
    "first_line",
    "lost_how",
    "outdated_reason",
    "worker_ranges",
]

log = logging.getLogger("snowid.lease")

STORE_FORMAT = 2
"""The store format set-up records in the meta record. Format 2: the store keeps a record
for every worker from set-up on (a ceiling of 0 for a first deployment), so a record found
missing was deleted, never "not used yet": a claim or renewal that finds one missing
rewrites it with its ceiling quarantined. A store with no format recorded (format 1, made
before) or a lower one is *older*: a claim that meets one upgrades it first (``StoreOutdated``;
the upgrade raises every ceiling to at least store-now + the quarantine, since holders of
an older snowid may still issue and never repair a lost record), and a renewal that meets
one writes nothing and drops the lease. A higher format (a newer snowid's) is used as it is."""

DURABILITY = ("strict", "best_effort")
"""``durability=``: strict (the default) refuses a store whose settings can lose
acknowledged writes, before anything else; best_effort accepts it and says so, loudly,
once per process and store."""
_WARNED: set[str] = set()
_WARNED_LOCK = threading.Lock()


class StoreMissing(Exception):  # noqa: N818 - a signal between the protocol and backends
    """Raised by a store operation when the store holds no lease records (never set up,
    or wiped): the first claim of a process sets it up; a holder fails closed, with
    ``reason`` (what the backend found missing) in its error."""

    def __init__(self, reason: str = "the store's meta record is gone") -> None:
        super().__init__(reason)
        self.reason = reason


class StoreOutdated(Exception):  # noqa: N818 - a signal between the protocol and backends
    """Raised by a claim or renewal that meets a store of an older format (see
    STORE_FORMAT), before it writes anything: the claim upgrades the store and claims
    again; the renewal writes no ceiling and gives the lease up (``outdated_reason``)."""


def outdated_reason() -> str:
    """Why a renewal that met a store of an older format dropped its lease."""
    return (
        f"the lease store is older than store format {STORE_FORMAT} (set up by an older"
        " snowid, or its format record removed); no ceiling was written, the lease was given"
        " back, and the next claim upgrades the store, quarantined"
    )


@dataclass(frozen=True, slots=True)
class Initialised:
    """What a set-up did: the store's ``incarnation``; ``created`` (the meta record was
    written now); ``upgraded`` (a store of an older format brought to STORE_FORMAT, every
    ceiling raised to at least store-now + the quarantine); and ``repaired``, the workers
    whose lost records it rewrote with a quarantined ceiling."""

    incarnation: str
    created: bool
    upgraded: bool = False
    repaired: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Claimed:
    """What a successful claim statement or script returns; ``repaired``: the workers in
    range whose lost records the claim found missing and rewrote, quarantined."""

    worker: int
    old_ceiling: int
    ceiling: int
    epoch: int
    incarnation: str
    repaired: tuple[int, ...] = ()
    history: str | None = None
    """The store's history identity the claim was checked against (None: not tracked)."""
    quarantine_until_ms: int | None = None
    """The end of the store's last failover quarantine, if the store recorded one."""


@dataclass(frozen=True, slots=True)
class Renewed:
    """The answer to a renewal: ``ok`` with the ceiling before and after; ``lost`` when
    the compare-and-set failed (owner, epoch or incarnation); ``removed`` when the
    worker's record was found deleted (the backend may have rewritten it, quarantined);
    ``modified`` when its owner or epoch was edited by something other than a claim;
    ``restarted`` when the backend saw the store restart and already dropped the lease
    (``reason`` says why). ``store_ms``: the store's clock when it answered (Unix ms), for
    the stores that read one; None otherwise."""

    status: Literal["ok", "lost", "removed", "modified", "restarted"]
    old_ceiling: int = 0
    ceiling: int = 0
    reason: str = ""
    store_ms: int | None = None


LostHow = Literal["claimed", "removed", "modified", "outdated"]
"""Why a compare-and-set on (worker, owner, epoch) failed, the incarnation unchanged: a
claim took the worker over; its record was deleted (and maybe rewritten since); its owner
or epoch was edited by something other than a claim; the store is of an older format."""


def lost_how(found: tuple[Any, ...], owner: str, epoch: int, acked_ms: int) -> LostHow:
    """Why the compare-and-set of the holder of (``owner``, ``epoch``), whose acknowledged
    ceiling is ``acked_ms``, failed on a SQL store, from what the store holds now:
    ``found`` = (format, owner, epoch, ceiling) of the worker's row (the last three None:
    no row).

    A claim always writes a new owner and a higher epoch, and a repair (a deleted row
    written again) leaves no owner and restarts the epoch from 0 with the ceiling at
    store-now + the quarantine, above anything the holder had acknowledged. So: no row, no
    owner, or another owner at an epoch not above the holder's with a ceiling above its
    acknowledged one, is a removal; another owner at a higher epoch, a takeover; anything
    else (the owner kept, or the epoch kept with the ceiling too) an edit."""
    stored_format, row_owner, row_epoch, row_ceiling = found
    if stored_format is None or int(stored_format) < STORE_FORMAT:
        return "outdated"
    if row_epoch is None or row_owner is None:
        return "removed"
    if row_owner == owner:
        return "modified"
    if int(row_epoch) > epoch:
        return "claimed"
    return "removed" if int(row_ceiling) > acked_ms else "modified"


class StoreOptions(TypedDict, total=False):
    """The protocol's options, the same for every store (``**options`` of a backend)."""

    first: int
    last: int
    ttl: float
    renew: float | None
    span: float | None
    max_skew: float
    timeout: float | None
    claim_wait: float | None


REPLICATION = ("async", "sync")
"""The values of the ``replication`` URL option (PostgreSQL, MariaDB): ``sync`` is checked
at every claim and renewal (StoreNotSynchronousError when it is off) and skips the failover
quarantine; ``async``, the default, assumes nothing."""


def check_durability(
    store: str, kind: str, strict: bool, weak: list[tuple[str, str, str]], risk: str
) -> None:
    """Judge the ``kind`` store ``store`` by ``weak``, its (setting, found, required) for
    each setting that can lose acknowledged writes: strict refuses the first one
    (StoreNotDurableError); best_effort accepts them all and says so, loudly, once per
    process and store (``risk`` names what can lose the writes)."""
    if strict:
        if weak:
            setting, found, required = weak[0]
            raise StoreNotDurableError(store=store, setting=setting, found=found, required=required)
        return
    with _WARNED_LOCK:
        if store in _WARNED:
            return
        _WARNED.add(store)
    log.warning(
        "snowid: the %s lease store %s runs with durability=best_effort (weak settings: %s):"
        " %s can let two processes issue the same ids",
        kind,
        store,
        ", ".join(f"{setting} {found}" for setting, found, _ in weak) or "none seen",
        risk,
    )


def first_line(error: BaseException) -> str:
    """A driver's message as one line (its first), or the error's type if it has none."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def worker_ranges(workers: Iterable[int]) -> str:
    """Workers as short text: runs of consecutive numbers as ``A-B`` (``0-1023``, ``2, 5-7``)."""
    runs: list[list[int]] = []
    for worker in sorted(set(workers)):
        if runs and worker == runs[-1][1] + 1:
            runs[-1][1] = worker
        else:
            runs.append([worker, worker])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
