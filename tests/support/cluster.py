"""Several servers of a test's own that talk to each other (replicas, a consensus ensemble),
each behind proxies, with one member at a time killed, frozen or cut off, and one cleanup.

- A **member** is any server of tests/support/servers.py's face (``start``, ``stop``,
  ``crash``, ``pause``, ``resume``, ``close``, ``running``) that also says which ports it
  listens on by role (``ports``: ``{"client": 6379}``, or a consensus engine's
  ``{"client": …, "peer": …}``) and which processes it runs (``pids()``).
- ``Cluster(size, make, cleanup)`` builds member ``i`` with ``make(i, net)``, then puts a
  ``TcpProxy`` in front of each of its ports. Members and clients reach each other only
  through those proxies: ``net.port(j, role)`` is what member ``i`` is configured to dial
  (a replica's primary, an ensemble's peers), ``cluster.port(j)`` what a lease URL names.
  ``net.port(j)`` answers for ``j < i`` while the members are built and for every ``j``
  once they are (in ``start``).
- Faults, one member at a time: ``kill(i)`` (SIGKILL or the engine's immediate stop) and
  ``start(i)`` again on the same data; ``pause(i)`` / ``resume(i)`` (SIGSTOP); and
  ``partition(i)``: member ``i`` neither reaches nor is reached by the others (nor, unless
  ``clients=False``, by clients), as a network cut looks to TCP: connections stay open and
  carry nothing until ``heal()``, and then what was held flows in order. Which side of a
  connection is which member is read from /proc (tests/support/procnet.py).
- One cleanup path: the cluster registers its ``close`` (heal, proxies closed, every member
  closed, each step even if another fails) with the ``Cleanup`` it is given: under pytest
  the ``cleanup`` or ``session_cleanup`` fixture, in ``bench/`` a ``with Cleanup()`` block.

Nothing here needs pytest. ``tests/support/redis.py``'s ``redis_replicas`` is one such
cluster (a primary and its replicas); etcd, ZooKeeper and the PostgreSQL and MariaDB
replicas are meant to be members beside it.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Mapping
from typing import Generic, Protocol, TypeVar

from tests.support import procnet
from tests.support.cleanup import Cleanup
from tests.support.proxy import TcpProxy


class Member(Protocol):
    """What a cluster needs of each server (tests/support/servers.OwnServer has it)."""

    @property
    def ports(self) -> Mapping[str, int]: ...

    @property
    def running(self) -> bool: ...

    def pids(self) -> set[int]: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def crash(self) -> None: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    def close(self) -> None: ...


M = TypeVar("M", bound=Member)


class Net:
    """The addresses members are configured with: the proxies' ports, not their own."""

    def __init__(self) -> None:
        self._proxies: list[dict[str, TcpProxy]] = []

    def port(self, index: int, role: str = "client") -> int:
        """The port that reaches member ``index``'s ``role`` port through its proxy."""
        if index >= len(self._proxies):
            raise LookupError(
                f"member {index} is not built yet: while building, ask only for members below"
                " the one being built (every member is known when it starts)"
            )
        return self._proxies[index][role].port

    def __len__(self) -> int:
        return len(self._proxies)


class Cluster(Generic[M]):
    """``size`` members made by ``make(i, net)``, each behind its proxies; see the module
    docstring. Started at once unless ``start=False``; ``parallel`` starts the members side
    by side (an ensemble whose first member waits for a quorum), else in order."""

    def __init__(
        self,
        size: int,
        make: Callable[[int, Net], M],
        cleanup: Cleanup,
        *,
        start: bool = True,
        parallel: bool = False,
    ) -> None:
        self.net = Net()
        self.members: list[M] = []
        self._cut: set[tuple[int | None, int]] = set()  # (from: member or None, to: member)
        self._closed = False
        cleanup.add(self.close, f"a cluster of {size}")
        for index in range(size):
            member = make(index, self.net)
            self.members.append(member)
            proxies = {role: TcpProxy("127.0.0.1", port) for role, port in member.ports.items()}
            self.net._proxies.append(proxies)
        if start:
            self.start(parallel=parallel)

    def __len__(self) -> int:
        return len(self.members)

    def __getitem__(self, index: int) -> M:
        return self.members[index]

    def port(self, index: int, role: str = "client") -> int:
        """Where a client reaches member ``index`` (through its proxy)."""
        return self.net.port(index, role)

    def proxies(self, index: int) -> Mapping[str, TcpProxy]:
        return self.net._proxies[index]

    # --- start, kill, freeze ----------------------------------------------------------------

    def start(self, index: int | None = None, *, parallel: bool = False) -> None:
        """Start member ``index`` (again, on its data), or every member not running."""
        if index is not None:
            self.members[index].start()
            return
        waiting = [m for m in self.members if not m.running]
        if not parallel:
            for member in waiting:
                member.start()
            return
        with concurrent.futures.ThreadPoolExecutor(len(waiting) or 1) as pool:
            for future in [pool.submit(member.start) for member in waiting]:
                future.result()

    def kill(self, index: int) -> None:
        """End member ``index`` at once (what it made durable survives)."""
        self.members[index].crash()

    def stop(self, index: int) -> None:
        """Stop member ``index`` cleanly."""
        self.members[index].stop()

    def pause(self, index: int) -> None:
        self.members[index].pause()

    def resume(self, index: int) -> None:
        self.members[index].resume()

    # --- partitions -------------------------------------------------------------------------

    def partition(self, index: int, *, clients: bool = True) -> None:
        """Cut member ``index`` off from every other member, both ways (and from clients,
        unless ``clients=False``: a member its clients still reach but its peers do not)."""
        others = [j for j in range(len(self.members)) if j != index]
        self._cut |= {(index, j) for j in others} | {(j, index) for j in others}
        if clients:
            self._cut.add((None, index))
        self._apply()

    def heal(self) -> None:
        """End every partition: held bytes flow again."""
        self._cut.clear()
        self._apply()

    def _apply(self) -> None:
        for target, proxies in enumerate(self.net._proxies):
            sources = {source for source, to in self._cut if to == target}
            for proxy in proxies.values():
                proxy.hold(self._rule(proxy.port, sources) if sources else None)

    def _rule(self, proxy_port: int, sources: set[int | None]) -> Callable[[int], bool]:
        """Whether a connection to ``proxy_port`` from a client port comes from ``sources``
        (member indexes; None: from no member, a client of the test's own)."""

        def held(client_port: int) -> bool:
            candidates = {
                i: m.pids() for i, m in enumerate(self.members) if i in sources and m.running
            }
            source = procnet.owner(client_port, proxy_port, candidates)
            if source is not None:
                return True
            return None in sources and not self._from_a_member(client_port, proxy_port)

        return held

    def _from_a_member(self, client_port: int, proxy_port: int) -> bool:
        every = {i: m.pids() for i, m in enumerate(self.members) if m.running}
        return procnet.owner(client_port, proxy_port, every) is not None

    # --- the one cleanup path -----------------------------------------------------------------

    def close(self) -> None:
        """Heal, close every proxy and every member (each even if another one fails);
        the first error is raised after all of them ran."""
        if self._closed:
            return
        self._closed = True
        with Cleanup() as steps:
            for member in self.members:
                steps.add(member.close, f"member {type(member).__name__}")
            for proxies in self.net._proxies:
                for proxy in proxies.values():
                    steps.add(proxy.close, f"proxy on {proxy.port}")
            steps.add(self._cut.clear)
