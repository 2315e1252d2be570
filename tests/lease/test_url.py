"""Lease URLs: each form opens the right backend, bad ones raise InvalidLeaseUrlError."""

from __future__ import annotations

from pathlib import Path

import pytest

import snowid
from snowid.cli import main
from snowid.errors import (
    InvalidLeaseUrlError,
)
from snowid.lease import ENV_VAR, FileLease, StaticLease, open_lease, resolve_lease_url
from snowid.lease._url import parse_lease_url
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


# --- regression tests from the first wave's reviews (each failed before its fix) ---


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# Adversarial review, finding 4: a bad port in a postgresql: URL -> ValueError traceback from redact() (failed before its fix).
@pytest.mark.parametrize("port", ["abc", "99999"])
def test_bad_port_in_a_postgres_url_is_an_invalid_lease_url(
    capsys: pytest.CaptureFixture[str], port: str
) -> None:
    url = f"postgresql://u:s3cret@127.0.0.1:{port}/db"
    with pytest.raises(InvalidLeaseUrlError):
        open_lease(url)
    code, _, err = run(capsys, "generate", "--lease", url)
    assert code == 1
    assert err.startswith("Error: ")
    assert "s3cret" not in err
    assert port in err
    assert "1..65535" in err


# Adversarial review, finding 5: the password of an unparsable URL is printed (failed before its fix).
def test_unparsable_lease_url_error_does_not_show_the_password() -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease("postgresql://u:s3cret@[::1/db")
    assert "s3cret" not in str(caught.value)
    assert "s3cret" not in caught.value.message("vi")


# Adversarial review, finding 8: a lease option given twice silently takes the last (failed before its fix).
def test_a_lease_option_given_twice_is_an_error() -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        parse_lease_url("file:///nonexistent/snowid-review?range=1-2&range=3-4")
    assert "range" in str(caught.value)
    assert "range" in caught.value.message("vi")


# Adversarial review, finding 9: lease URL numbers accept non-ASCII digits the core rejects (failed before its fix).
@pytest.mark.parametrize("url", ["static://?worker=\u0661", "file://{tmp}?range=\u0661-\u0662"])
def test_lease_url_numbers_are_ascii_digits_only(tmp_path: Path, url: str) -> None:
    with pytest.raises(InvalidLeaseUrlError):
        open_lease(url.format(tmp=tmp_path)).close()


@pytest.mark.parametrize("lang", ["en", "vi"])
@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("   ", '""'),
        ("host=db.example dbname=ids user=app", "host=db.example dbname=ids"),
    ],
)
def test_something_that_is_not_a_url_is_told_what_a_lease_url_looks_like(
    url: str, shown: str, lang: str
) -> None:
    """The regression: "the scheme - is unknown" for a blank URL or a libpq key=value string."""
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(url)
    assert caught.value.reason == "not_a_url"
    message = caught.value.message(lang)
    assert shown in message
    assert "scheme -" not in message
    assert "postgresql://" in message
    assert "file:///" in message


def test_configure_with_an_empty_lease_url_says_what_one_looks_like() -> None:
    with pytest.raises(InvalidLeaseUrlError, match="it is not a lease URL"):
        snowid.configure(lease="")
