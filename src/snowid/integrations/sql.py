"""SQL functions that read Snowflake ids inside PostgreSQL, written from a ``Layout``.

``snowid sql postgres`` prints them; ``--apply URL`` installs them (``apply_postgres``):

- ``snowid_timestamp(bigint) → timestamptz``: when the id was made;
- ``snowid_parts(bigint) → ("timestamp" timestamptz, datacenter, machine, sequence)``;
- ``snowid_first_id_at(timestamptz) → bigint`` and ``snowid_last_id_at(timestamptz) →
  bigint``: the bounds of ``WHERE id BETWEEN …`` for a time window, as
  ``snowid.first_id_at``/``last_id_at`` compute them (the first rounds a time between
  two milliseconds up, the last rounds it down).

Every number in the SQL comes from the layout: a field is read by dividing by the power of
two below it (``2 ** shift``) and taking the remainder by its size, and an id is the
milliseconds since the epoch times ``2 ** timestamp_shift``. All four are ``IMMUTABLE
STRICT PARALLEL SAFE`` (usable in indexes and in plans run in parallel), written in
PL/pgSQL so that bad input raises snowid's message (a negative id; a time outside the
layout's range) instead of giving a wrong answer. Times are computed in whole
milliseconds with exact arithmetic (numeric and intervals), never through a float.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from snowid._exceptions import (
    DriverDetail,
    ExtraMissingError,
    InvalidValueError,
    NegativeIdError,
    SnowIdError,
    TimestampAfterEndError,
    TimestampBeforeEpochError,
    detached,
    error_data,
    name_errors_module,
)
from snowid._version import __version__
from snowid.i18n import translate
from snowid.ids import TWITTER, TwitterLayout
from snowid.lease import driver_detail, redact, scrub

__all__ = [
    "FUNCTIONS",
    "DatabaseRefusedError",
    "DatabaseUnreachableError",
    "InvalidDatabaseUrlError",
    "apply_postgres",
    "postgres_script",
    "postgres_statements",
]


@error_data
class InvalidDatabaseUrlError(InvalidValueError):
    """``snowid sql postgres --apply`` was given something other than a ``postgresql://``
    URL; ``value`` is what was given, with any password masked."""

    code = "invalid_database_url"
    field: str = "--apply"


@error_data
class DatabaseUnreachableError(SnowIdError, ConnectionError, DriverDetail):
    """The database ``url`` (without its password) could not be connected to: ``reason``."""

    code = "database_unreachable"
    url: str
    reason: str


@error_data
class DatabaseRefusedError(SnowIdError, RuntimeError, DriverDetail):
    """The database ``url`` (without its password) refused the SQL: ``reason``."""

    code = "database_refused"
    url: str
    reason: str


FUNCTIONS = ("snowid_timestamp", "snowid_parts", "snowid_first_id_at", "snowid_last_id_at")
"""The functions installed, in the order they are created."""

_MARK = "@@snowid-sql-value@@"  # where an SQL value goes inside a catalog message
_QUALIFIERS = "IMMUTABLE STRICT PARALLEL SAFE"
_CONNECT_TIMEOUT_S = 5


def postgres_statements(layout: TwitterLayout = TWITTER, lang: str = "en") -> list[str]:
    """One ``CREATE OR REPLACE FUNCTION`` statement per function, for ``layout``.

    ``lang`` is the language of the errors the functions raise.
    """
    return [
        _timestamp_function(layout, lang),
        _parts_function(layout, lang),
        _bound_function("snowid_first_id_at", "ceil", 0, layout, lang),
        _bound_function("snowid_last_id_at", "floor", layout.low_mask, layout, lang),
    ]


def postgres_script(layout: TwitterLayout = TWITTER, lang: str = "en") -> str:
    """The statements as one script for psql: a header, then one transaction."""
    header = translate("sql.header", lang, layout=layout.name, version=__version__)
    body = "\n\n".join(f"{statement};" for statement in postgres_statements(layout, lang))
    return f"-- {header}\nBEGIN;\n\n{body}\n\nCOMMIT;\n"


# --- the functions ----------------------------------------------------------------------


def _unit(shift: int) -> int:
    """The value of the lowest bit of a field: the divisor that brings it down to bit 0."""
    unit: int = 2**shift
    return unit


def _field(shift: int, size: int) -> str:
    """The SQL reading one field of ``id``: below it divided away, above it cut off."""
    unit = _unit(shift)
    return f"id % {size}" if unit == 1 else f"(id / {unit}) % {size}"


def _time_of(layout: TwitterLayout) -> str:
    """The id's time as timestamptz: exact (interval arithmetic in microseconds, no float),
    and built from immutable operations only (a timestamp read as UTC)."""
    ms = f"id / {_unit(layout.timestamp_shift)} + {layout.epoch_ms}"
    return (
        f"(TIMESTAMP '1970-01-01 00:00:00' + ({ms}) * INTERVAL '1 millisecond') AT TIME ZONE 'UTC'"
    )


def _negative_check(layout: TwitterLayout, lang: str) -> str:
    error = NegativeIdError(field="id", value=_MARK, layout=layout.name, max=layout.max_id)
    message = _message(error, lang, "id")
    return f"    IF id < 0 THEN\n        RAISE EXCEPTION USING ERRCODE = '22003', MESSAGE = {message};\n    END IF;\n"


def _timestamp_function(layout: TwitterLayout, lang: str) -> str:
    return (
        f"CREATE OR REPLACE FUNCTION snowid_timestamp(id bigint)\n"
        f"RETURNS timestamptz\nLANGUAGE plpgsql {_QUALIFIERS}\nAS $snowid$\nBEGIN\n"
        f"{_negative_check(layout, lang)}"
        f"    RETURN {_time_of(layout)};\nEND\n$snowid$"
    )


def _parts_function(layout: TwitterLayout, lang: str) -> str:
    fields = (
        ('"timestamp"', _time_of(layout)),
        ("datacenter", _field(layout.datacenter_shift, layout.max_datacenter + 1)),
        ("machine", _field(layout.machine_shift, layout.max_machine + 1)),
        ("sequence", _field(layout.sequence_shift, layout.max_sequence + 1)),
    )
    assignments = "".join(f"    {name} := {value};\n" for name, value in fields)
    return (
        "CREATE OR REPLACE FUNCTION snowid_parts(\n    id bigint,\n"
        '    OUT "timestamp" timestamptz,\n    OUT datacenter integer,\n'
        "    OUT machine integer,\n    OUT sequence integer\n)\n"
        f"LANGUAGE plpgsql {_QUALIFIERS}\nAS $snowid$\nBEGIN\n"
        f"{_negative_check(layout, lang)}{assignments}END\n$snowid$"
    )


def _bound_function(
    name: str, rounding: str, low_bits: int, layout: TwitterLayout, lang: str
) -> str:
    """``first_id_at`` (``ceil``, low bits 0) or ``last_id_at`` (``floor``, low bits full)."""
    first, last, name_ = layout.epoch_ms, layout.max_timestamp, layout.name
    before = TimestampBeforeEpochError(
        field="timestamp", value=_MARK, min=first, max=last, layout=name_
    )
    after = TimestampAfterEndError(
        field="timestamp", value=_MARK, min=first, max=last, layout=name_
    )
    low = f" + {low_bits}" if low_bits else ""
    return (
        f"CREATE OR REPLACE FUNCTION {name}(t timestamptz)\n"
        f"RETURNS bigint\nLANGUAGE plpgsql {_QUALIFIERS}\nAS $snowid$\n"
        # extract(epoch) is numeric (exact) since PostgreSQL 14; ±infinity stays infinite.
        f"DECLARE\n    ms numeric := {rounding}(extract(epoch FROM t) * 1000);\nBEGIN\n"
        f"    IF ms < {layout.epoch_ms} THEN\n"
        f"        RAISE EXCEPTION USING ERRCODE = '22008',"
        f" MESSAGE = {_message(before, lang, 'ms::text')};\n    END IF;\n"
        f"    IF ms > {layout.max_timestamp} THEN\n"
        f"        RAISE EXCEPTION USING ERRCODE = '22008',"
        f" MESSAGE = {_message(after, lang, 'ms::text')};\n    END IF;\n"
        f"    RETURN (ms::bigint - {layout.epoch_ms}) * {_unit(layout.timestamp_shift)}{low};\n"
        f"END\n$snowid$"
    )


def _message(error: SnowIdError, lang: str, value_sql: str) -> str:
    """``error``'s catalog message as an SQL expression, the value spliced in at _MARK."""
    text = error.message(lang)
    head, _, tail = text.partition(_MARK)
    return f"{_literal(head)} || {value_sql} || {_literal(tail)}"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# --- installing them --------------------------------------------------------------------


@detached()
def apply_postgres(url: str, statements: Sequence[str]) -> None:
    """Run ``statements`` in one transaction on the PostgreSQL database at ``url``.

    Errors show the URL's display form (``snowid.lease._redact``: never a user or password):
    ``InvalidDatabaseUrlError`` (not a ``postgresql://`` URL), ``DatabaseUnreachableError``,
    ``DatabaseRefusedError`` (nothing was changed), ``ExtraMissingError`` (no psycopg).
    """
    text = str(url)
    if not text.startswith(("postgresql://", "postgres://")):
        raise InvalidDatabaseUrlError(value=redact(text))
    try:
        import psycopg
    except ImportError:
        raise ExtraMissingError(
            feature="snowid sql postgres --apply", package="psycopg", extra="postgres"
        ) from None
    shown = redact(text)
    try:
        conn: Any = psycopg.connect(text, connect_timeout=_CONNECT_TIMEOUT_S)
    except (psycopg.Error, ValueError) as error:  # ValueError: a URL libpq cannot parse
        raise DatabaseUnreachableError(
            url=shown, reason=_reason(error, text), **driver_detail(error, text)
        ) from None
    try:
        with conn.transaction():
            for statement in statements:
                conn.execute(statement)
    except psycopg.Error as error:
        raise DatabaseRefusedError(
            url=shown, reason=_reason(error, text), **driver_detail(error, text)
        ) from None
    finally:
        conn.close()


def _reason(error: BaseException, url: str) -> str:
    """The driver's first line, without any secret of the URL should it quote one."""
    return scrub((str(error).strip().splitlines() or [type(error).__name__])[0], url)


name_errors_module(globals())  # reprs and pickles say snowid.errors.X
