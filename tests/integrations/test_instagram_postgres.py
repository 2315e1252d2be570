"""Issue 19 §4 on the real server: Instagram's next_id() (its 2012 engineering post) in
PostgreSQL gives the stored bigint snowid reads, and ``bigint_ranges`` finds every row of a
window crossing 2046-06-27T17:00:49.497Z, where one unsigned id_range misses rows.
Issue 25 §1: the SQL ``snowid range``, the API and the page print uses those ranges."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

import snowid
from snowid import BIGINT_WRAP_MS, INSTAGRAM, as_bigint, bigint_ranges
from snowid.cli import main
from snowid.integrations.sql import range_info, statements

pytestmark = pytest.mark.slow  # the shared PostgreSQL

SERVER = "postgresql://postgres@127.0.0.1:5432/test"

# The post's function, as published, but with the clock, shard and sequence as arguments
# so a test can say when: our_epoch 1314220021721, (now - epoch) << 23 | shard << 10 | seq,
# all into a signed bigint (PostgreSQL's << on bigint keeps the low 64 bits).
NEXT_ID = """
CREATE FUNCTION {schema}.next_id(now_millis bigint, shard_id int, seq_id bigint,
                                 OUT result bigint) AS $$
DECLARE
    our_epoch bigint := 1314220021721;
BEGIN
    result := (now_millis - our_epoch) << 23;
    result := result | (shard_id << 10);
    result := result | (seq_id % 1024);
END;
$$ LANGUAGE PLPGSQL;
"""


@pytest.fixture
def conn() -> Iterator[Any]:
    schema = f"snowid_ig_{uuid.uuid4().hex[:12]}"
    try:
        connection = psycopg.connect(SERVER, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError:
        pytest.skip(f"PostgreSQL is not reachable at {SERVER}")
    with connection:
        connection.execute(f"CREATE SCHEMA {schema}")
        connection.execute(NEXT_ID.format(schema=schema))
        connection.execute(f"SET search_path TO {schema}")
        try:
            yield connection
        finally:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


def test_next_id_stores_the_example_as_the_negative_snowid_reads(conn: Any) -> None:
    ms = snowid.decode(9488134145385493556, "instagram").timestamp
    (stored,) = conn.execute("SELECT next_id(%s, 7485, 52)", (ms,)).fetchone()
    assert stored == -8958609928324058060
    reading = snowid.decode(stored, "instagram")
    assert (reading.timestamp, reading.fields) == (ms, {"shard": 7485, "sequence": 52})
    assert as_bigint(snowid.compose(ms, "instagram", shard=7485, sequence=52)) == stored


def test_two_ranges_find_every_row_of_a_window_crossing_the_wrap(conn: Any) -> None:
    """1,000 rows, one per ms from 500 ms before the wrap: the stored ranges find all of
    them; the unsigned id_range as one BETWEEN finds only those before the wrap."""
    start = BIGINT_WRAP_MS - 500
    conn.execute("CREATE TABLE posts (id bigint PRIMARY KEY)")
    conn.execute(
        "INSERT INTO posts SELECT next_id(%s + n, n %% 8192, n) FROM generate_series(0, 999) n",
        (start,),
    )
    end = start + 999
    ranges = bigint_ranges(start, end, INSTAGRAM)
    assert len(ranges) == 2
    where = " OR ".join("id BETWEEN %s AND %s" for _ in ranges)
    params = [bound for pair in ranges for bound in pair]
    (found,) = conn.execute(f"SELECT count(*) FROM posts WHERE {where}", params).fetchone()
    assert found == 1000
    low, high = snowid.id_range(start, end, INSTAGRAM)
    assert high >= 2**63  # the unsigned high bound does not even fit a bigint
    (naive,) = conn.execute(
        "SELECT count(*) FROM posts WHERE id BETWEEN %s AND %s", (low, 2**63 - 1)
    ).fetchone()
    assert naive == 500  # the most one range from the unsigned bounds can find


# --- issue 25 §1: the SQL snowid prints finds every row ----------------------------------


def _printed_sql(capsys: pytest.CaptureFixture[str], start: int, end: int) -> str:
    """The ``sql`` of ``snowid range --layout instagram --json``: what the API and the
    page print too (one generator, ``range_info``)."""
    assert main(["range", str(start), str(end), "--layout", "instagram", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info == range_info(start, end, INSTAGRAM)
    sql: str = info["sql"]
    return sql


@pytest.mark.parametrize(
    ("offset", "rows", "ranges"),
    [(1_000, 1_010, 1), (-1_000, 2_001, 2)],
    ids=["after the wrap", "across the wrap"],
)
def test_the_printed_range_finds_every_row_of_next_id(
    conn: Any, capsys: pytest.CaptureFixture[str], offset: int, rows: int, ranges: int
) -> None:
    """Rows made by Instagram's own next_id() with its clock past 2046, one per ms (a
    window after the wrap: 1,010 rows; one across it: 2,001): the printed SQL finds all
    of them, and no row just outside the window; the installed functions read them."""
    start = BIGINT_WRAP_MS + offset
    conn.execute("CREATE TABLE posts (id bigint PRIMARY KEY)")
    conn.execute(
        "INSERT INTO posts SELECT next_id(%s + n, (n + 5) %% 8192, n + 5)"
        " FROM generate_series(-5, %s + 4) n",
        (start, rows),
    )
    where = _printed_sql(capsys, start, start + rows - 1)
    assert where.count("BETWEEN") == ranges
    (found,) = conn.execute(f"SELECT count(*) FROM posts WHERE {where}").fetchone()
    assert found == rows
    for statement in statements("postgres", INSTAGRAM):
        conn.execute(statement)
    checked = conn.execute(
        'SELECT id, (extract(epoch FROM (p)."timestamp") * 1000)::bigint, (p).shard,'
        " (p).sequence FROM (SELECT id, snowid_instagram_parts(id) p FROM posts) s"
    ).fetchall()
    assert len(checked) == rows + 10
    for stored, ms, shard, sequence in checked:
        reading = snowid.decode(stored, INSTAGRAM)
        assert (ms, shard, sequence) == (reading.timestamp, *reading.fields.values())
