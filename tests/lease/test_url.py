"""Lease URLs: each form opens the right backend, bad ones raise InvalidLeaseUrlError."""

from __future__ import annotations

from pathlib import Path

import pytest

from snowid.errors import InvalidLeaseUrlError
from snowid.lease import ENV_VAR, FileLease, StaticLease, open_lease, resolve_lease_url
from snowid.lease.postgres import PostgresLease


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("static://1/2", (1, 2)),
        ("static:?datacenter=3&machine=31", (3, 31)),
        ("static:?worker=34", (1, 2)),
        ("STATIC://0/0", (0, 0)),
    ],
)
def test_static_forms_name_one_identity(url: str, expected: tuple[int, int]) -> None:
    lease = open_lease(url)
    assert isinstance(lease, StaticLease)
    assert (lease.datacenter, lease.machine) == expected
    grant = lease.acquire(0)
    assert (grant.datacenter, grant.machine) == expected
    lease.close()


@pytest.mark.parametrize(
    "url",
    [
        "static:",
        "static://32/0",
        "static://a/b",
        "static:?worker=1024",
        "static://1/2?colour=red",
        "mongodb://127.0.0.1",
        "redis://127.0.0.1/0?durability=maybe",
        "file:///tmp/x?range=5-3",
        "file:///tmp/x?range=0-1024",
        "file:///tmp/x?rnage=0-7",
        "file://otherhost/tmp/x",
        "file:///tmp/x?delta=abc",
        "postgresql://h/db?ttl=-1",
        "postgresql://h/db?table=Robert';drop",
        "file:///tmp/x?range=1-2&range=3-4",
        "static:?worker=\u0661",
        "static://\u0661/\u0662",
        "file:///tmp/x?range=\u0661-\u0662",
        "postgresql://u:pw@h:abc/db",
        "postgresql://u:pw@h:99999/db",
        "postgresql://u:pw@[::1/db",
    ],
)
def test_bad_urls_raise_invalid_lease_url(url: str) -> None:
    with pytest.raises(InvalidLeaseUrlError):
        open_lease(url)


def test_file_url_range_and_datacenter(tmp_path: Path) -> None:
    lease = open_lease(f"file://{tmp_path}?range=64-127")
    assert isinstance(lease, FileLease)
    assert (lease.first, lease.last, lease.state_dir) == (64, 127, tmp_path)
    by_dc = open_lease(f"file://{tmp_path}?datacenter=3")
    assert isinstance(by_dc, FileLease)
    assert (by_dc.first, by_dc.last) == (96, 127)


def test_keyword_options_override_the_query(tmp_path: Path) -> None:
    lease = open_lease(f"file://{tmp_path}?range=0-3", range=(8, 9), delta=0.2)
    assert isinstance(lease, FileLease)
    assert (lease.first, lease.last, lease.delta_ms) == (8, 9, 200)


def test_url_resolution_argument_then_env_then_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "static://1/1")
    assert resolve_lease_url("static://2/2") == "static://2/2"
    assert resolve_lease_url(None) == "static://1/1"
    monkeypatch.delenv(ENV_VAR)
    assert resolve_lease_url(None) == "file:"


def test_default_is_host_slots_in_the_user_state_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    lease = open_lease()
    assert isinstance(lease, FileLease)
    assert lease.state_dir == tmp_path / "snowid"
    assert (lease.first, lease.last) == (0, 1023)


def test_postgres_url_keeps_libpq_params_and_hides_the_password() -> None:
    lease = open_lease("postgresql://u:secret@127.0.0.1:5432/db?sslmode=disable&ttl=2&range=3-4")
    assert isinstance(lease, PostgresLease)
    assert "secret" not in lease.url
    assert "sslmode=disable" in lease.conninfo
    assert "ttl" not in lease.conninfo
    assert (lease.first, lease.last, lease.ttl_ms, lease.renew_ms) == (3, 4, 2000, 667)
    lease.close()


@pytest.mark.parametrize(
    ("url", "conninfo"),
    [
        ("postgresql:///test", "postgresql:///test"),
        (
            "postgresql:///test?ttl=2&host=/var/run/postgresql",
            "postgresql:///test?host=%2Fvar%2Frun%2Fpostgresql",
        ),
        (
            "postgres://postgres@/test?host=/var/run/postgresql",
            "postgres://postgres@/test?host=%2Fvar%2Frun%2Fpostgresql",
        ),
        ("postgresql://h1:5432,h2/test?range=0-3", "postgresql://h1:5432,h2/test"),
    ],
)
def test_libpq_gets_the_url_as_written_without_our_options(url: str, conninfo: str) -> None:
    """Issue 8 item 11: ``postgresql:///db`` (libpq's Unix socket) became ``postgresql:/db``."""
    lease = open_lease(url)
    assert isinstance(lease, PostgresLease)
    assert lease.conninfo == conninfo
    lease.close()
