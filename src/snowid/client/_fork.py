"""Fork safety: a child process must never hand out an id its parent holds.

Every client registers here; ``os.register_at_fork`` runs ``after_fork()`` on each one
in the child, right after ``os.fork()`` (``multiprocessing``'s fork start method too).
Each client then forgets its batches, its connection and its refill thread or task: the
child fetches batches of its own, so parent and child never share a buffered id.
"""

from __future__ import annotations

import os
import weakref
from typing import Protocol

__all__ = ["track"]


class _Forkable(Protocol):
    def after_fork(self) -> None: ...


_live: weakref.WeakSet[_Forkable] = weakref.WeakSet()


def track(client: _Forkable) -> None:
    """Have ``client.after_fork()`` run in every child forked while it lives."""
    _live.add(client)


def _in_child() -> None:
    for client in list(_live):
        client.after_fork()


os.register_at_fork(after_in_child=_in_child)
