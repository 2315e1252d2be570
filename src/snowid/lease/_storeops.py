"""What passes between the store protocol (``_store.StoreLease``) and a backend's store
operations: the answers of a claim and a renewal, the signal of a store with no lease
records, the protocol's options, a driver's message as one line, and the ``durability``
option of the stores that can be configured to lose acknowledged writes (Redis, MySQL)."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Literal, TypedDict

from snowid._exceptions import StoreNotDurableError

__all__ = [
    "DURABILITY",
    "Claimed",
    "Renewed",
    "StoreMissing",
    "StoreOptions",
    "check_durability",
    "first_line",
]

log = logging.getLogger("snowid.lease")

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


@dataclass(frozen=True, slots=True)
class Claimed:
    """What a successful claim statement or script returns."""

    worker: int
    old_ceiling: int
    ceiling: int
    epoch: int
    incarnation: str


@dataclass(frozen=True, slots=True)
class Renewed:
    """The answer to a renewal: ``ok`` with the ceiling before and after; ``lost`` when
    the compare-and-set failed (owner, epoch or incarnation); ``restarted`` when the
    backend saw the store restart and already dropped the lease (``reason`` says why)."""

    status: Literal["ok", "lost", "restarted"]
    old_ceiling: int = 0
    ceiling: int = 0
    reason: str = ""


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
