"""The errors of ``snowid sql``: an engine, a name or a URL it cannot use, a database that
cannot be reached or refuses the SQL. Users import them from ``snowid.errors``."""

from __future__ import annotations

from typing import Literal

from snowid._exceptions import (
    DriverDetail,
    InvalidValueError,
    SnowIdError,
    error_data,
    name_errors_module,
)

__all__ = [
    "DatabaseRefusedError",
    "DatabaseUnreachableError",
    "IndexCheckError",
    "IndexCheckReason",
    "InvalidDatabaseUrlError",
    "PgstattupleError",
    "SqlNameError",
    "SqlNoServerError",
    "SqlTableRequiredError",
    "UnknownSqlEngineError",
]


@error_data
class InvalidDatabaseUrlError(InvalidValueError):
    """``snowid sql ENGINE --apply`` was given a URL of another kind than ``engine``'s
    (``postgresql://``, ``mysql://``); ``value`` is what was given, any password masked."""

    code = "invalid_database_url"
    field: str = "--apply"
    engine: str = "postgres"

    def _catalog_key(self) -> str:
        return self.code if self.engine == "postgres" else f"{self.code}.{self.engine}"


@error_data
class DatabaseUnreachableError(SnowIdError, ConnectionError, DriverDetail):
    """The database ``url`` (without its password) could not be connected to: ``reason``."""

    code = "database_unreachable"
    url: str
    reason: str


@error_data
class DatabaseRefusedError(SnowIdError, RuntimeError, DriverDetail):
    """The database ``url`` (without its password) refused the SQL: ``reason``; ``action``
    is what snowid asked of it (``apply``: install the functions; ``read``: read an
    index's statistics for ``--check-index``)."""

    code = "database_refused"
    url: str
    reason: str
    action: str = "apply"  # or "read"

    def _catalog_key(self) -> str:
        return self.code if self.action == "apply" else f"{self.code}.{self.action}"


@error_data
class UnknownSqlEngineError(InvalidValueError):
    """``value`` is none of the engines snowid writes SQL for (``allowed``)."""

    code = "sql_unknown_engine"
    field: str = "engine"
    allowed: str = ""


@error_data
class SqlTableRequiredError(InvalidValueError):
    """SQLite has no ``CREATE FUNCTION``: its script is a view over a table and column the
    user names, and ``field`` (``--table`` or ``--column``) was not given."""

    code = "sql_table_required"
    value: object = ""


SqlNameReason = Literal["layout", "clash", "length", "identifier"]


@error_data
class SqlNameError(InvalidValueError):
    """A name the SQL cannot use; ``reason`` says why: ``layout`` (a layout's name that is
    not letters, digits, ``-`` and ``_``), ``clash`` (a field named like one of the
    functions), ``length`` (a function name longer than 63 characters), ``identifier``
    (an empty table, column or view name, or one with a control character)."""

    code = "sql_name"
    reason: SqlNameReason

    def _catalog_key(self) -> str:
        return f"{self.code}.{self.reason}"


@error_data
class SqlNoServerError(InvalidValueError):
    """``--apply`` for an engine with nothing to install into from here (SQLite: its
    script is run by the program holding the database)."""

    code = "sql_no_server"
    field: str = "--apply"
    engine: str = ""

    def _catalog_key(self) -> str:
        return f"{self.code}.{self.engine}"


IndexCheckReason = Literal[
    "name", "no_table", "not_a_table", "partitioned", "no_primary_key", "not_btree"
]


@error_data
class IndexCheckError(InvalidValueError):
    """``snowid sql postgres --check-index TABLE URL`` cannot read ``value``'s primary-key
    index; ``reason`` says why: ``name`` (not a table name PostgreSQL can read),
    ``no_table`` (no such table on the search path), ``not_a_table`` (a view, a sequence
    …: ``kind``), ``partitioned`` (its index has no pages of its own: check each
    partition), ``no_primary_key``, ``not_btree`` (its index uses ``kind``, and
    ``pgstatindex`` reads only B-trees). ``url`` is the database, without its password."""

    code = "index_check"
    field: str = "--check-index"
    reason: IndexCheckReason
    url: str = ""
    kind: str = ""

    def _catalog_key(self) -> str:
        return f"{self.code}.{self.reason}"


PgstattupleReason = Literal["missing", "privilege"]


@error_data
class PgstattupleError(SnowIdError, RuntimeError, DriverDetail):
    """``pgstatindex`` cannot be used in the database ``url`` (without its password):
    ``missing`` (the ``pgstattuple`` extension is not installed there) or ``privilege``
    (the role may not run it: ``reason`` is the server's words)."""

    code = "pgstattuple"
    url: str
    reason: PgstattupleReason
    detail: str = ""

    def _catalog_key(self) -> str:
        return f"{self.code}.{self.reason}"


name_errors_module(globals())  # reprs and pickles say snowid.errors.X
