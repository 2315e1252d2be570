"""`snowid sql postgres`: the SQL functions give the Python code's answers on the real server.

Each test installs the functions into a schema of its own (named in the URL's
search_path), so that runs at the same time never replace each other's functions.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg  # the test extra installs it: a missing driver fails, never skips
import pytest

from snowid import Layout, SnowId
from snowid._isotime import utc_datetime
from snowid.cli import main
from snowid.errors import (
    DatabaseRefusedError,
    NegativeIdError,
    TimestampAfterEndError,
    TimestampBeforeEpochError,
)
from snowid.ids._layout import TWITTER, TwitterLayout
from snowid.ids._timerange import first_id_at, last_id_at
from snowid.integrations.sql import (
    FUNCTIONS,
    apply_postgres,
    names,
    postgres_script,
    postgres_statements,
    statements,
)
from snowid.testing import KNOWN_ANSWERS
from tests.support import sql_samples

pytestmark = pytest.mark.slow  # the shared PostgreSQL, for almost every test here

SERVER = "postgresql://postgres@127.0.0.1:5432/test"
SECRET = "s3cr3t-Pw"


def _url(schema: str) -> str:
    return f"{SERVER}?options=-csearch_path%3D{schema}"


def _connect(url: str = SERVER) -> Any:
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is not reachable at {SERVER}")
        pytest.skip(f"PostgreSQL is not reachable at {SERVER}")


@pytest.fixture
def schema() -> Iterator[str]:
    """An empty schema of this test's own, dropped afterwards."""
    name = f"snowid_sql_{uuid.uuid4().hex[:12]}"
    with _connect() as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    try:
        yield name
    finally:
        with _connect() as conn:
            conn.execute(f"DROP SCHEMA {name} CASCADE")


@pytest.fixture
def db(schema: str) -> Iterator[Any]:
    """A connection whose search_path holds the installed functions."""
    assert main(["sql", "postgres", "--apply", _url(schema)]) == 0
    with _connect(_url(schema)) as conn:
        yield conn


def _one(conn: Any, sql: str, *params: object) -> Any:
    return conn.execute(sql, params).fetchone()


# --- installing -------------------------------------------------------------------------


def test_apply_installs_the_four_functions_idempotently(
    schema: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for _ in range(2):
        assert main(["sql", "postgres", "--apply", _url(schema)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == out[1]
    assert out[0].startswith("installed 4 SQL functions into postgresql://127.0.0.1:5432/test: ")
    with _connect() as conn:
        rows = conn.execute(
            "SELECT proname, provolatile, proparallel, proisstrict FROM pg_proc"
            " WHERE pronamespace = %s::regnamespace ORDER BY oid",
            (schema,),
        ).fetchall()
    assert rows == [(name, "i", "s", True) for name in FUNCTIONS]


def test_the_printed_script_runs_as_is_and_reads_in_vietnamese_too(
    schema: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sql", "postgres", "--lang", "vi"]) == 0
    script = capsys.readouterr().out
    assert script == postgres_script(lang="vi")
    assert script.count("IMMUTABLE STRICT PARALLEL SAFE") == 4
    with _connect(_url(schema)) as conn:
        conn.execute(script)
        with pytest.raises(psycopg.errors.NumericValueOutOfRange) as caught:
            conn.execute("SELECT snowid_timestamp(-1)")
    assert caught.value.diag.message_primary == NegativeIdError(field="id", value=-1).message("vi")


# --- the same answers as the Python code ------------------------------------------------


@pytest.mark.parametrize("answer", KNOWN_ANSWERS, ids=lambda answer: str(answer[-1]))
def test_known_answers(db: Any, answer: tuple[int, int, int, int, int]) -> None:
    timestamp, datacenter, machine, sequence, value = answer
    when = utc_datetime(timestamp)
    assert _one(db, "SELECT snowid_timestamp(%s)", value) == (when,)
    assert _one(db, "SELECT * FROM snowid_parts(%s)", value) == (
        when,
        datacenter,
        machine,
        sequence,
    )
    low, high = _one(db, "SELECT snowid_first_id_at(%s), snowid_last_id_at(%s)", when, when)
    assert (low, high) == (first_id_at(timestamp), last_id_at(timestamp))
    assert low <= value <= high


def test_random_ids_decode_as_in_python(db: Any) -> None:
    rng = random.Random(12)
    ids = [rng.randrange(TWITTER.max_id + 1) for _ in range(500)]
    rows = db.execute(
        "SELECT id, (p).* FROM (SELECT id, snowid_parts(id) AS p FROM unnest(%s::bigint[]) id) s",
        (ids,),
    ).fetchall()
    for value, when, datacenter, machine, sequence in rows:
        parts = SnowId(value).parts
        assert (when, datacenter, machine, sequence) == (
            utc_datetime(parts.timestamp),
            parts.datacenter,
            parts.machine,
            parts.sequence,
        )


def test_time_bounds_round_as_in_python_to_the_microsecond(db: Any) -> None:
    """A time between two milliseconds: the first id rounds up, the last id rounds down."""
    rng = random.Random(7)
    start = utc_datetime(TWITTER.epoch_ms)
    span_us = (TWITTER.max_timestamp - TWITTER.epoch_ms) * 1000
    times = [start + dt.timedelta(microseconds=rng.randrange(span_us)) for _ in range(300)]
    times += [start, utc_datetime(TWITTER.max_timestamp), start + dt.timedelta(microseconds=1)]
    rows = db.execute(
        "SELECT snowid_first_id_at(t), snowid_last_id_at(t) FROM unnest(%s::timestamptz[]) t",
        (times,),
    ).fetchall()
    assert rows == [(first_id_at(when), last_id_at(when)) for when in times]


def test_null_in_null_out(db: Any) -> None:
    assert _one(db, "SELECT snowid_timestamp(NULL), snowid_first_id_at(NULL)") == (None, None)


@pytest.mark.parametrize(
    ("sql", "error"),
    [
        ("SELECT snowid_timestamp(-1)", NegativeIdError(field="id", value=-1)),
        (
            "SELECT snowid_parts(-9223372036854775808)",
            NegativeIdError(field="id", value=-(2**63)),
        ),
        (
            "SELECT snowid_first_id_at('2001-01-01 00:00:00+00')",
            TimestampBeforeEpochError(
                field="timestamp",
                value=978307200000,
                min=TWITTER.epoch_ms,
                max=TWITTER.max_timestamp,
            ),
        ),
        (
            "SELECT snowid_last_id_at('2080-07-10 17:30:30.209+00')",
            TimestampAfterEndError(
                field="timestamp",
                value=3487858230209,
                min=TWITTER.epoch_ms,
                max=TWITTER.max_timestamp,
            ),
        ),
    ],
)
def test_bad_input_raises_pythons_message(db: Any, sql: str, error: Exception) -> None:
    with pytest.raises(psycopg.DataError) as caught:
        db.execute(sql)
    assert caught.value.diag.message_primary == str(error)


def test_a_time_outside_the_range_is_an_error_never_a_wrong_id(db: Any) -> None:
    """The last millisecond rounds up past the end; ±infinity are refused too."""
    with pytest.raises(psycopg.errors.DatetimeFieldOverflow):
        db.execute("SELECT snowid_first_id_at('2080-07-10 17:30:30.2081+00')")
    for when in ("infinity", "-infinity"):
        with pytest.raises(psycopg.errors.DatetimeFieldOverflow):
            db.execute("SELECT snowid_first_id_at(%s::timestamptz)", (when,))


def test_the_functions_index_and_select_a_time_window(db: Any) -> None:
    table = f"t_{uuid.uuid4().hex[:12]}"
    db.execute(f"CREATE TABLE {table} (id bigint PRIMARY KEY)")
    db.execute(f"CREATE INDEX ON {table} (snowid_timestamp(id))")  # needs IMMUTABLE
    start = dt.datetime(2024, 5, 1, tzinfo=dt.UTC)
    one_ms = dt.timedelta(milliseconds=1)
    inside = [
        SnowId.from_datetime(start, datacenter=0, machine=0),
        SnowId.from_datetime(start + one_ms, datacenter=31, machine=31, sequence=4095),
    ]
    outside = [
        SnowId.from_datetime(start - one_ms, datacenter=31, machine=31, sequence=4095),
        SnowId.from_datetime(start + 2 * one_ms, datacenter=0, machine=0),
    ]
    for value in inside + outside:
        db.execute(f"INSERT INTO {table} VALUES (%s)", (int(value),))
    found = db.execute(
        f"SELECT id FROM {table} WHERE id BETWEEN snowid_first_id_at(%s) AND snowid_last_id_at(%s)"
        " ORDER BY id",
        (start, start + one_ms),
    ).fetchall()
    assert found == [(int(value),) for value in inside]
    by_time = db.execute(
        f"SELECT count(*) FROM {table} WHERE snowid_timestamp(id) = %s", (start,)
    ).fetchone()
    assert by_time == (1,)


def test_the_sql_follows_the_layout_it_is_made_from(schema: str) -> None:
    """Other widths and epoch: the functions decode that layout's ids, so no number in them
    is written by hand. A layout other than Twitter's names its functions after itself
    (``snowid_other_parts``), so that they sit beside Twitter's."""
    layout = TwitterLayout(
        name="other",
        epoch_ms=1_600_000_000_000,
        fields=[("timestamp", 39), ("datacenter", 3), ("machine", 7), ("sequence", 14)],
    )
    apply_postgres(_url(schema), postgres_statements(layout))
    timestamp = 1_700_000_000_123
    value = layout.compose(timestamp, 5, 100, 9999)
    with _connect(_url(schema)) as conn:
        parts = _one(conn, "SELECT * FROM snowid_other_parts(%s)", value)
        bounds = _one(
            conn,
            "SELECT snowid_other_first_id_at(%s), snowid_other_last_id_at(%s)",
            utc_datetime(timestamp),
            utc_datetime(timestamp),
        )
    assert parts == (utc_datetime(timestamp), 5, 100, 9999)
    assert bounds == (first_id_at(timestamp, layout), last_id_at(timestamp, layout))


# --- bad input: a specific error, never the password -----------------------------------


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            f"postgresql://postgres:{SECRET}@127.0.0.1:1/test",
            "postgresql://127.0.0.1:1/test",
        ),
        (f"postgresql://postgres:{SECRET}@127.0.0.1:notaport/test", "postgresql://127.0.0.1:"),
        (f"postgres://u:{SECRET}/x@127.0.0.1:1/test", "postgres://…"),
        (f"host=127.0.0.1 port=1 password={SECRET}", "host=127.0.0.1 port=1 is not"),
        (f"mysql://root:{SECRET}@127.0.0.1/test", "mysql://127.0.0.1/test is not"),
    ],
)
def test_a_url_that_cannot_connect_gets_a_specific_error_without_its_password(
    capsys: pytest.CaptureFixture[str], url: str, shown: str
) -> None:
    assert main(["sql", "postgres", "--apply", url]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("Error: ")
    assert shown in err
    assert SECRET not in err
    assert "Traceback" not in err


def test_a_server_that_refuses_the_sql_changes_nothing(schema: str) -> None:
    """The third function cannot be replaced (another one of its name returns text): the
    error names the server's reason, and the first two were not left behind."""
    with _connect(_url(schema)) as conn:
        conn.execute(
            "CREATE FUNCTION snowid_first_id_at(t timestamptz) RETURNS text"
            " LANGUAGE sql AS $$ SELECT 'mine' $$"
        )
    url = f"postgresql://postgres:{SECRET}@127.0.0.1:5432/test?options=-csearch_path%3D{schema}"
    with pytest.raises(DatabaseRefusedError) as caught:
        apply_postgres(url, postgres_statements())
    assert "cannot change return type" in caught.value.reason
    assert SECRET not in str(caught.value)
    assert caught.value.url == "postgresql://127.0.0.1:5432/test"  # snowid.lease._redact's display
    with _connect() as conn:
        names = conn.execute(
            "SELECT proname FROM pg_proc WHERE pronamespace = %s::regnamespace", (schema,)
        ).fetchall()
    assert names == [("snowid_first_id_at",)]


def test_without_psycopg_apply_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg now fails
    assert main(["sql", "postgres", "--apply", SERVER]) == 1
    err = capsys.readouterr().err
    assert "pip install 'snowid[postgres]'" in err


# --- every layout, against Python (issue 29 §3) -------------------------------------------


@pytest.mark.parametrize("layout", sql_samples.LAYOUTS, ids=lambda layout: layout.name)
def test_every_layout_decodes_and_bounds_as_python(schema: str, layout: Layout) -> None:
    """≥ 10,000 random ids and the edges (the sign bit, ids stored negative past 2**63,
    every field at its largest), read in one query by ``<prefix>_timestamp`` and
    ``_parts``, and 2,000 times by ``_first_id_at``/``_last_id_at``: Python's answers,
    an unsigned layout's ids in the stored (negative) form of a bigint."""
    url = _url(schema)
    apply_postgres(url, statements("postgres", layout))
    prefix = names("postgres", layout)[0].removesuffix("_timestamp")
    values = sql_samples.ids(layout)
    fields = "".join(f', (p)."{name}"' for name in layout.field_names)
    with _connect(url) as conn:
        rows = conn.execute(
            f"SELECT (extract(epoch FROM {prefix}_timestamp(id)) * 1000)::bigint,"
            f' (extract(epoch FROM (p)."timestamp") * 1000)::bigint{fields}'
            f" FROM (SELECT id, {prefix}_parts(id) AS p FROM unnest(%s::bigint[])"
            " WITH ORDINALITY AS s(id, n) ORDER BY n) q",
            ([sql_samples.stored(value, layout) for value in values],),
        ).fetchall()
        times = list(sql_samples.answered(layout, sql_samples.times(layout)))
        found = conn.execute(
            f"SELECT {prefix}_first_id_at(t), {prefix}_last_id_at(t)"
            " FROM unnest(%s::timestamptz[]) WITH ORDINALITY AS s(t, n) ORDER BY n",
            ([when for when, _, _ in times],),
        ).fetchall()
    got = [(ms, *parts) for ms, part_ms, *parts in rows if ms == part_ms]
    assert got == [sql_samples.decoded(value, layout) for value in values]
    store = sql_samples.stored
    assert found == [(store(first, layout), store(last, layout)) for _, first, last in times]
