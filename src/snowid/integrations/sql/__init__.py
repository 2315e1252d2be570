"""SQL that reads Snowflake ids inside a database, written from a layout for each engine.

One generator (``_plan``: every number from ``snowid.ids.Layout``) serves four engines
and the time-range SQL that ``snowid range``, ``GET /api/range`` and ``/range`` print:

- ``postgres``: PL/pgSQL functions ``<prefix>_timestamp``, ``_parts``, ``_first_id_at``,
  ``_last_id_at`` (``_postgres``); the Twitter layout's prefix is ``snowid``
  (``snowid_timestamp`` …), another layout's ``snowid_<name>`` (``snowid_discord_parts``);
- ``mysql`` (MySQL and MariaDB): stored functions, one per value (``_mysql``);
- ``sqlite``: a view over a table the user names, the time and fields as its columns
  (``_sqlite``);
- ``duckdb``: macros (``_duckdb``).

``script(engine, layout)`` is what ``snowid sql ENGINE --layout L`` prints, a script the
engine's own client runs as is; ``apply(engine, url, statements(...))`` installs them on
a server (PostgreSQL, MySQL/MariaDB) or into a DuckDB file (the only use of the
``duckdb`` extra, imported then). ``range_info`` and ``where_sql`` are the time-range
SQL (``_range``). ``check_postgres_index(url, table)`` reads a table's primary-key index
with ``pgstatindex`` and names the case of docs/keys.md it looks like (``_check``, whose
verdict is the pure ``_density.judge``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from snowid._version import __version__
from snowid.i18n import translate
from snowid.ids import TWITTER, Layout
from snowid.integrations.sql import _duckdb, _mysql, _postgres, _sqlite
from snowid.integrations.sql._density import (
    CASES,
    DENSE,
    MIN_LEAF_PAGES,
    RULES,
    Case,
    IndexCheck,
    KeyKind,
    Rule,
    Verdict,
    advice,
    judge,
    reindex_statement,
)
from snowid.integrations.sql._exceptions import (
    DatabaseRefusedError,
    DatabaseUnreachableError,
    IndexCheckError,
    InvalidDatabaseUrlError,
    PgstattupleError,
    SqlNameError,
    SqlNoServerError,
    SqlTableRequiredError,
    UnknownSqlEngineError,
)
from snowid.integrations.sql._plan import plan
from snowid.integrations.sql._range import range_info, signed_note, where_sql

__all__ = [
    "CASES",
    "DENSE",
    "ENGINES",
    "FUNCTIONS",
    "MIN_LEAF_PAGES",
    "RULES",
    "Case",
    "DatabaseRefusedError",
    "DatabaseUnreachableError",
    "IndexCheck",
    "IndexCheckError",
    "InvalidDatabaseUrlError",
    "KeyKind",
    "PgstattupleError",
    "Rule",
    "SqlNameError",
    "SqlNoServerError",
    "SqlTableRequiredError",
    "UnknownSqlEngineError",
    "Verdict",
    "advice",
    "apply",
    "apply_mysql",
    "apply_postgres",
    "check_postgres_index",
    "judge",
    "names",
    "postgres_script",
    "postgres_statements",
    "range_info",
    "reindex_statement",
    "script",
    "signed_note",
    "statements",
    "where_sql",
]

ENGINES: Final = ("postgres", "mysql", "sqlite", "duckdb")
"""The engines snowid writes SQL for, by the names ``snowid sql`` takes."""

FUNCTIONS: Final = ("snowid_timestamp", "snowid_parts", "snowid_first_id_at", "snowid_last_id_at")
"""The PostgreSQL functions of the Twitter layout, in the order they are created."""


def _engine(engine: str) -> str:
    if engine not in ENGINES:
        raise UnknownSqlEngineError(value=engine, allowed=", ".join(ENGINES))
    return engine


def _view_target(table: str | None, column: str | None, view: str | None) -> tuple[str, str, str]:
    """SQLite's table, column and view (default ``<table>_snowid``); both named or an error."""
    if not table:
        raise SqlTableRequiredError(field="--table")
    if not column:
        raise SqlTableRequiredError(field="--column")
    return table, column, view or f"{table}_snowid"


def names(engine: str, layout: Layout | str = TWITTER, *, column: str | None = None) -> list[str]:
    """What the SQL of ``engine`` creates for ``layout``: the functions (or macros) in the
    order they are created; for SQLite the view's added columns (``column`` is the id
    column's name, required there)."""
    spec = plan(layout)
    if _engine(engine) == "sqlite":
        if not column:
            raise SqlTableRequiredError(field="--column")
        return _sqlite.column_names(spec, column)
    if engine == "postgres":
        return _postgres.names(spec)
    return _mysql.names(spec) if engine == "mysql" else _duckdb.names(spec)


def statements(
    engine: str,
    layout: Layout | str = TWITTER,
    lang: str = "en",
    *,
    table: str | None = None,
    column: str | None = None,
    view: str | None = None,
) -> list[str]:
    """The statements that create ``names(engine, layout)``, one SQL statement each (no
    ``;``), for a driver; ``lang`` is the language of the errors they raise. SQLite's
    view needs ``table`` and ``column`` (the view is ``view``, else ``<table>_snowid``)."""
    spec = plan(layout, lang)
    if _engine(engine) == "postgres":
        return _postgres.statements(spec)
    if engine == "mysql":
        return _mysql.statements(spec)
    if engine == "duckdb":
        return _duckdb.statements(spec)
    return _sqlite.statements(spec, *_view_target(table, column, view))


def script(
    engine: str,
    layout: Layout | str = TWITTER,
    lang: str = "en",
    *,
    table: str | None = None,
    column: str | None = None,
    view: str | None = None,
) -> str:
    """The statements as one script for the engine's own client (``psql -f``, ``mysql <``,
    ``sqlite3 DB <``, ``duckdb DB <``): a header naming what it creates, then the
    statements, in one transaction where the engine allows it (not MySQL: a ``CREATE
    FUNCTION`` commits by itself)."""
    spec = plan(layout, lang)
    found = statements(engine, spec.layout, lang, table=table, column=column, view=view)
    if engine == "mysql":
        header = _header(engine, spec.layout, lang, table, column)
        return _mysql.script(spec, header)
    header = _header(engine, spec.layout, lang, table, column)
    body = "\n\n".join(f"{statement};" for statement in found)
    return f"-- {header}\nBEGIN;\n\n{body}\n\nCOMMIT;\n"


def _header(engine: str, layout: Layout, lang: str, table: str | None, column: str | None) -> str:
    key = {"postgres": "sql.header", "mysql": "sql.header"}.get(engine, f"sql.header.{engine}")
    return translate(
        key, lang, layout=layout.name, version=__version__, table=table or "", column=column or ""
    )


def apply(engine: str, url: str, found: Sequence[str]) -> None:
    """Install ``found`` (from ``statements``) at ``url``: a PostgreSQL or MySQL/MariaDB
    server, or a DuckDB database file (``duckdb:///PATH``); SqlNoServerError for SQLite,
    whose script is run by the program holding the database."""
    if _engine(engine) == "postgres":
        apply_postgres(url, found)
    elif engine == "mysql":
        apply_mysql(url, found)
    elif engine == "duckdb":
        from snowid.integrations.sql._apply import apply_duckdb

        apply_duckdb(url, found)
    else:
        from snowid.lease import redact

        raise SqlNoServerError(value=redact(str(url)), engine=engine)


def postgres_statements(layout: Layout | str = TWITTER, lang: str = "en") -> list[str]:
    """``statements("postgres", layout, lang)``: one ``CREATE OR REPLACE FUNCTION`` each."""
    return statements("postgres", layout, lang)


def postgres_script(layout: Layout | str = TWITTER, lang: str = "en") -> str:
    """``script("postgres", layout, lang)``, for psql."""
    return script("postgres", layout, lang)


def apply_postgres(url: str, found: Sequence[str]) -> None:
    """Run ``found`` in one transaction on the PostgreSQL database at ``url``."""
    from snowid.integrations.sql._apply import apply_postgres as run

    run(url, found)


def check_postgres_index(url: str, table: str) -> IndexCheck:
    """Read the primary-key index of ``table`` in the PostgreSQL database at ``url`` with
    ``pgstatindex`` and say which case of docs/keys.md it looks like (``_check``)."""
    from snowid.integrations.sql._check import check_postgres_index as run

    return run(url, table)


def apply_mysql(url: str, found: Sequence[str]) -> None:
    """Run ``found`` on the MySQL or MariaDB database at ``url``."""
    from snowid.integrations.sql._apply import apply_mysql as run

    run(url, found)
