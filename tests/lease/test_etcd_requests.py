"""etcd: what a lease sends, checked on a member of the test's own or the session's one
(issue 27): a kept-alive connection a member closed is not used, and a failed claim does
not spend a compare-and-swap on a worker taken since its read."""

from __future__ import annotations

from typing import Any

import pytest

from snowid.lease import init_lease, open_lease
from snowid.lease._etcdkv import decode
from snowid.lease.etcd import EtcdLease
from tests.support.etcd import etcd_server
from tests.support.stores import EtcdStore, Store, store

__all__ = ["store"]  # the fixture, imported for pytest

pytestmark = pytest.mark.slow
ON_ETCD = pytest.mark.parametrize("store", ["etcd"], indirect=True)
"""A fresh prefix on the session's member, set up as a first deployment, wiped after."""


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


@ON_ETCD
def test_a_failed_claim_skips_the_workers_taken_since_its_read(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Right after the claim's read, every worker but the last it would try is taken (a
    ``held`` key written from outside). The first compare-and-swap fails; its answer says
    which of the others are held now, so the second one goes to the free worker: two
    compare-and-swaps, not four."""
    assert isinstance(store, EtcdStore)
    with store.open("range=0-3") as lease:
        assert isinstance(lease, EtcdLease)
        read, txn = lease._claim_view, lease._txn
        swaps: list[int] = []
        left_free: list[int] = []

        def view_then_taken(caller_ms: int) -> Any:
            found = read(caller_ms)
            order = list(found[3])
            for worker in order[:-1]:
                store.kv.put(lease.keys.held(worker), '{"owner": "rival"}')
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


@ON_ETCD
def test_a_claim_in_a_large_range_reads_its_sample_as_two_key_ranges(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1,024 workers, all free: the claim's one read asks for the meta key, the records'
    count, and the records and ``held`` keys of 8 consecutive workers as two key ranges
    (four operations, not eighteen: a member's cost grows with them), then claims one of
    those 8; over 20 claims the samples start at different places."""
    reads: list[list[Any]] = []
    for _ in range(20):
        with store.open("range=0-1023&ttl=60") as lease:
            assert isinstance(lease, EtcdLease)

            def recorded(
                compare: list[Any], success: list[Any], *rest: Any, txn: Any = lease._txn
            ) -> Any:
                if not compare:
                    reads.append(success)
                return txn(compare, success, *rest)

            monkeypatch.setattr(lease, "_txn", recorded)
            grant = lease.acquire(0)
            first = reads[-1]
            assert len(first) == 4
            low = int(decode(first[2]["request_range"]["key"])[-4:])
            high = int(decode(first[2]["request_range"]["range_end"])[-4:])
            assert high - low == 8
            assert low <= grant.datacenter * 32 + grant.machine < high
    starts = {decode(read[2]["request_range"]["key"]) for read in reads}
    assert len(starts) > 1
