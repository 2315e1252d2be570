"""PostgreSQL helpers for the lease tests: a fresh table per test, direct SQL."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from snowid.lease.postgres import PostgresLease

PG = "postgresql://postgres@127.0.0.1:5432/test"


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
    import psycopg

    with psycopg.connect(PG, autocommit=True) as conn:
        cur = conn.execute(statement, params)
        return list(cur.fetchall()) if cur.description else []


@contextmanager
def fresh_table(first_deployment: bool = True) -> Iterator[str]:
    """A unique table name, initialised (no quarantine by default) and dropped afterwards."""
    if not pg_available():
        if os.environ.get("CI"):  # scripts/test starts it: in CI a missing server is a failure
            pytest.fail("PostgreSQL is not reachable on 127.0.0.1:5432")
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")
    from snowid.lease import init_lease

    table = f"t_{uuid.uuid4().hex[:12]}"
    init_lease(f"{PG}?table={table}", first_deployment=first_deployment)
    try:
        yield table
    finally:
        sql(f"DROP TABLE IF EXISTS {table}, {table}_meta")


def open_pg(url: str, **options: object) -> PostgresLease:
    """``open_lease`` for a postgresql:// URL, typed as the PostgreSQL backend."""
    from snowid.lease import open_lease
    from snowid.lease.postgres import PostgresLease

    lease = open_lease(url, **options)
    assert isinstance(lease, PostgresLease)
    return lease
