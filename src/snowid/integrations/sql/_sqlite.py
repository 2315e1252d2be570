"""SQLite: a view over the user's table, from ``_plan`` (SQLite has no ``CREATE FUNCTION``,
and a function registered from Python would exist only in that one connection).

``<view>`` selects every column of ``<table>`` and adds, for its id column ``<column>``:

- ``<column>_timestamp``: the time as ISO 8601 UTC text with milliseconds
  (``2024-05-01T12:00:00.123Z``, as ``snowid.decode(…).datetime``); NULL past year 9999;
- ``<column>_unix_ms``: the time in Unix ms (an integer, exact for every layout);
- ``<column>_<field>`` for each field.

SQLite's ``INTEGER`` is signed, so an id from ``2**63`` on of an unsigned layout is kept
as the negative number of the same bits (as Instagram's ``next_id()`` does), and read
so. A value that is not such an integer (text, a real, NULL, a negative id of a signed
layout) gives NULL in every added column: never a wrong time. SQLite runs the script as
is; the time is built from whole seconds and milliseconds, so no float is involved.
"""

from __future__ import annotations

from snowid._isotime import LAST_DATETIME_MS
from snowid.integrations.sql._exceptions import SqlNameError
from snowid.integrations.sql._plan import Plan

__all__ = ["column_names", "quote", "statements"]


def quote(name: str, field: str) -> str:
    """``name`` as an SQL identifier in double quotes; SqlNameError if it is empty or holds
    a control character (a name is never spliced in unquoted)."""
    if not name or not name.isprintable():
        raise SqlNameError(field=field, value=name, reason="identifier")
    return '"' + name.replace('"', '""') + '"'


def column_names(plan: Plan, column: str) -> list[str]:
    """The added columns, in order: the time as text, in Unix ms, then each field."""
    return [f"{column}_{suffix}" for suffix in ("timestamp", "unix_ms")] + [
        f"{column}_{field.name}" for field in plan.fields
    ]


def statements(plan: Plan, table: str, column: str, view: str) -> list[str]:
    """``DROP VIEW IF EXISTS`` and ``CREATE VIEW``."""
    source = f"t.{quote(column, '--column')}"
    valid = f"typeof({source}) = 'integer'"
    if not plan.unsigned:
        valid += f" AND {source} >= 0"
    ms = plan.unix_ms(source)
    seconds = f"strftime('%Y-%m-%dT%H:%M:%S', {ms} / 1000, 'unixepoch')"
    text = f"{seconds} || printf('.%03dZ', {ms} % 1000)"
    values = [
        f"CASE WHEN {valid} AND {ms} <= {LAST_DATETIME_MS} THEN {text} END",
        f"CASE WHEN {valid} THEN {ms} END",
        *(f"CASE WHEN {valid} THEN {plan.field(source, field)} END" for field in plan.fields),
    ]
    added = ",\n".join(
        f"    {value} AS {quote(name, '--column')}"
        for value, name in zip(values, column_names(plan, column), strict=True)
    )
    shown = quote(view, "--view")
    return [
        f"DROP VIEW IF EXISTS {shown}",
        f"CREATE VIEW {shown} AS\nSELECT t.*,\n{added}\nFROM {quote(table, '--table')} AS t",
    ]
