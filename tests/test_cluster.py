"""tests/support/cluster.py on a real one: a Redis primary and two replicas, each behind its
proxy, the replicas linked to the primary through its proxy. One member is killed, frozen or
cut off at a time; the rest go on; and the one cleanup path leaves nothing behind."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import redis

from tests.support import procnet
from tests.support.cleanup import Cleanup
from tests.support.cluster import Cluster
from tests.support.holders import wait_until
from tests.support.redis import redis_replicas
from tests.support.servers import RedisServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

SYNC_S = 20  # a harness wait: replicas catch up in well under a second when idle


def _via_proxy(cluster: Cluster[RedisServer], index: int, timeout: float = 5) -> redis.Redis:
    return redis.Redis(
        port=cluster.port(index), socket_timeout=timeout, decode_responses=True, retry=None
    )


def _synced(cluster: Cluster[RedisServer], index: int) -> bool:
    info = cluster[index].client().info("replication")
    return bool(info.get("master_link_status") == "up")


@pytest.fixture
def replicas(cleanup: Cleanup) -> Cluster[RedisServer]:
    cluster = redis_replicas(3, cleanup)
    for index in (1, 2):
        wait_until(lambda index=index: _synced(cluster, index), SYNC_S, "a replica to sync")
    return cluster


def test_members_reach_each_other_and_clients_only_through_the_proxies(
    replicas: Cluster[RedisServer],
) -> None:
    """Each replica's primary is the primary's proxy port; a write through it reaches both."""
    for index in (1, 2):
        info = replicas[index].client().info("replication")
        assert info["master_port"] == replicas.port(0) != replicas[0].port
    _via_proxy(replicas, 0).set("k", "v1")
    for index in (1, 2):
        wait_until(lambda i=index: _via_proxy(replicas, i).get("k") == "v1", SYNC_S, "the write")


def test_a_partitioned_member_neither_hears_nor_is_heard_until_healed(
    replicas: Cluster[RedisServer],
) -> None:
    """Replica 1 cut off: clients time out on it, the primary's writes reach replica 2 and
    not replica 1 (held, not lost); healed, replica 1 catches up on the same link."""
    replicas.partition(1)
    with pytest.raises(redis.TimeoutError):
        _via_proxy(replicas, 1, timeout=1).ping()
    _via_proxy(replicas, 0).set("k", "during")
    wait_until(lambda: replicas[2].client().get("k") == "during", SYNC_S, "replica 2")
    # Read behind the proxy: the member runs, only its links are cut. Replica 2 has had
    # the write, and the same bytes to replica 1 are held in its link's proxy.
    assert replicas[1].client().get("k") is None
    replicas.heal()
    wait_until(lambda: _via_proxy(replicas, 1).get("k") == "during", SYNC_S, "replica 1")
    assert _synced(replicas, 1)


def test_a_member_cut_from_its_peers_only_still_answers_its_clients(
    replicas: Cluster[RedisServer],
) -> None:
    """``clients=False``: the replica serves reads through its proxy (stale ones) while
    its link to the primary carries nothing."""
    _via_proxy(replicas, 0).set("k", "before")
    wait_until(lambda: replicas[1].client().get("k") == "before", SYNC_S, "replica 1")
    replicas.partition(1, clients=False)
    _via_proxy(replicas, 0).set("k", "after")
    wait_until(lambda: replicas[2].client().get("k") == "after", SYNC_S, "replica 2")
    assert _via_proxy(replicas, 1).get("k") == "before"
    replicas.heal()
    wait_until(lambda: _via_proxy(replicas, 1).get("k") == "after", SYNC_S, "replica 1")


def test_a_killed_member_refuses_and_restarts_on_its_data(
    replicas: Cluster[RedisServer],
) -> None:
    """Replica 2 killed: its proxy has nothing behind it (the connection is reset) while
    the others answer; started again, it resyncs and has what was written meanwhile."""
    pid = replicas[2].pid
    replicas.kill(2)
    assert not replicas[2].running
    assert not Path(f"/proc/{pid}").exists()
    with pytest.raises(redis.ConnectionError):
        _via_proxy(replicas, 2).ping()
    _via_proxy(replicas, 0).set("k", "while-down")
    replicas.start(2)
    wait_until(lambda: _via_proxy(replicas, 2).get("k") == "while-down", SYNC_S, "replica 2")


def test_a_paused_member_times_out_and_resumes(replicas: Cluster[RedisServer]) -> None:
    replicas.pause(1)
    try:
        with pytest.raises(redis.TimeoutError):
            _via_proxy(replicas, 1, timeout=1).ping()
        assert _via_proxy(replicas, 2).ping()
    finally:
        replicas.resume(1)
    assert _via_proxy(replicas, 1).ping()


def test_the_cleanup_ends_every_member_and_proxy_even_when_the_test_failed() -> None:
    """A failure in the middle: the ``with Cleanup()`` block (the cleanup fixture's
    teardown) still ends every server process, removes its directory and closes every
    proxy port."""
    seen: dict[str, list[int] | list[Path]] = {}

    def failing_test() -> None:
        with Cleanup() as cleanup:
            cluster = redis_replicas(3, cleanup)
            cluster.partition(1)
            # A primary forks a short-lived child to send a replica its first copy, so a
            # member may run more than one process: every member runs at least its server.
            assert all(member.pids() for member in cluster.members)
            seen["pids"] = [pid for member in cluster.members for pid in member.pids()]
            seen["dirs"] = [member.root for member in cluster.members]
            seen["ports"] = [cluster.port(i) for i in range(3)]
            raise RuntimeError("the test failed")

    with pytest.raises(RuntimeError, match="the test failed"):
        failing_test()
    assert len(seen["pids"]) >= 3
    for pid in seen["pids"]:
        assert not procnet.alive(pid), pid
    for root in seen["dirs"]:
        assert isinstance(root, Path)
        assert not root.exists()
    for port in seen["ports"]:
        assert isinstance(port, int)
        with (
            pytest.raises(ConnectionRefusedError),
            socket.create_connection(("127.0.0.1", port), 5),
        ):
            pass
