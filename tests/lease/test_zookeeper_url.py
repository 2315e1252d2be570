"""zookeeper: URLs snowid refuses, and stores it will not use, each with its own error (issue 27)."""

from __future__ import annotations

from pathlib import Path

import pytest

from snowid.cli import main
from snowid.errors import InvalidLeaseUrlError, StoreRefusedError, StoreUnreachableError
from snowid.lease import init_lease, open_lease, url_kind
from snowid.lease.zookeeper import ZookeeperLease
from tests.support.cleanup import Cleanup
from tests.support.servers import new_name
from tests.support.zookeeper import ZkNodes, shared_zookeeper


def test_a_url_names_every_server_and_a_path() -> None:
    lease = open_lease("zookeeper://10.0.0.1:2181,10.0.0.2,[::1]:2182/fleet/ids?range=0-31&ttl=5")
    assert isinstance(lease, ZookeeperLease)
    assert lease.endpoints == [("10.0.0.1", 2181), ("10.0.0.2", 2181), ("::1", 2182)]
    assert lease.keys.meta == "/fleet/ids/meta"
    assert lease.keys.ceiling(7) == "/fleet/ids/ceiling/0007"
    assert (lease.first, lease.last, lease.ttl_ms, lease.session_s) == (0, 31, 5000, 7.5)
    assert url_kind("zookeeper://h/p") == "zookeeper"


@pytest.mark.parametrize(
    "path", ["/a b", "/a//b", "/a/./b", "/a/../b", "/zookeeper/quota", "/" + "x" * 101]
)
def test_a_path_that_is_no_node_path_of_ours_is_refused(path: str) -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(f"zookeeper://127.0.0.1:2181{path}")
    assert caught.value.reason == "key_prefix"


def test_a_password_in_the_url_is_refused_without_showing_it() -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease("zookeeper://app:s3cretpw@127.0.0.1:2181/p")
    assert caught.value.reason == "password_inline"
    assert "s3cretpw" not in str(caught.value)
    assert "password_file=" in str(caught.value)


def test_a_refused_connection_names_the_server_and_says_refused() -> None:
    with (
        open_lease("zookeeper://127.0.0.1:1/p?timeout=1&connect_timeout=1") as lease,
        pytest.raises(StoreUnreachableError) as caught,
    ):
        lease.acquire(0)
    assert "127.0.0.1:1 refused the connection" in caught.value.reason
    assert caught.value.store == "zookeeper://127.0.0.1:1/p"  # the store, its options left out


def test_a_host_that_does_not_resolve_is_named() -> None:
    with (
        open_lease("zookeeper://no-such-host.invalid:2181/p?timeout=1&connect_timeout=1") as lease,
        pytest.raises(StoreUnreachableError) as caught,
    ):
        lease.acquire(0)
    assert "no-such-host.invalid:2181: no such host" in caught.value.reason


def test_the_command_line_says_so_without_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    url = "zookeeper://127.0.0.1:1/p?timeout=1&connect_timeout=1"
    assert main(["lease", "status", url]) != 0
    err = capsys.readouterr().err
    assert "refused the connection" in err
    assert "Traceback" not in err


@pytest.mark.slow
def test_a_path_holding_someone_elses_data_is_refused(session_cleanup: Cleanup) -> None:
    server = shared_zookeeper(session_cleanup)
    path = new_name()
    nodes = ZkNodes(server.port)
    nodes.put(f"{path}/config/app", "{}")
    try:
        with pytest.raises(StoreRefusedError) as caught:
            init_lease(server.url(path))
        assert "someone else's data" in caught.value.reason
        assert f"/{path}/config" in caught.value.reason
        nodes.delete(f"{path}/config", prefix=True)
        nodes.put(f"{path}/meta", "not json")
        with open_lease(server.url(path)) as lease, pytest.raises(StoreRefusedError) as again:
            lease.acquire(0)
        assert "someone else's data" in again.value.reason
    finally:
        nodes.delete(path, prefix=True)
        nodes.close()


@pytest.mark.slow
def test_wrong_credentials_are_refused_naming_password_file(
    session_cleanup: Cleanup, tmp_path: Path
) -> None:
    """Nodes set up by a user with ZooKeeper's digest scheme are that user's alone: another
    password reads nothing and is told where the password comes from (never shown)."""
    server = shared_zookeeper(session_cleanup)
    path = new_name()
    right, wrong = tmp_path / "right", tmp_path / "wrong"
    right.write_text("c0rrect-horse\n")
    wrong.write_text("n0t-it\n")
    base = f"zookeeper://app@127.0.0.1:{server.port}/{path}?range=0-0&timeout=2"
    init_lease(f"{base}&password_file={right}", first_deployment=True)
    try:
        with open_lease(f"{base}&password_file={right}") as lease:
            assert lease.acquire(0).epoch == 1
        with (
            open_lease(f"{base}&password_file={wrong}") as lease,
            pytest.raises(StoreRefusedError) as caught,
        ):
            lease.acquire(0)
        assert "password_file=" in caught.value.reason
        assert "n0t-it" not in str(caught.value)
        with (
            open_lease(f"zookeeper://127.0.0.1:{server.port}/{path}?timeout=2") as anonymous,
            pytest.raises(StoreRefusedError),
        ):
            anonymous.acquire(0)
    finally:
        nodes = ZkNodes(server.port)
        nodes.client.add_auth("digest", "app:c0rrect-horse")
        nodes.delete(path, prefix=True)
        nodes.close()
