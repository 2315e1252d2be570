"""SQLAlchemy 2 columns of Snowflake ids (``pip install 'snowid[sqlalchemy]'``).

::

    from sqlalchemy.orm import Mapped, mapped_column
    from snowid import SnowId
    from snowid.sqlalchemy import SnowIdType, new_id

    class Order(Base):
        __tablename__ = "orders"
        id: Mapped[SnowId] = mapped_column(SnowIdType, primary_key=True, default=new_id)

The column is a signed 64-bit ``BIGINT`` holding the id's value (every Twitter-layout id
fits: bit 63 is always 0); reads give ``SnowId``. Binds take a SnowId, an int or a decimal
string and refuse anything else with snowid's specific error, before the database sees it.
``new_id`` is the process-wide generator (``snowid.configure`` or ``SNOWID_LEASE``), so
every process, forked worker and thread issues its own ids.

Importing this module also lets psycopg 3, PyMySQL and sqlite3 take a SnowId as a raw
query parameter (``snowid.dbapi``).
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from sqlalchemy import BigInteger
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import TypeDecorator

import snowid.integrations.dbapi  # noqa: F401  (registers the drivers' adapters)
from snowid.ids import SnowId, id_range, to_snowid
from snowid.process import next_id

__all__ = ["SnowIdType", "created_between", "new_id"]

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
    column: ColumnElement[Any], start: _dt.datetime | int, end: _dt.datetime | int
) -> ColumnElement[bool]:
    """``column BETWEEN low AND high``: the rows whose id was made from ``start`` to ``end``.

    Both ends included; datetimes (naive = UTC) or Unix ms; a window reaching past either
    end of the layout is cut to it (``snowid.id_range``). Uses the primary-key index: no
    time column is needed.
    """
    return column.between(*id_range(start, end))
