"""No secret is kept where tooling looks (issue 16 §4).

For every store, with the server answering (a wrong password, a bad database, a missing
permission) and with nothing listening (127.0.0.1:1), and for URLs that cannot be read,
the snowid error is caught and every exception of its chain (``__cause__``,
``__context__``), its ``args``, its attributes and their reprs are searched for the
password (a marker): it is nowhere, and the chain ends at snowid's error, which carries
the driver's class name and scrubbed message instead.

Also here, on the same password-asking PostgreSQL cluster: libpq's ``passfile=`` and
``PGPASSFILE`` work for a lease URL without a password.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from snowid.errors import InvalidLeaseUrlError, SnowIdError, StoreUnreachableError
from snowid.lease import init_lease, open_lease
from tests.support.mysql import SHARED_DB, require_shared
from tests.support.pg import PG
from tests.support.redis import redis_server
from tests.support.secrets import MARKER, assert_clean, leaks, scram_cluster
from tests.support.servers import PgCluster, new_name

M = MARKER


def failure(url: str) -> SnowIdError:
    """The error of opening ``url`` and claiming an identity once."""
    with pytest.raises(SnowIdError) as caught, open_lease(url) as lease:
        lease.acquire(0)
    return caught.value


# --- URLs that cannot be read ---------------------------------------------------------------

UNREADABLE = [
    f"static://u:{M}@1/2",
    f"static://1/2?token={M}",
    f"file://u:{M}@otherhost/tmp/x",
    f"file:///tmp/x?range=0-0&password={M}",
    f"k8s://u:{M}@h/?ordinal_env=A-B",
    f"redis://:{M}@[::1/0",
    f"redis://:{M}@127.0.0.1:99999/0",
    f"redis://:{M}@h/0?durability=maybe",
    f"redis://:pa/{M}@h/0",
    f"redis://:{M}@h/0?password_file=/run/pw",
    f"postgresql://u:{M}@h/db?ttl=abc",
    f"postgresql://u:{M}@h:x/db",
    f"postgresql://u@h/db?password={M}&ttl=-1",
    f"mysql://u:{M}@h:3306/",
    f"mariadb://u:{M}@h/db?table=Bad'",
]


@pytest.mark.parametrize("url", UNREADABLE)
def test_a_url_that_cannot_be_read_keeps_no_secret(url: str) -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(url)
    assert_clean(caught.value)


def test_a_url_snowid_cannot_read_is_refused_in_its_own_words() -> None:
    """Issue 24 §4: urllib no longer reads lease URLs (its ``ValueError`` and its words,
    "Invalid IPv6 URL", were kept here before); snowid's one reader finds the bracket that
    does not close, and there is no other library's exception to keep."""
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(f"redis://:{M}@[::1/0")
    error = caught.value
    assert (error.reason, error.driver_class, error.driver_message) == ("syntax", "", "")
    assert "put an IPv6 address in [brackets]" in str(error)


def test_the_walk_finds_what_raise_from_none_keeps() -> None:
    """The check can fail: ``raise … from None`` inside the handler keeps ``__context__``."""

    def translate() -> None:
        try:
            int(f"u:{M}@1")
        except ValueError:
            raise KeyError("x") from None

    with pytest.raises(KeyError) as caught:
        translate()
    assert leaks(caught.value) != []


# --- stores without a server: file, static and k8s --------------------------------------------


def test_a_state_dir_that_cannot_be_used_keeps_no_os_error(tmp_path: Path) -> None:
    """file: and static:?state_dir= wrapped the OSError as the cause."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for url in (f"file://{blocker}?range=0-0", f"static://1/2?state_dir={blocker}"):
        error = failure(url)
        assert_clean(error)
        assert getattr(error, "driver_class", "")  # the OSError's class, by name


def test_a_pod_without_an_ordinal_keeps_no_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SNOWID_ORDINAL_TEST", raising=False)
    assert_clean(failure("k8s:?ordinal_env=SNOWID_ORDINAL_TEST"))


def test_the_other_wraps_of_an_os_error_keep_no_chain(tmp_path: Path) -> None:
    """The token file of ``snowid serve``, its listening address, a slot entry that is not
    a file: each replaces an OSError, which is not kept."""
    from snowid.cli._serve import _reserve
    from snowid.lease._fs import open_slot
    from snowid.web._auth import read_tokens

    calls = (
        lambda: read_tokens(str(tmp_path / "no-tokens")),
        lambda: _reserve("no-such-host.invalid", 1, "en"),
        lambda: open_slot(str(tmp_path)),
    )
    for call in calls:
        with pytest.raises(SnowIdError) as caught:
            call()
        assert_clean(caught.value)


# --- Redis ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_redis_down_keeps_no_secret() -> None:
    error = failure(f"redis://:{M}@127.0.0.1:1/0?range=0-0&connect_timeout=1")
    assert isinstance(error, StoreUnreachableError)
    assert_clean(error)
    assert error.driver_class == "ConnectionError"
    assert "Connection refused" in error.driver_message


@pytest.mark.slow
def test_redis_up_keeps_no_secret(tmp_path: Path) -> None:
    """A wrong password (in the URL, in a password_file), and the right one for a user
    that may not read the server's settings."""
    with redis_server(tmp_path / "r", {"requirepass": "the-right-one"}) as srv:
        srv.client().execute_command("ACL", "SETUSER", "weak", "on", f">{M}", "~*", "+@all")
        srv.client().execute_command("ACL", "SETUSER", "weak", "-config")
        pw = tmp_path / "pw"
        pw.write_text(M + "\n")
        base = f"127.0.0.1:{srv.port}/0?range=0-0&key={new_name()}"
        for url in (
            f"redis://:{M}@{base}",
            f"redis://{base}&password_file={pw}",
            f"redis://weak:{M}@{base}",
        ):
            error = failure(url)
            assert_clean(error)
            assert getattr(error, "driver_class", "")


# --- PostgreSQL -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scram() -> Iterator[PgCluster]:
    """The password-asking cluster: role ``app`` (password MARKER, no right to create
    tables) and role ``owner`` (password ``owner-pw``, owns database ``leases``)."""
    with scram_cluster() as cluster:
        cluster.sql(f"CREATE ROLE app LOGIN PASSWORD '{M}'")
        cluster.sql("CREATE ROLE owner LOGIN PASSWORD 'owner-pw'")
        cluster.sql("CREATE DATABASE leases OWNER owner")
        yield cluster


@pytest.mark.slow
def test_postgresql_down_keeps_no_secret() -> None:
    for url in (
        f"postgresql://u:{M}@127.0.0.1:1/db?range=0-0",
        f"postgresql://u@127.0.0.1:1/db?range=0-0&password={M}",
    ):
        error = failure(url)
        assert isinstance(error, StoreUnreachableError)
        assert_clean(error)
        assert error.driver_class == "OperationalError"


@pytest.mark.slow
def test_postgresql_up_keeps_no_secret(scram: PgCluster) -> None:
    """A database that does not exist (the shared server, which trusts), a wrong
    password, and the right password of a role that may not create the lease table (an
    error raised by a statement, whose driver exception holds the connection)."""
    shared = PG.replace("postgres@", f"postgres:{M}@").rsplit("/", 1)[0]
    port = scram.port
    for url in (
        f"{shared}/nodb_{new_name()}?range=0-0",
        f"postgresql://owner:{M}@127.0.0.1:{port}/leases?range=0-0",
        f"postgresql://app:{M}@127.0.0.1:{port}/leases?range=0-0&table={new_name()}",
    ):
        error = failure(url)
        assert_clean(error)
        assert getattr(error, "driver_class", "")


@pytest.mark.slow
def test_libpq_passfile_and_pgpassfile_give_the_password(
    scram: PgCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lease URL without a password signs in with libpq's password file, named by
    ``passfile=`` in the URL or by PGPASSFILE; without either it is refused."""
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"127.0.0.1:{scram.port}:leases:owner:owner-pw\n")
    passfile.chmod(0o600)  # libpq ignores a file others may read
    base = f"postgresql://owner@127.0.0.1:{scram.port}/leases?range=0-0&ttl=1&timeout=2"
    monkeypatch.delenv("PGPASSFILE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.pgpass of the machine's
    with pytest.raises(StoreUnreachableError, match="password"):
        init_lease(f"{base}&table={new_name()}", first_deployment=True)
    table = new_name()
    init_lease(f"{base}&table={table}&passfile={passfile}", first_deployment=True)
    with open_lease(f"{base}&table={table}&passfile={passfile}") as lease:
        assert lease.acquire(0).ceiling_ms > 0
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    with open_lease(f"{base}&table={table}") as lease:
        assert lease.acquire(0).ceiling_ms > 0
    assert os.environ["PGPASSFILE"] == str(passfile)


@pytest.mark.slow
def test_sql_apply_keeps_no_secret(scram: PgCluster) -> None:
    """``snowid sql postgres --apply``: a server that is down, and a wrong password."""
    from snowid.integrations.sql import apply_postgres

    for url in (
        f"postgresql://u:{M}@127.0.0.1:1/db",
        f"postgresql://owner:{M}@127.0.0.1:{scram.port}/leases",
    ):
        with pytest.raises(SnowIdError) as caught:
            apply_postgres(url, ["SELECT 1"])
        assert_clean(caught.value)
        assert getattr(caught.value, "driver_class", "") == "OperationalError"


# --- MySQL / MariaDB --------------------------------------------------------------------------


@pytest.fixture
def weak_user() -> Iterator[str]:
    """A fresh user on the shared MariaDB whose password is MARKER and who may use no
    database (dropped after); its name."""
    require_shared()
    user = f"w_{new_name()}"[:32]
    SHARED_DB.sql(f"CREATE USER '{user}'@'%' IDENTIFIED BY '{M}'")
    try:
        yield user
    finally:
        SHARED_DB.sql(f"DROP USER IF EXISTS '{user}'@'%'")


@pytest.mark.slow
def test_mysql_down_keeps_no_secret() -> None:
    error = failure(f"mysql://u:{M}@127.0.0.1:1/db?range=0-0&connect_timeout=1")
    assert isinstance(error, StoreUnreachableError)
    assert_clean(error)
    assert error.driver_class == "OperationalError"


@pytest.mark.slow
def test_mysql_up_keeps_no_secret(weak_user: str, tmp_path: Path) -> None:
    """A wrong password (in the URL, in a password_file), a database that does not exist,
    and the right password of a user without rights on the database."""
    pw = tmp_path / "pw"
    pw.write_text(M + "\n")
    server = "127.0.0.1:3306"
    for url in (
        f"mysql://root:{M}@{server}/test?range=0-0",
        f"mysql://root@{server}/test?range=0-0&password_file={pw}",
        f"mysql://{weak_user}:{M}@{server}/nodb_{new_name()}?range=0-0",
        f"mysql://{weak_user}:{M}@{server}/test?range=0-0",
    ):
        error = failure(url)
        assert_clean(error)
        assert getattr(error, "driver_class", "")
