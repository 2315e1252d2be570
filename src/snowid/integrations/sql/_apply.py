"""Installing the SQL: on a server, PostgreSQL (psycopg) or MySQL/MariaDB (PyMySQL), or
into a DuckDB database file (the ``duckdb`` package).

Errors show the URL's display form (``snowid.lease.redact``: never a user or password):
``InvalidDatabaseUrlError`` (a URL of another kind), ``DatabaseUnreachableError``,
``DatabaseRefusedError`` and ``ExtraMissingError`` (no driver). On PostgreSQL the
statements run in one transaction, so a refusal changes nothing; MySQL commits each
``CREATE FUNCTION`` by itself, so a refusal may leave the functions before it (running
the same command again replaces them).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from snowid._exceptions import ExtraMissingError, PasswordFileError, detached
from snowid.integrations.sql._exceptions import (
    DatabaseRefusedError,
    DatabaseUnreachableError,
    InvalidDatabaseUrlError,
)
from snowid.lease import driver_detail, redact, scrub

__all__ = ["apply_duckdb", "apply_mysql", "apply_postgres", "connect_postgres", "reason_of"]

_CONNECT_TIMEOUT_S = 5
_MYSQL_SCHEMES = ("mysql", "mariadb")


@detached()
def connect_postgres(url: str, field: str = "--apply") -> Any:
    """A psycopg connection to the PostgreSQL database at ``url`` (``field`` names the
    option that gave it): InvalidDatabaseUrlError for a URL of another kind,
    ExtraMissingError without psycopg, DatabaseUnreachableError when it cannot connect."""
    text = str(url)
    if not text.startswith(("postgresql://", "postgres://")):
        raise InvalidDatabaseUrlError(value=redact(text), field=field)
    try:
        import psycopg
    except ImportError:
        raise ExtraMissingError(
            feature=f"snowid sql postgres {field}", package="psycopg", extra="postgres"
        ) from None
    try:
        return psycopg.connect(text, connect_timeout=_CONNECT_TIMEOUT_S)
    except (psycopg.Error, ValueError) as error:  # ValueError: a URL libpq cannot parse
        raise DatabaseUnreachableError(
            url=redact(text), reason=reason_of(error, text), **driver_detail(error, text)
        ) from None


@detached()
def apply_postgres(url: str, statements: Sequence[str]) -> None:
    """Run ``statements`` in one transaction on the PostgreSQL database at ``url``."""
    text = str(url)
    shown = redact(text)
    conn = connect_postgres(text)
    import psycopg  # there: connect_postgres has used it

    try:
        with conn.transaction():
            for statement in statements:
                conn.execute(statement)
    except psycopg.Error as error:
        raise DatabaseRefusedError(
            url=shown, reason=reason_of(error, text), **driver_detail(error, text)
        ) from None
    finally:
        conn.close()


@detached()
def apply_mysql(url: str, statements: Sequence[str]) -> None:
    """Run ``statements`` one by one on the MySQL or MariaDB database at ``url``
    (``mysql://USER@HOST:PORT/DATABASE``, ``mariadb://`` too; the password in
    ``?password_file=PATH`` or, less safely, in the URL)."""
    text = str(url)
    shown = redact(text)
    options = _mysql_options(text, shown)
    try:
        import pymysql
    except ImportError:
        raise ExtraMissingError(
            feature="snowid sql mysql --apply", package="pymysql", extra="mysql"
        ) from None
    try:
        conn: Any = pymysql.connect(
            **options, connect_timeout=_CONNECT_TIMEOUT_S, autocommit=True, charset="utf8mb4"
        )
    except (pymysql.Error, OSError) as error:
        raise DatabaseUnreachableError(
            url=shown, reason=reason_of(error, text), **driver_detail(error, text)
        ) from None
    try:
        with conn.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
    except pymysql.Error as error:
        raise DatabaseRefusedError(
            url=shown, reason=reason_of(error, text), **driver_detail(error, text)
        ) from None
    finally:
        conn.close()


@detached()
def apply_duckdb(url: str, statements: Sequence[str]) -> None:
    """Create the macros in the DuckDB database file at ``url`` (``duckdb:///PATH``, or
    the path itself), in one transaction: a macro made there stays in the file."""
    text = str(url)
    path = text.removeprefix("duckdb://") if text.startswith("duckdb://") else text
    if not path or path == ":memory:" or "://" in path:
        raise InvalidDatabaseUrlError(value=redact(text), engine="duckdb")
    try:
        import duckdb
    except ImportError:
        raise ExtraMissingError(
            feature="snowid sql duckdb --apply", package="duckdb", extra="duckdb"
        ) from None
    try:
        conn: Any = duckdb.connect(path)
    except duckdb.Error as error:
        raise DatabaseUnreachableError(
            url=text, reason=reason_of(error, text), **driver_detail(error, text)
        ) from None
    try:
        conn.execute("BEGIN TRANSACTION")
        for statement in statements:
            conn.execute(statement)
        conn.execute("COMMIT")
    except duckdb.Error as error:
        raise DatabaseRefusedError(
            url=text, reason=reason_of(error, text), **driver_detail(error, text)
        ) from None
    finally:
        conn.close()


def _mysql_options(text: str, shown: str) -> dict[str, Any]:
    """PyMySQL's connection arguments from the URL; InvalidDatabaseUrlError when it is not
    a ``mysql://`` URL naming a database; PasswordFileError when its password file
    cannot be read."""
    wrong = InvalidDatabaseUrlError(value=shown, engine="mysql")
    try:
        parts = urlsplit(text)
        port = parts.port or 3306
    except ValueError:
        raise wrong from None
    database = unquote(parts.path.lstrip("/"))
    if parts.scheme not in _MYSQL_SCHEMES or not parts.hostname or not database:
        raise wrong
    query = dict(parse_qsl(parts.query))
    password = unquote(parts.password) if parts.password is not None else None
    if "password_file" in query:
        path = query["password_file"]
        try:
            password = Path(path).read_text(encoding="utf-8").strip("\r\n")
        except (OSError, UnicodeError) as error:
            reason = getattr(error, "strerror", None) or type(error).__name__
            raise PasswordFileError(value=path, url=shown, reason=reason) from None
    options: dict[str, Any] = {
        "host": parts.hostname,
        "port": port,
        "user": unquote(parts.username or "root"),
        "database": database,
    }
    if password is not None:
        options["password"] = password
    return options


def reason_of(error: BaseException, url: str) -> str:
    """The driver's first line, without any secret of the URL should it quote one."""
    return scrub((str(error).strip().splitlines() or [type(error).__name__])[0], url)
