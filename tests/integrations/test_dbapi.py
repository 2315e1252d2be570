"""Raw drivers take a SnowId as a query parameter once snowid.dbapi (or snowid.sqlalchemy) is in."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from snowid import SnowId
from tests.support.process_wide import POSTGRES_URL, engine_url

SEED = 4194439168
MAX = 2**63 - 1
PG_DSN = POSTGRES_URL.replace("+psycopg", "")


def test_importing_the_sqlalchemy_integration_registers_every_installed_driver() -> None:
    import snowid.sqlalchemy

    assert snowid.dbapi.register_adapters() == ("psycopg", "pymysql", "sqlite3")


@pytest.mark.slow
@pytest.mark.parametrize("value", [SEED, MAX])
def test_psycopg_text_and_binary_parameters(value: int, tmp_path: Path) -> None:
    import psycopg

    engine_url("postgresql", tmp_path)  # skips (or fails in CI) without the server
    with psycopg.connect(PG_DSN) as conn:
        text_row = conn.execute("SELECT %s, pg_typeof(%s)::text", [SnowId(value)] * 2).fetchone()
        binary_row = conn.execute("SELECT %b", [SnowId(value)]).fetchone()
        quoted = psycopg.sql.Literal(SnowId(value)).as_string(conn)
    assert text_row == (value, "bigint")
    assert binary_row == (value,)
    assert quoted.strip("' ").removesuffix("::int8") == str(value)


@pytest.mark.slow
@pytest.mark.parametrize("value", [SEED, MAX])
def test_pymysql_parameters(value: int, tmp_path: Path) -> None:
    import pymysql

    engine_url("mariadb", tmp_path)
    conn = pymysql.connect(host="127.0.0.1", port=3306, user="root", database="test")
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT %s, %s + 0", (SnowId(value), SnowId(value)))
            assert cursor.fetchone() == (value, value)
            assert cursor.mogrify("SELECT %s", (SnowId(value),)) == f"SELECT {value}"
    finally:
        conn.close()


@pytest.mark.parametrize("value", [SEED, MAX])
def test_sqlite3_parameters(value: int) -> None:
    with sqlite3.connect(":memory:") as conn:
        assert conn.execute("SELECT ?, typeof(?)", (SnowId(value),) * 2).fetchone() == (
            value,
            "integer",
        )


def test_without_the_integration_psycopg_cannot_send_a_snowid() -> None:
    """What the adapters fix: a SnowId is not an int, so a bare driver refuses it."""
    code = textwrap.dedent(
        """
        import psycopg, snowid
        try:
            psycopg.sql.Literal(snowid.SnowId(4194439168)).as_string(None)
        except psycopg.ProgrammingError as error:
            print("refused:", error)
        import snowid.dbapi
        print(psycopg.sql.Literal(snowid.SnowId(4194439168)).as_string(None))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("refused:")
    assert "4194439168" in lines[1]
