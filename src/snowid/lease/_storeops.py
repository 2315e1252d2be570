"""What passes between the store protocol (``_store.StoreLease``) and a backend's store
operations: the answers of a claim and a renewal, the signal of a store with no lease
records, and the protocol's options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypedDict

__all__ = ["Claimed", "Renewed", "StoreMissing", "StoreOptions"]


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
