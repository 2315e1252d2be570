"""SQL functions that read Snowflake ids inside a database, written from a ``Layout``.

``postgres_script()`` is the script ``snowid sql postgres`` prints (for psql or a
migration), ``postgres_statements()`` the same as separate statements, and
``apply_postgres(url, statements)`` installs them in one transaction (psycopg, the
``postgres`` extra), with errors that never show the password. ``FUNCTIONS`` names what
is installed: ``snowid_timestamp``, ``snowid_parts``, ``snowid_first_id_at`` and
``snowid_last_id_at``.
"""

from __future__ import annotations

from snowid._sql import FUNCTIONS, apply_postgres, postgres_script, postgres_statements

__all__ = ["FUNCTIONS", "apply_postgres", "postgres_script", "postgres_statements"]
