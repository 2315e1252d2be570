"""The SQL of a time window: what ``snowid range``, ``GET /api/range`` and ``/range`` print.

The bounds are the library's (``id_range`` and, for the column, ``bigint_ranges``): a
window is one ``BETWEEN`` in the stored form of a signed 64-bit column (PostgreSQL
``bigint``, SQLite ``INTEGER``, MySQL and DuckDB ``BIGINT``), except where it crosses the
instant from which a layout's ids reach bit 63 (Instagram: 2046-06-27T17:00:49.497Z),
since a signed column keeps the later ids negative: there it is two ``BETWEEN``\\ s, the
ids before that instant and the negative ones after it. ``low`` and ``high`` stay the
ids themselves (unsigned), for a column of unsigned 64-bit integers.
"""

from __future__ import annotations

from collections.abc import Sequence

from snowid.ids import Layout, bigint_ranges, get_layout, id_range, iso_ms

__all__ = ["range_info", "signed_note", "where_sql"]

_TOP = 2**63
"""The first id a signed 64-bit column keeps negative."""


def where_sql(ranges: Sequence[tuple[int, int]], column: str = "id") -> str:
    """``column BETWEEN low AND high`` for one range; two are joined by ``OR`` inside
    parentheses, so that the text can be ANDed with other conditions as it is."""
    tests = [f"{column} BETWEEN {low} AND {high}" for low, high in ranges]
    return tests[0] if len(tests) == 1 else f"({' OR '.join(tests)})"


def range_info(start_ms: int, end_ms: int, layout: Layout | str = "twitter") -> dict[str, object]:
    """The JSON object of ``GET /api/range`` and ``snowid range --json``: the window, the
    ids ``low`` and ``high`` (decimal strings; ``BETWEEN 1 AND 0`` when the window holds
    none), ``ranges`` (the same window over a signed column, one or two pairs of decimal
    strings) and ``sql``, the ``WHERE`` condition using them."""
    spec = get_layout(layout)
    low, high = id_range(start_ms, end_ms, spec)
    stored = bigint_ranges(start_ms, end_ms, spec)
    return {
        "layout": spec.name,
        "from": {"timestamp": start_ms, "datetime": iso_ms(start_ms)},
        "to": {"timestamp": end_ms, "datetime": iso_ms(end_ms)},
        "low": str(low),
        "high": str(high),
        "empty": (low, high) == (1, 0),
        "ranges": [[str(a), str(b)] for a, b in stored],
        "sql": where_sql(stored),
    }


def signed_note(info: dict[str, object], layout: Layout | str) -> int | None:
    """For a ``range_info`` of ``layout`` whose SQL holds an id stored negative (a window
    reaching past the instant an unsigned layout's ids reach bit 63): that instant, in
    Unix ms, for a note beside the SQL; else None."""
    ranges = info["ranges"]
    assert isinstance(ranges, list)
    if not any(bound.startswith("-") for pair in ranges for bound in pair):
        return None
    spec = get_layout(layout)
    return spec.epoch_ms + spec.split(_TOP)[0] * spec.unit_ms
