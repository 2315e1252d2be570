"""`snowid sql mysql`: the stored functions give Python's answers in a real MariaDB.

One ``mariadbd`` of this module's own, with binary logging on and
``log_bin_trust_function_creators`` off (its default), where a function must be declared
``DETERMINISTIC``/``NO SQL`` to be created at all; the shared server is left alone.
"""

from __future__ import annotations

import datetime as dt
import subprocess
from collections.abc import Iterator
from typing import Any

import pymysql
import pytest

from snowid import Layout
from snowid.cli import main
from snowid.errors import (
    InvalidDatabaseUrlError,
    NegativeIdError,
    SignBitSetError,
    TimestampAfterEndError,
)
from snowid.ids import TWITTER, get_layout
from snowid.integrations.sql import apply, names, script, statements
from tests.support import sql_samples
from tests.support.mysql import maria_server
from tests.support.need import unavailable
from tests.support.servers import MariaServer, binary

pytestmark = pytest.mark.slow  # a mariadbd of the module's own


@pytest.fixture(scope="module")
def maria() -> Iterator[MariaServer]:
    with maria_server({"log-bin": "binlog", "server-id": "1"}) as server:
        yield server


@pytest.fixture
def conn(maria: MariaServer) -> Iterator[Any]:
    connection = maria.connect()
    try:
        yield connection
    finally:
        connection.close()


def _rows(conn: Any, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
    with conn.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def _naive(ms: int) -> dt.datetime | None:
    """Unix ms as the naive UTC DATETIME PyMySQL gives; None past year 9999."""
    if ms > sql_samples.LAST_DATETIME_MS:
        return None
    return dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)


def test_binary_logging_refuses_a_function_without_the_declarations(conn: Any) -> None:
    """The server really checks: without DETERMINISTIC or NO SQL, CREATE FUNCTION fails
    (so the functions below are created only because they carry both)."""
    assert _rows(conn, "SELECT @@log_bin, @@log_bin_trust_function_creators") == [(1, 0)]
    with pytest.raises(pymysql.err.OperationalError) as caught:
        _rows(conn, "CREATE FUNCTION snowid_plain(x INT) RETURNS INT RETURN x")
    assert caught.value.args[0] == 1418  # ER_BINLOG_UNSAFE_ROUTINE


@pytest.mark.parametrize("layout", sql_samples.LAYOUTS, ids=lambda layout: layout.name)
def test_every_layout_decodes_and_bounds_as_python(
    maria: MariaServer, conn: Any, layout: Layout
) -> None:
    """≥ 10,000 random ids and the edges, read by every function in one query, every other
    one from a BIGINT column (an unsigned layout's later ids stored negative) and the rest
    from a BIGINT UNSIGNED one, and 2,000 times in another: Python's answers, a DATETIME
    NULL past year 9999."""
    apply("mysql", maria.url(), statements("mysql", layout))
    prefix = names("mysql", layout)[0].removesuffix("_timestamp")
    values = sql_samples.ids(layout)
    _rows(conn, "CREATE TEMPORARY TABLE ids (n INT PRIMARY KEY, s BIGINT, u BIGINT UNSIGNED)")
    with conn.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO ids VALUES (%s, %s, %s)",
            [(n, sql_samples.stored(v, layout), v) for n, v in enumerate(values)],
        )
    # every other id from each column: a stored function call costs about 20 µs
    selects = [
        f"SELECT n, {prefix}_timestamp({c}), {prefix}_unix_ms({c}),"
        + ", ".join(f"{prefix}_{name}({c})" for name in layout.field_names)
        + f" FROM ids WHERE n % 2 = {odd}"
        for odd, c in enumerate("su")
    ]
    rows = _rows(conn, f"{selects[0]} UNION ALL {selects[1]} ORDER BY n")
    expected = [sql_samples.decoded(value, layout) for value in values]
    assert [row[1] for row in rows] == [_naive(e[0]) for e in expected]
    assert [row[2:] for row in rows] == expected
    times = list(sql_samples.answered(layout, sql_samples.times(layout)))
    _rows(conn, "CREATE TEMPORARY TABLE times (n INT PRIMARY KEY, t DATETIME(6))")
    with conn.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO times VALUES (%s, %s)",
            [(n, when.replace(tzinfo=None)) for n, (when, _, _) in enumerate(times)],
        )
    found = _rows(conn, f"SELECT {prefix}_first_id_at(t), {prefix}_last_id_at(t) FROM times")
    assert found == [(first, last) for _, first, last in times]


def test_the_printed_script_runs_in_the_mariadb_client(
    maria: MariaServer, capsys: pytest.CaptureFixture[str], conn: Any
) -> None:
    """``snowid sql mysql`` output piped into the ``mariadb`` client as is (its
    DELIMITER lines are the client's), in Vietnamese: the errors speak it too."""
    client = binary("mariadb") or binary("mysql")
    if client is None:
        unavailable("the mariadb client is not installed")
    assert main(["sql", "mysql", "--layout", "discord", "--lang", "vi"]) == 0
    printed = capsys.readouterr().out
    assert printed == script("mysql", "discord", "vi")
    command = [client, "--no-defaults", "-h127.0.0.1", f"-P{maria.port}", "-uroot", "snowid"]
    done = subprocess.run(
        command, input=printed, capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stderr) == (0, "")
    value = 175928847299117063
    assert _rows(
        conn, "SELECT snowid_discord_unix_ms(%s), snowid_discord_worker(%s)", (value,) * 2
    ) == [(sql_samples.decoded(value, get_layout("discord"))[0], 1)]
    with pytest.raises(pymysql.err.OperationalError) as caught:
        # a DECIMAL: MariaDB reads a bare literal past BIGINT as a float
        _rows(
            conn, "SELECT snowid_discord_timestamp(CAST(%s AS DECIMAL(20,0)))", (str(-(2**63) - 1),)
        )
    error = NegativeIdError(field="id", value=-(2**63) - 1, layout="discord", max=2**64 - 1)
    assert caught.value.args == (1644, error.message("vi"))


@pytest.mark.parametrize(
    ("sql", "error"),
    [
        ("SELECT snowid_timestamp(-1)", NegativeIdError(field="id", value=-1)),
        (
            "SELECT snowid_sequence(9223372036854775808)",
            SignBitSetError(field="id", value=2**63, layout="twitter", max=2**63 - 1, bit=63),
        ),
        (
            "SELECT snowid_last_id_at('2080-07-10 17:30:30.209')",
            TimestampAfterEndError(
                field="timestamp",
                value=3487858230209,
                min=TWITTER.epoch_ms,
                max=TWITTER.max_timestamp,
            ),
        ),
    ],
)
def test_bad_input_raises_pythons_message(
    maria: MariaServer, conn: Any, sql: str, error: Exception
) -> None:
    """Applied with the CLI: ``--apply`` names what it installed, the errors are SIGNALs
    carrying snowid's message, never a wrong value."""
    assert main(["sql", "mysql", "--apply", maria.url()]) == 0
    with pytest.raises(pymysql.err.OperationalError) as caught:
        _rows(conn, sql)
    assert caught.value.args == (1644, str(error))


def test_apply_reports_what_it_installed_and_refuses_another_url(
    maria: MariaServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sql", "mysql", "--layout", "instagram", "--apply", maria.url()]) == 0
    out = capsys.readouterr().out
    created = names("mysql", "instagram")
    assert out == (
        f"installed {len(created)} SQL functions into mysql://127.0.0.1:{maria.port}/snowid:"
        f" {', '.join(created)}\n"
    )
    with pytest.raises(InvalidDatabaseUrlError) as caught:
        apply("mysql", "postgresql://127.0.0.1/test", [])
    assert "mysql://USER@HOST:PORT/DATABASE" in str(caught.value)
