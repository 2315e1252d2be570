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

import snowid.dbapi  # noqa: F401  (this path has always loaded snowid.dbapi too)
from snowid.integrations.sqlalchemy import SnowIdType, created_between, new_id

__all__ = ["SnowIdType", "created_between", "new_id"]

SnowIdType.__module__ = __name__  # reprs and Alembic name the public path
