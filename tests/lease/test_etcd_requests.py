"""etcd: what a lease sends, checked on a member of the test's own or the session's one
(issue 27): a kept-alive connection a member closed is not used, and a failed claim does
not spend a compare-and-swap on a worker taken since its read."""

from __future__ import annotations

from typing import Any

import pytest

from snowid.lease import init_lease, open_lease
from snowid.lease.etcd import EtcdLease
from tests.support.cleanup import Cleanup
from tests.support.etcd import EtcdKv, etcd_server, shared_etcd
from tests.support.servers import new_name

pytestmark = pytest.mark.slow


def test_a_member_restarted_between_two_requests_is_reached_again() -> None:
    """The kept-alive connection to a member that restarted is found closed before a
    request goes out on it, and a new one is opened: no error, even with one member."""
    with etcd_server() as server:
        url = server.url("restarted?range=0-3&ttl=60")  # no renewal meanwhile
        init_lease(url, first_deployment=True)
        with open_lease(url) as lease:
            lease.acquire(0)
            server.stop()
            server.start()
            server.wait_ready()
            assert [(s.worker, s.held) for s in lease.status()] == [(0, True)]


def test_a_failed_claim_skips_the_workers_taken_since_its_read(
    session_cleanup: Cleanup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Right after the claim's read, every worker but the last it would try is taken (a
    ``held`` key written from outside). The first compare-and-swap fails; its answer says
    which of the others are held now, so the second one goes to the free worker: two
    compare-and-swaps, not four."""
    server = shared_etcd(session_cleanup)
    prefix = new_name()
    url = server.url(f"{prefix}?range=0-3")
    init_lease(url, first_deployment=True)
    outside = EtcdKv(server.port)
    try:
        with open_lease(url) as lease:
            assert isinstance(lease, EtcdLease)
            read, txn = lease._claim_view, lease._txn
            swaps: list[int] = []
            left_free: list[int] = []

            def view_then_taken(caller_ms: int) -> Any:
                found = read(caller_ms)
                order = list(found[3])
                for worker in order[:-1]:
                    outside.put(lease.keys.held(worker), '{"owner": "rival"}')
                left_free[:] = order[-1:]
                return found

            def counted(compare: list[Any], success: list[Any], *rest: Any) -> Any:
                if any("request_put" in op for op in success):
                    swaps.append(len(swaps))
                return txn(compare, success, *rest)

            monkeypatch.setattr(lease, "_claim_view", view_then_taken)
            monkeypatch.setattr(lease, "_txn", counted)
            grant = lease.acquire(0)
            assert len(swaps) == 2
            assert [grant.datacenter * 32 + grant.machine] == left_free
    finally:
        outside.delete(f"{prefix}/", prefix=True)
