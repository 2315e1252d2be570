"""What a test started in its body and left running, stopped when the test ends, pass or
fail, so that a failing test cannot take its neighbours down (a lease still renewing in
its thread, an issuing thread, a worker process, a proxy).

tests/conftest.py takes a ``snapshot()`` before each test's call and, at the start of its
teardown (before the fixtures' own: a store's table is dropped after its holders
stopped), ``stop_since(snapshot)`` stops what the call started and left running:

- leases (``snowid.lease``'s live set): closed, which stops their renewal thread and
  gives their identity back;
- ``holders.Issuer`` threads: halted and joined;
- ``procs.start_worker`` processes: SIGTERM, then SIGKILL;
- ``proxy.TcpProxy`` proxies: closed.

Things a fixture started are its own to stop (a module's server lives on between its
tests); things started in the body but meant to outlive it do not exist.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from snowid.lease import _base as lease_base
from tests.support import holders, procs, proxy
from tests.support.cleanup import stop_process

ISSUER_JOIN_S = 15.0  # a harness wait: an issuer ends within one batch once halted


@dataclass(frozen=True)
class Snapshot:
    """What was running before the test's call (held, so that no id is reused meanwhile)."""

    running: tuple[object, ...]

    @property
    def ids(self) -> frozenset[int]:
        return frozenset(id(obj) for obj in self.running)


def _running() -> list[tuple[str, Any, Callable[[Any], None]]]:
    """(kind, object, how to stop it) for everything the registries know is running."""
    found: list[tuple[str, Any, Callable[[Any], None]]] = []
    found += [("lease", x, _close_lease) for x in list(lease_base._LIVE)]
    found += [("issuer", x, _halt) for x in list(holders.RUNNING) if x.is_alive()]
    found += [("worker process", x, stop_process) for x in list(procs.STARTED) if x.poll() is None]
    found += [("proxy", x, _close_proxy) for x in list(proxy.OPEN)]
    return found


def snapshot() -> Snapshot:
    return Snapshot(tuple(obj for _, obj, _ in _running()))


def stop_since(before: Snapshot) -> list[str]:
    """Stop what started after ``before`` and still runs; what was stopped, described.
    Issuers first (they issue on leases), then leases, workers, proxies; every one is
    tried even when another fails."""
    order = {"issuer": 0, "lease": 1, "worker process": 2, "proxy": 3}
    known = before.ids
    left = [item for item in _running() if id(item[1]) not in known]
    left.sort(key=lambda item: order[item[0]])
    stopped: list[str] = []
    for kind, obj, stop in left:
        description = f"{kind} {obj!r}"
        try:
            stop(obj)
        except Exception as error:  # the rest must still be stopped
            description += f" (stopping it failed: {error!r})"
        stopped.append(description)
    return stopped


def _close_lease(lease: Any) -> None:
    lease.close()


def _halt(issuer: holders.Issuer) -> None:
    issuer.halt.set()
    issuer.join(ISSUER_JOIN_S)


def _close_proxy(tcp: proxy.TcpProxy) -> None:
    tcp.close()
