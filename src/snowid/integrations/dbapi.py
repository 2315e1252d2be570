"""The driver adapters behind ``snowid.dbapi`` (the public face, whose docstring says what
they do): each installed driver learns to send a ``SnowId`` as a 64-bit integer."""

from __future__ import annotations

import importlib.util
from typing import Any

from snowid.ids import SnowId

__all__ = ["register_adapters"]

_done: set[str] = set()


def register_adapters() -> tuple[str, ...]:
    """Register SnowId with each installed driver (idempotent); the drivers registered."""
    for name, register in (("sqlite3", _sqlite3), ("psycopg", _psycopg), ("pymysql", _pymysql)):
        if name not in _done and importlib.util.find_spec(name) is not None:
            register()
            _done.add(name)
    return tuple(sorted(_done))


def _sqlite3() -> None:
    import sqlite3

    sqlite3.register_adapter(SnowId, int)


def _psycopg() -> None:
    import psycopg
    from psycopg.adapt import Dumper
    from psycopg.pq import Format

    int8_oid = psycopg.postgres.types["int8"].oid

    class SnowIdDumper(Dumper):
        oid = int8_oid

        def dump(self, obj: Any) -> bytes:
            return str(obj).encode()  # str(SnowId) is its decimal value

        def quote(self, obj: Any) -> bytes:
            return str(obj).encode()  # never negative: no space needed before a minus

    class SnowIdBinaryDumper(Dumper):
        oid = int8_oid
        format = Format.BINARY

        def dump(self, obj: Any) -> bytes:
            return int(obj).to_bytes(8, "big", signed=True)

    psycopg.adapters.register_dumper(SnowId, SnowIdDumper)
    psycopg.adapters.register_dumper(SnowId, SnowIdBinaryDumper)


def _pymysql() -> None:
    from pymysql import converters

    def escape_snowid(value: SnowId, mapping: object = None) -> str:
        del mapping
        return str(value)

    # ``conversions`` is copied into each new connection; ``encoders`` serves escape_item.
    converters.encoders[SnowId] = escape_snowid
    converters.conversions[SnowId] = escape_snowid


register_adapters()
