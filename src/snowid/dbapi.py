"""Database drivers that take a ``SnowId`` as a query parameter, once this module is imported.

A SnowId equals its int but is not an int (no ``int`` subclass, no ``__index__``), so a
driver does not know how to send it. Importing ``snowid.dbapi`` (``snowid.sqlalchemy``
does) registers it, as a 64-bit integer, with every supported driver that is installed:

- psycopg 3 (``snowid[postgres]``): text and binary dumpers on ``psycopg.adapters``;
- PyMySQL (``snowid[mysql]``): an encoder in ``pymysql.converters``, for the connections
  opened after the import;
- sqlite3 (standard library): an adapter.

Values come back from the drivers as plain ints: ``SnowId(value)``, or let
``snowid.sqlalchemy.SnowIdType`` convert them.
"""

from __future__ import annotations

from snowid.integrations.dbapi import register_adapters

__all__ = ["register_adapters"]
