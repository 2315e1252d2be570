"""Waiting on sockets with one ``poll()`` call, for the lease stores' own connections.

``poll_select`` answers as ``select.select`` does in the way kazoo's ``selector_select``
keeps it (any descriptor number, unlike ``select()``; a descriptor ready both ways, or hung
up, reported readable if it was asked for reading, and with every object asked about it,
as kazoo does; a closed one ValueError; ``xlist`` ignored), without making and closing a selector at each call: the ZooKeeper session's
handler waits with it (``_zkconn``), and the etcd gateway checks with it whether a
kept-alive connection was closed while idle (``_etcdgw``). ``HAVE_POLL`` says whether the
platform has ``poll()`` (not Windows).
"""

from __future__ import annotations

import math
import select
from collections.abc import Sequence
from typing import Any

__all__ = ["HAVE_POLL", "poll_select"]

HAVE_POLL = hasattr(select, "poll")


def poll_select(
    rlist: Sequence[Any], wlist: Sequence[Any], xlist: Sequence[Any], timeout: float | None = None
) -> tuple[list[Any], list[Any], list[Any]]:
    """The objects of ``rlist`` ready to read and of ``wlist`` ready to write, waiting up
    to ``timeout`` seconds (None: for ever); see the module."""
    if timeout is not None and not isinstance(timeout, int | float):
        raise TypeError("timeout must be a number")
    if timeout is not None and timeout < 0:
        raise ValueError("timeout must be non-negative")
    wanted: dict[int, tuple[int, list[Any]]] = {}
    for objects, event in ((rlist, select.POLLIN), (wlist, select.POLLOUT)):
        for obj in objects:
            fd = obj if isinstance(obj, int) else obj.fileno()
            if fd < 0:
                raise ValueError("Invalid event mask or fd")
            events, same = wanted.get(fd, (0, []))
            wanted[fd] = (events | event, [*same, obj])
    poller = select.poll()
    for fd, (events, _) in wanted.items():
        poller.register(fd, events)
    readable: list[Any] = []
    writable: list[Any] = []
    for fd, happened in poller.poll(None if timeout is None else math.ceil(timeout * 1000)):
        if happened & select.POLLNVAL:
            raise ValueError("Invalid event mask or fd")
        events, objects = wanted[fd]
        ended = happened & (select.POLLHUP | select.POLLERR)
        if events & select.POLLIN and (happened & select.POLLIN or ended):
            readable += objects
        elif events & select.POLLOUT and (happened & select.POLLOUT or ended):
            writable += objects
    return readable, writable, []
