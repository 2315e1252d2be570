"""The SQL generator without a server: names, scripts, the range SQL of issue 25 §1, and
every refusal as a clear error in both languages (the engines' answers are checked in
test_sql_postgres, test_sql_mysql and test_sql_embedded)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from snowid import BIGINT_WRAP_MS, INSTAGRAM, TWITTER, as_bigint, bigint_ranges, id_range
from snowid.cli import main
from snowid.errors import (
    DatabaseUnreachableError,
    InvalidDatabaseUrlError,
    SqlNameError,
    SqlNoServerError,
    UnknownSqlEngineError,
)
from snowid.ids import get_layout
from snowid.integrations.sql import (
    ENGINES,
    FUNCTIONS,
    apply,
    names,
    range_info,
    script,
    statements,
    where_sql,
)
from snowid.testing import FakeClock
from snowid.web._range_view import range_view, read_range

# --- names ---------------------------------------------------------------------------------


def test_twitter_keeps_todays_postgres_names_and_other_layouts_are_prefixed() -> None:
    assert names("postgres") == list(FUNCTIONS)
    assert names("postgres", "sonyflake-v2") == [
        "snowid_sonyflake_v2_timestamp",
        "snowid_sonyflake_v2_parts",
        "snowid_sonyflake_v2_first_id_at",
        "snowid_sonyflake_v2_last_id_at",
    ]
    assert names("mysql", "discord") == [
        "snowid_discord_timestamp",
        "snowid_discord_unix_ms",
        "snowid_discord_worker",
        "snowid_discord_process",
        "snowid_discord_increment",
        "snowid_discord_first_id_at",
        "snowid_discord_last_id_at",
    ]
    assert names("sqlite", "instagram", column="post_id") == [
        "post_id_timestamp",
        "post_id_unix_ms",
        "post_id_shard",
        "post_id_sequence",
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_each_script_creates_what_names_lists(engine: str) -> None:
    """The printed script and the driver's statements hold the same SQL, and every name
    listed is created by it."""
    target = {"table": "posts", "column": "id"} if engine == "sqlite" else {}
    text = script(engine, "mastodon", **target)
    for statement in statements(engine, "mastodon", **target):
        assert statement in text
    for name in names(engine, "mastodon", column="id"):
        assert name in text


def test_the_sql_has_no_bit_maths_of_its_own() -> None:
    """Every shift and mask in the SQL is the layout's: a layout with other widths gets
    other numbers, and none of Twitter's appear in it."""
    other = get_layout("name=other,epoch=1600000000000,fields=t:39,a:3,b:7,c:14")
    text = script("postgres", other)
    assert ">> 14) & 127)" in text  # b: shift 14, 7 bits
    assert ">> 21) & 7)" in text  # a: shift 21, 3 bits
    for twitter in (">> 22)", ">> 17)", "4095", "2199023255551", str(TWITTER.epoch_ms)):
        assert twitter not in text


# --- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "fragment"),
    [
        (lambda: script("oracle"), UnknownSqlEngineError, "postgres, mysql, sqlite, duckdb"),
        (
            lambda: script("postgres", "name=my ids,epoch=0,fields=t:48,s:16"),
            SqlNameError,
            "letters, digits",
        ),
        (
            lambda: script("mysql", "name=x,epoch=0,fields=t:48,parts:16"),
            SqlNameError,
            "rename the field",
        ),
        (
            lambda: script("postgres", f"name={'a' * 50},epoch=0,fields=t:48,s:16"),
            SqlNameError,
            "longer than 63",
        ),
        (
            lambda: script("sqlite", table="posts\n", column="id"),
            SqlNameError,
            "cannot name a table",
        ),
        (lambda: apply("sqlite", "sqlite:///x.db", []), SqlNoServerError, "sqlite3 DATABASE"),
        (
            lambda: apply("mysql", "mysql://root@127.0.0.1:3306", []),
            InvalidDatabaseUrlError,
            "naming a database",
        ),
        (
            lambda: apply("duckdb", "postgresql://h/db", []),
            InvalidDatabaseUrlError,
            "duckdb:///PATH",
        ),
    ],
)
def test_what_cannot_be_written_is_a_clear_error(
    call: object, error: type[Exception], fragment: str
) -> None:
    with pytest.raises(error) as caught:
        call()  # type: ignore[operator]
    assert fragment in str(caught.value)
    assert caught.value.message("vi") != str(caught.value)  # type: ignore[attr-defined]


def test_the_cli_says_what_is_missing_in_both_languages(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["sql", "sqlite", "--column", "id"]) == 1
    assert capsys.readouterr().err.startswith("Error: SQLite needs --table")
    assert main(["--lang", "vi", "sql", "sqlite", "--table", "t"]) == 1
    assert capsys.readouterr().err.startswith("Lỗi: SQLite cần --column")
    assert main(["sql", "sqlite", "--table", "t", "--column", "id", "--apply", "x.db"]) == 1
    assert "SQLite has no server" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["sql", "oracle"])
    assert exited.value.code == 2
    assert "postgres, mysql, sqlite, duckdb" in capsys.readouterr().err


def test_duckdb_apply_creates_the_macros_in_a_database_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ids.duckdb"
    assert main(["sql", "duckdb", "--layout", "discord", "--apply", f"duckdb://{path}"]) == 0
    created = names("duckdb", "discord")
    assert capsys.readouterr().out.startswith(f"installed {len(created)} SQL functions into ")
    with duckdb.connect(str(path)) as con:
        (ms,) = con.execute("SELECT snowid_discord_unix_ms(175928847299117063)").fetchone()
    assert ms == 1462015105796


# --- the range SQL (issue 25 §1) -------------------------------------------------------------


def test_a_window_across_the_wrap_is_two_betweens_over_the_stored_ids() -> None:
    """Instagram: the bigint ranges the library gives, as SQL (the API, the CLI and the
    page all print ``range_info``); low and high stay the unsigned ids."""
    start, end = BIGINT_WRAP_MS - 500, BIGINT_WRAP_MS + 499
    info = range_info(start, end, INSTAGRAM)
    ranges = bigint_ranges(start, end, INSTAGRAM)
    assert len(ranges) == 2
    assert info["sql"] == where_sql(ranges)
    assert info["sql"] == (
        f"(id BETWEEN {ranges[0][0]} AND {2**63 - 1} OR id BETWEEN {-(2**63)} AND {ranges[1][1]})"
    )
    assert info["ranges"] == [[str(a), str(b)] for a, b in ranges]
    low, high = id_range(start, end, INSTAGRAM)
    assert (info["low"], info["high"]) == (str(low), str(high))
    after = range_info(BIGINT_WRAP_MS + 1_000, BIGINT_WRAP_MS + 2_009, INSTAGRAM)
    low, high = id_range(BIGINT_WRAP_MS + 1_000, BIGINT_WRAP_MS + 2_009, INSTAGRAM)
    assert after["sql"] == f"id BETWEEN {as_bigint(low)} AND {as_bigint(high)}"


def test_a_window_before_the_wrap_and_an_empty_one_are_unchanged() -> None:
    low, high = id_range(1462015105796, 1462015105796, "discord")
    assert range_info(1462015105796, 1462015105796, "discord")["sql"] == (
        f"id BETWEEN {low} AND {high}"
    )
    assert range_info(5, 0, "twitter")["sql"] == "id BETWEEN 1 AND 0"


def test_the_cli_range_prints_both_ranges_and_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    start, end = str(BIGINT_WRAP_MS - 500), str(BIGINT_WRAP_MS + 499)
    assert main(["range", start, end, "--layout", "instagram"]) == 0
    out = capsys.readouterr().out
    sql = range_info(int(start), int(end), INSTAGRAM)["sql"]
    assert f"SQL     WHERE {sql}\n" in out
    assert "from 2046-06-27T17:00:49.497Z on are negative" in out
    assert main(["range", start, end, "--layout", "instagram", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sql"] == sql


def test_the_range_page_shows_the_two_ranges_with_a_note() -> None:
    clock = FakeClock(1764547200000)
    query = {"from": str(BIGINT_WRAP_MS - 500), "to": str(BIGINT_WRAP_MS + 499)}
    form = read_range({**query, "layout": "instagram"}, "vi", clock)
    assert form is not None
    shown = range_view(form, "vi", clock)
    assert shown is not None
    assert (
        shown.sql
        == f"WHERE {range_info(BIGINT_WRAP_MS - 500, BIGINT_WRAP_MS + 499, INSTAGRAM)['sql']}"
    )
    assert any(
        "BIGINT UNSIGNED" in note and "2046-06-27T17:00:49.497Z" in note for note in shown.notes
    )


def test_mysql_apply_that_cannot_connect_shows_no_password() -> None:
    """Port 1 refuses at once: the error names the URL's display form, never the password
    (also not in the driver's words it keeps)."""
    secret = "s3cr3t-Pw"
    with pytest.raises(DatabaseUnreachableError) as caught:
        apply("mysql", f"mysql://app:{secret}@127.0.0.1:1/app", ["SELECT 1"])
    error = caught.value
    assert error.url == "mysql://127.0.0.1:1/app"
    assert secret not in f"{error} {error!r} {error.driver_message} {error.message('vi')}"
    assert error.__context__ is None
    assert error.__cause__ is None
