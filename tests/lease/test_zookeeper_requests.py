"""ZooKeeper: what a claim reads, checked on the session's server (issue 27): in a large
range, a claim whose random draw finds a free worker lists no names, and a record missing
anywhere in the range still sends the claim the way that repairs it."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from snowid.lease.zookeeper import ZookeeperLease
from tests.support.stores import Store, ZookeeperStore, store

__all__ = ["store"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.slow, pytest.mark.parametrize("store", ["zookeeper"], indirect=True)]
"""Each test: a fresh path on the session's server, set up as a first deployment, wiped after."""


def _listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths whose children any kazoo client lists from now on."""
    from kazoo.client import KazooClient

    listed: list[str] = []
    real = KazooClient.get_children_async

    def counted(self: Any, path: str, *args: Any, **kwargs: Any) -> Any:
        listed.append(path)
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(KazooClient, "get_children_async", counted)
    return listed


def test_a_claim_in_a_large_range_with_free_workers_lists_no_names(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1,024 workers, all free: the claim reads a few drawn at random (and how many
    records there are) and claims one of them, without listing the 1,024 names of the
    records or of the held nodes; a second claim, with one worker held, neither."""
    listed = _listings(monkeypatch)
    with store.open("range=0-1023&ttl=60") as first, store.open("range=0-1023&ttl=60") as second:
        assert isinstance(first, ZookeeperLease)
        one, two = first.acquire(0), second.acquire(0)
        assert (one.datacenter, one.machine) != (two.datacenter, two.machine)
    assert listed == []


def test_a_record_missing_outside_the_draw_is_repaired_by_the_claim(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """One record of 1,024 deleted (worker 500): the ``ceiling`` node has a child fewer,
    so the claim lists the names and writes that record again, quarantined (logged),
    whichever workers it drew; worker 500 is never read as never used."""
    assert isinstance(store, ZookeeperStore)
    record = f"{store.prefix}/ceiling/0500"
    store.kv.delete(record)
    caplog.set_level(logging.WARNING, logger="snowid.lease")
    with store.open("range=0-1023&ttl=60") as lease:
        lease.acquire(0)
    repaired = [r.getMessage() for r in caplog.records if "had lost the lease" in r.getMessage()]
    assert len(repaired) == 1, repaired
    assert "workers 500 (1 in all)" in repaired[0]
    assert store.kv.get(record) is not None
