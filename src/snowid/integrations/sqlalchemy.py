"""The SQLAlchemy column type behind ``snowid.sqlalchemy`` (the public face, whose docstring
shows its use): ``SnowIdType``, ``created_between``, ``new_id``."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import BigInteger
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import QueryableAttribute
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import TypeDecorator

import snowid.integrations.dbapi  # noqa: F401  (registers the drivers' adapters)
from snowid.ids import SnowId, id_range, to_snowid
from snowid.process import next_id

if TYPE_CHECKING:
    from alembic.autogenerate.api import AutogenContext

__all__ = ["SnowIdType", "created_between", "new_id", "render_item"]

new_id = next_id
"""Column default for new rows: ``snowid.next_id`` (the process-wide generator), by name."""


class SnowIdType(TypeDecorator[SnowId]):
    """A Snowflake id column: ``BIGINT`` in the database, ``SnowId`` in Python."""

    impl = BigInteger
    cache_ok = True

    @property
    def python_type(self) -> type[SnowId]:
        return SnowId

    def process_bind_param(self, value: Any, dialect: Dialect) -> int | None:
        del dialect
        if value is None:
            return None
        return int(to_snowid(value))

    def process_literal_param(self, value: Any, dialect: Dialect) -> str:
        del dialect
        if value is None:
            return "NULL"
        return str(to_snowid(value))

    def process_result_value(self, value: Any, dialect: Dialect) -> SnowId | None:
        del dialect
        if value is None:
            return None
        return to_snowid(value, "stored id")  # a corrupt row is an error, not a wrong id


def created_between(
    column: ColumnElement[Any] | QueryableAttribute[Any],
    start: _dt.datetime | int,
    end: _dt.datetime | int,
) -> ColumnElement[bool]:
    """``column BETWEEN low AND high``: the rows whose id was made from ``start`` to ``end``.

    ``column`` is a Core column (``table.c.id``) or a mapped attribute (``Order.id``, typed
    ``InstrumentedAttribute`` by SQLAlchemy 2). Both ends included; datetimes (naive = UTC)
    or Unix ms; a window reaching past either end of the layout is cut to it
    (``snowid.id_range``). Uses the primary-key index: no time column is needed.
    """
    return column.between(*id_range(start, end))


_TYPE_PATH = "snowid.sqlalchemy"  # the documented import path, kept by the face module


def render_item(type_: str, obj: Any, autogen_context: AutogenContext) -> str | Literal[False]:
    """Alembic's ``render_item`` hook: write ``SnowIdType`` columns with their import.

    Alembic writes a type from outside SQLAlchemy as ``module.Class()`` but adds no import
    for it, so the migration fails with ``NameError`` when it runs. Pass this function as
    ``context.configure(render_item=...)`` in env.py (or call it first from your own hook);
    it returns ``False`` for everything else, which tells Alembic to render as usual.
    """
    if type_ == "type" and isinstance(obj, SnowIdType):
        if autogen_context.imports is not None:  # None outside a revision file
            autogen_context.imports.add(f"import {_TYPE_PATH}")
        return f"{_TYPE_PATH}.SnowIdType()"
    return False
