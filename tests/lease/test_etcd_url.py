"""etcd: URLs snowid refuses, and stores it will not use, each with its own error (issue 27)."""

from __future__ import annotations

from pathlib import Path

import pytest

from snowid.errors import InvalidLeaseUrlError, StoreRefusedError, StoreUnreachableError
from snowid.lease import init_lease, open_lease, url_kind
from snowid.lease.etcd import EtcdLease
from tests.support.cleanup import Cleanup
from tests.support.etcd import EtcdKv, etcd_server, etcdctl, shared_etcd
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


@pytest.mark.slow
def test_credentials_on_a_cluster_with_authentication_on(tmp_path: Path) -> None:
    """etcd's own authentication: the right password claims (the token goes with every
    request); a wrong one, an unknown user and no user at all are each refused with what to
    set, and the password is in no message."""
    password, wrong = tmp_path / "password", tmp_path / "wrong"
    password.write_text("r00tPw-x\n")
    wrong.write_text("not-it-9\n")
    with etcd_server() as server:
        endpoint = f"http://127.0.0.1:{server.port}"
        etcdctl("--endpoints", endpoint, "user", "add", "root", "--interactive=false",
                "--new-user-password=r00tPw-x")  # fmt: skip
        etcdctl("--endpoints", endpoint, "auth", "enable")
        good = f"etcd://root@127.0.0.1:{server.port}/fleet?range=0-3&password_file={password}"
        init_lease(good, first_deployment=True)
        with open_lease(good) as lease:
            assert lease.acquire(0).epoch == 1
        refusals = {
            "root@": ("etcd refused the user and password", wrong),
            "nobody@": ("etcd refused the user and password", wrong),
            "": ("the cluster has authentication on", None),
        }
        for user, (expected, file) in refusals.items():
            query = f"range=0-3&password_file={file}" if file else "range=0-3"
            with (
                open_lease(f"etcd://{user}127.0.0.1:{server.port}/fleet?{query}") as lease,
                pytest.raises(StoreRefusedError) as caught,
            ):
                lease.acquire(0)
            assert expected in caught.value.reason, user
            shown = f"{caught.value} {caught.value.driver_message}"
            assert "r00tPw-x" not in shown
            assert "not-it-9" not in shown
