"""`snowid sql sqlite` and `snowid sql duckdb`: the view and the macros give Python's
answers in the real engines (both run in this process: no server, so these are fast tests).
"""

from __future__ import annotations

import datetime as dt
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import duckdb  # the test extra installs it: a missing package fails, never skips
import pytest

from snowid import Layout
from snowid.cli import main
from snowid.errors import NegativeIdError, SqlTableRequiredError, TimestampBeforeEpochError
from snowid.ids import TWITTER
from snowid.integrations.sql import names, script, statements
from tests.support import sql_samples
from tests.support.need import unavailable


def _iso(ms: int) -> str | None:
    """Python's text of a time (``Decoded.iso_utc``), None past year 9999."""
    if ms > sql_samples.LAST_DATETIME_MS:
        return None
    return sql_samples.utc_datetime(ms).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# --- SQLite: a view over the user's table -----------------------------------------------


@pytest.mark.parametrize("layout", sql_samples.LAYOUTS, ids=lambda layout: layout.name)
def test_sqlite_view_decodes_every_layout_as_python(layout: Layout) -> None:
    """≥ 10,000 random ids and the edges in an INTEGER column (an unsigned layout's later
    ids stored negative), read through the view in one query: Python's time (as ISO
    text and Unix ms) and fields; rows that hold no id give NULLs, never a time."""
    db = sqlite3.connect(":memory:")
    db.execute('CREATE TABLE "my posts" (n INTEGER PRIMARY KEY, "post id" INTEGER, body TEXT)')
    values = sql_samples.ids(layout)
    db.executemany(
        'INSERT INTO "my posts" VALUES (?, ?, ?)',
        [(n, sql_samples.stored(v, layout), "x") for n, v in enumerate(values)],
    )
    bad = ["12abc", 1.5, None] + ([-1] if layout.signed else [])
    start = len(values)
    db.executemany(
        'INSERT INTO "my posts" VALUES (?, ?, ?)', [(start + i, v, "y") for i, v in enumerate(bad)]
    )
    db.executescript(script("sqlite", layout, table="my posts", column="post id"))
    added = ", ".join(f'"{name}"' for name in names("sqlite", layout, column="post id"))
    rows = db.execute(f'SELECT n, body, {added} FROM "my posts_snowid" ORDER BY n').fetchall()
    expected = [sql_samples.decoded(value, layout) for value in values]
    assert rows[: len(values)] == [(n, "x", _iso(e[0]), *e) for n, e in enumerate(expected)]
    assert rows[len(values) :] == [
        (start + i, "y", *([None] * (2 + len(layout.field_names)))) for i in range(len(bad))
    ]


def test_the_printed_sqlite_script_runs_in_the_sqlite3_client(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``snowid sql sqlite`` output fed to the ``sqlite3`` program as is, twice (running
    it again replaces the view); Discord's documented message reads as Python reads it."""
    client = shutil.which("sqlite3")
    if client is None:
        unavailable("the sqlite3 client is not installed")
    path = tmp_path / "chat.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, body TEXT)")
        db.execute("INSERT INTO messages VALUES (175928847299117063, 'hello')")
    argv = ["sql", "sqlite", "--layout", "discord", "--table", "messages", "--column", "id"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    for _ in range(2):
        done = subprocess.run(
            [client, str(path)],
            input=printed,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert (done.returncode, done.stderr) == (0, "")
    with sqlite3.connect(path) as db:
        row = db.execute("SELECT * FROM messages_snowid").fetchone()
    assert row == (175928847299117063, "hello", "2016-04-30T11:18:25.796Z", 1462015105796, 1, 0, 7)


def test_sqlite_needs_its_table_and_column() -> None:
    with pytest.raises(SqlTableRequiredError) as caught:
        statements("sqlite", "discord", column="id")
    assert caught.value.field == "--table"


# --- DuckDB: macros -----------------------------------------------------------------------


def _duck(layout: Layout) -> Any:
    con = duckdb.connect(":memory:")
    con.execute("SET TimeZone = 'UTC'")
    con.execute(script("duckdb", layout))
    return con


@pytest.mark.parametrize("layout", sql_samples.LAYOUTS, ids=lambda layout: layout.name)
def test_duckdb_macros_decode_and_bound_every_layout_as_python(layout: Layout) -> None:
    """≥ 10,000 random ids and the edges, every other one as a BIGINT (an unsigned layout's
    later ids stored negative) and the rest as a UBIGINT, read by every macro in one
    query; 2,000 times bounded in another: Python's answers."""
    con = _duck(layout)
    prefix = names("duckdb", layout)[0].removesuffix("_checked")
    values = sql_samples.ids(layout)
    stored = [str(sql_samples.stored(v, layout)) for v in values[::2]]
    plain = [str(v) for v in values[1::2]]
    con.execute(
        "CREATE TEMP TABLE ids AS SELECT * FROM ("
        " SELECT 2 * (i - 1) AS n, CAST(v AS BIGINT) AS id FROM unnest(?) WITH ORDINALITY AS s(v, i)"
        ") UNION ALL BY NAME ("
        " SELECT 2 * i - 1 AS n, CAST(v AS UBIGINT) AS id FROM unnest(?) WITH ORDINALITY AS s(v, i))",
        [stored, plain],
    )
    reads = ", ".join(f"{prefix}_{name}(id)" for name in layout.field_names)
    rows = con.execute(
        f"SELECT epoch_ms({prefix}_timestamp(id)), {prefix}_unix_ms(id), {reads},"
        f" struct_extract({prefix}_parts(id), 'timestamp') = {prefix}_timestamp(id)"
        " FROM ids ORDER BY n"
    ).fetchall()
    expected = [sql_samples.decoded(value, layout) for value in values]
    assert rows == [(e[0], *e, True) for e in expected]
    times = list(sql_samples.answered(layout, sql_samples.times(layout)))
    found = con.execute(
        f"SELECT {prefix}_first_id_at(t), {prefix}_last_id_at(t)"
        " FROM unnest(?) WITH ORDINALITY AS s(t, i) ORDER BY i",
        [[when for when, _, _ in times]],
    ).fetchall()
    assert found == [(first, last) for _, first, last in times]


def test_duckdb_raises_pythons_message_for_what_is_no_id() -> None:
    con = _duck(TWITTER)
    with pytest.raises(duckdb.InvalidInputException) as caught:
        con.execute("SELECT snowid_timestamp(x) FROM (VALUES (5), (-1)) t(x)").fetchall()
    assert str(NegativeIdError(field="id", value=-1)) in str(caught.value)
    before = dt.datetime(2001, 1, 1, tzinfo=dt.UTC)
    with pytest.raises(duckdb.InvalidInputException) as caught:
        con.execute("SELECT snowid_first_id_at(?)", [before]).fetchall()
    error = TimestampBeforeEpochError(
        field="timestamp", value=978307200000, min=TWITTER.epoch_ms, max=TWITTER.max_timestamp
    )
    assert str(error) in str(caught.value)
