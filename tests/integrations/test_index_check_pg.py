"""`snowid sql postgres --check-index` on the shared PostgreSQL: small tables filled in the
key orders of docs/keys.md get the verdicts those orders earn, and each table the command
cannot judge gets its one-line error.

The module works in a database of its own (``servers.new_name()``, dropped at the end),
where it installs ``pgstattuple``: an extension is installed once per database, so a
schema of its own would not keep two runs apart. Each table has 20,000 rows, inserted
by one ``INSERT … SELECT … ORDER BY`` in the order under test.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from snowid.cli import main
from snowid.integrations.sql import DENSE
from tests.support.need import unavailable
from tests.support.pg import SHARED, pg_available
from tests.support.servers import PgDb, new_name

pytestmark = pytest.mark.slow

ROWS = 20_000
BASE = 1_870_000_000_000 << 22  # a Twitter id of 2026: the keys read as Snowflake ids

# name -> (key type, the key of row i, 0-based, in insertion order)
TABLES = {
    # one writer: increasing ids
    "ordered": ("bigint", f"{BASE} + (i::bigint << 12)"),
    # ids inserted in no order at all, as many interleaved writers leave them
    "shuffled": ("bigint", f"{BASE} + (((i * 7919) % {ROWS})::bigint << 12)"),
    # 16 buffered clients taking turns, each using its own block of 4,096 ids in order
    "blocks": ("bigint", f"{BASE} + (i % 16) * 4096 + i / 16"),
    # UUIDs in random order (version 4; from md5, so the same keys every run: 20,000
    # gen_random_uuid() gave 68 to 76 % from one run to the next)
    "random_uuid": (
        "uuid",
        "(substr(md5(i::text), 1, 12) || '4' || substr(md5(i::text), 14, 3) || '8'"
        " || substr(md5(i::text), 18, 15))::uuid",
    ),
    # UUIDv7 from one writer: the time (ms) in the first 48 bits, increasing
    "uuid7": (
        "uuid",
        "(lpad(to_hex(1800000000000 + i), 12, '0') || '7' || lpad(to_hex(i % 4096), 3, '0')"
        " || '8' || lpad(to_hex(i), 15, '0'))::uuid",
    ),
}


def _database(name: str) -> Iterator[PgDb]:
    if not pg_available():
        unavailable("PostgreSQL is not reachable on 127.0.0.1:5432")
    SHARED.sql(f"CREATE DATABASE {name}")
    try:
        yield PgDb(SHARED.port, name)
    finally:
        SHARED.sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="module")
def db() -> Iterator[PgDb]:
    """A database of this module's own with pgstattuple and the tables of TABLES."""
    for found in _database(new_name()):
        found.sql("CREATE EXTENSION pgstattuple")
        for table, (key, value) in TABLES.items():
            found.sql(f"CREATE TABLE {table} (id {key} PRIMARY KEY, payload text NOT NULL)")
            found.sql(
                f"INSERT INTO {table} SELECT {value}, 'p' FROM generate_series(0, {ROWS - 1}) i"
                " ORDER BY i"
            )
            found.sql(f"ANALYZE {table}")  # the row estimate the report shows, exact here
        yield found


def _check(
    db: PgDb, table: str, capsys: pytest.CaptureFixture[str], *more: str
) -> tuple[int, str, str]:
    code = main(["sql", "postgres", "--check-index", table, db.url(), *more])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("table", "kind", "case"),
    [
        ("ordered", "snowflake", "one_writer"),
        ("shuffled", "snowflake", "workers"),
        ("blocks", "snowflake", "client_blocks"),
        ("random_uuid", "uuid", "uuid4"),
        ("uuid7", "uuid7", "one_writer"),
    ],
)
def test_each_insertion_order_gets_its_case(
    db: PgDb, table: str, kind: str, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _check(db, table, capsys, "--json")
    assert (code, err) == (0, "")
    found = json.loads(out)
    assert (found["kind"], found["verdict"]["case"]) == (kind, case)
    assert found["table"] == f"public.{table}"
    assert found["index"] == f"public.{table}_pkey"
    assert found["leaf_pages"] >= 20
    assert found["index_bytes"] > found["leaf_pages"] * 8192
    assert found["rows"] == ROWS
    if case == "one_writer":
        assert found["density"] >= 85
        assert found["options"] == []
    else:
        assert found["density"] < DENSE
        assert "reindex" in found["options"]


def test_the_ordered_table_is_denser_than_every_other_order(
    db: PgDb, capsys: pytest.CaptureFixture[str]
) -> None:
    density = {}
    for table in ("ordered", "shuffled", "blocks", "random_uuid"):
        code, out, _ = _check(db, table, capsys, "--json")
        assert code == 0
        density[table] = json.loads(out)["density"]
    assert density["ordered"] - 10 > max(density["shuffled"], density["random_uuid"])
    assert density["shuffled"] - 5 > density["blocks"]


def test_the_text_report_names_the_case_and_what_to_run(
    db: PgDb, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _check(db, "public.blocks", capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"table: public.blocks, about {ROWS:,} rows (the planner's estimate)"
    assert lines[2] == "key: id (bigint), Snowflake ids"
    assert lines[4].startswith("looks like: buffered client blocks")
    assert "  - REINDEX INDEX CONCURRENTLY public.blocks_pkey; packs" in out


def test_a_quoted_schema_qualified_name_is_read_as_postgresql_reads_it(
    db: PgDb, capsys: pytest.CaptureFixture[str]
) -> None:
    db.sql('CREATE SCHEMA "Shop"')
    db.sql('CREATE TABLE "Shop"."Order Lines" (line integer PRIMARY KEY)')
    db.sql('INSERT INTO "Shop"."Order Lines" SELECT generate_series(1, 100)')
    code, out, _ = _check(db, '"Shop"."Order Lines"', capsys)
    assert code == 0
    assert out.splitlines()[2] == "key: line (integer), integers below 2^50 (a sequence)"
    assert "verdict: too small to tell (1 leaf pages" in out
    # unquoted, the same name is folded to lower case: another table, which does not exist
    code, _, err = _check(db, "Shop.Order_Lines", capsys)
    assert code == 1
    assert err.startswith("Error: --check-index: there is no table Shop.Order_Lines in ")


@pytest.mark.parametrize(
    ("setup", "table", "message"),
    [
        ("", "no_such_table", "there is no table no_such_table in "),
        # PostgreSQL 15 refuses the name; from 16 on to_regclass finds no such table
        ("", "public.ordered; DROP TABLE ordered", "is not a table name|there is no table"),
        ("", "a.b.c.d", "is not a table name PostgreSQL can read"),
        ("CREATE TABLE heap_only (id bigint)", "heap_only", "has no primary key"),
        ("CREATE VIEW ordered_view AS SELECT * FROM ordered", "ordered_view", "is a view"),
        (
            "CREATE TABLE parted (id bigint PRIMARY KEY) PARTITION BY RANGE (id)",
            "parted",
            "is a partitioned table",
        ),
    ],
)
def test_a_table_that_cannot_be_judged_gets_one_line_naming_it(
    db: PgDb, setup: str, table: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if setup:
        db.sql(setup)
    code, out, err = _check(db, table, capsys)
    assert (code, out) == (1, "")
    assert err.startswith("Error: --check-index")
    assert re.search(message, err)
    assert err.count("\n") == 1
    assert db.sql("SELECT count(*) FROM ordered") == [(ROWS,)]  # nothing ran as SQL


def test_a_missing_extension_says_what_to_run(capsys: pytest.CaptureFixture[str]) -> None:
    for bare in _database(new_name()):
        bare.sql("CREATE TABLE orders (id bigint PRIMARY KEY)")
        code, out, err = _check(bare, "orders", capsys)
        assert (code, out) == (1, "")
        assert "run CREATE EXTENSION pgstattuple; there as a role allowed to create it" in err
        code, _, err = _check(bare, "orders", capsys, "--lang", "vi")
        assert "CREATE EXTENSION pgstattuple;" in err
        assert "phần mở rộng pgstattuple" in err


def test_a_role_without_the_right_to_read_index_statistics_is_told_which_to_grant(
    db: PgDb, capsys: pytest.CaptureFixture[str]
) -> None:
    role = new_name()
    db.sql(f"CREATE ROLE {role} LOGIN")
    try:
        db.sql(f"GRANT SELECT ON ordered TO {role}")
        url = db.url().replace("postgres@", f"{role}@")
        code = main(["sql", "postgres", "--check-index", "ordered", url])
        err = capsys.readouterr().err
        assert code == 1
        assert "may not run pgstatindex" in err
        assert "pg_stat_scan_tables" in err
        db.sql(f"GRANT pg_stat_scan_tables TO {role}")
        assert main(["sql", "postgres", "--check-index", "ordered", url]) == 0
    finally:
        db.sql(f"REVOKE ALL ON ordered FROM {role}")
        db.sql(f"DROP ROLE {role}")
