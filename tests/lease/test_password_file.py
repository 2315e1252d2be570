"""Passwords kept off command lines: ``password_file=PATH`` in Redis and MySQL/MariaDB
lease URLs (read as ``--auth-token-file`` is: one password, the trailing line break
dropped), and libpq's ``passfile=`` / ``PGPASSFILE`` for PostgreSQL.

A file that cannot be used is an error naming the option and the path, never anything
of its content; a password given both in the URL and in a file is refused.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snowid.errors import InvalidLeaseUrlError, PasswordFileEmptyError, PasswordFileError
from snowid.lease import init_lease, open_lease
from tests.support.mysql import SHARED_DB, require_shared
from tests.support.redis import redis_server
from tests.support.servers import new_name

SCHEMES = (
    "redis://127.0.0.1:1/0",
    "mysql://app@127.0.0.1:1/db",
    "redis+sentinel://127.0.0.1:1/s/0",
)


def _password(url: str) -> Any:
    lease: Any = open_lease(url)
    return lease.connection.get("password")


@pytest.mark.parametrize("base", SCHEMES)
@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"pa ss:w@rd\n", "pa ss:w@rd"),  # the line break an editor or `echo` adds
        (b"pa ss:w@rd\r\n", "pa ss:w@rd"),
        (b"pa ss:w@rd", "pa ss:w@rd"),
        (b"  spaced  \n", "  spaced  "),  # only line breaks go: a password may hold spaces
        ("mật-khẩu\n".encode(), "mật-khẩu"),
    ],
)
def test_the_password_comes_from_the_file(
    tmp_path: Path, base: str, content: bytes, expected: str
) -> None:
    path = tmp_path / "pw"
    path.write_bytes(content)
    assert _password(f"{base}?range=0-0&password_file={path}") == expected


@pytest.mark.parametrize("base", SCHEMES)
def test_without_password_file_the_url_password_is_used(base: str) -> None:
    url = base.replace("//", "//u:in%2Furl@").replace("app@", "")
    assert _password(f"{url}?range=0-0") == "in/url"


def _refusal(tmp_path: Path, base: str, path: Path) -> PasswordFileError:
    with pytest.raises(PasswordFileError) as caught:
        open_lease(f"{base}?range=0-0&password_file={path}")
    error = caught.value
    for text in (str(error), error.message("vi")):
        assert "password_file" in text
        assert str(path) in text
    assert error.value == str(path)
    assert error.__cause__ is None
    assert error.__context__ is None
    return error


@pytest.mark.parametrize("base", SCHEMES)
def test_a_missing_file_is_named_with_the_reason(tmp_path: Path, base: str) -> None:
    error = _refusal(tmp_path, base, tmp_path / "nowhere")
    assert type(error) is PasswordFileError
    assert error.reason == "No such file or directory"
    assert error.driver_class == "FileNotFoundError"


@pytest.mark.parametrize("base", SCHEMES)
def test_a_directory_is_refused(tmp_path: Path, base: str) -> None:
    error = _refusal(tmp_path, base, tmp_path)
    assert error.reason == "Is a directory"


@pytest.mark.parametrize("base", SCHEMES)
def test_a_path_through_a_file_is_refused(tmp_path: Path, base: str) -> None:
    (tmp_path / "file").write_text("x\n")
    error = _refusal(tmp_path, base, tmp_path / "file" / "pw")
    assert error.reason == "Not a directory"


@pytest.mark.parametrize("base", SCHEMES)
def test_a_fifo_or_a_device_is_refused_without_blocking(tmp_path: Path, base: str) -> None:
    """Opening a FIFO for reading waits for a writer: the file is opened non-blocking and
    anything but a regular file is refused."""
    fifo = tmp_path / "pw"
    os.mkfifo(fifo)
    assert _refusal(tmp_path, base, fifo).reason == "not a regular file"
    with pytest.raises(PasswordFileError) as caught:
        open_lease(f"{base}?range=0-0&password_file=/dev/null")
    assert caught.value.reason == "not a regular file"


@pytest.mark.parametrize("base", SCHEMES)
@pytest.mark.parametrize("content", [b"", b"\n", b"\r\n\n"])
def test_an_empty_file_is_refused(tmp_path: Path, base: str, content: bytes) -> None:
    path = tmp_path / "pw"
    path.write_bytes(content)
    error = _refusal(tmp_path, base, path)
    assert isinstance(error, PasswordFileEmptyError)
    assert "empty" in str(error)


def test_an_unreadable_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "pw"
    path.write_text("secret-content\n")
    path.chmod(0)
    if os.geteuid() == 0:  # root reads any file: the OS's refusal is played instead
        real_open = os.open

        def refuse(name: str, flags: int, *args: int) -> int:
            if name == str(path):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), name)
            return real_open(name, flags, *args)

        monkeypatch.setattr(os, "open", refuse)
    error = _refusal(tmp_path, SCHEMES[0], path)
    assert error.reason == "Permission denied"
    assert error.driver_class == "PermissionError"


@pytest.mark.parametrize("base", SCHEMES)
def test_a_file_that_is_not_text_says_so_without_its_content(tmp_path: Path, base: str) -> None:
    """The decoder's error quotes the bytes it could not read: it is not kept anywhere."""
    path = tmp_path / "pw"
    path.write_bytes(b"\xffSECRET-CONTENT\n")
    error = _refusal(tmp_path, base, path)
    assert error.reason == "not UTF-8 text"
    assert "SECRET-CONTENT" not in repr(vars(error)) + repr(error.args) + str(error)


@pytest.mark.parametrize("base", SCHEMES)
def test_a_password_in_the_url_and_a_file_is_refused(tmp_path: Path, base: str) -> None:
    path = tmp_path / "pw"
    path.write_text("from-file\n")
    url = base.replace("//", "//u:in-url@").replace("app@", "")
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(f"{url}?range=0-0&password_file={path}")
    assert caught.value.reason == "password_twice"
    assert "in-url" not in str(caught.value)
    assert "from-file" not in str(caught.value)


def test_postgresql_points_to_libpq_passfile() -> None:
    """libpq would refuse ``password_file`` in words the scrubber hides; snowid names it
    and what PostgreSQL uses instead."""
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease("postgresql://app@127.0.0.1:1/db?range=0-0&password_file=/run/pw")
    assert caught.value.reason == "unknown_option"
    assert "password_file" in str(caught.value)
    assert caught.value.suggestion == "passfile"
    assert "did you mean passfile?" in str(caught.value)


# --- against servers that ask for a password ------------------------------------------------


@pytest.mark.slow
def test_redis_authenticates_with_the_file(tmp_path: Path) -> None:
    with redis_server(tmp_path / "r", {"requirepass": "file-pw-1"}) as srv:
        path = tmp_path / "pw"
        path.write_text("file-pw-1\n")
        url = srv.url(f"key={new_name()}&range=0-0&ttl=1&timeout=2&password_file={path}")
        init_lease(url, first_deployment=True)
        with open_lease(url) as lease:
            assert lease.acquire(0).ceiling_ms > 0


@pytest.fixture
def maria_user() -> Iterator[str]:
    """A fresh user with a password on the shared MariaDB (dropped after); its password."""
    require_shared()
    user, password = f"pw_{new_name()}"[:32], f"pw-{new_name()}"
    SHARED_DB.sql(f"CREATE USER '{user}'@'%' IDENTIFIED BY '{password}'")
    try:
        SHARED_DB.sql(f"GRANT ALL ON test.* TO '{user}'@'%'")
        yield f"{user}:{password}"
    finally:
        SHARED_DB.sql(f"DROP USER IF EXISTS '{user}'@'%'")


@pytest.mark.slow
def test_mysql_authenticates_with_the_file(tmp_path: Path, maria_user: str) -> None:
    user, password = maria_user.split(":")
    path = tmp_path / "pw"
    path.write_text(password + "\n")
    table = new_name()
    url = f"mysql://{user}@127.0.0.1:3306/test?table={table}&range=0-0&ttl=1&timeout=2&password_file={path}"
    try:
        init_lease(url, first_deployment=True)
        with open_lease(url) as lease:
            assert lease.acquire(0).ceiling_ms > 0
    finally:
        SHARED_DB.sql(f"DROP TABLE IF EXISTS {table}, {table}_meta")
