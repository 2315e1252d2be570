"""etcd: URLs snowid refuses, and stores it will not use, each with its own error (issue 27)."""

from __future__ import annotations

import pytest

from snowid.errors import InvalidLeaseUrlError, StoreRefusedError, StoreUnreachableError
from snowid.lease import init_lease, open_lease, url_kind
from snowid.lease.etcd import EtcdLease
from tests.support.cleanup import Cleanup
from tests.support.etcd import EtcdKv, shared_etcd
from tests.support.servers import new_name


def test_a_url_names_every_member_and_a_prefix() -> None:
    lease = open_lease("etcd://10.0.0.1:2379,10.0.0.2,[::1]:2380/fleet/ids?range=0-31&ttl=5")
    assert isinstance(lease, EtcdLease)
    assert lease.endpoints == [("10.0.0.1", 2379), ("10.0.0.2", 2379), ("::1", 2380)]
    assert lease.keys.meta == "fleet/ids/meta"
    assert (lease.first, lease.last, lease.etcd_ttl) == (0, 31, 5)
    assert url_kind("etcd://h/p") == "etcd"


@pytest.mark.parametrize("path", ["/a b", "/a//b", "/" + "x" * 101, "/a/../b!"])
def test_a_path_that_is_no_key_prefix_is_refused(path: str) -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(f"etcd://127.0.0.1:2379{path}")
    assert caught.value.reason == "key_prefix"


def test_a_password_in_the_url_is_refused_without_showing_it() -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease("etcd://root:s3cretpw@127.0.0.1:2379/p")
    assert caught.value.reason == "password_inline"
    assert "s3cretpw" not in str(caught.value)
    assert "password_file=" in str(caught.value)


def test_a_refused_connection_names_the_member() -> None:
    with (
        open_lease("etcd://127.0.0.1:1/p?timeout=1") as lease,
        pytest.raises(StoreUnreachableError) as caught,
    ):
        lease.acquire(0)
    assert "127.0.0.1:1" in caught.value.reason


@pytest.mark.slow
def test_a_prefix_holding_someone_elses_data_is_refused(session_cleanup: Cleanup) -> None:
    server = shared_etcd(session_cleanup)
    prefix = new_name()
    EtcdKv(server.port).put(f"{prefix}/config/app", "{}")
    try:
        with pytest.raises(StoreRefusedError) as caught:
            init_lease(server.url(prefix))
        assert "someone else's data" in caught.value.reason
        EtcdKv(server.port).put(f"{prefix}/meta", "not json")
        with open_lease(server.url(prefix)) as lease, pytest.raises(StoreRefusedError):
            lease.acquire(0)
    finally:
        EtcdKv(server.port).delete(f"{prefix}/", prefix=True)
