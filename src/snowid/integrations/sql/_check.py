"""Reading a PostgreSQL table's primary-key index for ``snowid sql postgres --check-index``.

``check_postgres_index(url, table)`` connects as ``--apply`` does (``connect_postgres``),
finds the table with ``to_regclass`` (the name is a parameter, read by PostgreSQL's own
rules: ``orders``, ``shop.orders``, ``"Shop"."Order"``; never put into the SQL text), its
primary key and key column, then reads the index with ``pgstatindex`` from the
``pgstattuple`` extension (in whatever schema it was installed) and judges it
(``_density.judge``). Every identifier that does go into SQL text is composed with
``psycopg.sql.Identifier``. Only SELECTs run, on one connection, closed at the end.
"""

from __future__ import annotations

import math
from typing import Any, Final

from snowid._exceptions import detached
from snowid.integrations.sql._apply import connect_postgres, reason_of
from snowid.integrations.sql._density import IndexCheck, KeyKind, judge
from snowid.integrations.sql._exceptions import (
    DatabaseRefusedError,
    IndexCheckError,
    PgstattupleError,
)
from snowid.lease import driver_detail, redact

__all__ = ["SNOWFLAKE_FLOOR", "UUID_SAMPLE", "check_postgres_index"]

FIELD: Final = "--check-index"

SNOWFLAKE_FLOOR: Final = 2**50
"""A bigint key whose largest value reaches this reads as Snowflake ids: an id made a week
after its layout's epoch is past it (Twitter, Discord, Sonyflake), a sequence never is."""

UUID_SAMPLE: Final = 64
"""uuid keys read (the first ones stored) to tell version 7 from the others."""

_TABLE = """
SELECT c.oid, c.relkind, quote_ident(n.nspname), quote_ident(c.relname), n.nspname, c.relname,
       greatest(c.reltuples::bigint,
                coalesce((SELECT s.n_live_tup FROM pg_stat_all_tables s WHERE s.relid = c.oid), 0))
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.oid = to_regclass(%s)
"""

_PRIMARY_KEY = """
SELECT i.indexrelid, quote_ident(n.nspname) || '.' || quote_ident(ic.relname), am.amname,
       pg_relation_size(i.indexrelid),
       ARRAY(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(num, pos)
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.num ORDER BY k.pos),
       ARRAY(SELECT format_type(a.atttypid, a.atttypmod)
             FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(num, pos)
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.num ORDER BY k.pos)
FROM pg_index i
JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_namespace n ON n.oid = ic.relnamespace
JOIN pg_am am ON am.oid = ic.relam
WHERE i.indrelid = %s AND i.indisprimary
"""

_EXTENSION = """
SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
WHERE e.extname = 'pgstattuple'
"""

_TABLES = {"r": "table", "p": "partitioned"}
_KINDS = {"v": "view", "m": "materialized view", "S": "sequence", "f": "foreign table",
          "i": "index", "I": "partitioned index", "c": "composite type", "t": "TOAST table"}  # fmt: skip


@detached()
def check_postgres_index(url: str, table: str) -> IndexCheck:
    """Read and judge the primary-key index of ``table`` in the database at ``url``."""
    text = str(url)
    shown = redact(text)
    conn: Any = connect_postgres(text, field=FIELD)
    conn.autocommit = True
    import psycopg  # there: connect_postgres has used it
    from psycopg import sql

    def wrong(reason: Any, kind: str = "") -> IndexCheckError:
        return IndexCheckError(value=table, reason=reason, url=shown, kind=kind)

    try:
        try:
            found = conn.execute(_TABLE, (table,)).fetchone()
        except psycopg.Error:  # to_regclass refuses what is no name: a.b.c.d, "unclosed
            raise wrong("name") from None
        if found is None:
            raise wrong("no_table")
        oid, relkind, schema_q, name_q, schema, name, rows = found
        if relkind not in _TABLES:
            raise wrong("not_a_table", _KINDS.get(relkind, relkind))
        if relkind == "p":
            raise wrong("partitioned")
        key = conn.execute(_PRIMARY_KEY, (oid,)).fetchone()
        if key is None:
            raise wrong("no_primary_key")
        index_oid, index, method, index_bytes, columns, types = key
        if method != "btree":
            raise wrong("not_btree", method)
        kind, version = _key_kind(conn, sql.Identifier(schema, name), columns, types)
        density, fragmentation, leaf_pages = _statistics(conn, index_oid, shown, text)
    except psycopg.Error as error:
        raise DatabaseRefusedError(
            url=shown, reason=reason_of(error, text), action="read", **driver_detail(error, text)
        ) from None
    finally:
        conn.close()
    return IndexCheck(
        table=f"{schema_q}.{name_q}",
        index=index,
        columns=tuple(columns),
        types=tuple(types),
        kind=kind,
        uuid_version=version,
        rows=int(rows),
        index_bytes=int(index_bytes),
        leaf_pages=leaf_pages,
        density=density,
        fragmentation=fragmentation,
        verdict=judge(kind, density, leaf_pages),
    )


def _key_kind(
    conn: Any, table: Any, columns: list[str], types: list[str]
) -> tuple[KeyKind, str | None]:
    """What a one-column key holds (a composite key is ``other``), and the version its
    sampled uuids share (None when they do not, or the key is no uuid)."""
    from psycopg import sql

    if len(columns) != 1:
        return "other", None
    column = sql.Identifier(columns[0])
    if types[0] in ("smallint", "integer"):
        return "integer", None
    if types[0] == "bigint":
        query = sql.SQL("SELECT max({}) FROM {}").format(column, table)
        top = conn.execute(query).fetchone()[0]
        return ("snowflake" if top is not None and top >= SNOWFLAKE_FLOOR else "integer"), None
    if types[0] == "uuid":
        query = sql.SQL(
            "SELECT DISTINCT substr(k::text, 15, 1) FROM (SELECT {} AS k FROM {} LIMIT %s) s"
        ).format(column, table)
        versions = {row[0] for row in conn.execute(query, (UUID_SAMPLE,)).fetchall()}
        version = versions.pop() if len(versions) == 1 else None
        return ("uuid7" if version == "7" else "uuid"), version
    return "other", None


def _statistics(
    conn: Any, index_oid: int, shown: str, text: str
) -> tuple[float | None, float | None, int]:
    """``pgstatindex``'s leaf density, leaf fragmentation (None for NaN: an index too small
    to have them) and leaf pages; PgstattupleError when it cannot be used."""
    import psycopg
    from psycopg import sql

    found = conn.execute(_EXTENSION).fetchone()
    if found is None:
        raise PgstattupleError(url=shown, reason="missing")
    query = sql.SQL(
        "SELECT avg_leaf_density, leaf_fragmentation, leaf_pages FROM {}.pgstatindex(%s::oid::regclass)"
    ).format(sql.Identifier(found[0]))
    try:
        density, fragmentation, leaf_pages = conn.execute(query, (index_oid,)).fetchone()
    except psycopg.errors.InsufficientPrivilege as error:
        raise PgstattupleError(
            url=shown,
            reason="privilege",
            detail=reason_of(error, text),
            **driver_detail(error, text),
        ) from None
    return _number(density), _number(fragmentation), int(leaf_pages)


def _number(value: object) -> float | None:
    number = float(value) if isinstance(value, (int, float)) else None
    return None if number is None or math.isnan(number) else number
