"""MySQL / MariaDB helpers for the lease tests: the shared server (a fresh table per test,
direct SQL) and a ``mariadbd`` of the test's own (``maria_server``, servers.MariaServer)
for the cases that crash, freeze, reconfigure or wipe the server.

The shared server is MariaDB on 127.0.0.1:3306 (user root, no password, database
``test``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import pytest

from tests.support import servers
from tests.support.need import unavailable
from tests.support.servers import MariaDb, MariaServer, binary, new_name

if TYPE_CHECKING:
    from snowid.lease.mysql import MysqlLease

SHARED_DB = MariaDb(3306, "test")
SHARED = SHARED_DB.url()


def mysql_available() -> bool:
    try:
        import pymysql
    except ImportError:
        return False
    try:
        SHARED_DB.connect().close()
    except pymysql.err.MySQLError:
        return False
    return True


def require_shared() -> None:
    if not mysql_available():  # scripts/test starts it
        unavailable("MariaDB is not reachable on 127.0.0.1:3306")


def sql(statement: str, params: Any = None) -> list[tuple[Any, ...]]:
    """Run one statement on the shared server; its rows."""
    return SHARED_DB.sql(statement, params)


@contextlib.contextmanager
def fresh_table(first_deployment: bool = True) -> Iterator[str]:
    """A unique table name on the shared server, set up (no quarantine by default) and
    dropped afterwards."""
    require_shared()
    yield from servers.fresh_table(SHARED_DB, first_deployment=first_deployment)


def open_mysql(url: str, **options: object) -> MysqlLease:
    """``open_lease`` for a mysql:// URL, typed as the MySQL backend."""
    from snowid.lease import open_lease
    from snowid.lease.mysql import MysqlLease

    lease = open_lease(url, **options)
    assert isinstance(lease, MysqlLease)
    return lease


# --- a server of the test's own -------------------------------------------------------------


@contextlib.contextmanager
def maria_server(options: Mapping[str, str] | None = None) -> Iterator[MariaServer]:
    """A started ``mariadbd`` of the test's own (database ``snowid``), removed after;
    ``options`` are mariadbd's long options without the dashes."""
    server, install = binary("mariadbd"), binary("mariadb-install-db")
    if server is None or install is None:  # scripts/test installs them
        unavailable("mariadbd or mariadb-install-db is not installed")
    started = MariaServer(server, install, options)
    try:
        started.start()
        yield started
    finally:
        started.close()


@pytest.fixture(scope="module")
def maria() -> Iterator[MariaServer]:
    """A durable mariadbd for the tests of one module (restarted by a test if it left it
    down)."""
    with maria_server() as server:
        yield server


@pytest.fixture
def murl(maria: MariaServer) -> str:
    """A lease URL on the module's own server, with a fresh table, set up without
    quarantine (first deployment). Append options with ``&``."""
    from snowid.lease import init_lease

    if not maria.running:
        maria.start()
    url = maria.url(f"table={new_name()}")
    init_lease(url, first_deployment=True)
    return url
