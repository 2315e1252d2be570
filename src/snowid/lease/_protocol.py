"""The interface every worker-identity lease backend offers."""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from snowid._fence import Fence, Grant

LeaseState = Literal["unclaimed", "held", "lost", "closed"]


@runtime_checkable
class Lease(Fence, Protocol):
    """A Fence that also holds a worker identity, claimed lazily on the first ``acquire``."""

    @property
    def url(self) -> str:
        """Where the lease lives, without any password."""
        ...

    @property
    def state(self) -> LeaseState: ...

    @property
    def grant(self) -> Grant | None:
        """The grant held now, or None while unclaimed, lost or closed."""
        ...

    def release(self) -> None:
        """Give the identity back (its ceiling stays); the next acquire claims again."""
        ...

    def close(self) -> None:
        """Release and stop any background renewal; acquire then raises."""
        ...

    def __enter__(self) -> Lease: ...

    def __exit__(self, *exc_info: object) -> None: ...
