"""The slow mark's check (tests/support/slow.py) recognises a server when it sees one, and
only then: the shared servers' ports, the server and browser programs, psycopg's targets."""

from __future__ import annotations

import pytest

from tests.support import slow


@pytest.mark.parametrize(
    ("argv", "seen"),
    [
        (["/usr/lib/postgresql/15/bin/pg_ctl", "-D", "x", "start"], "pg_ctl"),
        (["/usr/sbin/mariadbd", "--datadir=x"], "mariadbd"),
        (["redis-server", "--port", "0"], "redis-server"),
        ([b"/usr/sbin/pgbouncer", b"x.ini"], "pgbouncer"),
        (["/venv/bin/python", "-m", "uvicorn", "app:app"], "python -m uvicorn"),
        (["/venv/bin/gunicorn", "-w", "4"], "gunicorn"),
        (["/venv/lib/playwright/driver/node", "cli.js"], "node"),
        (["/venv/bin/python", "-m", "snowid", "decode", "1"], None),
        (["/venv/bin/python", "-c", "pass"], None),
        (["/usr/bin/psql", "-c", "select 1"], None),
    ],
)
def test_a_child_process_is_a_server_or_a_browser_by_its_program(
    argv: list[str], seen: str | None
) -> None:
    assert slow._started(argv) == seen


@pytest.mark.parametrize(
    ("conninfo", "local"),
    [
        ("postgresql://postgres@127.0.0.1:5432/test", True),
        ("postgresql://postgres@127.0.0.1/test", True),
        ("postgresql:///test", True),  # the Unix socket of the local server
        ("host=localhost dbname=test", True),
        ("host=/var/run/postgresql dbname=test", True),
        ("postgresql://u@127.0.0.1:1/x?connect_timeout=1", False),  # nothing listens there
        ("postgresql://u@127.0.0.3:1/db", False),
        ("postgresql://app@db.internal/app", False),
        ("postgresql://127.0.0.1:45207/test", False),  # a test's own cluster (seen when started)
        ("not a conninfo", False),
    ],
)
def test_psycopg_reaches_the_local_server_only_on_its_port(conninfo: str, local: bool) -> None:
    pytest.importorskip("psycopg")
    assert slow._local_server(conninfo, {}) is local
