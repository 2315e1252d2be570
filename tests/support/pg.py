"""PostgreSQL helpers for the lease tests: the shared server (a fresh table per test, direct
SQL) and a cluster of the test's own (``pg_cluster``) for the cases that crash it."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.support import servers
from tests.support.need import unavailable
from tests.support.servers import PgCluster, PgDb, binary

if TYPE_CHECKING:
    from snowid.lease.postgres import PostgresLease

SHARED = PgDb(5432, "test")
PG = SHARED.url()


def pg_available() -> bool:
    try:
        import psycopg
    except ImportError:
        return False
    for _ in range(2):
        try:
            with psycopg.connect(PG, connect_timeout=3):
                return True
        except psycopg.Error:
            subprocess.run(
                "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
                shell=True,
                check=False,
                capture_output=True,
            )
    return False


def sql(statement: str, params: Any = None) -> list[tuple[Any, ...]]:
    """Run one statement on the shared server; its rows."""
    return SHARED.sql(statement, params)


@contextmanager
def fresh_table(first_deployment: bool = True) -> Iterator[str]:
    """A unique table name, initialised (no quarantine by default) and dropped afterwards."""
    if not pg_available():  # scripts/test starts it
        unavailable("PostgreSQL is not reachable on 127.0.0.1:5432")
    yield from servers.fresh_table(SHARED, first_deployment=first_deployment)


def open_pg(url: str, **options: object) -> PostgresLease:
    """``open_lease`` for a postgresql:// URL, typed as the PostgreSQL backend."""
    from snowid.lease import open_lease
    from snowid.lease.postgres import PostgresLease

    lease = open_lease(url, **options)
    assert isinstance(lease, PostgresLease)
    return lease


@contextmanager
def pg_cluster(settings: Mapping[str, str] | None = None) -> Iterator[PgCluster]:
    """A started PostgreSQL cluster of the test's own (servers.PgCluster), removed after."""
    initdb = binary("initdb")
    if initdb is None:
        unavailable("initdb is not installed (PATH or /usr/lib/postgresql/*/bin)")
    try:
        cluster = PgCluster(Path(initdb).resolve().parent, settings)
    except KeyError:
        pytest.fail("running as root, and there is no postgres user to run the server as")
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.close()
